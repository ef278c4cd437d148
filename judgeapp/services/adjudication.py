"""Settling disagreements: the documents assessors judged differently, and an adjudicator's
decisions, recorded as judgments of their own (an assessor of kind "adjudicator", with its
own history, undone like any judgment) that the `adjudicated` policy prefers.

A document is a disagreement when two or more voters (people, imported qrels) judged it
with different grades, or, with a relevant cut K, when their grades fall on both sides of
it. Automatic judges' grades come along as suggestions for the adjudicator (never shown to a
blind assessor), as do the assessors' notes, unless the adjudicator hides them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from judgeapp.records import JudgmentChange
from judgeapp.services.judging import JudgingService
from judgeapp.services.policy import ADJUDICATOR, AUTOMATIC, SOURCE, VOTERS
from judgeapp.store import Store

ADJUDICATION_PREFIX = "adjudication:"


@dataclass(frozen=True, slots=True)
class Vote:
    assessor: str
    kind: str
    grade: int
    note: str = ""
    score: float | None = None


@dataclass(frozen=True, slots=True)
class Disagreement:
    qid: str
    doc_id: int
    docno: str
    votes: tuple[Vote, ...]  # people and imported qrels
    suggestions: tuple[Vote, ...]  # automatic judges
    decided: int | None  # the adjudicated grade, once there is one
    within_team: bool = True  # the people (kind "person") disagree among themselves
    against_imported: bool = False  # an imported qrels' grade differs from another vote

    def describe(self, show_votes: bool = True) -> str:
        if not show_votes:
            return f"{len(self.votes)} judgments differ"
        return " · ".join(f"{v.assessor} {v.grade}" for v in self.votes)


def adjudicator_name(person: str) -> str:
    """The assessor under which `person`'s decisions are stored."""
    return f"{ADJUDICATION_PREFIX}{person}"


def disagreements(
    store: Store, qids: Sequence[str] | None = None, relevant_from: int | None = None
) -> list[Disagreement]:
    """Every document whose voters disagree (on the grade, or with `relevant_from` on which
    side of that cut it falls), with the automatic judges' suggestions and any decision
    already made, by topic then docno."""
    kinds = {a.name: a.kind for a in store.team.assessors()}
    by: dict[tuple[str, int], list] = defaultdict(list)
    wanted = None if qids is None else set(qids)
    for j in store.judgments.all():
        if wanted is None or j.qid in wanted:
            by[(j.qid, j.doc_id)].append(j)
    scores = {
        (r.topic, r.docno, r.assessor): r.score
        for r in store.judgments.export()
        if r.score is not None
    }
    out = []
    for (qid, doc_id), js in by.items():
        votes = [j for j in js if kinds.get(j.assessor) in VOTERS]
        grades = {j.grade for j in votes}
        if relevant_from is not None:
            grades = {g >= relevant_from for g in grades}
        if len(votes) < 2 or len(grades) < 2:
            continue
        decided = [j for j in js if kinds.get(j.assessor) == ADJUDICATOR]
        docno = js[0].docno
        side = (lambda g: g) if relevant_from is None else (lambda g: g >= relevant_from)
        people = {side(j.grade) for j in votes if kinds[j.assessor] != SOURCE}
        imported = {side(j.grade) for j in votes if kinds[j.assessor] == SOURCE}
        against_imported = bool(imported) and (len(imported) > 1 or bool(people - imported))
        out.append(
            Disagreement(
                qid,
                doc_id,
                docno,
                tuple(
                    Vote(j.assessor, kinds[j.assessor], j.grade, j.note)
                    for j in sorted(votes, key=lambda j: j.assessor)
                ),
                tuple(
                    Vote(
                        j.assessor, AUTOMATIC, j.grade, j.note, scores.get((qid, docno, j.assessor))
                    )
                    for j in js
                    if kinds.get(j.assessor) == AUTOMATIC
                ),
                max(decided, key=lambda j: j.updated_at).grade if decided else None,
                within_team=len(people) > 1,
                against_imported=against_imported,
            )
        )
    return sorted(out, key=lambda d: (d.qid.encode(), d.docno.encode()))


class AdjudicationService:
    """One adjudicator's decisions."""

    def __init__(self, store: Store, person: str) -> None:
        self.store = store
        self.person = person
        self.judging = JudgingService(store, adjudicator_name(person), kind=ADJUDICATOR)

    def decide(self, item: Disagreement, grade: int, note: str | None = None) -> JudgmentChange:
        return self.judging.record(item.qid, item.doc_id, grade, note=note, origin="adjudication")

    def restore(self, change: JudgmentChange, *, undo: bool) -> JudgmentChange:
        return self.judging.restore(change, undo=undo)
