"""What every part of the `Store` facade shares: the engine, short transactions, errors."""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, CursorResult, Engine

from judgeapp.errors import UserError
from judgeapp.records import Changes
from judgeapp.store import models as m
from judgeapp.store.files import (
    REPAIR_HINT,
    ProjectFileError,
    check_passed,
    discard_staged,
    end_session,
    release,
)
from judgeapp.store.locking import DEFAULT_WAIT_S, OnWait, begin_write


class StoreError(UserError, ValueError):
    """A request the project cannot honour (a name taken, an unknown run, ...)."""


class OwnerOnly(StoreError):
    """A team member's role asked to change what only the project's owner changes."""


@dataclass(frozen=True, slots=True)
class Scope:
    """What a team member's database role may see of a PostgreSQL project (the server
    decides: schema 0006's `judgeapp_scope`). The owner, and any SQLite project, has none:
    it sees everything."""

    role: str  # the database role connected
    assessor: str | None  # the assessor it is (None: not on the team)
    team_role: str  # owner, evaluator or assessor (judgeapp.services.team)
    sees_all: bool  # False: an assessor judging blind
    topics: tuple[str, ...] | None  # a blind assessor's topics (None: every topic)
    owner: str  # the role that owns the project

    @property
    def blind(self) -> bool:
        return not self.sees_all

    @property
    def who(self) -> str:
        """The role connected, and the assessor it is: `role alice_x (assessor alice)`."""
        return f"role {self.role}" + (f" (assessor {self.assessor})" if self.assessor else "")

    def describe(self) -> str:
        """One line: who this is and what the server shows them."""
        who = self.who
        if self.assessor is None:
            return f"{who} is not on this project's team: it sees nothing of it"
        if self.sees_all:
            return f"{who}, {self.team_role}: sees the whole project; writes only its judgments"
        where = "its assigned topics" if self.topics is not None else "every topic"
        return (
            f"{who} judges blind: the server shows it {where} and its own judgments only, "
            "no runs, ranks or other assessors' work"
        )


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


MAX_LOGGED_DOCS = 1000  # judged documents listed in one change-log entry, at most
NOTIFY_CHANNEL = "judgeapp_changes"


def raw(conn: Connection, sql: str, params: Any = ()) -> CursorResult:
    """A plain SQL statement written with `?` placeholders, run through the driver (the bulk
    paths: no statement compilation per call); `?` becomes the driver's own placeholder
    (psycopg's `%s`). A list of parameter tuples runs it once per tuple."""
    if conn.dialect.paramstyle != "qmark":
        sql = sql.replace("?", "%s")
    return conn.exec_driver_sql(sql, params)


ROWS_PER_STATEMENT = 1000


def raw_rows(conn: Connection, sql: str, rows: list[tuple[Any, ...]]) -> None:
    """`raw(conn, sql, rows)` for an ``INSERT ... VALUES (...)`` whose rows are checked by
    statement triggers (schema 0006 on PostgreSQL: judgments and their history): there,
    ROWS_PER_STATEMENT rows go in each statement, as one multi-row VALUES list, so the
    checks run once per thousand rows instead of once per row (5,000 qrels lines: 16.3 s
    one statement per row against 3.8 s without the triggers). `rows` must not hold one
    key twice where the statement says ON CONFLICT DO UPDATE. SQLite: one per row."""
    if conn.dialect.name != "postgresql" or len(rows) < 2:
        raw(conn, sql, rows)
        return
    start = sql.index("(", sql.upper().index(" VALUES ")) + 1
    depth, end = 1, start
    while depth:  # the row's own parentheses, and any inside it
        depth += {"(": 1, ")": -1}.get(sql[end], 0)
        end += 1
    head, group, tail = sql[: start - 1], sql[start - 1 : end], sql[end:]
    for i in range(0, len(rows), ROWS_PER_STATEMENT):
        chunk = rows[i : i + ROWS_PER_STATEMENT]
        statement = head + ", ".join([group] * len(chunk)) + tail
        raw(conn, statement, tuple(v for row in chunk for v in row))


