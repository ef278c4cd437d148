"""Assessors as database users: on PostgreSQL each assessor can connect as a role of their
own, which the server then holds to what that assessor may see and write (schema revision
0006: row-level security on reads, writes only through the server's functions, no lock the
team waits on). The project's owner, who owns the tables, adds and removes them. A SQLite
file has no users: there the assessor name stays a label.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence

from sqlalchemy import Connection, select, text

from judgeapp.records import AssessorInfo, Changes
from judgeapp.store import models as m
from judgeapp.store.assessors import assessor_rows, create_assessor, find_assessor
from judgeapp.store.base import StoreError, utcnow
from judgeapp.store.db import Repository
from judgeapp.store.locking import WAIT_SETTING

# the roles `team add` created for this project (it adopts no other without being asked)
CREATED_SETTING = "team.created_roles"


def role_for(name: str) -> str:
    """A database role name for an assessor name: lower case letters, digits and _."""
    slug = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_") or "assessor"
    return slug if slug[0].isalpha() else f"a_{slug}"


class Team(Repository):
    """`store.team`: the assessors, their roles and topic assignments, and (PostgreSQL
    only, but `current_assessor` everywhere) the database roles they connect as."""

    def _require_postgres(self, what: str) -> None:
        if self.db.dialect != "postgresql":
            raise StoreError(
                f"{what} needs a project on a PostgreSQL server: a project file has no "
                "users, so there an assessor's name is only a label"
            )

    def add_member(
        self,
        name: str,
        *,
        role: str | None = None,
        password: str | None = None,
        adopt: bool = False,
    ) -> tuple[str, str | None]:
        """Make `name` an assessor who connects as database role `role` (made from the name
        by default; created with `password`, a new random one by default). A role that
        exists already is refused unless `team add` created it for this project, or `adopt`
        (its password then stays); a superuser, a role that bypasses row-level security,
        the owner's own role and any role that holds the owner's privileges are refused
        always. Returns (role, the password if the role was created)."""
        self._require_postgres("team add")
        role = role or role_for(name)
        with self.db.begin() as conn:
            q = conn.dialect.identifier_preparer.quote
            found = conn.execute(
                text(
                    "SELECT rolsuper, rolbypassrls, rolname = current_user, "
                    "pg_has_role(oid, current_user, 'USAGE') FROM pg_roles WHERE rolname = :r"
                ),
                {"r": role},
            ).first()
            created = None
            ours = set(self._created_roles(conn))
            if found is not None:
                superuser, bypasses, is_owner, holds_owner = found
                if superuser or bypasses:
                    raise StoreError(
                        f"role {role!r} is a superuser or bypasses row-level security: the "
                        "server could not keep it to one assessor's work (--role NAME)"
                    )
                if is_owner or holds_owner:
                    raise StoreError(
                        f"role {role!r} is the project owner's own (or holds its privileges): "
                        "an assessor needs a role of their own (--role NAME)"
                    )
                if role not in ours and not adopt:
                    raise StoreError(
                        f"role {role!r} exists already and was not made by `team add` for this "
                        f"project: --adopt-role gives it to {name!r} (its password stays), or "
                        "choose another name with --role"
                    )
            else:
                created = password or secrets.token_urlsafe(12)
                literal = created.replace("'", "''")
                conn.execute(
                    text(
                        f"CREATE ROLE {q(role)} LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD '{literal}'"
                    )
                )
                self._put_created_roles(conn, sorted(ours | {role}))
            # the owner becomes a member of the role: it then sees the role's sessions (whom a
            # writer waits for, since when) and `team remove` can end them
            with conn.begin_nested():
                conn.execute(text(f"GRANT {q(role)} TO CURRENT_USER"))
            conn.execute(text("SELECT judgeapp_admit(:r)"), {"r": role})
            self._link_role(conn, name, role)
        return role, created

    @staticmethod
    def _created_roles(conn: Connection) -> list[str]:
        value = conn.execute(
            select(m.Setting.c.value).where(m.Setting.c.key == CREATED_SETTING)
        ).scalar()
        return [str(r) for r in value] if isinstance(value, list) else []

    @staticmethod
    def _put_created_roles(conn: Connection, roles: list[str]) -> None:
        conn.execute(m.Setting.delete().where(m.Setting.c.key == CREATED_SETTING))
        conn.execute(m.Setting.insert(), [{"key": CREATED_SETTING, "value": roles}])

    def _link_role(self, conn: Connection, name: str, role: str) -> None:
        table = m.Assessor
        taken = conn.execute(
            select(m.Assessor.c.name).where(m.Assessor.c.db_role == role, m.Assessor.c.name != name)
        ).first()
        if taken:
            raise StoreError(f"role {role!r} is already assessor {taken[0]!r}'s")
        row = conn.execute(
            select(m.Assessor.c.id, m.Assessor.c.kind).where(m.Assessor.c.name == name)
        ).first()
        if row is None:
            conn.execute(
                table.insert(),
                {"name": name, "kind": "person", "created_at": utcnow(), "db_role": role},
            )
        elif row.kind != "person":
            raise StoreError(f"{name!r} is an imported qrels source, not an assessor")
        else:
            conn.execute(table.update().where(table.c.id == row.id).values(db_role=role))
        self.db.changed(conn, Changes(assessors=True))

    def remove_member(self, name: str) -> str:
        """Take back what `add_member` granted and end the role's sessions on this
        database; the role itself and every judgment of the assessor stay. Whatever the
        server lets the owner do of it is done (a role dropped meanwhile, or one the owner
        is no member of, still comes off the team). Returns the role."""
        self._require_postgres("team remove")
        with self.db.begin() as conn:
            role = conn.execute(
                select(m.Assessor.c.db_role).where(m.Assessor.c.name == name)
            ).scalar()
            if not role:
                raise StoreError(f"{name!r} has no database role in this project")
            me = conn.execute(text("SELECT current_user")).scalar_one()
            if role != me:  # a project of revision 0005 may have linked the owner's own role
                for sql in (
                    "SELECT judgeapp_dismiss(:r)",
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE usename = :r AND datname = current_database()",
                ):
                    try:
                        with conn.begin_nested():
                            conn.execute(text(sql), {"r": role})
                    except Exception:  # done as far as the server allows
                        pass
            table = m.Assessor
            conn.execute(table.update().where(table.c.name == name).values(db_role=None))
            self.db.changed(conn, Changes(assessors=True))
        return str(role)

    def members(self) -> list[tuple[str, str]]:
        """(assessor, database role) of everyone who connects as a role of their own."""
        with self.db.read() as conn:
            rows = conn.execute(
                select(m.Assessor.c.name, m.Assessor.c.db_role)
                .where(m.Assessor.c.db_role.is_not(None))
                .order_by(m.Assessor.c.id)
            ).all()
        return [(name, str(role)) for name, role in rows]

    def current_assessor(self) -> str | None:
        """The assessor this connection's database role belongs to (PostgreSQL), or None:
        the owner, or any SQLite project, may judge under any name. A role the server knows
        on no assessor is refused: it would judge as nobody."""
        if self.db.scope is None:
            return None
        if self.db.scope.assessor is None:
            raise StoreError(
                f"role {self.db.scope.role} is not on this project's team: ask its owner "
                f"(role {self.db.scope.owner}) for `team add`"
            )
        return self.db.scope.assessor

    def wait_limit(self) -> float:
        """How long this project's commands wait for another writer (the owner's choice)."""
        return self.db.write_wait

    def set_wait_limit(self, seconds: float) -> Changes:
        """The owner's choice of how long writers wait (and every session of the project
        waits for a lock) before giving up with a message."""
        if not 1 <= seconds <= 86400:
            raise StoreError(f"a wait is from 1 second to a day (86400 s), not {seconds:g}")
        with self.db.begin() as conn:
            conn.execute(m.Setting.delete().where(m.Setting.c.key == WAIT_SETTING))
            conn.execute(m.Setting.insert(), [{"key": WAIT_SETTING, "value": seconds}])
            self.db.changed(conn, Changes(assessors=True))
        self.db.write_wait = float(seconds)
        return Changes(assessors=True)

    # -- assessors -------------------------------------------------------------------
    def assessor(self, name: str, *, kind: str = "person", create: bool = True) -> AssessorInfo:
        with self.db.read() as conn:
            found = find_assessor(conn, name)
        if found is not None:
            return found
        if not create:
            raise StoreError(f"no assessor or judgment source named {name!r}")
        with self.db.begin() as conn:  # under the write lock: look again, another may be first
            found = find_assessor(conn, name)
            if found is not None:
                return found
            assessor_id = create_assessor(conn, name, kind)
            self.db.changed(conn, Changes(assessors=True))
        return AssessorInfo(assessor_id, name, kind)

    def assessors(self) -> list[AssessorInfo]:
        with self.db.read() as conn:
            rows = conn.execute(
                select(
                    m.Assessor.c.id, m.Assessor.c.name, m.Assessor.c.kind, m.Assessor.c.role
                ).order_by(m.Assessor.c.id)
            ).all()
        return [AssessorInfo(*row) for row in rows]

    def set_role(self, name: str, role: str | None) -> Changes:
        """A person's role: owner, evaluator or assessor (None: from the assignments)."""
        table = m.Assessor
        with self.db.begin() as conn:
            gone = conn.execute(
                table.update()
                .where(table.c.name == name, table.c.kind == "person")
                .values(role=role)
            ).rowcount
            if not gone:
                raise StoreError(f"no assessor named {name!r}")
            self.db.changed(conn, Changes(assessors=True))
        return Changes(assessors=True)

    # -- assignments ----------------------------------------------------------------------------
    def assignments(self) -> list[tuple[str, str, bool]]:
        """(qid, assessor, shared) of every assignment, by topic then assessor."""
        with self.db.read() as conn:
            rows = conn.execute(
                select(m.Assignment.c.qid, m.Assessor.c.name, m.Assignment.c.shared)
                .join(m.Assessor, m.Assessor.c.id == m.Assignment.c.assessor_id)
                .order_by(m.Assignment.c.qid, m.Assessor.c.name)
            ).all()
        return sorted(((q, a, bool(s)) for q, a, s in rows), key=lambda r: (r[0].encode(), r[1]))

    def set_assignments(self, rows: Sequence[tuple[str, str, bool]]) -> Changes:
        """Replace every assignment with `rows` (qid, assessor, shared); assessors that do
        not exist yet are created as persons."""
        table = m.Assignment
        now = utcnow()
        with self.db.begin() as conn:
            ids = {a.name: a.id for a in assessor_rows(conn)}
            for _q, name, _s in rows:
                if name not in ids:
                    ids[name] = create_assessor(conn, name, "person")
            # only what changes is written: an assignment that stays keeps its row, which an
            # assessor's judgment being recorded may hold a share lock on (schema 0006)
            wanted = {(q, ids[a]): bool(s) for q, a, s in rows}
            stored = {
                (q, a): bool(s)
                for q, a, s in conn.execute(
                    select(table.c.qid, table.c.assessor_id, table.c.shared)
                )
            }
            for q, a in stored.keys() - wanted.keys():
                conn.execute(table.delete().where(table.c.qid == q, table.c.assessor_id == a))
            for (q, a), shared in wanted.items():
                if (q, a) in stored and stored[(q, a)] != shared:
                    conn.execute(
                        table.update()
                        .where(table.c.qid == q, table.c.assessor_id == a)
                        .values(shared=shared)
                    )
            added = [
                {"qid": q, "assessor_id": a, "shared": shared, "created_at": now}
                for (q, a), shared in wanted.items()
                if (q, a) not in stored
            ]
            if added:
                conn.execute(table.insert(), added)
            self.db.changed(conn, Changes(assessors=True, topic_list=True))
        return Changes(assessors=True, topic_list=True)
