"""The project database under the repositories: one `Db` per open project."""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, select

from judgeapp.records import Changes
from judgeapp.store import models as m
from judgeapp.store.base import (
    MAX_LOGGED_DOCS,
    OwnerOnly,
    Scope,
    StoreError,
    raw,
    utcnow,
)
from judgeapp.store.files import (
    REPAIR_HINT,
    ProjectFileError,
    check_passed,
    discard_staged,
    end_session,
    release,
)
from judgeapp.store.locking import DEFAULT_WAIT_S, WAIT_SETTING, OnWait, begin_write


class Db:
    """One open project database: the engine, the short transactions every repository
    runs (`begin` writes under the project's write lock and logs the changes reported with
    `changed`; `read`; `member_write` for a team member's role), the session and file
    locks, and what differs between SQLite and PostgreSQL (`dialect`, `scope`)."""

    def __init__(self, engine: Engine, url: str, backup: str | None = None) -> None:
        self.engine = engine
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
        self.session_lock: int | None = None  # the descriptor holding the session lock
        self.held_file: tuple[int, int] | None = None  # judgeapp.store.files.hold
        # (file, its place) of a new project not yet put in its place (`Store.build`)
        self.building: tuple[Path, Path] | None = None
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
        return self.engine.dialect.name

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
        self.engine.dispose()
        held, self.held_file = self.held_file, None
        release(held)
        session, self.session_lock = self.session_lock, None
        end_session(session)
        building, self.building = self.building, None
        if building is not None:
            discard_staged(building[0])

    @contextlib.contextmanager
    def begin(self) -> Iterator[Connection]:
        """A write transaction holding the project's write lock (see `writing_with`). What
        the methods report with `changed` is logged in the same transaction, for the
        other processes that show the project (`judgeapp.store.feed`)."""
        if self.scope is not None:
            raise self._owner_only()
        wait, on_wait = self._wait_policy()
        with begin_write(self.engine, wait, on_wait) as conn:
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
        with self.read() as conn:
            found = [str(r[0]) for r in conn.exec_driver_sql(f"PRAGMA {pragma}").fetchall()]
        if found == ["ok"]:
            self._passed()
        return found or ["no answer"]

    def _passed(self) -> None:
        self.check_due = False
        check_passed(self.session_lock)

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
    def member_write(self) -> Iterator[Connection]:
        """A team member's write: one short transaction calling the server's functions,
        whose locks (its own rows only) are waited for at most as long as any write's."""
        wait, on_wait = self._wait_policy()
        with begin_write(self.engine, wait, on_wait, lock="none") as conn:
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
    def changed(conn: Connection, changes: Changes) -> None:
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
        # on PostgreSQL a trigger on the log NOTIFYs NOTIFY_CHANNEL, delivered at commit;
        # inline: no id returned, so it may go in a pipeline (locking.pipeline_to_commit)
        conn.execute(
            m.ProjectChange.insert().inline(),
            {"at": utcnow(), "writer": self.token, "changes": changes.to_json()},
        )

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection to read through: its own short transaction, or inside `reading`
        the one this thread shares."""
        shared: Connection | None = getattr(self._local, "reading", None)
        if shared is not None:
            yield shared
            return
        with self.engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Reads of this thread inside the block share one connection and one transaction
        (on SQLite one snapshot; PostgreSQL's read committed gives each statement its own),
        so that on a server each read saves the round trips of taking a connection and of
        beginning and ending a transaction (40 reads when a project opens). For reads only:
        a write inside the block runs on a connection of its own, which an SQLite snapshot
        taken before it does not see."""
        if getattr(self._local, "reading", None) is not None:
            yield
            return
        with self.engine.connect() as conn:
            self._local.reading = conn
            try:
                yield
            finally:
                self._local.reading = None

    def assessor_ids(self, conn: Connection, assessors: Sequence[str] | None) -> list[int] | None:
        if assessors is None:
            return None
        # every assessor in one plain query: a handful of rows, and no IN list to compile
        rows = dict(raw(conn, "SELECT name, id FROM assessors").fetchall())
        missing = [a for a in assessors if a not in rows]
        if missing:
            raise StoreError(f"no assessor or judgment source named {missing[0]!r}")
        return [rows[a] for a in assessors]

    def setting(self, key: str, default: Any = None) -> Any:
        """A project setting's value (`default` when it is not set)."""
        with self.read() as conn:
            row = conn.execute(select(m.Setting.c.value).where(m.Setting.c.key == key)).first()
        return default if row is None else row[0]

    def settle(self) -> None:
        """How long this store's writes wait (the owner's choice, `team wait`), and on
        PostgreSQL whether this connection is a team member's role and what it may see."""
        wait = self.setting(WAIT_SETTING)
        if isinstance(wait, int | float) and not isinstance(wait, bool) and 0 < wait <= 86400:
            self.write_wait = float(wait)
            if self.limits["wait"] != float(wait):
                self.limits["wait"] = float(wait)
                self.engine.dispose()  # sessions from now on wait that long for a lock
        if self.dialect == "postgresql":
            self.refresh_scope()

    def refresh_scope(self) -> Scope | None:
        """Read again what the server shows this connection (a team member's role: its
        assessor, role and blind mode may change while it works); None for the owner."""
        if self.dialect != "postgresql":
            return None
        with self.read() as conn:
            owner = conn.exec_driver_sql(
                "SELECT pg_has_role(current_user, c.relowner, 'USAGE'), current_user "
                "FROM pg_class c WHERE c.oid = 'judgments'::regclass"
            ).one()
            if owner[0]:
                self.scope = None
                return None
            data = conn.exec_driver_sql("SELECT judgeapp_scope()").scalar_one()
        topics = data.get("topics")
        self.scope = Scope(
            role=str(owner[1]),
            assessor=data.get("assessor"),
            team_role=str(data.get("role") or "assessor"),
            sees_all=bool(data.get("sees_all")),
            topics=None if topics is None else tuple(topics),
            owner=str(data.get("owner")),
        )
        return self.scope


class Repository:
    """One aggregate's reads and writes (`store.topics`, `store.runs`, ...), each in one
    short transaction of the project's `Db`."""

    def __init__(self, db: Db) -> None:
        self.db = db
