"""One writer at a time, each waiting its turn: how every write transaction of a project
starts.

A write transaction takes the project's write lock at its start: SQLite's BEGIN IMMEDIATE,
or on PostgreSQL a transaction-level advisory lock. A transaction that reads and then writes
therefore never fails half-way because another process wrote in between (with a deferred
BEGIN, SQLite cannot wait at the first write: it fails at once with "database is locked").
Readers never take it: SQLite's WAL and PostgreSQL's MVCC let them read while a writer works.

A writer that finds the lock taken waits up to `wait` seconds, telling `on_wait` once when it
has waited about a second (the command line prints "waiting for another writer", the GUI
shows it), and raises `ProjectBusy` if the lock is still taken then. Nothing is written by a
transaction that could not start.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import OperationalError

from judgeapp.errors import UserError

READ_BUSY_MS = 10_000  # how long a reader (or a write statement) waits on SQLite's locks
ATTEMPT_S = 0.25  # SQLite's busy timeout per attempt: the waiting is done in these steps
TELL_AFTER_S = 1.0  # when a waiting writer says so
DEFAULT_WAIT_S = 600.0  # commands wait this long for a writer ahead of them
PG_WRITE_LOCK = 0x6A75646765617070  # "judgeapp": the advisory lock key on PostgreSQL


class ProjectBusy(UserError, RuntimeError):
    """Another writer held the project's write lock for longer than this one would wait."""


def is_write(conn: Connection) -> bool:
    """Whether `conn` was opened by `begin_write` (the SQLite engine then starts its
    transaction with BEGIN IMMEDIATE)."""
    return bool(conn.get_execution_options().get("judgeapp_write"))


def _locked(exc: OperationalError) -> bool:
    text_ = str(exc.orig).lower()
    return "database is locked" in text_ or "database is busy" in text_


@contextlib.contextmanager
def begin_write(
    engine: Engine,
    wait: float = DEFAULT_WAIT_S,
    on_wait: Callable[[], None] | None = None,
) -> Iterator[Connection]:
    """A connection in a write transaction holding the project's write lock; committed when
    the block ends, rolled back if it raises."""
    start = time.monotonic()
    told = False

    def waiting() -> float:
        """Seconds left to wait (<= 0: give up); tells `on_wait` once after a second."""
        nonlocal told
        elapsed = time.monotonic() - start
        if on_wait is not None and not told and elapsed >= min(TELL_AFTER_S, wait):
            told = True
            on_wait()
        return wait - elapsed

    with engine.connect() as conn:
        conn.execution_options(judgeapp_write=True)
        sqlite = conn.dialect.name == "sqlite"
        while True:
            if sqlite:
                left = max(0.0, min(ATTEMPT_S, wait - (time.monotonic() - start)))
                conn.connection.driver_connection.execute(  # type: ignore[union-attr]
                    f"PRAGMA busy_timeout={int(left * 1000)}"
                )
            try:
                trans = conn.begin()
            except OperationalError as exc:
                if not (sqlite and _locked(exc)):
                    raise
                conn.rollback()
                if waiting() <= 0:
                    raise ProjectBusy(
                        f"another process is writing to the project; waited {wait:.0f} s"
                    ) from None
                continue
            if sqlite:
                conn.connection.driver_connection.execute(  # type: ignore[union-attr]
                    f"PRAGMA busy_timeout={READ_BUSY_MS}"
                )
            else:
                _pg_lock(conn, trans, waiting, wait)
            break
        try:
            yield conn
        except BaseException:
            trans.rollback()
            raise
        trans.commit()


def _pg_lock(conn: Connection, trans, waiting: Callable[[], float], wait: float) -> None:
    key = {"k": PG_WRITE_LOCK}
    if conn.execute(text("SELECT pg_try_advisory_xact_lock(:k)"), key).scalar():
        return
    while True:
        left = waiting()
        if left <= 0:
            trans.rollback()
            raise ProjectBusy(f"another process is writing to the project; waited {wait:.0f} s")
        # wait in the server's queue (fair), in steps, so that `on_wait` is told in time
        step = max(1, int(min(left, TELL_AFTER_S) * 1000))
        conn.execute(text(f"SET LOCAL lock_timeout = {step}"))
        savepoint = conn.begin_nested()
        try:
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), key)
        except OperationalError:
            savepoint.rollback()
            continue
        savepoint.commit()
        conn.execute(text("SET LOCAL lock_timeout = 0"))
        return
