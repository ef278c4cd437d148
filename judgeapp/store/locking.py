"""One writer at a time, each waiting its turn: how every write transaction of a project
starts.

A write transaction takes the project's write lock before it starts: on SQLite an exclusive
lock on a file beside the project, then BEGIN IMMEDIATE; on PostgreSQL the one row of the
`write_lock` table, `SELECT ... FOR UPDATE`, which only the project's owner may lock (schema
0006: a team member's role holds no privilege on it, and writes only through functions that
touch its own rows and need no common lock). A transaction that reads and then writes
therefore never fails half-way because another process wrote in between (with a deferred
BEGIN, SQLite cannot wait at the first write: it fails at once with "database is locked").
Readers never take it: SQLite's WAL and PostgreSQL's MVCC let them read while a writer works.

A writer that finds the lock taken (or, on PostgreSQL, any statement of a write that waits
for a lock) waits up to `wait` seconds; once it has waited about a second it tells `on_wait`
whom it waits for (on SQLite the process that holds the lock file, as that process wrote in
it; on PostgreSQL the sessions `pg_blocking_pids` names, with their role and since when),
and it raises `ProjectBusy` naming them if the lock is still taken then. Nothing is written
by a transaction that could not start or finish.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, Transaction, text
from sqlalchemy.exc import DBAPIError

from judgeapp.errors import UserError
from judgeapp.store.files import lock_file_error

READ_BUSY_MS = 10_000  # how long a reader (or a write statement) waits on SQLite's locks
POLL_S = 0.005  # how often a waiting SQLite writer tries the lock again
TELL_AFTER_S = 1.0  # when a waiting writer says so
DEFAULT_WAIT_S = 600.0  # commands wait this long for a writer ahead of them
# the project's owner may set another limit (`team wait SECONDS`, kept in this setting)
WAIT_SETTING = "team.wait_seconds"
# PostgreSQL: what the server raises when a wait for a lock or a statement ran out of time
LOCK_NOT_AVAILABLE, QUERY_CANCELED = "55P03", "57014"
# before schema 0006 (and while a new database gets its schema): the writers' advisory lock
PG_WRITE_LOCK = 0x6A75646765617070  # "judgeapp"

# PostgreSQL: the lock_timeout (ms) a pooled session was started with (in its pool entry's
# `info`; schema.create_project_engine), and a write transaction's pipeline (`begin_write`)
SESSION_LOCK_MS, PIPELINE = "judgeapp_session_lock_ms", "judgeapp_pipeline"


def lock_timeout_ms(wait: float) -> int:
    """PostgreSQL's lock_timeout (ms, at least 1: 0 would mean no bound) for a wait of
    `wait` seconds: the session's (schema.session_options) and a write's (`begin_write`),
    which sends its own only when the two differ."""
    return max(1, int(wait * 1000))


OnWait = Callable[[str], None]  # told whom a writer waits for (once it has waited a second)


class ProjectBusy(UserError, RuntimeError):
    """A writer waited for another (or a statement for a lock) longer than it would."""


def is_write(conn: Connection) -> bool:
    """Whether `conn` was opened by `begin_write` (the SQLite engine then starts its
    transaction with BEGIN IMMEDIATE)."""
    return bool(conn.get_execution_options().get("judgeapp_write"))


@contextlib.contextmanager
def begin_write(
    engine: Engine,
    wait: float = DEFAULT_WAIT_S,
    on_wait: OnWait | None = None,
    *,
    lock: str = "row",
) -> Iterator[Connection]:
    """A connection in a write transaction holding the project's write lock; committed when
    the block ends, rolled back if it raises. PostgreSQL: `lock` is "row" (the `write_lock`
    row, schema 0006 on), "advisory" (a database without that table yet), or "none" (a team
    member's write, which runs through the server's functions and locks only its own rows);
    every lock a statement of the transaction waits for is waited for at most `wait`."""
    if engine.dialect.name == "sqlite":
        with _sqlite_write_lock(engine, wait, on_wait), engine.connect() as conn:
            conn.execution_options(judgeapp_write=True)
            with conn.begin():  # BEGIN IMMEDIATE: ours at once, judgeapp writers queue above
                yield conn
            _checkpoint_if_large(engine, conn)
        return
    with engine.connect() as conn, contextlib.ExitStack() as rest:
        conn.execution_options(judgeapp_write=True)
        trans = conn.begin()
        watch = Watch(engine, conn, on_wait, wait)
        # (kept: once a failed write's session is dropped, `conn.info` raises instead)
        info = conn.info
        info[PIPELINE] = rest
        try:
            with watch:
                lock_ms = lock_timeout_ms(wait)
                # the session's own bound (set as it connected) unless this write differs:
                # a round trip saved on every write
                if conn.connection.info.get(SESSION_LOCK_MS) != lock_ms:
                    conn.exec_driver_sql(f"SET LOCAL lock_timeout = {lock_ms}")
                if lock == "row":
                    conn.exec_driver_sql("SELECT id FROM write_lock WHERE id = 1 FOR UPDATE")
                elif lock == "advisory":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": PG_WRITE_LOCK})
                yield conn
                trans.commit()
        except DBAPIError as exc:
            _roll_back(conn, trans, rest)
            busy = ran_out(exc, wait, watch.holders or watch.describe())
            if busy is None:
                raise
            raise busy from None
        except BaseException:
            _roll_back(conn, trans, rest)
            raise
        finally:
            info.pop(PIPELINE, None)  # the pool keeps `info` with the connection


def _roll_back(conn: Connection, trans: Transaction, pipeline: contextlib.ExitStack) -> None:
    """Undo a write transaction that failed, its COMMIT too: a pipelined write refused by
    the server (`pipeline_to_commit`) fails at the COMMIT, after which SQLAlchemy takes the
    transaction for ended while the session is still in it, aborted; returned to the pool
    so, the connection would fail every later statement. A session that cannot roll back is
    dropped from the pool.

    The pipeline is ended first, its own errors dropped (they are the one being handled, or
    psycopg's "pipeline aborted" for the statements after it): a ROLLBACK sent into an
    aborted pipeline would fail with "pipeline aborted" in place of the server's reason."""
    with contextlib.suppress(Exception):
        pipeline.close()
    if trans.is_active:
        trans.rollback()
        return
    try:
        conn.connection.driver_connection.rollback()  # type: ignore[union-attr]
    except Exception:  # the server went away: the error that follows says more
        conn.invalidate()


def pipeline_to_commit(conn: Connection) -> None:
    """PostgreSQL: the statements this write transaction (`begin_write`) sends from now on
    go to the server together with its COMMIT (psycopg's pipeline mode), in one round trip
    instead of one each; an error in any of them surfaces at the commit, and nothing is
    written. They must return no rows (an insert: `.inline()`, no implicit RETURNING), and
    nothing may be read after this call. Does nothing on SQLite or outside `begin_write`."""
    rest: contextlib.ExitStack | None = conn.info.get(PIPELINE)
    if rest is not None and conn.dialect.name == "postgresql":
        driver = conn.connection.driver_connection
        rest.enter_context(driver.pipeline())  # type: ignore[union-attr]


def ran_out(exc: DBAPIError, wait: float, holders: str) -> ProjectBusy | None:
    """The `ProjectBusy` for a PostgreSQL error that says a wait ran out of time, else None."""
    code = getattr(exc.orig, "sqlstate", None)
    if code not in (LOCK_NOT_AVAILABLE, QUERY_CANCELED):
        return None
    whom = f"for {holders}" if holders else "for another writer"
    return ProjectBusy(
        f"gave up after waiting {wait:.0f} s {whom}; nothing was written (the project's "
        "owner sets how long a command waits: `team wait SECONDS`)"
    )


# -- SQLite ----------------------------------------------------------------------------------
# Writers queue on an exclusive flock(2) of a lock file beside the project before they BEGIN
# IMMEDIATE, and checkpoint the WAL (when it has grown) before they let go; connections never
# checkpoint on their own (wal_autocheckpoint=0). So a checkpoint never runs beside another
# checkpoint or beside a commit: the race of SQLite's "WAL-reset bug" (SQLite 3.7.0 to
# 3.51.2, fixed in 3.51.3; Python 3.11 ships 3.40.1), which leaves a corrupt WAL index behind
# ("database disk image is malformed" in every process that has the project open, while the
# file itself is sound), cannot happen between judgeapp's processes. The holder writes who
# it is into the lock file (its process id, its command, since when), for the writers that
# wait to say whom they wait for.
# Nothing here opens the -shm file (to read the WAL index's counts, say): closing any
# descriptor of a file drops every POSIX lock this process holds on it, SQLite's included
# (sqlite.org/howtocorrupt.html, 2.2), and another process then takes the WAL index for
# abandoned and truncates it under the others' maps (they die of SIGBUS).
CHECKPOINT_BYTES = 4 << 20  # SQLite's own default: 1000 pages of 4 KiB


def _database_path(engine: Engine) -> str | None:
    database = engine.url.database
    return None if database in (None, "", ":memory:") else database


def _clock(at: datetime) -> str:
    return at.strftime("%H:%M:%S UTC")


def _whoami() -> str:
    command = " ".join(os.path.basename(a) for a in sys.argv[:3]) or "python"
    return f"process {os.getpid()} ({command[:80]}), since {_clock(datetime.now(UTC))}"


HOLDER_BYTES = 200  # the holder's line in the lock file, padded to a fixed length


def _holder_line() -> bytes:
    """Who holds the lock, padded to HOLDER_BYTES: written over the last holder's line in
    place. Truncating the file first (a change of its size) waited for the file system's
    journal behind other processes' syncs: 3 ms of every judgment on a busy disk."""
    line = _whoami().encode("utf-8", "replace")[: HOLDER_BYTES - 1]
    return line.ljust(HOLDER_BYTES - 1) + b"\n"


def _holder(fd: int) -> str:
    """Who holds the lock file, as the holder wrote it (or "another process")."""
    try:
        said = os.pread(fd, HOLDER_BYTES, 0).decode("utf-8", "replace").strip()
    except OSError:
        said = ""
    return said.splitlines()[0] if said else "another process"


@contextlib.contextmanager
def _sqlite_write_lock(engine: Engine, wait: float, on_wait: OnWait | None) -> Iterator[None]:
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
    start = time.monotonic()
    told = False
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                waited = time.monotonic() - start
                if on_wait is not None and not told and waited >= min(TELL_AFTER_S, wait):
                    told = True
                    on_wait(f"waiting for another writer: {_holder(fd)}")
                if waited >= wait:
                    raise ProjectBusy(
                        f"gave up after waiting {wait:.0f} s for another writer: "
                        f"{_holder(fd)}; nothing was written"
                    ) from None
                time.sleep(POLL_S)
        with contextlib.suppress(OSError):  # a read-only lock file: the waiters say less
            os.pwrite(fd, _holder_line(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def _checkpoint_if_large(engine: Engine, conn: Connection) -> None:
    path = _database_path(engine)
    if path is None:
        return
    try:
        # the log not yet checkpointed: every connection sets journal_size_limit=0, so the
        # writer that starts the log again after a checkpoint cuts the file back to its
        # start (judgeapp.store.schema), and the file's size is what was written since
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
BLOCKERS = (
    "SELECT a.pid, a.usename, a.application_name, a.state, a.xact_start, "
    "(SELECT s.name FROM assessors s WHERE s.db_role = a.usename::text) "
    "FROM pg_stat_activity a WHERE a.pid = ANY (pg_blocking_pids(%s)) ORDER BY a.pid"
)


class Watch:
    """While a PostgreSQL transaction runs: once a second, whether its session waits for a
    lock, and if so, whom for (`holders`); `on_wait` is told each new set of them. Runs
    only when someone is told and the wait is longer than a second."""

    def __init__(self, engine: Engine, conn: Connection, on_wait: OnWait | None, wait: float):
        self.engine = engine
        self.on_wait = on_wait
        self.holders = ""
        self.pid = _backend_pid(conn)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if on_wait is not None and wait > TELL_AFTER_S and self.pid is not None:
            self._thread = threading.Thread(target=self._run, name="judgeapp-watch", daemon=True)

    def __enter__(self) -> Watch:
        if self._thread is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        told = ""
        while not self._stop.wait(TELL_AFTER_S):
            holders = self.describe()
            if holders and holders != told and not self._stop.is_set():
                told = self.holders = holders
                assert self.on_wait is not None
                self.on_wait(f"waiting for {holders}")

    def describe(self) -> str:
        """Whom the session waits for now ("" when it waits for nobody)."""
        if self.pid is None:
            return ""
        try:
            with self.engine.connect() as other:
                cursor = other.connection.driver_connection.cursor()  # type: ignore[union-attr]
                cursor.execute(BLOCKERS, (self.pid,))
                rows = cursor.fetchall()
                other.rollback()
        except Exception:  # the server is going away: the error that follows says more
            return ""
        return "; ".join(_session(*row) for row in rows)


def _backend_pid(conn: Connection) -> int | None:
    info = getattr(conn.connection.driver_connection, "info", None)
    pid = getattr(info, "backend_pid", None)
    return pid if isinstance(pid, int) else None


def _session(
    pid: int, role: str | None, app: str | None, state: str | None, since: datetime | None,
    assessor: str | None,
) -> str:  # fmt: skip
    who = f"role {role}" if role else "a session"
    if assessor:
        who += f" (assessor {assessor})"
    where = ", ".join(x for x in (app or "", f"pid {pid}") if x)
    text_ = f"{who}, {where}"
    if since is not None:
        state_ = (
            "idle in a transaction" if state and state.startswith("idle in") else "in a transaction"
        )
        text_ += f", {state_} since {_clock(since.astimezone(UTC))}"
    return text_
