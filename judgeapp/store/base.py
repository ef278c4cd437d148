"""What every part of the `Store` facade shares: the engine, short transactions, errors."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine

from judgeapp.errors import UserError


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

    def close(self) -> None:
        self._engine.dispose()

    @contextlib.contextmanager
    def _begin(self) -> Iterator[Connection]:
        with self._engine.begin() as conn:
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