class StoreBase:
    """One open project database: the engine and the transaction helpers every store
    method uses (one short transaction per method)."""

    def __init__(self, engine: Engine, url: str, backup: str | None = None) -> None:
        self._engine = engine
        self.url = url
        self.backup = backup  # where the pre-upgrade copy went, if the schema was upgraded
        # how long a write waits for another writer, and who is told that it waits
        # (judgeapp.store.locking); `writing_with` changes both for one thread
        self.write_wait = DEFAULT_WAIT_S
        self.on_wait: OnWait | None = None
        self._local = threading.local()
        self.token = uuid.uuid4().hex  # marks this store's entries in the change log
        # SQLite: the last session of the file ended without closing it (a crash, a kill,
        # a power cut; judgeapp.store.files.session_mark), and it has not been checked
        # since: the first write checks it first (`check`)
        self.check_due = False
        self._session: int | None = None  # the descriptor holding the session lock
        self._held_file: tuple[int, int] | None = None  # judgeapp.store.files.hold
        # (file, its place) of a new project not yet put in its place (`Store.build`)
        self._building: tuple[Path, Path] | None = None
        # PostgreSQL: what a team member's role sees (None: the owner, or SQLite)
        self.scope: Scope | None = None
        # PostgreSQL: how long each new session waits for a lock (schema.session_options)
        self.limits: dict[str, float] = {"wait": DEFAULT_WAIT_S}
        # SQLite: a file (or folder) this user may not write, opened for reading only
        # (`Store.open`): every write would fail with "the project is read-only here"
        self.read_only = False

    @property
    def is_member(self) -> bool:
        """Whether this connection is a team member's role (not the project's owner): it
        writes only its own judgments and place in the work, through the server's
        functions, and reads what the server shows it (`scope`)."""
        return self.scope is not None

    @property
    def dialect(self) -> str:
        """`sqlite` or `postgresql`."""
        return self._engine.dialect.name

    @contextlib.contextmanager
    def writing_with(self, wait: float, on_wait: OnWait | None = None) -> Iterator[None]:
        """Writes made by this thread inside the block wait at most `wait` seconds for
        another writer (then raise `ProjectBusy`), telling `on_wait` after about a second."""
        before = getattr(self._local, "policy", None)
        self._local.policy = (wait, on_wait)
        try:
            yield
        finally:
            self._local.policy = before

    def close(self) -> None:
        """Close the project; one being built and not published is removed."""
        self._engine.dispose()
        held, self._held_file = self._held_file, None
        release(held)
        session, self._session = self._session, None
        end_session(session)
        building, self._building = self._building, None
        if building is not None:
            discard_staged(building[0])

    @contextlib.contextmanager
    def _begin(self) -> Iterator[Connection]:
        """A write transaction holding the project's write lock (see `writing_with`). What
        the methods report with `_changed` is logged in the same transaction, for the
        other processes that show the project (`judgeapp.store.feed`)."""
        if self.scope is not None:
            raise self._owner_only()
        wait, on_wait = self._wait_policy()
        with begin_write(self._engine, wait, on_wait) as conn:
            if self.check_due:
                self._quick_check(conn)
            conn.info["judgeapp_changes"] = []
            try:
                yield conn
                self._log_changes(conn, conn.info["judgeapp_changes"])
            finally:
                conn.info.pop("judgeapp_changes", None)

    def check(self, *, full: bool = False) -> list[str]:
        """SQLite's own check of the project file: `PRAGMA quick_check` (every page read
        once, about 1.6 s per GB), or with `full` `PRAGMA integrity_check` (indexes
        cross-checked too, several times longer). Returns what it finds, ["ok"] for a sound
        file; a sound file is no longer due for a check (`check_due`). Never run on its own
        except before the first write after a crash: `judgeapp check`, the window (in the
        background after a crash, and on demand) ask for it. A file too damaged to be read
        raises ProjectFileError. PostgreSQL checks its own pages: ["ok"]."""
        if self.dialect != "sqlite":
            return ["ok"]
        pragma = "integrity_check" if full else "quick_check"
        with self._read() as conn:
            found = [str(r[0]) for r in conn.exec_driver_sql(f"PRAGMA {pragma}").fetchall()]
        if found == ["ok"]:
            self._passed()
        return found or ["no answer"]

    def _passed(self) -> None:
        self.check_due = False
        check_passed(self._session)

    def _wait_policy(self) -> tuple[float, OnWait | None]:
        policy: tuple[float, OnWait | None] | None = getattr(self._local, "policy", None)
        return policy or (self.write_wait, self.on_wait)

    def _owner_only(self) -> OwnerOnly:
        scope = self.scope
        assert scope is not None
        who = f"role {scope.role}" + (f", assessor {scope.assessor}" if scope.assessor else "")
        return OwnerOnly(
            f"only the project's owner (role {scope.owner}) may change this; this connection "
            f"is {who}, which may only judge (connect with the owner's URL)"
        )

    @contextlib.contextmanager
    def _member_write(self) -> Iterator[Connection]:
        """A team member's write: one short transaction calling the server's functions,
        whose locks (its own rows only) are waited for at most as long as any write's."""
        wait, on_wait = self._wait_policy()
        with begin_write(self._engine, wait, on_wait, lock="none") as conn:
            yield conn

    def _quick_check(self, conn: Connection) -> None:
        """Nothing is written into a damaged file: a write there could spread the damage
        (and SQLite often accepts it without a word). Run before the first write after a
        crash only (`check_due`): `quick_check` reads every page once, about 1.6 s per GB."""
        found = [row[0] for row in conn.exec_driver_sql("PRAGMA quick_check").fetchall()]
        if found != ["ok"]:
            first = str(found[0]) if found else "no answer"
            raise ProjectFileError(
                f"{conn.engine.url.database}: the project file is damaged (SQLite's check "
                f"finds: {first}); nothing was written; {REPAIR_HINT}"
            )
        self._passed()

    @staticmethod
    def _changed(conn: Connection, changes: Changes) -> None:
        """Report what this write transaction changed (logged when it commits)."""
        conn.info["judgeapp_changes"].append(changes)

    def _log_changes(self, conn: Connection, reported: list[Changes]) -> None:
        changes = Changes()
        for c in reported:
            changes = changes | c
        if changes.empty:
            return
        if len(changes.judged) > MAX_LOGGED_DOCS:  # a bulk change: its topics say enough
            changes = Changes.from_json({**changes.to_json(), "judged": []})
        # on PostgreSQL a trigger on the log NOTIFYs NOTIFY_CHANNEL, delivered at commit
        conn.execute(
            m.ProjectChange.insert(),
            {"at": utcnow(), "writer": self.token, "changes": changes.to_json()},
        )

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._engine.connect() as conn:
            yield conn

    def _assessor_ids(self, conn: Connection, assessors: Sequence[str] | None) -> list[int] | None:
        if assessors is None:
            return None
        # every assessor in one plain query: a handful of rows, and no IN list to compile
        rows = dict(raw(conn, "SELECT name, id FROM assessors").fetchall())
        missing = [a for a in assessors if a not in rows]
        if missing:
            raise StoreError(f"no assessor or judgment source named {missing[0]!r}")
        return [rows[a] for a in assessors]
