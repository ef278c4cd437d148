"""`store.history`: every change of every judgment, oldest first (the events that
`store.judgments` appends), exported and merged between projects by the events' uids."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import Connection, select

from judgeapp.records import Changes, HistoryEvent, MergeConflict, MergeReport
from judgeapp.store import models as m
from judgeapp.store.assessors import assessor_rows, create_assessor
from judgeapp.store.base import StoreError, utcnow
from judgeapp.store.db import Repository
from judgeapp.store.docnos import intern
from judgeapp.store.judgments import MAX_TIME_S, keep_times


def _fold(events: Sequence[Any]) -> dict[str, Any] | None:
    """The current judgment that a judgment's history (oldest first) leaves, or None when
    its last change removed it. Time spent sums the changes since it was last created."""
    state: dict[str, Any] | None = None
    for e in events:
        if e.grade is None:
            state = None
            continue
        if state is None:
            search = getattr(e, "origin", None) == "search"
            state = {
                "time_spent": 0.0,
                "created_at": e.at,
                "found_by": "search" if search else "pool",
                "query": getattr(e, "query", None) if search else None,
            }
        state.update(
            grade=e.grade,
            note=e.note,
            flagged=bool(e.flagged),
            time_spent=state["time_spent"] + float(e.time_spent),
            updated_at=e.at,
        )
    if state is not None:  # within what a judgment may hold (schema 0006)
        state["time_spent"] = min(max(state["time_spent"], 0.0), MAX_TIME_S)
    return state


def _fold_grade(events: Sequence[Any]) -> int | None:
    state = _fold(events)
    return None if state is None else int(state["grade"])


class History(Repository):
    """The judgment history (table judgment_history)."""

    def rows(self, qid: str | None = None, doc_id: int | None = None) -> list[dict[str, Any]]:
        stmt = select(m.JudgmentEvent).order_by(m.JudgmentEvent.c.id)
        if qid is not None:
            stmt = stmt.where(m.JudgmentEvent.c.qid == qid)
        if doc_id is not None:
            stmt = stmt.where(m.JudgmentEvent.c.doc_id == doc_id)
        with self.db.read() as conn:
            return [dict(row._mapping) for row in conn.execute(stmt)]

    def export(self) -> list[HistoryEvent]:
        """The whole judgment history, oldest first, as another project can take it."""
        h, d, a = m.JudgmentEvent, m.Docno, m.Assessor
        with self.db.read() as conn:
            rows = conn.execute(
                select(
                    h.c.uid,
                    h.c.qid,
                    d.c.docno,
                    a.c.name,
                    a.c.kind,
                    h.c.action,
                    h.c.origin,
                    h.c.grade,
                    h.c.previous_grade,
                    h.c.note,
                    h.c.flagged,
                    h.c.time_spent,
                    h.c.at,
                    h.c.query,
                )
                .join(d, d.c.id == h.c.doc_id)
                .join(a, a.c.id == h.c.assessor_id)
                .order_by(h.c.id)
            ).all()
        return [HistoryEvent(*cast(tuple[Any, ...], row)) for row in rows]

    def merge(self, events: Sequence[HistoryEvent]) -> MergeReport:
        """Add the events of another project's history that this one lacks (by uid), in one
        transaction, and bring each touched judgment to what its whole history now says:
        the newest change of each (topic, document, assessor) counts, its time spent summed
        since it was last removed. Events known already change nothing, so merging twice is
        merging once. A judgment both projects changed, ending at different grades, is a
        conflict: reported, with both changes kept in the history."""
        h, j = m.JudgmentEvent, m.Judgment
        with self.db.begin() as conn:
            keep_times(conn)
            known = {uid for (uid,) in conn.execute(select(h.c.uid))}
            new: dict[str, HistoryEvent] = {}
            for e in events:
                if e.uid not in known:
                    new.setdefault(e.uid, e)
            if not new:
                return MergeReport(0, 0, [], Changes())
            fresh = list(new.values())
            ahead = utcnow() + timedelta(hours=1)
            late = next((e for e in fresh if e.at is not None and e.at > ahead), None)
            if late is not None:  # it would outrank every later judgment here (schema 0006)
                raise StoreError(
                    f"an event of topic {late.qid!r}, document {late.docno!r} is dated "
                    f"{late.at:%Y-%m-%d %H:%M}, ahead of this clock: nothing was merged"
                )
            people = {a.name: a.id for a in assessor_rows(conn)}
            for e in fresh:
                if e.assessor not in people:
                    people[e.assessor] = create_assessor(conn, e.assessor, e.assessor_kind)
            docs = dict(
                zip(
                    [e.docno for e in fresh],
                    intern(conn, [e.docno for e in fresh]).tolist(),
                    strict=True,
                )
            )
            keys = {(e.qid, docs[e.docno], people[e.assessor]) for e in fresh}
            theirs: dict[tuple, list[HistoryEvent]] = {}
            for e in sorted(events, key=lambda e: e.at):
                theirs.setdefault((e.qid, docs.get(e.docno), people.get(e.assessor)), []).append(e)
            before = self._judgment_rows_for(conn, keys)
            conn.execute(
                h.insert(),
                [
                    {
                        "uid": e.uid,
                        "qid": e.qid,
                        "doc_id": docs[e.docno],
                        "assessor_id": people[e.assessor],
                        "action": e.action,
                        "origin": e.origin,
                        "grade": e.grade,
                        "previous_grade": e.previous_grade,
                        "note": e.note,
                        "flagged": e.flagged,
                        "time_spent": e.time_spent,
                        "at": e.at,
                        "query": e.query,
                    }
                    for e in sorted(fresh, key=lambda e: e.at)
                ],
            )
            assessor_ids = sorted({k[2] for k in keys})
            history: dict[tuple, list] = {}
            for row in conn.execute(
                select(
                    h.c.qid,
                    h.c.doc_id,
                    h.c.assessor_id,
                    h.c.uid,
                    h.c.grade,
                    h.c.note,
                    h.c.flagged,
                    h.c.time_spent,
                    h.c.at,
                    h.c.origin,
                    h.c.query,
                )
                .where(h.c.assessor_id.in_(assessor_ids))
                .order_by(h.c.at, h.c.id)
            ):
                key = (row.qid, row.doc_id, row.assessor_id)
                if key in keys:
                    history.setdefault(key, []).append(row)
            changed, conflicts = 0, []
            names = {v: k for k, v in people.items()}
            docnos = {v: k for k, v in docs.items()}
            for key in sorted(keys, key=lambda k: (k[0].encode(), k[1], k[2])):
                state = _fold(history[key])
                old = before.get(key)
                if state is None and old is not None:
                    conn.execute(j.delete().where(j.c.id == old.id))
                elif state is not None and old is None:
                    conn.execute(
                        j.insert(),
                        {"qid": key[0], "doc_id": key[1], "assessor_id": key[2], **state},
                    )
                elif state is not None and old is not None:
                    conn.execute(j.update().where(j.c.id == old.id).values(**state))
                new_grade = None if state is None else state["grade"]
                old_grade = None if old is None else old.grade
                changed += new_grade != old_grade or (
                    state is not None
                    and old is not None
                    and (state["note"], state["flagged"]) != (old.note, old.flagged)
                )
                mine = any(r.uid not in {e.uid for e in theirs.get(key, ())} for r in history[key])
                their_grade = _fold_grade(theirs.get(key, []))
                if mine and old_grade != their_grade:
                    other = their_grade if new_grade == old_grade else old_grade
                    conflicts.append(
                        MergeConflict(key[0], docnos[key[1]], names[key[2]], new_grade, other)
                    )
            topics = frozenset(k[0] for k in keys)
            changes = Changes(topics=topics, assessors=True)
            self.db.changed(conn, changes)
        return MergeReport(len(fresh), int(changed), conflicts, changes)

    @staticmethod
    def _judgment_rows_for(conn: Connection, keys: set[tuple[str, int, int]]) -> dict[tuple, Any]:
        j = m.Judgment
        assessor_ids = sorted({k[2] for k in keys})
        rows = conn.execute(
            select(
                j.c.id, j.c.qid, j.c.doc_id, j.c.assessor_id, j.c.grade, j.c.note, j.c.flagged
            ).where(j.c.assessor_id.in_(assessor_ids))
        ).all()
        return {
            (r.qid, r.doc_id, r.assessor_id): r
            for r in rows
            if (r.qid, r.doc_id, r.assessor_id) in keys
        }

    def events(
        self, qid: str | None = None, assessors: Sequence[str] | None = None
    ) -> list[tuple[str, int, int, int | None]]:
        """The judgment history as (qid, doc id, assessor id, grade or None for a removal),
        oldest first: the input for replaying how judgments changed."""
        with self.db.read() as conn:
            ids = self.db.assessor_ids(conn, assessors)
            stmt = select(
                m.JudgmentEvent.c.qid,
                m.JudgmentEvent.c.doc_id,
                m.JudgmentEvent.c.assessor_id,
                m.JudgmentEvent.c.grade,
            ).order_by(m.JudgmentEvent.c.id)
            if qid is not None:
                stmt = stmt.where(m.JudgmentEvent.c.qid == qid)
            if ids is not None:
                stmt = stmt.where(m.JudgmentEvent.c.assessor_id.in_(ids))
            return [tuple(row) for row in conn.execute(stmt).all()]
