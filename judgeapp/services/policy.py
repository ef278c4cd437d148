"""Which judgment counts: the one home of the rule that turns several judgments of a document
(by several assessors, or imported qrels beside people) into the one grade that evaluation,
exports, judging orders and the dashboard use.

The store keeps every judgment and every change (`Store.judgment_rows`,
`Store.history_events`); a `JudgmentPolicy` decides what they mean:

- `choose(held)`: the effective grade of one document from the judgments it holds now,
  oldest change first (the definition);
- `select(rows)`: the same rule over many documents at once (vectorised where the rule
  allows; it must agree with `choose`, which a test checks on random data);
- `replay(events)`: the effective grade after each event of a judgment history, for orders
  that resume from history and for progress curves.

Today's rule is `NEWEST`: the most recently changed judgment counts. The team issue adds
others (adjudicated, majority, per assessor); each is one subclass here.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from judgeapp.records import JudgmentArrays, JudgmentRows
from judgeapp.store import Store

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Selected:
    """The result of a policy over `JudgmentRows`: per topic, the documents with an effective
    grade (ascending ids) and that grade; `rows` indexes one representative stored row per
    document (for its docno)."""

    qids: list[str]
    bounds: np.ndarray
    rows: np.ndarray
    doc_ids: np.ndarray
    grades: np.ndarray

    def arrays(self) -> JudgmentArrays:
        return JudgmentArrays(
            {
                qid: (self.doc_ids[lo:hi], self.grades[lo:hi])
                for qid, lo, hi in zip(
                    self.qids, self.bounds[:-1].tolist(), self.bounds[1:].tolist(), strict=True
                )
                if hi > lo
            }
        )


class JudgmentPolicy:
    """A rule for the effective grade of a document judged more than once."""

    name = ""
    description = ""

    def choose(self, held: Sequence[tuple[int, int]]) -> int:
        """The effective grade from the document's current judgments, given as (assessor
        id, grade) pairs, the least recently changed first (never empty)."""
        raise NotImplementedError

    def select(self, rows: JudgmentRows) -> Selected:
        """Every document's effective grade (the generic path: `choose` per document)."""
        keep: list[int] = []
        grades: list[int] = []
        bounds = [0]
        doc_ids, assessors, values = (
            rows.doc_ids.tolist(),
            rows.assessor_ids.tolist(),
            rows.grades.tolist(),
        )
        for lo, hi in zip(rows.bounds[:-1].tolist(), rows.bounds[1:].tolist(), strict=True):
            i = lo
            while i < hi:
                j = i + 1
                while j < hi and doc_ids[j] == doc_ids[i]:
                    j += 1
                keep.append(j - 1)
                grades.append(self.choose(list(zip(assessors[i:j], values[i:j], strict=True))))
                i = j
            bounds.append(len(keep))
        index = np.array(keep, dtype=np.int64)
        return Selected(
            list(rows.qids),
            np.array(bounds, dtype=np.int64),
            index,
            rows.doc_ids[index],
            np.array(grades, dtype=np.int64),
        )

    def replay(
        self, events: Iterable[tuple[K, int, int | None]]
    ) -> Iterator[tuple[K, int, int | None, int | None]]:
        """For each history event (document key, assessor id, grade or None when that
        assessor's judgment was removed), oldest first: (key, assessor id, effective grade
        before, effective grade after)."""
        held: dict[K, dict[int, int]] = {}  # key -> assessor -> grade, least recent first
        for key, assessor, grade in events:
            by = held.setdefault(key, {})
            before = self.choose(list(by.items())) if by else None
            by.pop(assessor, None)  # a change makes this judgment the most recent
            if grade is not None:
                by[assessor] = grade
            after = self.choose(list(by.items())) if by else None
            yield key, assessor, before, after


class Newest(JudgmentPolicy):
    name = "newest"
    description = "the most recently changed judgment counts"

    def choose(self, held: Sequence[tuple[int, int]]) -> int:
        return held[-1][1]

    def select(self, rows: JudgmentRows) -> Selected:
        # the rows come with each document's most recent judgment last: keep the last row
        # of every run of equal (topic, document)
        n = len(rows.doc_ids)
        last = np.ones(n, dtype=bool)
        if n:
            last[:-1] = rows.doc_ids[1:] != rows.doc_ids[:-1]
            ends = rows.bounds[1:-1] - 1
            last[ends[ends >= 0]] = True
        index = np.flatnonzero(last)
        bounds = np.searchsorted(index, rows.bounds, side="left").astype(np.int64)
        return Selected(list(rows.qids), bounds, index, rows.doc_ids[index], rows.grades[index])


NEWEST = Newest()
POLICIES: dict[str, JudgmentPolicy] = {p.name: p for p in (NEWEST,)}
DEFAULT_POLICY = NEWEST


def effective_judgments(
    store: Store,
    assessors: Sequence[str] | None = None,
    qid: str | None = None,
    policy: JudgmentPolicy = DEFAULT_POLICY,
) -> JudgmentArrays:
    """The effective judgments of `assessors` (all by default) per topic, as arrays."""
    return policy.select(store.judgment_rows(assessors, qid)).arrays()


def qrels_rows(
    store: Store, assessors: Sequence[str] | None = None, policy: JudgmentPolicy = DEFAULT_POLICY
) -> list[tuple[str, str, int]]:
    """Effective judgments as (qid, docno, grade), in qid then docno byte order: what
    `export qrels` writes."""
    rows = store.judgment_rows(assessors, docnos=True)
    chosen = policy.select(rows)
    assert rows.docnos is not None
    out = []
    for qid, lo, hi in zip(
        chosen.qids, chosen.bounds[:-1].tolist(), chosen.bounds[1:].tolist(), strict=True
    ):
        out.extend(
            (qid, rows.docnos[r], g)
            for r, g in zip(chosen.rows[lo:hi].tolist(), chosen.grades[lo:hi].tolist(), strict=True)
        )
    return sorted(out, key=lambda r: (r[0].encode(), r[1].encode()))


def judging_events(
    store: Store,
    qid: str,
    assessors: Sequence[str] | None = None,
    policy: JudgmentPolicy = DEFAULT_POLICY,
) -> list[tuple[int, int | None]]:
    """The topic's judgment history as (doc id, effective grade after the event or None),
    oldest first: what a judging order replays to resume."""
    events = (
        (doc, assessor, grade) for _q, doc, assessor, grade in store.history_events(qid, assessors)
    )
    return [(doc, after) for doc, _a, _before, after in policy.replay(events)]
