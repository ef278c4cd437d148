"""Following a project that other processes write: what they committed, as `Changes`.

Every write transaction logs the `Changes` it made in `project_changes` (see
`StoreBase._begin`). A `ChangeFeed` asks first whether anything was committed at all, without
reading the database when nothing was:

- SQLite: `PRAGMA data_version` on a connection of its own changes when another connection
  commits (a few microseconds, no file read beyond the WAL index);
- PostgreSQL: the writers `NOTIFY judgeapp_changes` inside their transaction, delivered at
  commit to a connection that `LISTEN`s; checking for a notification reads the socket only.

Only then are the log rows newer than the last one seen read, the feed's own store's rows
left out (its own process applied them already).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import make_url

from judgeapp.records import Changes
from judgeapp.store import models as m
from judgeapp.store.base import NOTIFY_CHANNEL, StoreBase
from judgeapp.store.schema import sqlite_path


class ChangeFeed:
    """What other processes committed to `store`'s project since the feed last looked."""

    def __init__(self, store: StoreBase) -> None:
        self.store = store
        self.last = self._newest()
        self._sqlite: sqlite3.Connection | None = None
        self._pg: Any = None
        self._version = -1
        path = sqlite_path(store.url)
        if store.dialect == "sqlite" and path is not None:
            self._sqlite = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
            self._version = self._data_version()
        elif store.dialect == "postgresql":
            import psycopg

            conninfo = make_url(store.url).set(drivername="postgresql")
            self._pg = psycopg.connect(
                conninfo.render_as_string(hide_password=False), autocommit=True
            )
            self._pg.execute(f"LISTEN {NOTIFY_CHANNEL}")

    def _newest(self) -> int:
        with self.store._read() as conn:
            return int(
                conn.execute(
                    select(m.ProjectChange.c.id).order_by(m.ProjectChange.c.id.desc()).limit(1)
                ).scalar()
                or 0
            )

    def _data_version(self) -> int:
        assert self._sqlite is not None
        return int(self._sqlite.execute("PRAGMA data_version").fetchone()[0])

    def _committed(self) -> bool:
        """Whether anything may have been committed since the last look (cheap)."""
        if self._sqlite is not None:
            version = self._data_version()
            if version == self._version:
                return False
            self._version = version
            return True
        if self._pg is not None:
            return any(True for _ in self._pg.notifies(timeout=0))
        return True  # another back end: read the log

    def poll(self) -> Changes | None:
        """What other processes changed since the last call, or None."""
        if not self._committed():
            return None
        with self.store._read() as conn:
            rows = conn.execute(
                select(m.ProjectChange.c.id, m.ProjectChange.c.writer, m.ProjectChange.c.changes)
                .where(m.ProjectChange.c.id > self.last)
                .order_by(m.ProjectChange.c.id)
            ).all()
        if not rows:
            return None
        self.last = rows[-1][0]
        changes = Changes()
        for _id, writer, data in rows:
            if writer != self.store.token:
                changes = changes | Changes.from_json(data)
        return None if changes.empty else changes

    def close(self) -> None:
        for conn in (self._sqlite, self._pg):
            if conn is not None:
                conn.close()
        self._sqlite = self._pg = None
