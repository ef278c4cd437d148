"""What every part of the `Store` facade shares: the engine, short transactions, errors."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine

from judgeapp.errors import UserError
from judgeapp.store.locking import DEFAULT_WAIT_S, begin_write


class StoreError(UserError, ValueError):
    """A request the project cannot honour (a name taken, an unknown run, ...)."""


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


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
        self._engine.dispose()

    @contextlib.contextmanager
    def _begin(self) -> Iterator[Connection]:
        """A write transaction holding the project's write lock (see `writing_with`)."""
        wait, on_wait = getattr(self._local, "policy", None) or (self.write_wait, self.on_wait)
        with begin_write(self._engine, wait, on_wait) as conn:
            yield conn

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._engine.connect() as conn:
            yield conn

    def _assessor_ids(self, conn: Connection, assessors: Sequence[str] | None) -> list[int] | None:
        if assessors is None:
            return None
        # every assessor in one plain query: a handful of rows, and no IN list to compile
        rows = dict(conn.exec_driver_sql("SELECT name, id FROM assessors").fetchall())
        missing = [a for a in assessors if a not in rows]
        if missing:
            raise StoreError(f"no assessor or judgment source named {missing[0]!r}")
        return [rows[a] for a in assessors]
