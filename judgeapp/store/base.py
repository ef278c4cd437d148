"""What every part of the `Store` facade shares: the engine, short transactions, errors."""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
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
from judgeapp.store.locking import DEFAULT_WAIT_S, begin_write


class StoreError(UserError, ValueError):
    """A request the project cannot honour (a name taken, an unknown run, ...)."""


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
        self.on_wait: Callable[[], None] | None = None
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

    @property
    def dialect(self) -> str:
        """`sqlite` or `postgresql`."""
        return self._engine.dialect.name

    @contextlib.contextmanager
    def writing_with(
        self, wait: float, on_wait: Callable[[], None] | None = None
    ) -> Iterator[None]:
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
        wait, on_wait = getattr(self._local, "policy", None) or (self.write_wait, self.on_wait)
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
