"""The store: every read and write of a project goes through `Store`, which composes one
`Db` (engine, transactions, locks, dialect differences: `judgeapp.store.db`) with a
repository per aggregate, each in a module of its own:

- `store.topics` (`topics.py`), `store.documents` (`documents.py`, with the docno ids),
  `store.runs` (`runs.py`), `store.pools` (`pools.py`), `store.judgments` (`judgments.py`),
  `store.history` (`history.py`), `store.team` (`team.py`: assessors, assignments, roles),
  `store.settings` (`settings.py`: settings and the scale), `store.search` (`search.py`).

Each repository method opens one short transaction (`with self.db.begin() as conn`) and
returns plain records or numpy arrays. Methods that take several files take them together,
so an import of many files lands whole or not at all. Bulk paths (runs, documents, qrels)
use Core statements with `executemany`; the ORM classes in `models` define the schema.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Self

from sqlalchemy import Table, func, inspect, select
from sqlalchemy.exc import DBAPIError

from judgeapp.errors import NoProject
from judgeapp.records import DEFAULT_SCALE
from judgeapp.store import models as m
from judgeapp.store.base import Scope, StoreError, utcnow
from judgeapp.store.db import Db
from judgeapp.store.documents import Documents
from judgeapp.store.files import (
    ProjectFileError,
    check_project_file,
    discard_staged,
    end_session,
    hold,
    put_in_place,
    release,
    session_mark,
    staged_file,
)
from judgeapp.store.history import History
from judgeapp.store.judgments import Judgments
from judgeapp.store.locking import DEFAULT_WAIT_S, OnWait
from judgeapp.store.pools import Pools
from judgeapp.store.runs import Runs
from judgeapp.store.schema import (
    Refused,
    create_project_engine,
    current_revision,
    database_url,
    sqlite_path,
    upgrade,
)
from judgeapp.store.search import Search
from judgeapp.store.settings import Settings
from judgeapp.store.team import Team
from judgeapp.store.topics import Topics


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


class NoProjectThere(StoreError, NoProject):
    """Nothing at the path of a project opened without `create` (a StoreError for the
    commands, judgeapp.errors.NoProject for the window, which may not import the store)."""


class Store:
    """One open project: its `Db` and the repositories over it."""

    def __init__(self, db: Db) -> None:
        self.db = db
        self.topics = Topics(db)
        self.documents = Documents(db)
        self.runs = Runs(db)
        self.pools = Pools(db)
        self.judgments = Judgments(db)
        self.history = History(db)
        self.team = Team(db)
        self.settings = Settings(db)
        self.search = Search(db)

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
        store.db.building = (staged, path)
        return store

    @staticmethod
    def is_new_file(db: str | Path) -> bool:
        """Whether `db` is a project file path with nothing there yet (what `build` takes)."""
        path = sqlite_path(database_url(db))
        return path is not None and not os.path.lexists(path)

    @property
    def being_built(self) -> bool:
        """Whether this is a new project that `publish` has yet to put in its place."""
        return self.db.building is not None

    def publish(self) -> None:
        """Close the project :meth:`build` made and put it in its place (WAL from now on)."""
        db = self.db
        if db.building is None:
            raise StoreError("only a project being built is published")
        staged, path = db.building
        with db.engine.connect() as conn:
            driver = conn.connection.driver_connection
            driver.execute("PRAGMA journal_mode=WAL")  # type: ignore[union-attr]
        db.building = None
        self.close()
        put_in_place(staged, path)
        db.url = database_url(path)

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
            opened = Db(engine, url, backup)
            opened.read_only = read_only
            opened.held_file = held  # released by close (or below, if this fails)
            opened.session_lock, opened.check_due = session, due
            opened.limits = limits
            opened.settle()
            store = cls(opened)
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

    def reading(self) -> contextlib.AbstractContextManager[None]:
        """Reads of this thread inside the block share one connection and transaction
        (fewer round trips to a server): see `Db.reading`."""
        return self.db.reading()

    # -- the database's own state, read through the store -------------------------------
    @property
    def url(self) -> str:
        return self.db.url

    @property
    def backup(self) -> str | None:
        """Where the pre-upgrade copy went, if opening upgraded the schema."""
        return self.db.backup

    @property
    def dialect(self) -> str:
        """`sqlite` or `postgresql`."""
        return self.db.dialect

    @property
    def scope(self) -> Scope | None:
        """What a team member's role sees (None: the owner, or SQLite); see `Db.scope`."""
        return self.db.scope

    @property
    def is_member(self) -> bool:
        return self.db.is_member

    @property
    def read_only(self) -> bool:
        return self.db.read_only

    @property
    def check_due(self) -> bool:
        return self.db.check_due

    @property
    def on_wait(self) -> OnWait | None:
        return self.db.on_wait

    @on_wait.setter
    def on_wait(self, on_wait: OnWait | None) -> None:
        self.db.on_wait = on_wait

    @property
    def write_wait(self) -> float:
        return self.db.write_wait

    @write_wait.setter
    def write_wait(self, seconds: float) -> None:
        self.db.write_wait = seconds

    def writing_with(
        self, wait: float, on_wait: OnWait | None = None
    ) -> contextlib.AbstractContextManager[None]:
        """See `Db.writing_with`."""
        return self.db.writing_with(wait, on_wait)

    def check(self, *, full: bool = False) -> list[str]:
        """SQLite's own check of the project file (`Db.check`)."""
        return self.db.check(full=full)

    def refresh_scope(self) -> Scope | None:
        """Read again what the server shows this connection (`Db.refresh_scope`)."""
        return self.db.refresh_scope()

    def close(self) -> None:
        """Close the project; one being built and not published is removed."""
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _ensure_defaults(self) -> None:
        with self.db.read() as conn:
            has_scale = conn.execute(select(func.count()).select_from(m.Grade)).scalar()
            has_created = conn.execute(
                select(m.Setting.c.key).where(m.Setting.c.key == "created_at")
            ).first()
        if has_scale and has_created:
            return  # nothing to write: opening an existing project leaves its file untouched
        with self.db.begin() as conn:  # under the write lock: another process may be first
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

    # -- overview ----------------------------------------------------------------------
    def totals(self) -> dict[str, int]:
        """How many rows each kind of record has: documents (with text), docnos, assessors,
        judgments, pools, topics."""
        with self.db.read() as conn:

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

    def integrity_check(self) -> str:
        with self.db.read() as conn:
            return str(conn.exec_driver_sql("PRAGMA integrity_check").scalar_one())
