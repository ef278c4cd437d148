"""Following a project that other processes write: what they committed, as `Changes`.

Every write transaction logs the `Changes` it made in `project_changes` (see
`Db.begin`). A `ChangeFeed` asks first whether anything was committed at all, without
reading the database when nothing was:

- SQLite: `PRAGMA data_version` on a connection of its own changes when another connection
  commits (a few microseconds, no file read beyond the WAL index);
- PostgreSQL: each log row `NOTIFY`s its id (schema 0006; a trigger), delivered at commit
  to a connection that `LISTEN`s; checking for a notification reads the socket only.

Only then are the log rows read: on SQLite those newer than the last one seen (its writers
commit one at a time, in the order of their ids); on PostgreSQL the ones notified, since team
members' judgments commit side by side, not in the order of their ids. The feed's own
store's rows are left out (its own process applied them already), and rows the server does
not show this connection (a blind assessor's) are not read.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import make_url

from judgeapp.records import Changes
from judgeapp.store import models as m
from judgeapp.store.base import NOTIFY_CHANNEL
from judgeapp.store.db import Db
from judgeapp.store.schema import sqlite_path


class ChangeFeed:
    """What other processes committed to `db`'s project since the feed last looked."""

    def __init__(self, db: Db) -> None:
        self.db = store = db
        self._sqlite: sqlite3.Connection | None = None
        self._pg: Any = None
        self._version = -1
        self._notified: set[int] = set()
        path = sqlite_path(store.url)
        if store.dialect == "postgresql":
            import psycopg

            conninfo = make_url(store.url).set(drivername="postgresql")
            self._pg = psycopg.connect(
                conninfo.render_as_string(hide_password=False), autocommit=True
            )
            self._pg.execute(f"LISTEN {NOTIFY_CHANNEL}")  # before the newest is read
        self.last = self._newest()
        if store.dialect == "sqlite" and path is not None:
            self._sqlite = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
            self._version = self._data_version()

    def _newest(self) -> int:
        with self.db.read() as conn:
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
            found = False
            for note in self._pg.notifies(timeout=0):
                found = True
                if note.payload.isdigit():
                    self._notified.add(int(note.payload))
            return found
        return True  # another back end: read the log

    def poll(self) -> Changes | None:
        """What other processes changed since the last call, or None."""
        if not self._committed():
            return None
        log = m.ProjectChange.c
        which = log.id > self.last
        if self._notified:  # PostgreSQL: the rows whose commits were announced
            which = log.id.in_(sorted(self._notified))
            self._notified = set()
        with self.db.read() as conn:
            rows = conn.execute(
                select(log.id, log.writer, log.changes).where(which).order_by(log.id)
            ).all()
        if not rows:
            return None
        self.last = max(self.last, rows[-1][0])
        changes = Changes()
        for _id, writer, data in rows:
            if writer != self.db.token:
                changes = changes | Changes.from_json(data)
        return None if changes.empty else changes

    def close(self) -> None:
        for conn in (self._sqlite, self._pg):
            if conn is not None:
                conn.close()
        self._sqlite = self._pg = None
