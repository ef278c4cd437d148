"""The assessors table as the repositories share it: find, create and list assessors
(people, adjudicators, automatic judges and imported judgment sources) within a
transaction."""

from __future__ import annotations

from sqlalchemy import Connection, select

from judgeapp.records import AssessorInfo
from judgeapp.store import models as m
from judgeapp.store.base import utcnow


def find_assessor(conn: Connection, name: str) -> AssessorInfo | None:
    row = conn.execute(
        select(m.Assessor.c.id, m.Assessor.c.name, m.Assessor.c.kind, m.Assessor.c.role).where(
            m.Assessor.c.name == name
        )
    ).first()
    return None if row is None else AssessorInfo(*row)


def create_assessor(conn: Connection, name: str, kind: str) -> int:
    return int(
        conn.execute(
            m.Assessor.insert().returning(m.Assessor.c.id),
            {"name": name, "kind": kind, "created_at": utcnow()},
        ).scalar_one()
    )


def assessor_rows(conn: Connection) -> list[AssessorInfo]:
    rows = conn.execute(
        select(m.Assessor.c.id, m.Assessor.c.name, m.Assessor.c.kind, m.Assessor.c.role)
    ).all()
    return [AssessorInfo(*r) for r in rows]
