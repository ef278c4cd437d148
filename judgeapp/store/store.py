"""The store facade: every read and write of a project goes through `Store`.

Each method opens one short transaction (`with self._begin() as conn`) and returns plain
records or numpy arrays. Methods that take several files take them together, so an import of
many files lands whole or not at all. Bulk paths (runs, documents, qrels) use Core statements
with `executemany`; the ORM classes in `models` define the schema.
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Self, cast

import numpy as np
from sqlalchemy import Connection, Table, case, func, inspect, select
from sqlalchemy.exc import DBAPIError

from judgeapp.errors import NoProject
from judgeapp.formats.bulk import RunColumns, columns_of_run
from judgeapp.formats.checks import duplicate_error
from judgeapp.formats.errors import FormatError
from judgeapp.formats.judgments import JudgmentLine
from judgeapp.formats.keys import ByteKeys, HashCollision, Numbered, hash_groups
from judgeapp.formats.model import Document, QrelsFile, RunFile, Topic
from judgeapp.records import (
    DEFAULT_SCALE,
    AssessorInfo,
    Changes,
    DocumentRecord,
    GradeInfo,
    HistoryEvent,
    JudgmentChange,
    JudgmentRecord,
    JudgmentRows,
    JudgmentState,
    MergeConflict,
    MergeReport,
    RankedLists,
    RunInfo,
    TopicRecord,
)
from judgeapp.store import models as m
from judgeapp.store.base import Scope, StoreError, raw, raw_rows, utcnow
from judgeapp.store.files import (
    ProjectFileError,
    check_project_file,
    discard_staged,
    end_session,
    file_error,
    hold,
    put_in_place,
    release,
    session_mark,
    staged_file,
)
from judgeapp.store.locking import DEFAULT_WAIT_S, WAIT_SETTING
from judgeapp.store.pools import PoolStoreMixin
from judgeapp.store.schema import (
    Refused,
    create_project_engine,
    current_revision,
    database_url,
    sqlite_path,
    upgrade,
)
from judgeapp.store.search import SearchStoreMixin, index_documents, unindex_documents
from judgeapp.store.team import TeamStoreMixin

RELEVANT_FROM_KEY = "scale.relevant_from"
GUIDELINES_KEY = "scale.guidelines"
ID_DTYPE = np.dtype("<i4")
SCORE_DTYPE = np.dtype("<f8")
DOC_BATCH = 2000
MAX_TIME_S = 31_536_000.0  # a judgment's time spent, at most (schema 0006 refuses more)


def distinct_docnos(
    docnos: Sequence[str], hashes: np.ndarray | None = None
) -> tuple[list[str], np.ndarray]:
    """The distinct docnos of a list and, for every entry, the index of its docno among them.

    Works on the strings' hashes with numpy (given by the run reader, which computed them
    while the strings were in the CPU cache), then checks every entry against its
    representative, so the result is exact; only a true hash collision takes the slower
    dict path."""
    n = len(docnos)
    if n == 0:
        return [], np.empty(0, dtype=np.int64)
    if hashes is None or len(hashes) != n:
        hashes = np.fromiter(map(hash, docnos), dtype=np.int64, count=n)
    first, inverse = hash_groups(hashes)
    entries = np.empty(n, dtype=object)
    entries[:] = docnos
    unique = entries[first]
    if (entries == unique[inverse]).all():
        return unique.tolist(), inverse
    table: dict[str, int] = {}
    inverse = np.fromiter((table.setdefault(d, len(table)) for d in docnos), np.int64, n)
    return list(table), inverse


def _fold(events: Sequence[Any]) -> dict[str, Any] | None:
    """The current judgment that a judgment's history (oldest first) leaves, or None when
    its last change removed it. Time spent sums the changes since it was last created."""
    state: dict[str, Any] | None = None
    for e in events:
        if e.grade is None:
            state = None
            continue
        if state is None:
            search = getattr(e, "origin", None) == "search"
            state = {
                "time_spent": 0.0,
                "created_at": e.at,
                "found_by": "search" if search else "pool",
                "query": getattr(e, "query", None) if search else None,
            }
        state.update(
            grade=e.grade,
            note=e.note,
            flagged=bool(e.flagged),
            time_spent=state["time_spent"] + float(e.time_spent),
            updated_at=e.at,
        )
    if state is not None:  # within what a judgment may hold (schema 0006)
        state["time_spent"] = min(max(state["time_spent"], 0.0), MAX_TIME_S)
    return state


def _fold_grade(events: Sequence[Any]) -> int | None:
    state = _fold(events)
    return None if state is None else int(state["grade"])


def _intern_postgres(conn: Connection, ordered: list[str]) -> np.ndarray:
    """Ids of `ordered` (distinct docnos in code-point order) on PostgreSQL, creating the
    missing ones in that order: the docnos travel as one array parameter."""
    raw(
        conn,
        "INSERT INTO docnos (docno) SELECT d FROM unnest(?::text[]) WITH ORDINALITY AS u(d, k) "
        "ORDER BY k ON CONFLICT (docno) DO NOTHING",
        (ordered,),
    )
    rows = raw(
        conn,
        "SELECT d.id FROM unnest(?::text[]) WITH ORDINALITY AS u(docno, k) "
        "JOIN docnos AS d ON d.docno = u.docno ORDER BY u.k",
        (ordered,),
    ).fetchall()
    return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


SEEN_CACHE_KIB = 256


class _SeenDocuments:
    """The documents of one put_documents stream so far, for its duplicate check, in
    memory that does not grow with the stream: one bit a docno id (the project's docnos
    are numbered densely) says whether the stream had it; the line and source of each
    wait in a temporary table of the transaction, read only for a duplicate."""

    TABLE = "judgeapp_seen_documents"

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.bits = np.zeros(0, dtype=np.uint8)
        self.sources: dict[str | None, int] = {}
        end = " ON COMMIT DROP" if conn.dialect.name == "postgresql" else ""
        if conn.dialect.name == "sqlite":
            # the temporary table's pages go to its file beyond 256 KiB: with SQLite's
            # default cache they stayed in memory, which grew with the stream (import docs
            # of 500,000 documents: SQLite's memory 3.0 / 4.7 / 6.6 MiB after a tenth, a
            # quarter and half of them; 3.0 / 3.2 MiB after a tenth and half with this)
            raw(conn, f"PRAGMA temp.cache_size = -{SEEN_CACHE_KIB}")
        raw(conn, f"CREATE TEMPORARY TABLE {self.TABLE} (doc_id BIGINT, line BIGINT, src INT){end}")

    def close(self) -> None:
        if self.conn.dialect.name != "postgresql":
            raw(self.conn, f"DROP TABLE temp.{self.TABLE}")

    def add(self, batch: Sequence[tuple[Document, str | None]], ids: np.ndarray) -> None:
        """Take a batch (its docnos' ids given), or raise for its first duplicate."""
        if len(ids) and int(ids.max()) >> 3 >= len(self.bits):
            size = max((int(ids.max()) >> 3) + 1, 2 * len(self.bits))
            self.bits = np.concatenate((self.bits, np.zeros(size - len(self.bits), np.uint8)))
        masks = (1 << (ids & 7)).astype(np.uint8)
        before = (self.bits[ids >> 3] & masks) != 0
        order = np.argsort(ids, kind="stable")
        again = np.zeros(len(ids), dtype=bool)  # met earlier in this batch
        again[order[1:]] = ids[order[1:]] == ids[order[:-1]]
        if (before | again).any():
            k = int(np.flatnonzero(before | again)[0])
            self._raise(batch, ids, k, bool(before[k]))
        np.bitwise_or.at(self.bits, ids >> 3, masks)
        sources = [self.sources.setdefault(s, len(self.sources)) for _, s in batch]
        rows = list(zip(ids.tolist(), [d.line for d, _ in batch], sources, strict=True))
        raw(self.conn, f"INSERT INTO {self.TABLE} (doc_id, line, src) VALUES (?, ?, ?)", rows)

    def _raise(
        self, batch: Sequence[tuple[Document, str | None]], ids: np.ndarray, k: int, old: bool
    ) -> None:
        doc, source = batch[k]
        row = None
        if old:  # in an earlier batch?
            sql = f"SELECT line, src FROM {self.TABLE} WHERE doc_id = ?"
            row = raw(self.conn, sql, (int(ids[k]),)).first()
        if row is not None:
            earlier, line = list(self.sources)[row[1]], int(row[0])
        else:
            j = int(np.flatnonzero(ids[:k] == ids[k])[0])
            earlier, line = batch[j][1], batch[j][0].line
        if earlier == source and source is not None and line and doc.line:
            # within one file: the readers' own message
            raise duplicate_error(source, "docno", doc.docno, line, doc.line)
        raise FormatError(
            source or "documents",
            doc.line,
            f"duplicate docno {doc.docno}" + (f" (also in {earlier})" if earlier != source else ""),
        )


class NoProjectThere(StoreError, NoProject):
    """Nothing at the path of a project opened without `create` (a StoreError for the
    commands, judgeapp.errors.NoProject for the window, which may not import the store)."""


class TopicExists(StoreError):
    """A topic of the project would get another statement, and replacing was not asked for."""

    def __init__(self, qid: str) -> None:
        super().__init__(
            f"topic {qid} is in the project already, with another statement (--replace replaces it)"
        )
        self.qid = qid


@dataclass(frozen=True, slots=True)
class RunImport:
    """A parsed run file (records, or the bulk reader's columns) and how to store it."""

    run: RunFile | RunColumns
    name: str | None = None  # defaults to the run's tag
    sha256: str | None = None

    def columns(self) -> RunColumns:
        run = self.run
        if isinstance(run, RunColumns):
            return run
        return run.columns if run.columns is not None else columns_of_run(run)


class Store(PoolStoreMixin, TeamStoreMixin, SearchStoreMixin):
    """One open project database. Pool methods live in `judgeapp.store.pools`, full-text
    search in `judgeapp.store.search`."""

    # -- opening -------------------------------------------------------------------------
    @classmethod
    def open(cls, db: str | Path, *, create: bool = True) -> Store:
        """Open (and if needed create or upgrade) a project. `db` is a path or a URL."""
        return cls._open(db, create=create)

    @classmethod
    def build(cls, db: str | Path) -> Store:
        """A new project for `db`, a project file that does not exist yet, built in a file
        of its own beside it: nothing is at `db` until :meth:`publish` puts the project
        there whole (synced), and :meth:`close` without it removes what was built. For a
        command that creates a project and fills it (``import ... --create``): nothing is
        left behind when it fails, and SQLite writes each page once (no WAL, no sync per
        commit; see `schema._set_sqlite_pragmas`)."""
        path = sqlite_path(database_url(db))
        if path is None:
            raise StoreError(f"{db}: only a project file is built apart, not a database URL")
        check_project_file(path, create=True)
        if os.path.lexists(path):
            raise StoreError(f"{db}: a project file is there already")
        staged = staged_file(path)
        discard_staged(staged)  # left by a process of the same number that was killed
        try:
            store = cls._open(staged, create=True, built_for=path)
        except BaseException:
            discard_staged(staged)
            raise
        store._building = (staged, path)
        return store

    @staticmethod
    def is_new_file(db: str | Path) -> bool:
        """Whether `db` is a project file path with nothing there yet (what `build` takes)."""
        path = sqlite_path(database_url(db))
        return path is not None and not os.path.lexists(path)

    @property
    def being_built(self) -> bool:
        """Whether this is a new project that `publish` has yet to put in its place."""
        return self._building is not None

    def publish(self) -> None:
        """Close the project :meth:`build` made and put it in its place (WAL from now on)."""
        if self._building is None:
            raise StoreError("only a project being built is published")
        staged, path = self._building
        with self._engine.connect() as conn:
            driver = conn.connection.driver_connection
            driver.execute("PRAGMA journal_mode=WAL")  # type: ignore[union-attr]
        self._building = None
        self.close()
        put_in_place(staged, path)
        self.url = database_url(path)

    @classmethod
    def _open(cls, db: str | Path, *, create: bool, built_for: Path | None = None) -> Store:
        url = database_url(db)
        path = sqlite_path(url)
        if path is not None:
            check_project_file(path, create=create)
            if not create and not path.exists():
                raise NoProjectThere(str(db))
        # a project this user may read but not write is opened read-only (SQLite would
        # otherwise refuse even to read it: a WAL project needs its -shm file written)
        read_only = path is not None and path.exists() and not _writable(path)
        limits = {"wait": DEFAULT_WAIT_S}
        engine = create_project_engine(url, read_only=read_only, built_for=built_for, limits=limits)
        held = hold(path) if path is not None else None
        # before SQLite opens the file (and recovers a WAL a crash left)
        session, due = (
            session_mark(path)
            if path is not None and not read_only and built_for is None
            else (None, False)
        )
        try:
            if path is not None and not create and current_revision(engine) is None:
                raise ProjectFileError(f"{path}: not a judgeapp project (an empty database)")
            backup = upgrade(engine, url)
            if path is not None and held is None:  # created by the first connection
                held = hold(path)
            store = cls(engine, url, backup)
            store.read_only = read_only
            store._held_file = held  # released by close (or below, if this fails)
            store._session, store.check_due = session, due
            store.limits = limits
            store._settle()
            store._ensure_defaults()
        except (DBAPIError, Refused) as exc:  # the server refused us, or is not there
            engine.dispose()
            release(held)
            end_session(session)
            orig = getattr(exc, "orig", None)
            reason = str(orig or exc).strip().splitlines()[0]
            raise StoreError(f"cannot open the project: {reason}") from None
        except BaseException:
            engine.dispose()
            release(held)
            end_session(session)
            raise
        return store

    @staticmethod
    def exists(db: str | Path) -> bool:
        """Whether `db` holds a project already: a file that exists, or a database (URL)
        whose schema has been initialised (it has its creation time)."""
        if "://" not in str(db) or sqlite_path(database_url(db)) is not None:
            path = sqlite_path(database_url(db))
            return path is not None and path.exists()
        engine = create_project_engine(database_url(db))
        try:
            with engine.connect() as conn:
                if "settings" not in inspect(conn).get_table_names():
                    return False
                return bool(
                    conn.execute(
                        select(m.Setting.c.key).where(m.Setting.c.key == "created_at")
                    ).first()
                )
        except DBAPIError as exc:
            raise StoreError(f"cannot reach the project: {exc.orig}") from None
        finally:
            engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _settle(self) -> None:
        """How long this store's writes wait (the owner's choice, `team wait`), and on
        PostgreSQL whether this connection is a team member's role and what it may see."""
        wait = self.get_setting(WAIT_SETTING)
        if isinstance(wait, int | float) and not isinstance(wait, bool) and 0 < wait <= 86400:
            self.write_wait = float(wait)
            if self.limits["wait"] != float(wait):
                self.limits["wait"] = float(wait)
                self._engine.dispose()  # sessions from now on wait that long for a lock
        if self.dialect == "postgresql":
            self.refresh_scope()

    def refresh_scope(self) -> Scope | None:
        """Read again what the server shows this connection (a team member's role: its
        assessor, role and blind mode may change while it works); None for the owner."""
        if self.dialect != "postgresql":
            return None
        with self._read() as conn:
            owner = conn.exec_driver_sql(
                "SELECT pg_has_role(current_user, c.relowner, 'USAGE'), current_user "
                "FROM pg_class c WHERE c.oid = 'judgments'::regclass"
            ).one()
            if owner[0]:
                self.scope = None
                return None
            data = conn.exec_driver_sql("SELECT judgeapp_scope()").scalar_one()
        topics = data.get("topics")
        self.scope = Scope(
            role=str(owner[1]),
            assessor=data.get("assessor"),
            team_role=str(data.get("role") or "assessor"),
            sees_all=bool(data.get("sees_all")),
            topics=None if topics is None else tuple(topics),
            owner=str(data.get("owner")),
        )
        return self.scope

    def _ensure_defaults(self) -> None:
        with self._read() as conn:
            has_scale = conn.execute(select(func.count()).select_from(m.Grade)).scalar()
            has_created = conn.execute(
                select(m.Setting.c.key).where(m.Setting.c.key == "created_at")
            ).first()
        if has_scale and has_created:
            return  # nothing to write: opening an existing project leaves its file untouched
        with self._begin() as conn:  # under the write lock: another process may be first
            has_scale = conn.execute(select(func.count()).select_from(m.Grade)).scalar()
            has_created = conn.execute(
                select(m.Setting.c.key).where(m.Setting.c.key == "created_at")
            ).first()
            if not has_scale:
                conn.execute(
                    m.Grade.insert(),
                    [
                        {"grade": g.grade, "label": g.label, "key": g.key, "definition": ""}
                        for g in DEFAULT_SCALE
                    ],
                )
            if not has_created:
                conn.execute(
                    m.Setting.insert(),
                    [{"key": "created_at", "value": utcnow().isoformat(timespec="seconds")}],
                )

    # -- settings and scale ---------------------------------------------------------------
    def get_setting(self, key: str, default: Any = None) -> Any:
        with self._read() as conn:
            row = conn.execute(select(m.Setting.c.value).where(m.Setting.c.key == key)).first()
        return default if row is None else row[0]

    def set_setting(self, key: str, value: Any) -> None:
        if self.scope is not None:  # a member: only its own place in the work, by the server
            with self._member_write() as conn:
                raw(conn, "SELECT judgeapp_put_setting(?, ?::json)", (key, json.dumps(value)))
            return
        with self._begin() as conn:
            conn.execute(m.Setting.delete().where(m.Setting.c.key == key))
            conn.execute(m.Setting.insert(), [{"key": key, "value": value}])

    def scale(self) -> list[GradeInfo]:
        with self._read() as conn:
            rows = conn.execute(
                select(
                    m.Grade.c.grade, m.Grade.c.label, m.Grade.c.key, m.Grade.c.definition
                ).order_by(m.Grade.c.grade)
            )
            return [GradeInfo(*row) for row in rows]

    def relevant_from(self) -> int:
        """The lowest grade that counts as relevant (binary measures, counts, judging
        orders): the owner's choice, else 1 when the scale has it, else its second grade."""
        value = self.get_setting(RELEVANT_FROM_KEY)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        grades = [g.grade for g in self.scale()]
        if 1 in grades or len(grades) < 2:
            return 1
        return grades[1]

    def guidelines(self) -> str:
        """The judging guidelines the owner wrote (empty when none)."""
        return str(self.get_setting(GUIDELINES_KEY) or "")

    def grades_in_use(self) -> set[int]:
        """Grades of judgments that people made (assessors and adjudicators): a scale must
        keep them. Imported qrels and automatic judges may use any grade."""
        with self._read() as conn:
            rows = conn.execute(
                select(m.Judgment.c.grade)
                .join(m.Assessor, m.Assessor.c.id == m.Judgment.c.assessor_id)
                .where(m.Assessor.c.kind.in_(("person", "adjudicator")))
                .distinct()
            )
            return {int(g) for (g,) in rows}

    def set_scale(
        self,
        grades: Sequence[GradeInfo],
        *,
        relevant_from: int | None = None,
        guidelines: str | None = None,
    ) -> Changes:
        """Replace the scale (and, when given, the lowest relevant grade and the
        guidelines) in one transaction. A grade that people's judgments use must stay."""
        keys = [g.key for g in grades]
        if len(set(keys)) != len(keys) or len({g.grade for g in grades}) != len(grades):
            raise StoreError("each grade of a scale needs its own number and its own key")
        if not grades:
            raise StoreError("a scale needs at least one grade")
        if relevant_from is not None and relevant_from not in {g.grade for g in grades}:
            raise StoreError(f"relevant from grade {relevant_from}: the scale has no such grade")
        with self._begin() as conn:
            used = {
                int(g)
                for (g,) in conn.execute(
                    select(m.Judgment.c.grade)
                    .join(m.Assessor, m.Assessor.c.id == m.Judgment.c.assessor_id)
                    .where(m.Assessor.c.kind.in_(("person", "adjudicator")))
                    .distinct()
                )
            }
            dropped = sorted(used - {g.grade for g in grades})
            if dropped:
                listed = ", ".join(str(g) for g in dropped)
                raise StoreError(
                    f"judgments made with grade {listed} exist: the scale must keep "
                    f"{'them' if len(dropped) > 1 else 'it'}"
                )
            # a grade that stays with its key is updated in place, not deleted and inserted:
            # an assessor's judgment being recorded may hold a share lock on it (schema 0006)
            stored = {
                int(g): str(k) for g, k in conn.execute(select(m.Grade.c.grade, m.Grade.c.key))
            }
            kept = {g.grade for g in grades if stored.get(g.grade) == g.key}
            gone = [g for g in stored if g not in kept]
            if gone:
                conn.execute(m.Grade.delete().where(m.Grade.c.grade.in_(gone)))
            for g in grades:
                if g.grade in kept:
                    conn.execute(
                        m.Grade.update()
                        .where(m.Grade.c.grade == g.grade)
                        .values(label=g.label, definition=g.definition)
                    )
            fresh = [
                {"grade": g.grade, "label": g.label, "key": g.key, "definition": g.definition}
                for g in grades
                if g.grade not in kept
            ]
            if fresh:
                conn.execute(m.Grade.insert(), fresh)
            setting = m.Setting
            for key, value in ((RELEVANT_FROM_KEY, relevant_from), (GUIDELINES_KEY, guidelines)):
                if value is not None:
                    conn.execute(setting.delete().where(m.Setting.c.key == key))
                    conn.execute(setting.insert(), [{"key": key, "value": value}])
            self._changed(conn, Changes(scale=True))
        return Changes(scale=True)

    # -- docnos -------------------------------------------------------------------------------
    @staticmethod
    def _intern_unique(conn: Connection, unique: Sequence[str]) -> np.ndarray:
        """Ids of distinct docnos (int64, aligned with `unique`), creating missing ones.

        New docnos take the next ids in docno order, so the same inputs give the same ids in
        any process (ids order pools and seed the blind shuffle)."""
        if not unique:
            return np.empty(0, dtype=np.int64)
        # numpy's fixed-width text sort compares code points, which is Python's str order
        order = np.argsort(np.array(unique, dtype=str), kind="stable")
        ids = np.empty(len(unique), dtype=np.int64)
        ids[order] = Store._intern_ordered(conn, [unique[i] for i in order.tolist()])
        return ids

    @classmethod
    def _intern_columns(
        cls, conn: Connection, columns: Sequence[RunColumns], numbered: Numbered | None = None
    ) -> list[np.ndarray]:
        """Ids for every entry of every run (repeats allowed), creating missing docnos. The
        distinct docnos are found with an :class:`Interner` run after run (or come found,
        ``numbered``) and put in byte order (code-point order) by numpy, unless they come
        so; they go to SQLite as JSON built on their bytes (to PostgreSQL as text)."""
        if numbered is None:
            try:
                numbered = Numbered.of([(run.docnos, run.hashes) for run in columns])
            except HashCollision:  # two docnos with one hash: the exact road, through text
                texts = [run.docnos.to_list() for run in columns]
                ids = cls._intern(conn, [d for t in texts for d in t])
                bounds = np.cumsum([0] + [len(t) for t in texts]).tolist()
                return [ids[a:b] for a, b in itertools.pairwise(bounds)]
        numbered = numbered.in_byte_order()
        ids = np.zeros(0, dtype=ID_DTYPE)
        if len(numbered.keys):
            # as stored (int32): each run's gather then makes the stored column itself
            ids = cls._intern_ordered(conn, numbered.keys).astype(ID_DTYPE)
        return [ids[entries] for entries in numbered.ids]

    @staticmethod
    def _intern_ordered(conn: Connection, ordered: list[str] | ByteKeys) -> np.ndarray:
        """Ids of distinct docnos given in code-point order, creating missing ones in that
        order. The docnos travel to SQLite as one JSON array (built on their bytes when
        they come as :class:`ByteKeys`), and `json_each` joins them with the `docnos`
        table inside SQLite: the cost follows the number of docnos asked for, not the
        project's size."""
        if conn.dialect.name != "sqlite":
            texts = ordered.to_list() if isinstance(ordered, ByteKeys) else ordered
            return _intern_postgres(conn, texts)
        if isinstance(ordered, ByteKeys):
            payload = ordered.json_array()
        else:
            payload = json.dumps(ordered, ensure_ascii=False)
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            (before,) = cursor.execute("SELECT coalesce(max(id), 0) FROM docnos").fetchone()
            if before == 0:
                # a project without docnos: each takes its place in the array as its id,
                # what the ordered insert below would give, without SQLite sorting them
                cursor.execute(
                    "INSERT INTO docnos (id, docno) SELECT key + 1, value FROM json_each(?)",
                    (payload,),
                )
                return np.arange(1, len(ordered) + 1, dtype=np.int64)
            cursor.execute(
                "INSERT OR IGNORE INTO docnos (docno) SELECT value FROM json_each(?) ORDER BY key",
                (payload,),
            )
            if cursor.rowcount == len(ordered):
                # all new: this transaction holds the write lock, so they took the next ids
                # in array order (checked, then no lookup is needed)
                (after,) = cursor.execute("SELECT max(id) FROM docnos").fetchone()
                if after == before + len(ordered):
                    return np.arange(before + 1, after + 1, dtype=np.int64)
            rows = cursor.execute(
                "SELECT d.id FROM json_each(?) AS j JOIN docnos AS d ON d.docno = j.value "
                "ORDER BY j.key",
                (payload,),
            ).fetchall()
        except sqlite3.Error as exc:  # the driver's own cursor: no engine hook names the file
            listed = cursor.execute("PRAGMA database_list").fetchone()
            error = file_error(str(listed[2] if listed else conn.engine.url.database), exc)
            if error is None:
                raise
            raise error from None
        finally:
            cursor.close()
        ids = np.empty(len(ordered), dtype=np.int64)
        ids[:] = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        return ids

    @classmethod
    def _intern(
        cls, conn: Connection, docnos: Sequence[str], hashes: np.ndarray | None = None
    ) -> np.ndarray:
        """Ids for every entry of `docnos` (repeats allowed), creating missing docnos.
        `hashes`, if given, are the entries' hash() values (see distinct_docnos)."""
        unique, inverse = distinct_docnos(docnos, hashes)
        ids: np.ndarray = cls._intern_unique(conn, unique)[inverse]
        return ids

    def docno_ids(self, docnos: Iterable[str]) -> dict[str, int]:
        """Ids of the docnos the project knows (unknown ones are left out)."""
        wanted = list(set(docnos))
        found: dict[str, int] = {}
        with self._read() as conn:
            for start in range(0, len(wanted), 900):
                chunk = wanted[start : start + 900]
                rows = conn.execute(
                    select(m.Docno.c.docno, m.Docno.c.id).where(m.Docno.c.docno.in_(chunk))
                )
                found.update(dict(rows.all()))
        return found

    def intern_docnos(self, docnos: Iterable[str]) -> dict[str, int]:
        """Ids for these docnos, adding the ones the project has not seen."""
        unique = list(dict.fromkeys(docnos))
        if self.scope is not None:  # a member, through the server (1,000 at a time)
            found: dict[str, int] = {}
            for start in range(0, len(unique), 1000):
                with self._member_write() as conn:
                    rows = raw(
                        conn,
                        "SELECT docno, id FROM judgeapp_intern(?)",
                        (unique[start : start + 1000],),
                    ).fetchall()
                found.update({str(d): int(i) for d, i in rows})
            return found
        with self._begin() as conn:
            ids = self._intern_unique(conn, unique)
        return dict(zip(unique, ids.tolist(), strict=True))

    def docnos_of(self, doc_ids: Iterable[int]) -> dict[int, str]:
        wanted = [int(i) for i in set(doc_ids)]
        found: dict[int, str] = {}
        with self._read() as conn:
            for start in range(0, len(wanted), 900):
                chunk = wanted[start : start + 900]
                rows = conn.execute(
                    select(m.Docno.c.id, m.Docno.c.docno).where(m.Docno.c.id.in_(chunk))
                )
                found.update(dict(rows.all()))
        return found

    # -- topics ---------------------------------------------------------------------------
    def put_topics(
        self, topics: Iterable[tuple[Topic, str | None]], *, replace: bool = False
    ) -> Changes:
        """Add topics, each with the file it came from. A topic whose qid exists already
        with the same statement is left as it is; with another statement it is refused
        (`TopicExists`, nothing written) unless `replace`, which updates it in place."""
        now = utcnow()
        rows = {
            t.qid: {
                "qid": t.qid,
                "title": t.title,
                "description": t.description,
                "narrative": t.narrative,
                "fields": t.fields,
                "source": source,
                "imported_at": now,
            }
            for t, source in topics
        }
        if not rows:
            return Changes()
        table = m.Topic
        statement = ("title", "description", "narrative", "fields")
        with self._begin() as conn:
            qids = list(rows)
            stored: dict[str, tuple] = {}
            for start in range(0, len(qids), 900):
                for found in conn.execute(
                    select(table.c.qid, *(table.c[c] for c in statement)).where(
                        table.c.qid.in_(qids[start : start + 900])
                    )
                ):
                    stored[found[0]] = tuple(found[1:])
            fresh, changed = [], []
            for qid, row in rows.items():
                old = stored.get(qid)
                if old is None:
                    fresh.append(row)
                elif old != tuple(row[c] for c in statement):
                    if not replace:
                        raise TopicExists(qid)
                    changed.append(row)
            # a topic that stays is updated in place (an assessor's judgment being recorded
            # may hold a share lock on its row: schema 0006), never deleted and inserted
            for row in changed:
                conn.execute(table.update().where(table.c.qid == row["qid"]).values(**row))
            if fresh:
                conn.execute(table.insert(), fresh)
            if not fresh and not changed:
                return Changes()
            self._changed(conn, Changes(topic_list=True))
        return Changes(topic_list=True)

    _TOPIC_COLUMNS = (
        m.Topic.c.qid,
        m.Topic.c.title,
        m.Topic.c.description,
        m.Topic.c.narrative,
        m.Topic.c.fields,
        m.Topic.c.source,
    )

    def topics(self) -> list[TopicRecord]:
        with self._read() as conn:
            rows = conn.execute(select(*self._TOPIC_COLUMNS)).all()
        return sorted((TopicRecord(*row) for row in rows), key=lambda t: t.qid.encode())

    def topic(self, qid: str) -> TopicRecord | None:
        with self._read() as conn:
            row = conn.execute(select(*self._TOPIC_COLUMNS).where(m.Topic.c.qid == qid)).first()
        return None if row is None else TopicRecord(*row)

    # -- documents --------------------------------------------------------------------------
    def put_documents(
        self,
        documents: Iterable[tuple[Document, str | None]],
        progress: Callable[[int], None] | None = None,
    ) -> int:
        """Add (or replace) documents from a stream of (document, source file), in one
        transaction: if the stream raises part-way, nothing of it is kept. Returns the number
        of documents stored. A docno twice in the stream is an error, raised where the second
        one stands (before any error the stream raises after it): within one file it names
        both lines (the message of the readers' own check), else both sources.

        Memory stays that of a batch: documents are written DOC_BATCH at a time, and what is
        kept in memory of each for the duplicate check is one bit (see _SeenDocuments)."""
        table = m.Document
        count = 0
        with self._begin() as conn:
            seen = _SeenDocuments(conn)
            batch: list[tuple[Document, str | None]] = []

            def flush() -> None:
                ids = self._intern(conn, [d.docno for d, _ in batch])
                seen.add(batch, ids)
                id_list = ids.tolist()
                unindex_documents(conn, id_list)  # those replaced, out of the search index
                conn.execute(table.delete().where(table.c.doc_id.in_(id_list)))
                conn.execute(
                    table.insert(),
                    [
                        {
                            "doc_id": doc_id,
                            "title": d.title,
                            "text": d.text,
                            "fields": d.fields,
                            "source": source,
                        }
                        for doc_id, (d, source) in zip(id_list, batch, strict=True)
                    ],
                )
                # into the search index by one statement per batch: FTS5 writes a segment
                # per statement (per row, as triggers would, took 3.5 times the CPU time)
                index_documents(conn, id_list)
                batch.clear()

            stream = iter(documents)
            while True:
                try:
                    item = next(stream)
                except StopIteration:
                    break
                except Exception:  # the stream failed: a duplicate before it comes first
                    if batch:
                        seen.add(batch, self._intern(conn, [d.docno for d, _ in batch]))
                    raise
                batch.append(item)
                count += 1
                if len(batch) >= DOC_BATCH:
                    flush()
                    if progress:
                        progress(count)
            if batch:
                flush()
            seen.close()
            self._changed(conn, Changes(documents=True))
            if progress:
                progress(count)
        return count

    def _document(self, where: Any) -> DocumentRecord | None:
        with self._read() as conn:
            row = conn.execute(
                select(
                    m.Document.c.doc_id,
                    m.Docno.c.docno,
                    m.Document.c.title,
                    m.Document.c.text,
                    m.Document.c.fields,
                    m.Document.c.source,
                )
                .join(m.Docno, m.Docno.c.id == m.Document.c.doc_id)
                .where(where)
            ).first()
        return None if row is None else DocumentRecord(*row)

    def document(self, docno: str) -> DocumentRecord | None:
        return self._document(m.Docno.c.docno == docno)

    def document_by_id(self, doc_id: int) -> DocumentRecord | None:
        return self._document(m.Document.c.doc_id == doc_id)

    def documents_by_id(self, doc_ids: Iterable[int]) -> dict[int, DocumentRecord]:
        """The documents of `doc_ids` the project holds (with text), by doc id: one query
        per 900 (a topic's pool: a few tenths of a second for 3,000 documents of 3 KB)."""
        wanted = sorted({int(i) for i in doc_ids})
        found: dict[int, DocumentRecord] = {}
        d = m.Document.c
        with self._read() as conn:
            for start in range(0, len(wanted), 900):  # under SQLite's bound-variable limit
                chunk = wanted[start : start + 900]
                rows = conn.execute(
                    select(d.doc_id, m.Docno.c.docno, d.title, d.text, d.fields, d.source)
                    .join(m.Docno, m.Docno.c.id == d.doc_id)
                    .where(d.doc_id.in_(chunk))
                )
                found.update((int(r[0]), DocumentRecord(*r)) for r in rows)
        return found

    def document_texts(self, doc_ids: Iterable[int]) -> dict[int, str]:
        """Title and text (one string) of each of `doc_ids` the project holds, by doc id."""
        wanted = sorted({int(i) for i in doc_ids})
        found: dict[int, str] = {}
        with self._read() as conn:
            for start in range(0, len(wanted), 900):  # under SQLite's bound-variable limit
                chunk = wanted[start : start + 900]
                rows = conn.execute(
                    select(m.Document.c.doc_id, m.Document.c.title, m.Document.c.text).where(
                        m.Document.c.doc_id.in_(chunk)
                    )
                )
                found.update((doc, f"{title}\n{text}") for doc, title, text in rows)
        return found

    def count_documents(self) -> int:
        with self._read() as conn:
            return conn.execute(select(func.count()).select_from(m.Document)).scalar_one()

    # -- runs ---------------------------------------------------------------------------------
    def add_runs(
        self,
        imports: Sequence[RunImport],
        *,
        replace: bool = False,
        docnos: Numbered | None = None,
    ) -> list[RunInfo]:
        """Store parsed runs, all in one transaction. A run's name defaults to its tag; a
        name already in the project is an error unless `replace` is set. `docnos`, if
        given, numbers the runs' docnos already (formats.bulk.NumberedRuns: the runs' own
        docno columns may then be empty)."""
        if docnos is not None and len(docnos.ids) != len(imports):
            raise ValueError("give one column of docno numbers per run")
        names = [imp.name or imp.run.tag for imp in imports]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise StoreError(f"two runs of this import are both named {dupes[0]!r}; name them")
        now = utcnow()
        with self._begin() as conn:
            existing = dict(
                conn.execute(select(m.Run.c.name, m.Run.c.id).where(m.Run.c.name.in_(names))).all()
            )
            if existing and not replace:
                name = min(existing)
                raise StoreError(
                    f"the project already has a run named {name!r} "
                    "(give another name, or replace it)"
                )
            if existing:
                conn.execute(m.Run.delete().where(m.Run.c.id.in_(existing.values())))
            # every entry of every run, in order; ids come back aligned with it
            columns = [imp.columns() for imp in imports]
            run_ids = self._intern_columns(conn, columns, docnos)
            for imp, name, run, doc_ids in zip(imports, names, columns, run_ids, strict=True):
                run_id = conn.execute(
                    m.Run.insert().returning(m.Run.c.id),
                    {
                        "name": name,
                        "tag": run.tag,
                        "source_path": run.path,
                        "source_sha256": imp.sha256,
                        "imported_at": now,
                        "n_topics": len(run.qids),
                        "n_entries": len(run.scores),
                    },
                ).scalar_one()
                bounds = run.bounds.tolist()
                scores = np.ascontiguousarray(run.scores, dtype=SCORE_DTYPE)
                ids = doc_ids.astype(ID_DTYPE, copy=False)
                rows = [
                    (run_id, qid, b - a, ids[a:b].tobytes(), scores[a:b].tobytes())
                    for qid, a, b in zip(run.qids, bounds, bounds[1:], strict=False)
                ]
                raw(
                    conn,
                    "INSERT INTO ranked_lists (run_id, qid, n, doc_ids, scores) "
                    "VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
            self._changed(conn, Changes(runs=True))
        return [r for r in self.runs() if r.name in set(names)]

    def runs(self) -> list[RunInfo]:
        with self._read() as conn:
            rows = conn.execute(
                select(
                    m.Run.c.id,
                    m.Run.c.name,
                    m.Run.c.tag,
                    m.Run.c.source_path,
                    m.Run.c.source_sha256,
                    m.Run.c.imported_at,
                    m.Run.c.n_topics,
                    m.Run.c.n_entries,
                ).order_by(m.Run.c.id)
            ).all()
        return [RunInfo(*row) for row in rows]

    def remove_run(self, name: str) -> Changes:
        with self._begin() as conn:
            gone = conn.execute(m.Run.delete().where(m.Run.c.name == name)).rowcount
            self._changed(conn, Changes(runs=True))
        if not gone:
            raise StoreError(f"no run named {name!r}")
        return Changes(runs=True)

    def load_ranked_lists(
        self, runs: Sequence[str] | None = None, qids: Sequence[str] | None = None
    ) -> RankedLists:
        """Every ranked list of the chosen runs (all by default), for evaluation and
        pooling: one BLOB read per (run, topic), turned into numpy arrays without copying."""
        if runs is not None and not runs:  # (a pool whose runs the server hides from a role)
            return RankedLists()
        sql = (
            "SELECT r.name, l.qid, l.doc_ids, l.scores FROM ranked_lists AS l "
            "JOIN runs AS r ON r.id = l.run_id"
        )
        where: list[str] = []
        params: list[str] = []
        if runs is not None:
            where.append(f"r.name IN ({','.join('?' * len(runs))})")
            params.extend(runs)
        if qids is not None:
            where.append(f"l.qid IN ({','.join('?' * len(qids))})")
            params.extend(qids)
        if where:
            sql += " WHERE " + " AND ".join(where)
        result = RankedLists()
        with self._read() as conn:
            known = [r for (r,) in raw(conn, "SELECT name FROM runs ORDER BY id")]
            if runs is not None:
                missing = [r for r in runs if r not in set(known)]
                if missing:
                    raise StoreError(f"no run named {missing[0]!r} in the project")
                order = list(runs)
            else:
                order = known
            for name in order:
                result.runs[name] = {}
            frombuffer = np.frombuffer
            for name, qid, ids, scores in raw(conn, sql, tuple(params)):
                result.runs[name][qid] = (
                    frombuffer(ids, dtype=ID_DTYPE),
                    frombuffer(scores, dtype=SCORE_DTYPE),
                )
        return result

    # -- assessors ----------------------------------------------------------------------------
    @staticmethod
    def _find_assessor(conn: Connection, name: str) -> AssessorInfo | None:
        row = conn.execute(
            select(m.Assessor.c.id, m.Assessor.c.name, m.Assessor.c.kind, m.Assessor.c.role).where(
                m.Assessor.c.name == name
            )
        ).first()
        return None if row is None else AssessorInfo(*row)

    def assessor(self, name: str, *, kind: str = "person", create: bool = True) -> AssessorInfo:
        with self._read() as conn:
            found = self._find_assessor(conn, name)
        if found is not None:
            return found
        if not create:
            raise StoreError(f"no assessor or judgment source named {name!r}")
        with self._begin() as conn:  # under the write lock: look again, another may be first
            found = self._find_assessor(conn, name)
            if found is not None:
                return found
            assessor_id = self._create_assessor(conn, name, kind)
            self._changed(conn, Changes(assessors=True))
        return AssessorInfo(assessor_id, name, kind)

    @staticmethod
    def _create_assessor(conn: Connection, name: str, kind: str) -> int:
        return int(
            conn.execute(
                m.Assessor.insert().returning(m.Assessor.c.id),
                {"name": name, "kind": kind, "created_at": utcnow()},
            ).scalar_one()
        )

    def assessors(self) -> list[AssessorInfo]:
        with self._read() as conn:
            rows = conn.execute(
                select(
                    m.Assessor.c.id, m.Assessor.c.name, m.Assessor.c.kind, m.Assessor.c.role
                ).order_by(m.Assessor.c.id)
            ).all()
        return [AssessorInfo(*row) for row in rows]

    def set_role(self, name: str, role: str | None) -> Changes:
        """A person's role: owner, evaluator or assessor (None: from the assignments)."""
        table = m.Assessor
        with self._begin() as conn:
            gone = conn.execute(
                table.update()
                .where(table.c.name == name, table.c.kind == "person")
                .values(role=role)
            ).rowcount
            if not gone:
                raise StoreError(f"no assessor named {name!r}")
            self._changed(conn, Changes(assessors=True))
        return Changes(assessors=True)

    # -- assignments ----------------------------------------------------------------------------
    def assignments(self) -> list[tuple[str, str, bool]]:
        """(qid, assessor, shared) of every assignment, by topic then assessor."""
        with self._read() as conn:
            rows = conn.execute(
                select(m.Assignment.c.qid, m.Assessor.c.name, m.Assignment.c.shared)
                .join(m.Assessor, m.Assessor.c.id == m.Assignment.c.assessor_id)
                .order_by(m.Assignment.c.qid, m.Assessor.c.name)
            ).all()
        return sorted(((q, a, bool(s)) for q, a, s in rows), key=lambda r: (r[0].encode(), r[1]))

    def set_assignments(self, rows: Sequence[tuple[str, str, bool]]) -> Changes:
        """Replace every assignment with `rows` (qid, assessor, shared); assessors that do
        not exist yet are created as persons."""
        table = m.Assignment
        now = utcnow()
        with self._begin() as conn:
            ids = {a.name: a.id for a in self._assessor_rows(conn)}
            for _q, name, _s in rows:
                if name not in ids:
                    ids[name] = self._create_assessor(conn, name, "person")
            # only what changes is written: an assignment that stays keeps its row, which an
            # assessor's judgment being recorded may hold a share lock on (schema 0006)
            wanted = {(q, ids[a]): bool(s) for q, a, s in rows}
            stored = {
                (q, a): bool(s)
                for q, a, s in conn.execute(
                    select(table.c.qid, table.c.assessor_id, table.c.shared)
                )
            }
            for q, a in stored.keys() - wanted.keys():
                conn.execute(table.delete().where(table.c.qid == q, table.c.assessor_id == a))
            for (q, a), shared in wanted.items():
                if (q, a) in stored and stored[(q, a)] != shared:
                    conn.execute(
                        table.update()
                        .where(table.c.qid == q, table.c.assessor_id == a)
                        .values(shared=shared)
                    )
            added = [
                {"qid": q, "assessor_id": a, "shared": shared, "created_at": now}
                for (q, a), shared in wanted.items()
                if (q, a) not in stored
            ]
            if added:
                conn.execute(table.insert(), added)
            self._changed(conn, Changes(assessors=True, topic_list=True))
        return Changes(assessors=True, topic_list=True)

    # -- judgments ----------------------------------------------------------------------------
    def import_qrels(
        self, files: Sequence[tuple[QrelsFile, str]], *, replace: bool = False
    ) -> Changes:
        """Store qrels files as judgments, each of a named source (an assessor of kind
        'source'), all in one transaction. Importing into a source that has judgments
        already is an error unless `replace` is set (then its judgments are updated, each
        change recorded in the history)."""
        now = utcnow()
        changed: set[str] = set()
        with self._begin() as conn:
            for qrels, source in files:
                row = conn.execute(
                    select(m.Assessor.c.id, m.Assessor.c.kind).where(m.Assessor.c.name == source)
                ).first()
                if row is None:
                    assessor_id = self._create_assessor(conn, source, "source")
                    previous: dict[tuple[str, int], int] = {}
                else:
                    assessor_id = row[0]
                    previous = {
                        (q, d): g
                        for q, d, g in conn.execute(
                            select(m.Judgment.c.qid, m.Judgment.c.doc_id, m.Judgment.c.grade).where(
                                m.Judgment.c.assessor_id == assessor_id
                            )
                        ).all()
                    }
                    if previous and not replace:
                        raise StoreError(
                            f"judgment source {source!r} has {len(previous)} judgments already "
                            "(import under another name, or replace)"
                        )
                ids = self._intern(conn, qrels.docnos).tolist()
                later = self._later_events(conn, assessor_id, now) if previous else {}
                rows, events = [], []
                for qid, doc_id, grade in zip(qrels.qids, ids, qrels.grades.tolist(), strict=True):
                    before = previous.get((qid, doc_id))
                    if before == grade:
                        continue
                    at = later.get((qid, doc_id), now)
                    rows.append((qid, doc_id, assessor_id, grade, at, at))
                    events.append(
                        (
                            qid,
                            doc_id,
                            assessor_id,
                            "create" if before is None else "update",
                            "import",
                            grade,
                            before,
                            at,
                            uuid.uuid4().hex,
                        )
                    )
                    changed.add(qid)
                if not rows:  # the same judgments again (--replace): nothing to write, and
                    continue  # an empty list of rows would run the statement once, unbound
                # the events first: each judgment then changes to what its newest event says
                raw_rows(
                    conn,
                    "INSERT INTO judgment_history (qid, doc_id, assessor_id, action, origin, "
                    "grade, previous_grade, note, flagged, time_spent, at, uid) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, '', FALSE, 0.0, ?, ?)",
                    events,
                )
                raw_rows(
                    conn,
                    "INSERT INTO judgments (qid, doc_id, assessor_id, grade, note, flagged, "
                    "time_spent, created_at, updated_at) VALUES (?, ?, ?, ?, '', FALSE, 0.0, ?, ?) "
                    "ON CONFLICT (qid, doc_id, assessor_id) DO UPDATE SET "
                    "grade = excluded.grade, updated_at = excluded.updated_at",
                    rows,
                )
            self._changed(conn, Changes(topics=frozenset(changed), assessors=True))
        return Changes(topics=frozenset(changed), assessors=True)

    def automatic_scores(self, qid: str) -> dict[int, float]:
        """For `qid`, each document's score from the automatic judges (their mean where
        several scored it; a judgment without a score counts its grade)."""
        j, a = m.Judgment, m.Assessor
        with self._read() as conn:
            rows = conn.execute(
                select(j.c.doc_id, func.avg(func.coalesce(j.c.score, j.c.grade)))
                .join(a, a.c.id == j.c.assessor_id)
                .where(j.c.qid == qid, a.c.kind == "automatic")
                .group_by(j.c.doc_id)
            ).all()
        return {int(d): float(s) for d, s in rows}

    def judgment_export(self) -> list[JudgmentLine]:
        """Every current judgment with every field, the last change's origin and how the
        document was found among them, by topic, document and assessor."""
        j, d, a = m.Judgment, m.Docno, m.Assessor
        h = m.JudgmentEvent.alias()
        last = (
            select(h.c.origin)
            .where(h.c.qid == j.c.qid, h.c.doc_id == j.c.doc_id, h.c.assessor_id == j.c.assessor_id)
            .order_by(h.c.id.desc())
            .limit(1)
            .correlate(j)
            .scalar_subquery()
        )
        with self._read() as conn:
            rows = conn.execute(
                select(
                    j.c.qid,
                    d.c.docno,
                    a.c.name,
                    a.c.kind,
                    j.c.grade,
                    j.c.score,
                    j.c.note,
                    j.c.flagged,
                    j.c.time_spent,
                    j.c.created_at,
                    j.c.updated_at,
                    last,
                    j.c.found_by,
                    j.c.query,
                )
                .join(d, d.c.id == j.c.doc_id)
                .join(a, a.c.id == j.c.assessor_id)
            ).all()
        out = [
            JudgmentLine(0, q, dn, g, an, ak, sc, nt or "", bool(fl), float(ts), c, u, o, fb, qy)
            for q, dn, an, ak, g, sc, nt, fl, ts, c, u, o, fb, qy in rows
        ]
        return sorted(out, key=lambda r: (r.topic.encode(), r.docno.encode(), r.assessor or ""))

    def put_judgments(
        self, rows: Sequence[JudgmentLine], *, assessor: str | None = None, kind: str = "person"
    ) -> Changes:
        """Store judgments with every field, in one transaction: each row's assessor (or
        `assessor`; created with the row's kind, or `kind`), each change recorded in the
        history. A judgment equal to the stored one changes nothing."""
        table, events = m.Judgment, m.JudgmentEvent
        now = utcnow()
        changed: set[str] = set()
        with self._begin() as conn:
            self._keep_times(conn)
            ids = {x.name: x for x in self._assessor_rows(conn)}
            for r in rows:
                name = r.assessor or assessor
                if name is None:
                    raise StoreError(f"line {r.line}: whose judgment? (name the assessor)")
                if name not in ids:
                    new_kind = r.kind or kind
                    ids[name] = AssessorInfo(
                        self._create_assessor(conn, name, new_kind), name, new_kind
                    )
            docs = dict(
                zip(
                    [r.docno for r in rows],
                    self._intern(conn, [r.docno for r in rows]).tolist(),
                    strict=True,
                )
            )
            for r in rows:
                who = ids[r.assessor or assessor or ""]
                doc = docs[r.docno]
                old = conn.execute(
                    select(
                        table.c.id, table.c.grade, table.c.note, table.c.flagged, table.c.score
                    ).where(
                        table.c.qid == r.topic, table.c.doc_id == doc, table.c.assessor_id == who.id
                    )
                ).first()
                state = {
                    "grade": r.grade,
                    "note": r.note,
                    "flagged": r.flagged,
                    "score": r.score,
                    "time_spent": r.time_spent,
                    "updated_at": r.updated_at or now,
                }
                if old is not None and (
                    old.grade,
                    old.note or "",
                    bool(old.flagged),
                    old.score,
                ) == (
                    r.grade,
                    r.note,
                    r.flagged,
                    r.score,
                ):
                    continue
                # the event first: the judgment then changes to what it says
                conn.execute(
                    events.insert(),
                    {
                        "uid": uuid.uuid4().hex,
                        "qid": r.topic,
                        "doc_id": doc,
                        "assessor_id": who.id,
                        "action": "create" if old is None else "update",
                        "origin": r.origin or "import",
                        "grade": r.grade,
                        "previous_grade": None if old is None else old.grade,
                        "note": r.note,
                        "flagged": r.flagged,
                        "time_spent": r.time_spent,
                        "score": r.score,
                        # when this project learnt of it: the history's newest event says
                        # what the judgment is now (the judgment keeps the file's times)
                        "at": self._event_time(conn, r.topic, doc, who.id),
                        "query": r.query if r.origin == "search" else None,
                    },
                )
                if old is None:
                    conn.execute(
                        table.insert(),
                        {
                            "qid": r.topic,
                            "doc_id": doc,
                            "assessor_id": who.id,
                            "created_at": r.created_at or r.updated_at or now,
                            "found_by": r.found_by,
                            "query": r.query if r.found_by == "search" else None,
                            **state,
                        },
                    )
                else:
                    conn.execute(table.update().where(table.c.id == old.id).values(**state))
                changed.add(r.topic)
            changes = Changes(topics=frozenset(changed), assessors=True)
            self._changed(conn, changes)
        return changes

    @staticmethod
    def _keep_times(conn: Connection) -> None:
        """PostgreSQL: this transaction of the owner writes the times it was given (an
        import, a merge) instead of the server's clock (schema 0006's triggers; never in the
        future)."""
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("SET LOCAL judgeapp.keep_times = 'on'")

    def _state(self, conn: Connection, qid: str, doc_id: int, assessor_id: int) -> Any:
        j = m.Judgment.c
        return conn.execute(
            select(j.id, j.grade, j.note, j.flagged, j.found_by, j.query).where(
                m.Judgment.c.qid == qid,
                m.Judgment.c.doc_id == doc_id,
                m.Judgment.c.assessor_id == assessor_id,
            )
        ).first()

    def set_judgment(
        self,
        qid: str,
        doc_id: int,
        assessor_id: int,
        state: JudgmentState | Callable[[JudgmentState], JudgmentState],
        *,
        time_spent: float = 0.0,
        origin: str = "judge",
        found_by: str = "pool",
        query: str | None = None,
        new_assessor: tuple[str, str] | None = None,
    ) -> JudgmentChange:
        """Make the judgment of (qid, doc, assessor) equal `state` (grade None removes it),
        and append the change to the history, in one committed transaction: when this
        returns, the judgment is on disk. Time spent is added to the judgment's total (which
        stays within 0 and a year). `new_assessor` (name, kind): the assessor is made in the
        same transaction (`assessor_id` is then ignored), so a judgment that fails leaves
        no assessor behind.

        `state` may be a function of the current state (read in the same transaction), for
        changes such as "this grade, keeping the note"; an exception from it changes nothing.
        A judgment made now takes `found_by` ("search": the document was found by searching
        the collection, with `query`); one that exists keeps its own. An event of origin
        "search" notes the query too. A team member's role writes through the server's
        `judgeapp_judge` (schema 0006, found_by and query since 0007), which takes the state
        read before and writes nothing if it changed meanwhile (this then reads it again).
        """
        if self.scope is not None:
            return self._member_judgment(
                qid, doc_id, assessor_id, state, time_spent, origin, found_by, query
            )
        table = m.Judgment
        with self._begin() as conn:
            if new_assessor is not None:
                found = self._find_assessor(conn, new_assessor[0])
                assessor_id = (
                    found.id
                    if found is not None
                    else self._create_assessor(conn, new_assessor[0], new_assessor[1])
                )
                if found is None:
                    self._changed(conn, Changes(assessors=True))
            row = self._state(conn, qid, doc_id, assessor_id)
            before = JudgmentState(None) if row is None else JudgmentState(row[1], row[2], row[3])
            if row is not None:
                found_by, query_kept = str(row[4]), row[5]
            else:
                query_kept = query if found_by == "search" else None
            if callable(state):
                state = state(before)
            if state.grade is None and row is None:
                return JudgmentChange(qid, doc_id, assessor_id, before, before, Changes())
            action = "delete" if state.grade is None else "create" if row is None else "update"
            now = self._event_time(conn, qid, doc_id, assessor_id)
            # the event first: the judgment then changes to what the newest event says
            conn.execute(
                m.JudgmentEvent.insert(),
                {
                    "qid": qid,
                    "doc_id": doc_id,
                    "assessor_id": assessor_id,
                    "action": action,
                    "origin": origin,
                    "grade": state.grade,
                    "previous_grade": before.grade,
                    "note": state.note,
                    "flagged": state.flagged,
                    "time_spent": time_spent,
                    "at": now,
                    "uid": uuid.uuid4().hex,
                    "query": query if origin == "search" else None,
                },
            )
            if row is None:
                conn.execute(
                    table.insert(),
                    {
                        "qid": qid,
                        "doc_id": doc_id,
                        "assessor_id": assessor_id,
                        "grade": state.grade,
                        "note": state.note,
                        "flagged": state.flagged,
                        "time_spent": min(max(time_spent, 0.0), MAX_TIME_S),
                        "created_at": now,
                        "updated_at": now,
                        "found_by": found_by,
                        "query": query_kept,
                    },
                )
            elif state.grade is None:
                conn.execute(table.delete().where(table.c.id == row[0]))
            else:
                total = table.c.time_spent + time_spent
                conn.execute(
                    table.update()
                    .where(table.c.id == row[0])
                    .values(
                        grade=state.grade,
                        note=state.note,
                        flagged=state.flagged,
                        # an undo takes back what its change added: never below 0 by rounding
                        time_spent=case(
                            (total < 0, 0.0), (total > MAX_TIME_S, MAX_TIME_S), else_=total
                        ),
                        updated_at=now,
                    )
                )
            changes = Changes(topics=frozenset([qid]), judged=((qid, doc_id),))
            self._changed(conn, changes)
        return JudgmentChange(
            qid, doc_id, assessor_id, before, state, changes, time_spent, found_by, query_kept
        )

    @staticmethod
    def _later_events(conn: Connection, assessor_id: int, now: Any) -> dict[tuple[str, int], Any]:
        """(qid, doc id) -> a moment after the newest event of each judgment of `assessor_id`
        whose history has an event at `now` or later (see `_event_time`)."""
        h = m.JudgmentEvent.c
        newest = func.max(h.at)
        rows = conn.execute(
            select(h.qid, h.doc_id, newest)
            .where(h.assessor_id == assessor_id)
            .group_by(h.qid, h.doc_id)
            .having(newest >= now)
        ).all()
        return {(q, d): at + timedelta(microseconds=1) for q, d, at in rows}

    @staticmethod
    def _event_time(conn: Connection, qid: str, doc_id: int, assessor_id: int) -> Any:
        """Now, or a moment after the judgment's newest event if that one is later (merged
        from a machine whose clock ran ahead): the newest event says what it is."""
        now = utcnow()
        h = m.JudgmentEvent.c
        newest = conn.execute(
            select(func.max(h.at)).where(
                h.qid == qid, h.doc_id == doc_id, h.assessor_id == assessor_id
            )
        ).scalar()
        return now if newest is None or newest < now else newest + timedelta(microseconds=1)

    def _member_judgment(
        self,
        qid: str,
        doc_id: int,
        assessor_id: int,
        state: JudgmentState | Callable[[JudgmentState], JudgmentState],
        time_spent: float,
        origin: str,
        found_by: str,
        query: str | None,
    ) -> JudgmentChange:
        query = query if found_by == "search" or origin == "search" else None
        for _try in range(8):
            with self._read() as conn:
                row = self._state(conn, qid, doc_id, assessor_id)
            before = JudgmentState(None) if row is None else JudgmentState(row[1], row[2], row[3])
            after = state(before) if callable(state) else state
            with self._member_write() as conn:
                done = raw(
                    conn,
                    "SELECT judgeapp_judge(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        qid,
                        int(doc_id),
                        int(assessor_id),
                        before.grade,
                        before.note if before.grade is not None else None,
                        before.flagged if before.grade is not None else None,
                        after.grade,
                        after.note,
                        after.flagged,
                        float(time_spent),
                        origin,
                        self.token,
                        found_by,
                        query if found_by == "search" else None,
                    ),
                ).scalar_one()
            if done != "changed":
                break
        else:
            raise StoreError(
                f"the judgment of topic {qid!r} kept changing (another window of the same "
                "assessor?): nothing was recorded; try again"
            )
        if done == "none":
            return JudgmentChange(qid, doc_id, assessor_id, before, before, Changes())
        changes = Changes(topics=frozenset([qid]), judged=((qid, doc_id),))
        if row is not None:  # the judgment keeps where it was found
            found_by, query = str(row[4]), row[5]
        return JudgmentChange(
            qid, doc_id, assessor_id, before, after, changes, time_spent, found_by, query
        )

    def judgment_state(self, qid: str, doc_id: int, assessor_id: int) -> JudgmentState:
        with self._read() as conn:
            row = self._state(conn, qid, doc_id, assessor_id)
        return JudgmentState(None) if row is None else JudgmentState(row[1], row[2], row[3])

    @staticmethod
    def _judgment_where(ids: list[int] | None, qid: str | None) -> tuple[str, tuple]:
        """The WHERE clause choosing the judgments (table alias `j`) of assessors `ids`
        (all: None) and of topic `qid` (all: None)."""
        where: list[str] = []
        params: list[Any] = []
        if ids is not None:
            where.append(f"j.assessor_id IN ({','.join('?' * len(ids))})")
            params.extend(ids)
        if qid is not None:
            where.append("j.qid = ?")
            params.append(qid)
        return ("WHERE " + " AND ".join(where)) if where else "", tuple(params)

    def judgment_rows(
        self,
        assessors: Sequence[str] | None = None,
        qid: str | None = None,
        *,
        docnos: bool = False,
    ) -> JudgmentRows:
        """The stored judgments of `assessors` (all by default), of `qid` (all topics by
        default), grouped by topic and document with each document's most recently changed
        judgment last (see `JudgmentRows`); with their docnos if `docnos`. Which of them
        counts is a policy's choice (`judgeapp.services.policy`), not the store's."""
        columns = "j.qid, j.doc_id, j.assessor_id, j.grade"
        join = ""
        if docnos:
            columns += ", d.docno"
            join = "JOIN docnos AS d ON d.id = j.doc_id "
        with self._read() as conn:
            clause, params = self._judgment_where(self._assessor_ids(conn, assessors), qid)
            rows = raw(
                conn,
                f"SELECT {columns} FROM judgments AS j {join}{clause} "
                "ORDER BY j.qid, j.doc_id, j.updated_at, j.id",
                params,
            ).fetchall()
        n = len(rows)
        qids = [r[0] for r in rows]
        starts = [0] + [i for i in range(1, n) if qids[i] != qids[i - 1]] if n else []
        return JudgmentRows(
            qids=[qids[i] for i in starts],
            bounds=np.array([*starts, n], dtype=np.int64),
            doc_ids=np.fromiter((r[1] for r in rows), dtype=np.int64, count=n),
            assessor_ids=np.fromiter((r[2] for r in rows), dtype=np.int64, count=n),
            grades=np.fromiter((r[3] for r in rows), dtype=np.int64, count=n),
            docnos=[r[4] for r in rows] if docnos else None,
        )

    def found_by_search(
        self, qid: str | None = None, assessors: Sequence[str] | None = None
    ) -> dict[str, set[int]]:
        """Per topic, the documents whose judgments (of `assessors`, all by default) were
        found by searching the collection (`found_by` "search")."""
        with self._read() as conn:
            clause, params = self._judgment_where(self._assessor_ids(conn, assessors), qid)
            where = f"{clause} AND" if clause else "WHERE"
            rows = raw(
                conn,
                f"SELECT j.qid, j.doc_id FROM judgments AS j {where} j.found_by = 'search'",
                params,
            ).fetchall()
        out: dict[str, set[int]] = {}
        for q, doc in rows:
            out.setdefault(str(q), set()).add(int(doc))
        return out

    def judgments(
        self, qid: str | None = None, assessors: Sequence[str] | None = None
    ) -> list[JudgmentRecord]:
        """Every stored judgment (not only the effective ones), with who made it."""
        with self._read() as conn:
            ids = self._assessor_ids(conn, assessors)
            stmt = (
                select(
                    m.Judgment.c.qid,
                    m.Judgment.c.doc_id,
                    m.Docno.c.docno,
                    m.Assessor.c.name,
                    m.Judgment.c.grade,
                    m.Judgment.c.note,
                    m.Judgment.c.flagged,
                    m.Judgment.c.time_spent,
                    m.Judgment.c.created_at,
                    m.Judgment.c.updated_at,
                )
                .join(m.Docno, m.Docno.c.id == m.Judgment.c.doc_id)
                .join(m.Assessor, m.Assessor.c.id == m.Judgment.c.assessor_id)
            )
            if qid is not None:
                stmt = stmt.where(m.Judgment.c.qid == qid)
            if ids is not None:
                stmt = stmt.where(m.Judgment.c.assessor_id.in_(ids))
            rows = conn.execute(stmt.order_by(m.Judgment.c.qid, m.Docno.c.docno)).all()
        return [JudgmentRecord(*cast(tuple[Any, ...], row)) for row in rows]

    def history(self, qid: str | None = None, doc_id: int | None = None) -> list[dict[str, Any]]:
        stmt = select(m.JudgmentEvent).order_by(m.JudgmentEvent.c.id)
        if qid is not None:
            stmt = stmt.where(m.JudgmentEvent.c.qid == qid)
        if doc_id is not None:
            stmt = stmt.where(m.JudgmentEvent.c.doc_id == doc_id)
        with self._read() as conn:
            return [dict(row._mapping) for row in conn.execute(stmt)]

    def history_export(self) -> list[HistoryEvent]:
        """The whole judgment history, oldest first, as another project can take it."""
        h, d, a = m.JudgmentEvent, m.Docno, m.Assessor
        with self._read() as conn:
            rows = conn.execute(
                select(
                    h.c.uid,
                    h.c.qid,
                    d.c.docno,
                    a.c.name,
                    a.c.kind,
                    h.c.action,
                    h.c.origin,
                    h.c.grade,
                    h.c.previous_grade,
                    h.c.note,
                    h.c.flagged,
                    h.c.time_spent,
                    h.c.at,
                    h.c.query,
                )
                .join(d, d.c.id == h.c.doc_id)
                .join(a, a.c.id == h.c.assessor_id)
                .order_by(h.c.id)
            ).all()
        return [HistoryEvent(*cast(tuple[Any, ...], row)) for row in rows]

    def merge_history(self, events: Sequence[HistoryEvent]) -> MergeReport:
        """Add the events of another project's history that this one lacks (by uid), in one
        transaction, and bring each touched judgment to what its whole history now says:
        the newest change of each (topic, document, assessor) counts, its time spent summed
        since it was last removed. Events known already change nothing, so merging twice is
        merging once. A judgment both projects changed, ending at different grades, is a
        conflict: reported, with both changes kept in the history."""
        h, j = m.JudgmentEvent, m.Judgment
        with self._begin() as conn:
            self._keep_times(conn)
            known = {uid for (uid,) in conn.execute(select(h.c.uid))}
            new: dict[str, HistoryEvent] = {}
            for e in events:
                if e.uid not in known:
                    new.setdefault(e.uid, e)
            if not new:
                return MergeReport(0, 0, [], Changes())
            fresh = list(new.values())
            ahead = utcnow() + timedelta(hours=1)
            late = next((e for e in fresh if e.at is not None and e.at > ahead), None)
            if late is not None:  # it would outrank every later judgment here (schema 0006)
                raise StoreError(
                    f"an event of topic {late.qid!r}, document {late.docno!r} is dated "
                    f"{late.at:%Y-%m-%d %H:%M}, ahead of this clock: nothing was merged"
                )
            people = {a.name: a.id for a in self._assessor_rows(conn)}
            for e in fresh:
                if e.assessor not in people:
                    people[e.assessor] = self._create_assessor(conn, e.assessor, e.assessor_kind)
            docs = dict(
                zip(
                    [e.docno for e in fresh],
                    self._intern(conn, [e.docno for e in fresh]).tolist(),
                    strict=True,
                )
            )
            keys = {(e.qid, docs[e.docno], people[e.assessor]) for e in fresh}
            theirs: dict[tuple, list[HistoryEvent]] = {}
            for e in sorted(events, key=lambda e: e.at):
                theirs.setdefault((e.qid, docs.get(e.docno), people.get(e.assessor)), []).append(e)
            before = self._judgment_rows_for(conn, keys)
            conn.execute(
                h.insert(),
                [
                    {
                        "uid": e.uid,
                        "qid": e.qid,
                        "doc_id": docs[e.docno],
                        "assessor_id": people[e.assessor],
                        "action": e.action,
                        "origin": e.origin,
                        "grade": e.grade,
                        "previous_grade": e.previous_grade,
                        "note": e.note,
                        "flagged": e.flagged,
                        "time_spent": e.time_spent,
                        "at": e.at,
                        "query": e.query,
                    }
                    for e in sorted(fresh, key=lambda e: e.at)
                ],
            )
            assessor_ids = sorted({k[2] for k in keys})
            history: dict[tuple, list] = {}
            for row in conn.execute(
                select(
                    h.c.qid,
                    h.c.doc_id,
                    h.c.assessor_id,
                    h.c.uid,
                    h.c.grade,
                    h.c.note,
                    h.c.flagged,
                    h.c.time_spent,
                    h.c.at,
                    h.c.origin,
                    h.c.query,
                )
                .where(h.c.assessor_id.in_(assessor_ids))
                .order_by(h.c.at, h.c.id)
            ):
                key = (row.qid, row.doc_id, row.assessor_id)
                if key in keys:
                    history.setdefault(key, []).append(row)
            changed, conflicts = 0, []
            names = {v: k for k, v in people.items()}
            docnos = {v: k for k, v in docs.items()}
            for key in sorted(keys, key=lambda k: (k[0].encode(), k[1], k[2])):
                state = _fold(history[key])
                old = before.get(key)
                if state is None and old is not None:
                    conn.execute(j.delete().where(j.c.id == old.id))
                elif state is not None and old is None:
                    conn.execute(
                        j.insert(),
                        {"qid": key[0], "doc_id": key[1], "assessor_id": key[2], **state},
                    )
                elif state is not None and old is not None:
                    conn.execute(j.update().where(j.c.id == old.id).values(**state))
                new_grade = None if state is None else state["grade"]
                old_grade = None if old is None else old.grade
                changed += new_grade != old_grade or (
                    state is not None
                    and old is not None
                    and (state["note"], state["flagged"]) != (old.note, old.flagged)
                )
                mine = any(r.uid not in {e.uid for e in theirs.get(key, ())} for r in history[key])
                their_grade = _fold_grade(theirs.get(key, []))
                if mine and old_grade != their_grade:
                    other = their_grade if new_grade == old_grade else old_grade
                    conflicts.append(
                        MergeConflict(key[0], docnos[key[1]], names[key[2]], new_grade, other)
                    )
            topics = frozenset(k[0] for k in keys)
            changes = Changes(topics=topics, assessors=True)
            self._changed(conn, changes)
        return MergeReport(len(fresh), int(changed), conflicts, changes)

    def _assessor_rows(self, conn: Connection) -> list[AssessorInfo]:
        rows = conn.execute(
            select(m.Assessor.c.id, m.Assessor.c.name, m.Assessor.c.kind, m.Assessor.c.role)
        ).all()
        return [AssessorInfo(*r) for r in rows]

    @staticmethod
    def _judgment_rows_for(conn: Connection, keys: set[tuple[str, int, int]]) -> dict[tuple, Any]:
        j = m.Judgment
        assessor_ids = sorted({k[2] for k in keys})
        rows = conn.execute(
            select(
                j.c.id, j.c.qid, j.c.doc_id, j.c.assessor_id, j.c.grade, j.c.note, j.c.flagged
            ).where(j.c.assessor_id.in_(assessor_ids))
        ).all()
        return {
            (r.qid, r.doc_id, r.assessor_id): r
            for r in rows
            if (r.qid, r.doc_id, r.assessor_id) in keys
        }

    def history_events(
        self, qid: str | None = None, assessors: Sequence[str] | None = None
    ) -> list[tuple[str, int, int, int | None]]:
        """The judgment history as (qid, doc id, assessor id, grade or None for a removal),
        oldest first: the input for replaying how judgments changed."""
        with self._read() as conn:
            ids = self._assessor_ids(conn, assessors)
            stmt = select(
                m.JudgmentEvent.c.qid,
                m.JudgmentEvent.c.doc_id,
                m.JudgmentEvent.c.assessor_id,
                m.JudgmentEvent.c.grade,
            ).order_by(m.JudgmentEvent.c.id)
            if qid is not None:
                stmt = stmt.where(m.JudgmentEvent.c.qid == qid)
            if ids is not None:
                stmt = stmt.where(m.JudgmentEvent.c.assessor_id.in_(ids))
            return [tuple(row) for row in conn.execute(stmt).all()]

    # -- overview ---------------------------------------------------------------------------
    def totals(self) -> dict[str, int]:
        """How many rows each kind of record has: documents (with text), docnos, assessors,
        judgments, pools, topics."""
        with self._read() as conn:

            def count(table: Table) -> int:
                return int(conn.execute(select(func.count()).select_from(table)).scalar_one())

            return {
                "documents": count(m.Document),
                "docnos": count(m.Docno),
                "assessors": count(m.Assessor),
                "judgments": count(m.Judgment),
                "pools": count(m.Pool),
                "topics": count(m.Topic),
            }

    def topic_titles(self) -> dict[str, str]:
        with self._read() as conn:
            return {
                qid: title for qid, title in conn.execute(select(m.Topic.c.qid, m.Topic.c.title))
            }

    def run_topics(self) -> set[str]:
        """The topics any run has a ranked list for."""
        with self._read() as conn:
            return {q for (q,) in conn.execute(select(m.RankedList.c.qid).distinct())}

    def document_ids_with_text(self) -> np.ndarray:
        """Ids of the documents whose text is in the project (int64, unordered)."""
        with self._read() as conn:
            return np.fromiter(
                (i for (i,) in conn.execute(select(m.Document.c.doc_id))), dtype=np.int64
            )

    def integrity_check(self) -> str:
        with self._read() as conn:
            return str(conn.exec_driver_sql("PRAGMA integrity_check").scalar_one())
