"""The judging queue: one topic of one pool, judged by one assessor, in a judging order.

It ties together the pooled documents (`PoolTopic`), the judging order that proposes the
next document (`judgeapp.pooling.order`, resumed from the assessor's judgment history by
`PoolService.open_judging_order`), and the assessor's judgments (through
`JudgingService`, so each one is committed before the call returns).

The list the assessor sees keeps its rows still while they work: documents already judged
come first, in the order they were judged, then the unjudged ones in the order the judging
order would propose them now. The live proposal (`next_unjudged`) follows every judgment;
in adaptive orders it may point further down the list.

No Qt here.
"""

from __future__ import annotations

from collections.abc import Callable

from judgeapp.pooling.candidates import PoolTopic
from judgeapp.pooling.order import JudgingOrder
from judgeapp.records import JudgmentChange, JudgmentState
from judgeapp.services.judging import JudgingService
from judgeapp.services.policy import judging_events
from judgeapp.services.rows import QueueItem

RELEVANT_FROM = 1  # the default lowest relevant grade (the project's scale may say other)


def is_relevant(grade: int | None, relevant_from: int = RELEVANT_FROM) -> bool:
    return grade is not None and grade >= relevant_from


class JudgingQueue:
    def __init__(
        self,
        service: JudgingService,
        topic: PoolTopic,
        order: JudgingOrder,
        *,
        blind: bool | None = None,
        hide_others: bool = False,
        relevant_from: int = RELEVANT_FROM,
    ) -> None:
        self.service = service
        self.store = service.store
        self.qid = topic.qid
        self.topic = topic
        self.order = order
        self.blind = (not order.exposes_runs) if blind is None else blind
        self.hide_others = hide_others  # a blind assessor learns nothing of others' work
        self.relevant_from = relevant_from  # the project's lowest relevant grade
        self._skipped: set[int] = set()
        self._build()

    # -- building ------------------------------------------------------------------------------
    def _build(self) -> None:
        # the order arrives resumed (PoolService.open_judging_order replays the same history)
        history = judging_events(self.store, self.qid, [self.service.assessor.name])
        me = self.service.assessor.name
        persons = {a.name for a in self.store.team.assessors() if a.kind == "person"}
        states: dict[int, JudgmentState] = {}
        self._others: dict[int, set[str]] = {}
        for j in self.store.judgments.all(self.qid):
            if j.assessor == me:
                states[j.doc_id] = JudgmentState(j.grade, j.note, j.flagged)
            elif j.assessor in persons:
                self._others.setdefault(j.doc_id, set()).add(j.assessor)
        pooled = set(self.topic.doc_ids.tolist())
        judged_seq: list[int] = []
        seen: set[int] = set()
        for doc, _grade in history:  # first judgment time decides the place
            if doc in pooled and doc in states and doc not in seen:
                seen.add(doc)
                judged_seq.append(doc)
        rest = [d for d in self.order.upcoming(len(pooled)) if d not in seen]
        leftover = sorted(pooled - seen - set(rest))  # defensive: every pooled doc is listed
        sequence = judged_seq + rest + leftover
        docnos = self.store.documents.docnos_of(sequence)
        self.items: list[QueueItem] = []
        for doc in sequence:
            state = states.get(doc, JudgmentState(None))
            self.items.append(self._item(doc, docnos.get(doc, str(doc)), state))
        self._row_of = {item.doc_id: i for i, item in enumerate(self.items)}
        self._judged = sum(1 for item in self.items if item.grade is not None)
        self._relevant = sum(1 for item in self.items if self._is_relevant(item.grade))

    def _item(self, doc_id: int, docno: str, state: JudgmentState) -> QueueItem:
        best_rank: int | None = None
        runs: tuple[str, ...] = ()
        if not self.blind:
            i = self.topic.index_of(doc_id)
            if i >= 0:
                best_rank = int(self.topic.best_rank[i])
                runs = tuple(run for run, _rank in self.topic.contributors(doc_id))
        others = 0 if self.hide_others else len(self._others.get(doc_id, ()))
        return QueueItem(
            doc_id, docno, state.grade, state.flagged, state.note, best_rank, runs, others
        )

    def _is_relevant(self, grade: int | None) -> bool:
        return is_relevant(grade, self.relevant_from)

    # -- reading -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.items)

    def row_of(self, doc_id: int) -> int | None:
        return self._row_of.get(doc_id)

    def item(self, doc_id: int) -> QueueItem:
        return self.items[self._row_of[doc_id]]

    def counts(self) -> tuple[int, int, int]:
        """(pooled, judged, relevant) for this assessor (kept up to date by `apply`)."""
        return len(self.items), self._judged, self._relevant

    @property
    def skipped(self) -> frozenset[int]:
        """Documents skipped and not yet judged (until the judging comes back to them)."""
        return frozenset(self._skipped)

    def first_unjudged(self) -> int | None:
        """Where to resume: the judging order's proposal (skips forgotten)."""
        self._skipped.clear()
        return self.next_unjudged()

    def next_unjudged(self, current: int | None = None) -> int | None:
        """The document to judge next: the order's proposal unless it was skipped, then the
        first unjudged, unskipped document after `current` in the list (wrapping round).
        When only skipped documents are left, they come back in turn."""
        proposal = self.order.next_doc()
        if proposal is None:
            return None
        if proposal not in self._skipped and proposal != current:
            return proposal
        found = self.unjudged_after(current)
        if found is not None:
            return found
        # everything left was skipped: start over with the skipped ones
        self._skipped.clear()
        found = self.unjudged_after(current)
        return proposal if found is None else found

    def unjudged_after(
        self, current: int | None, shown: Callable[[int], bool] | None = None
    ) -> int | None:
        """The first unjudged, unskipped document after `current` in the list (wrapping
        round), among the rows `shown(row)` accepts (every row when None)."""
        start = 0 if current is None else (self._row_of.get(current, -1) + 1)
        n = len(self.items)
        for step in range(n):
            row = (start + step) % n
            item = self.items[row]
            if (
                item.grade is None
                and item.doc_id not in self._skipped
                and item.doc_id != current
                and (shown is None or shown(row))
            ):
                return item.doc_id
        return None

    def skip(self, doc_id: int) -> int | None:
        """Leave `doc_id` unjudged for now; returns the document to show instead."""
        self._skipped.add(doc_id)
        return self.next_unjudged(doc_id)

    def neighbour(self, doc_id: int | None, step: int) -> int | None:
        """The document `step` rows away in the list (previous: -1, next: +1)."""
        if not self.items:
            return None
        row = self._row_of.get(doc_id, -1) if doc_id is not None else -1
        target = max(0, min(len(self.items) - 1, row + step))
        return self.items[target].doc_id

    # -- changing ----------------------------------------------------------------------------
    def record(
        self,
        doc_id: int,
        grade: int,
        *,
        note: str | None = None,
        flagged: bool | None = None,
        time_spent: float = 0.0,
    ) -> JudgmentChange:
        change = self.service.record(
            self.qid, doc_id, grade, note=note, flagged=flagged, time_spent=time_spent
        )
        self.recorded(change)
        return change

    def recorded(self, change: JudgmentChange) -> None:
        """Take a grade recorded for this topic (by `record`, or by the window's writing
        thread through the service): the document is no longer skipped, and the list and
        the order follow."""
        self._skipped.discard(change.doc_id)
        self.apply(change)

    def annotate(
        self, doc_id: int, *, note: str | None = None, flagged: bool | None = None
    ) -> JudgmentChange:
        change = self.service.annotate(self.qid, doc_id, note=note, flagged=flagged)
        self.apply(change)
        return change

    def restore(self, change: JudgmentChange, *, undo: bool) -> JudgmentChange:
        result = self.service.restore(change, undo=undo)
        self.apply(result)
        return result

    def expect(self, doc_id: int, state: JudgmentState) -> QueueItem | None:
        """Take a grade given and not yet committed (the window shows the next document at
        once, its write in the writing lane): the list and the order follow it as if it
        were recorded, until `recorded` confirms it, or `set_state` puts back the state
        before it when its write fails."""
        self._skipped.discard(doc_id)
        return self.set_state(doc_id, state)

    def apply(self, change: JudgmentChange) -> QueueItem | None:
        """Bring the list and the order in line with a committed change (made here, by an
        undo, or elsewhere). Returns the updated item, or None if the doc is not pooled."""
        if change.qid != self.qid:
            return None
        return self.set_state(change.doc_id, change.after)

    def set_state(self, doc_id: int, after: JudgmentState) -> QueueItem | None:
        """The document's judgment is now `after` (None: it is not pooled here)."""
        row = self._row_of.get(doc_id)
        if row is None:
            return None
        before = self.items[row]
        if after.grade is None:
            self.order.forget(doc_id)
        elif before.grade != after.grade:
            self.order.record(doc_id, after.grade, self._is_relevant(after.grade))
        item = QueueItem(
            before.doc_id,
            before.docno,
            after.grade,
            after.flagged,
            after.note,
            before.best_rank,
            before.runs,
            before.others,
        )
        self.items[row] = item
        self._judged += (after.grade is not None) - (before.grade is not None)
        self._relevant += self._is_relevant(after.grade) - self._is_relevant(before.grade)
        return item
