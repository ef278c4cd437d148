"""Assessors as database users: on PostgreSQL each assessor can connect as a role of their
own, which the server then holds to writing only that assessor's judgments (the row-level
security policies of schema revision 0003). The project's owner, who owns the tables, adds
and removes them. A SQLite file has no users: there the assessor name stays a label.
"""

from __future__ import annotations

import re
import secrets

from sqlalchemy import Connection, literal_column, select, text

from judgeapp.records import Changes
from judgeapp.store import models as m
from judgeapp.store.base import StoreBase, StoreError, utcnow

# what an assessor role may write; everything else it may only read
WRITE_GRANTS = (
    ("INSERT, UPDATE, DELETE", "judgments"),
    ("INSERT", "judgment_history"),
    ("INSERT", "docnos"),
    ("INSERT", "project_changes"),
    ("INSERT, UPDATE, DELETE", "settings"),
    ("INSERT", "search_log"),  # their own searches (schema 0006)
)


def role_for(name: str) -> str:
    """A database role name for an assessor name: lower case letters, digits and _."""
    slug = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_") or "assessor"
    return slug if slug[0].isalpha() else f"a_{slug}"


class TeamStoreMixin(StoreBase):
    """Team methods of `Store` (PostgreSQL only, but `current_assessor` everywhere)."""

    def _require_postgres(self, what: str) -> None:
        if self.dialect != "postgresql":
            raise StoreError(
                f"{what} needs a project on a PostgreSQL server: a project file has no "
                "users, so there an assessor's name is only a label"
            )

    def add_team_member(
        self, name: str, *, role: str | None = None, password: str | None = None
    ) -> tuple[str, str | None]:
        """Make `name` an assessor who connects as database role `role` (made from the name
        by default; created with `password`, a new random one by default, unless it exists).
        Returns (role, the password if the role was created)."""
        self._require_postgres("team add")
        role = role or role_for(name)
        with self._begin() as conn:
            q = conn.dialect.identifier_preparer.quote
            exists = conn.execute(
                text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}
            ).first()
            created = None
            if not exists:
                created = password or secrets.token_urlsafe(12)
                literal = created.replace("'", "''")
                conn.execute(text(f"CREATE ROLE {q(role)} LOGIN PASSWORD '{literal}'"))
            db = conn.execute(text("SELECT current_database()")).scalar_one()
            schema = conn.execute(text("SELECT current_schema()")).scalar_one()
            conn.execute(text(f"GRANT CONNECT ON DATABASE {q(db)} TO {q(role)}"))
            conn.execute(text(f"GRANT USAGE ON SCHEMA {q(schema)} TO {q(role)}"))
            conn.execute(text(f"GRANT SELECT ON ALL TABLES IN SCHEMA {q(schema)} TO {q(role)}"))
            for privileges, table in WRITE_GRANTS:
                conn.execute(text(f"GRANT {privileges} ON {table} TO {q(role)}"))
            conn.execute(text(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA {q(schema)} TO {q(role)}"))
            self._link_role(conn, name, role)
        return role, created

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
        self._changed(conn, Changes(assessors=True))

    def remove_team_member(self, name: str) -> str:
        """Take back what `add_team_member` granted (the role itself and the assessor's
        judgments stay). Returns the role."""
        self._require_postgres("team remove")
        with self._begin() as conn:
            role = conn.execute(
                select(m.Assessor.c.db_role).where(m.Assessor.c.name == name)
            ).scalar()
            if not role:
                raise StoreError(f"{name!r} has no database role in this project")
            q = conn.dialect.identifier_preparer.quote
            schema = conn.execute(text("SELECT current_schema()")).scalar_one()
            conn.execute(text(f"REVOKE ALL ON ALL TABLES IN SCHEMA {q(schema)} FROM {q(role)}"))
            conn.execute(text(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {q(schema)} FROM {q(role)}"))
            table = m.Assessor
            conn.execute(table.update().where(table.c.name == name).values(db_role=None))
            self._changed(conn, Changes(assessors=True))
        return str(role)

    def team(self) -> list[tuple[str, str]]:
        """(assessor, database role) of everyone who connects as a role of their own."""
        with self._read() as conn:
            rows = conn.execute(
                select(m.Assessor.c.name, m.Assessor.c.db_role)
                .where(m.Assessor.c.db_role.is_not(None))
                .order_by(m.Assessor.c.id)
            ).all()
        return [(name, str(role)) for name, role in rows]

    def current_assessor(self) -> str | None:
        """The assessor this connection's database role belongs to (PostgreSQL), or None:
        the owner, or any SQLite project, may judge under any name."""
        if self.dialect != "postgresql":
            return None
        with self._read() as conn:
            return conn.execute(
                select(m.Assessor.c.name).where(
                    m.Assessor.c.db_role == literal_column("current_user")
                )
            ).scalar()
