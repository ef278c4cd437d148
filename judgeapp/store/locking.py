"""One writer at a time, each waiting its turn: how every write transaction of a project
starts.

A write transaction takes the project's write lock before it starts: on SQLite an exclusive
lock on a file beside the project, then BEGIN IMMEDIATE; on PostgreSQL a transaction-level
advisory lock. A transaction that reads and then writes therefore never fails half-way
because another process wrote in between (with a deferred BEGIN, SQLite cannot wait at the
first write: it fails at once with "database is locked"). Readers never take it: SQLite's
WAL and PostgreSQL's MVCC let them read while a writer works.

A writer that finds the lock taken waits up to `wait` seconds, telling `on_wait` once when it
has waited about a second (the command line prints "waiting for another writer", the GUI
shows it), and raises `ProjectBusy` if the lock is still taken then. Nothing is written by a
transaction that could not start.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import time
from collections.abc import Callable, Iterator

from sqlalchemy import Connection, Engine, RootTransaction, text
from sqlalchemy.exc import OperationalError

from judgeapp.errors import UserError
from judgeapp.store.files import lock_file_error

READ_BUSY_MS = 10_000  # how long a reader (or a write statement) waits on SQLite's locks
POLL_S = 0.005  # how often a waiting SQLite writer tries the lock again
TELL_AFTER_S = 1.0  # when a waiting writer says so
DEFAULT_WAIT_S = 600.0  # commands wait this long for a writer ahead of them
PG_WRITE_LOCK = 0x6A75646765617070  # "judgeapp": the advisory lock key on PostgreSQL


class ProjectBusy(UserError, RuntimeError):
    """Another writer held the project's write lock for longer than this one would wait."""


def is_write(conn: Connection) -> bool:
    """Whether `conn` was opened by `begin_write` (the SQLite engine then starts its
    transaction with BEGIN IMMEDIATE)."""
    return bool(conn.get_execution_options().get("judgeapp_write"))


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

    if engine.dialect.name == "sqlite":
        with _sqlite_write_lock(engine, waiting, wait), engine.connect() as conn:
            conn.execution_options(judgeapp_write=True)
            with conn.begin():  # BEGIN IMMEDIATE: ours at once, judgeapp writers queue above
                yield conn
            _checkpoint_if_large(engine, conn)
        return
    with engine.connect() as conn:
        conn.execution_options(judgeapp_write=True)
        trans = conn.begin()
        _pg_lock(conn, trans, waiting, wait)
        try:
            yield conn
        except BaseException:
            trans.rollback()
            raise
        trans.commit()


def _busy(wait: float) -> ProjectBusy:
    return ProjectBusy(f"another process is writing to the project; waited {wait:.0f} s")


# -- SQLite ----------------------------------------------------------------------------------
# Writers queue on an exclusive flock(2) of a lock file beside the project before they BEGIN
# IMMEDIATE, and checkpoint the WAL (when it has grown) before they let go; connections never
# checkpoint on their own (wal_autocheckpoint=0). So a checkpoint never runs beside another
# checkpoint or beside a commit: the race of SQLite's "WAL-reset bug" (SQLite 3.7.0 to
# 3.51.2, fixed in 3.51.3; Python 3.11 ships 3.40.1), which leaves a corrupt WAL index behind
# ("database disk image is malformed" in every process that has the project open, while the
# file itself is sound), cannot happen between judgeapp's processes.
CHECKPOINT_BYTES = 4 << 20  # SQLite's own default: 1000 pages of 4 KiB


def _database_path(engine: Engine) -> str | None:
    database = engine.url.database
    return None if database in (None, "", ":memory:") else database


@contextlib.contextmanager
def _sqlite_write_lock(engine: Engine, waiting: Callable[[], float], wait: float) -> Iterator[None]:
    path = _database_path(engine)
    if path is None:
        yield
        return
    # a descriptor of its own each time: flock(2) locks belong to an open file, so two
    # threads of one process exclude each other only through two descriptors
    try:
        fd = os.open(path + "-judgeapp-lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise lock_file_error(path, exc) from None
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if waiting() <= 0:
                    raise _busy(wait) from None
                time.sleep(POLL_S)
        yield
    finally:
        os.close(fd)  # releases the lock


def _checkpoint_if_large(engine: Engine, conn: Connection) -> None:
    path = _database_path(engine)
    if path is None:
        return
    try:
        size = os.path.getsize(path + "-wal")
    except OSError:
        return
    if size > CHECKPOINT_BYTES:
        driver = conn.connection.driver_connection
        # after the commit: a checkpoint that fails (a full disk) leaves the committed data
        # in the WAL, where every reader finds it, and the next writer tries again
        with contextlib.suppress(sqlite3.Error):
            driver.execute("PRAGMA wal_checkpoint(PASSIVE)")  # type: ignore[union-attr]


# -- PostgreSQL ------------------------------------------------------------------------------
def _pg_lock(
    conn: Connection, trans: RootTransaction, waiting: Callable[[], float], wait: float
) -> None:
    key = {"k": PG_WRITE_LOCK}
    if conn.execute(text("SELECT pg_try_advisory_xact_lock(:k)"), key).scalar():
        return
    while True:
        left = waiting()
        if left <= 0:
            trans.rollback()
            raise _busy(wait)
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
