"""Recording judgments: the one path every judgment takes, from the GUI's keys, its undo and
redo, and the `judge` command alike. Each call is committed before it returns."""

from __future__ import annotations

from judgeapp.errors import UserError
from judgeapp.records import AssessorInfo, JudgmentChange, JudgmentState
from judgeapp.store import Store
from judgeapp.store.locking import ProjectBusy

__all__ = ["JudgingError", "JudgingService", "ProjectBusy", "check_grade", "judging_target"]


class JudgingError(UserError, ValueError):
    """A judgment that cannot be recorded (grade off the scale, unknown topic, ...)."""


def judging_target(
    store: Store, qid: str, docno: str, *, allow_unpooled: bool = False
) -> int | None:
    """The id of `docno` if `qid` may be judged on it (None: a docno the project has not
    seen, allowed by `allow_unpooled`): the topic is in the project, and the document is in
    a pool of the topic (or `allow_unpooled`). Reads only; raises JudgingError otherwise."""
    if store.topics.get(qid) is None:
        raise JudgingError(f"topic {qid!r} is not in the project (import its topics first)")
    doc_id = store.documents.docno_ids([docno]).get(docno)
    if not allow_unpooled and (doc_id is None or not store.pools.holding(qid, doc_id)):
        raise JudgingError(
            f"document {docno!r} is in no pool of topic {qid!r} (--allow-unpooled judges it anyway)"
        )
    return doc_id


def check_grade(grade: int, grades: set[int]) -> None:
    """Raise JudgingError unless `grade` is on the scale `grades`."""
    if grade not in grades:
        scale = ", ".join(str(g) for g in sorted(grades))
        raise JudgingError(f"grade {grade} is not on the project's scale ({scale})")


class JudgingService:
    """Judgments of one assessor (created on first use): a person, or with `kind`
    "adjudicator" an adjudicator's decisions."""

    def __init__(
        self, store: Store, assessor: str, kind: str = "person", *, create: bool = True
    ) -> None:
        """`create` False: an assessor the project does not know yet is made with their
        first judgment, in its transaction (`assessor.id` is -1 until then), so that a
        command that records nothing leaves no assessor behind."""
        self.store = store
        connected_as = store.team.current_assessor()
        if connected_as is not None and connected_as != assessor:
            raise JudgingError(
                f"this connection's database role is assessor {connected_as!r}'s: it can "
                f"judge as {connected_as!r} only, not as {assessor!r}"
            )
        known = next((a for a in store.team.assessors() if a.name == assessor), None)
        if known is None and not create:
            self.assessor = AssessorInfo(-1, assessor, kind)
        else:
            self.assessor = known or store.team.assessor(assessor, kind=kind)
        if self.assessor.kind != kind:
            what = {"source": "an imported qrels source", "automatic": "an automatic judge"}
            raise JudgingError(
                f"{assessor!r} is {what.get(self.assessor.kind, 'a ' + self.assessor.kind)}, "
                f"not {'an assessor' if kind == 'person' else 'an ' + kind}"
            )
        self.refresh_scale()

    def refresh_scale(self) -> None:
        self.grades = {g.grade for g in self.store.settings.scale()}

    def check_target(self, qid: str, docno: str, *, allow_unpooled: bool = False) -> int:
        """The id of `docno` after checking that it may be judged for `qid`: the topic is
        in the project, and the document is in a pool of the topic (or `allow_unpooled`).
        Raises JudgingError, recording nothing, otherwise."""
        doc_id = judging_target(self.store, qid, docno, allow_unpooled=allow_unpooled)
        return self.doc_id(docno) if doc_id is None else doc_id

    def doc_id(self, doc: int | str) -> int:
        """A document's id; a docno the project has not seen is added (documents may be
        judged before their text is imported)."""
        if isinstance(doc, int):
            return doc
        return self.store.documents.intern([doc])[doc]

    def state(self, qid: str, doc: int | str) -> JudgmentState:
        return self.store.judgments.state(qid, self.doc_id(doc), self.assessor.id)

    def record(
        self,
        qid: str,
        doc: int | str,
        grade: int,
        *,
        note: str | None = None,
        flagged: bool | None = None,
        time_spent: float = 0.0,
        origin: str = "judge",
        query: str | None = None,
    ) -> JudgmentChange:
        """Judge `doc` for `qid` with `grade`. A note or flag left as None keeps the one the
        judgment has. With `query` the document was found by searching the collection for
        it: the judgment is noted as found by that search (origin "search"), and counts as
        any other, except where a count assumes judging from a pool alone."""
        check_grade(grade, self.grades)

        def judged(current: JudgmentState) -> JudgmentState:
            return JudgmentState(
                grade,
                current.note if note is None else note,
                current.flagged if flagged is None else flagged,
            )

        new = (self.assessor.name, self.assessor.kind) if self.assessor.id < 0 else None
        change = self.store.judgments.record(
            qid,
            self.doc_id(doc),
            self.assessor.id,
            judged,
            time_spent=time_spent,
            origin=origin if query is None else "search",
            found_by="pool" if query is None else "search",
            query=query,
            new_assessor=new,
        )
        if new is not None:  # made with this judgment
            self.assessor = self.store.team.assessor(self.assessor.name, create=False)
        return change

    def annotate(
        self, qid: str, doc: int | str, *, note: str | None = None, flagged: bool | None = None
    ) -> JudgmentChange:
        """Change the note or the unsure flag. A document not yet judged cannot carry
        either: its note waits for the grade (the GUI keeps it until then)."""

        def annotated(current: JudgmentState) -> JudgmentState:
            if current.grade is None:
                raise JudgingError("judge the document before adding a note or a flag")
            return JudgmentState(
                current.grade,
                current.note if note is None else note,
                current.flagged if flagged is None else flagged,
            )

        return self.store.judgments.record(qid, self.doc_id(doc), self.assessor.id, annotated)

    def restore(self, change: JudgmentChange, *, undo: bool) -> JudgmentChange:
        """Undo (back to `change.before`) or redo (to `change.after`) a recorded change,
        through the same store path as a judgment, so history and live views see it too."""
        target = change.before if undo else change.after
        # the time the change added goes with it, and comes back on redo
        return self.store.judgments.record(
            change.qid,
            change.doc_id,
            change.assessor_id,
            target,
            time_spent=-change.time_spent if undo else change.time_spent,
            origin="undo" if undo else "redo",
            found_by=change.found_by,
            query=change.query,
        )
