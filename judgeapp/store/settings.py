"""`store.settings`: the project's settings and its grading scale (with the lowest
relevant grade and the judging guidelines)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from judgeapp.records import Changes, GradeInfo
from judgeapp.store import models as m
from judgeapp.store.base import StoreError, raw
from judgeapp.store.db import Repository

RELEVANT_FROM_KEY = "scale.relevant_from"
GUIDELINES_KEY = "scale.guidelines"


class Settings(Repository):
    """Settings (JSON values by key) and the scale."""

    def get(self, key: str, default: Any = None) -> Any:
        """A setting's value (`default` when it is not set)."""
        return self.db.setting(key, default)

    def put(self, key: str, value: Any) -> None:
        if self.db.scope is not None:  # a member: only its own place in the work, by the server
            with self.db.member_write() as conn:
                raw(conn, "SELECT judgeapp_put_setting(?, ?::json)", (key, json.dumps(value)))
            return
        with self.db.begin() as conn:
            conn.execute(m.Setting.delete().where(m.Setting.c.key == key))
            conn.execute(m.Setting.insert(), [{"key": key, "value": value}])

    def scale(self) -> list[GradeInfo]:
        with self.db.read() as conn:
            rows = conn.execute(
                select(
                    m.Grade.c.grade, m.Grade.c.label, m.Grade.c.key, m.Grade.c.definition
                ).order_by(m.Grade.c.grade)
            )
            return [GradeInfo(*row) for row in rows]

    def relevant_from(self) -> int:
        """The lowest grade that counts as relevant (binary measures, counts, judging
        orders): the owner's choice, else 1 when the scale has it, else its second grade."""
        value = self.get(RELEVANT_FROM_KEY)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        grades = [g.grade for g in self.scale()]
        if 1 in grades or len(grades) < 2:
            return 1
        return grades[1]

    def guidelines(self) -> str:
        """The judging guidelines the owner wrote (empty when none)."""
        return str(self.get(GUIDELINES_KEY) or "")

    def grades_in_use(self) -> set[int]:
        """Grades of judgments that people made (assessors and adjudicators): a scale must
        keep them. Imported qrels and automatic judges may use any grade."""
        with self.db.read() as conn:
            rows = conn.execute(
                select(m.Judgment.c.grade)
                .join(m.Assessor, m.Assessor.c.id == m.Judgment.c.assessor_id)
                .where(m.Assessor.c.kind.in_(("person", "adjudicator")))
                .distinct()
            )
            return {int(g) for (g,) in rows}

    def set_scale(
        self,
        grades: Sequence[GradeInfo],
        *,
        relevant_from: int | None = None,
        guidelines: str | None = None,
    ) -> Changes:
        """Replace the scale (and, when given, the lowest relevant grade and the
        guidelines) in one transaction. A grade that people's judgments use must stay."""
        keys = [g.key for g in grades]
        if len(set(keys)) != len(keys) or len({g.grade for g in grades}) != len(grades):
            raise StoreError("each grade of a scale needs its own number and its own key")
        if not grades:
            raise StoreError("a scale needs at least one grade")
        if relevant_from is not None and relevant_from not in {g.grade for g in grades}:
            raise StoreError(f"relevant from grade {relevant_from}: the scale has no such grade")
        with self.db.begin() as conn:
            used = {
                int(g)
                for (g,) in conn.execute(
                    select(m.Judgment.c.grade)
                    .join(m.Assessor, m.Assessor.c.id == m.Judgment.c.assessor_id)
                    .where(m.Assessor.c.kind.in_(("person", "adjudicator")))
                    .distinct()
                )
            }
            dropped = sorted(used - {g.grade for g in grades})
            if dropped:
                listed = ", ".join(str(g) for g in dropped)
                raise StoreError(
                    f"judgments made with grade {listed} exist: the scale must keep "
                    f"{'them' if len(dropped) > 1 else 'it'}"
                )
            # a grade that stays with its key is updated in place, not deleted and inserted:
            # an assessor's judgment being recorded may hold a share lock on it (schema 0006)
            stored = {
                int(g): str(k) for g, k in conn.execute(select(m.Grade.c.grade, m.Grade.c.key))
            }
            kept = {g.grade for g in grades if stored.get(g.grade) == g.key}
            gone = [g for g in stored if g not in kept]
            if gone:
                conn.execute(m.Grade.delete().where(m.Grade.c.grade.in_(gone)))
            for g in grades:
                if g.grade in kept:
                    conn.execute(
                        m.Grade.update()
                        .where(m.Grade.c.grade == g.grade)
                        .values(label=g.label, definition=g.definition)
                    )
            fresh = [
                {"grade": g.grade, "label": g.label, "key": g.key, "definition": g.definition}
                for g in grades
                if g.grade not in kept
            ]
            if fresh:
                conn.execute(m.Grade.insert(), fresh)
            setting = m.Setting
            for key, value in ((RELEVANT_FROM_KEY, relevant_from), (GUIDELINES_KEY, guidelines)):
                if value is not None:
                    conn.execute(setting.delete().where(m.Setting.c.key == key))
                    conn.execute(setting.insert(), [{"key": key, "value": value}])
            self.db.changed(conn, Changes(scale=True))
        return Changes(scale=True)
