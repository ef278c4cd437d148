"""Which judgment counts: the one home of the rule that turns several judgments of a document
(by several assessors, imported qrels, automatic judges, an adjudicator) into the one grade
that evaluation, exports, judging orders and the dashboard use.

The store keeps every judgment and every change (`store.judgments.rows`,
`store.history.events`); a `JudgmentPolicy` decides what they mean:

- `choose(held)`: the effective grade of one document from the judgments it holds now,
  least recently changed first, or None when none of them counts (the definition);
- `select(rows)`: the same rule over many documents at once (vectorised where the rule
  allows; it must agree with `choose`, which a test checks on random data);
- `replay(events)`: the effective grade after each event of a judgment history, for orders
  that resume from history and for progress curves.

Policies (`parse_policy`): ``newest`` (the default: the most recently changed judgment),
``majority`` (the most frequent grade, ties to the lower grade: the conservative choice),
``max``, ``min``, ``median`` (the lower median), ``adjudicated`` (an adjudicator's decision,
else the majority), or one named assessor or source (``assessor:NAME``, or just NAME). The
voting policies count people and imported qrels; automatic judges and adjudicators vote only
when nobody else judged the document. Keep every judgment; a policy only chooses at read
time (TREC's practice and every annotation tool's).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from judgeapp.errors import UserError
from judgeapp.records import JudgmentArrays, JudgmentRows
from judgeapp.store import Store

K = TypeVar("K", bound=Hashable)

# kinds of judge (`assessors.kind`) whose votes count first
SOURCE = "source"  # imported qrels
VOTERS = frozenset({"person", SOURCE})
ADJUDICATOR = "adjudicator"
AUTOMATIC = "automatic"


class PolicyError(UserError, ValueError):
    """An unknown policy or assessor."""


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


@dataclass(frozen=True)
class JudgmentPolicy:
    """A rule for the effective grade of a document judged more than once. `kinds` maps
    assessor ids to their kind (person, source, automatic, adjudicator), filled by `bind`."""

    name: str = ""
    description: str = ""
    kinds: Mapping[int, str] = dataclasses.field(default_factory=dict, compare=False)

    def bind(self, store: Store) -> JudgmentPolicy:
        """This policy with what it needs to know about the project's assessors."""
        return dataclasses.replace(self, kinds={a.id: a.kind for a in store.team.assessors()})

    def choose(self, held: Sequence[tuple[int, int]]) -> int | None:
        """The effective grade from the document's current judgments, given as (assessor
        id, grade) pairs, the least recently changed first (never empty); None: no
        judgment counts."""
        raise NotImplementedError

    def voters(self, held: Sequence[tuple[int, int]]) -> list[int]:
        """The grades that vote: people's and sources', else everyone's."""
        grades = [g for a, g in held if self.kinds.get(a, "person") in VOTERS]
        return grades or [g for _, g in held]

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
                grade = self.choose(list(zip(assessors[i:j], values[i:j], strict=True)))
                if grade is not None:
                    keep.append(j - 1)
                    grades.append(grade)
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


@dataclass(frozen=True)
class Newest(JudgmentPolicy):
    name: str = "newest"
    description: str = "the most recently changed judgment counts"

    def bind(self, store: Store) -> JudgmentPolicy:
        return self  # needs nothing to know

    def choose(self, held: Sequence[tuple[int, int]]) -> int | None:
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


@dataclass(frozen=True)
class Majority(JudgmentPolicy):
    name: str = "majority"
    description: str = "the most frequent grade (ties to the lower grade)"

    def choose(self, held: Sequence[tuple[int, int]]) -> int | None:
        counts = Counter(self.voters(held))
        top = max(counts.values())
        return min(g for g, c in counts.items() if c == top)


@dataclass(frozen=True)
class Extreme(JudgmentPolicy):
    def choose(self, held: Sequence[tuple[int, int]]) -> int | None:
        votes = self.voters(held)
        return max(votes) if self.name == "max" else min(votes)


@dataclass(frozen=True)
class Median(JudgmentPolicy):
    name: str = "median"
    description: str = "the median grade (of an even number, the lower of the two middle ones)"

    def choose(self, held: Sequence[tuple[int, int]]) -> int | None:
        votes = sorted(self.voters(held))
        return votes[(len(votes) - 1) // 2]


@dataclass(frozen=True)
class Adjudicated(Majority):
    name: str = "adjudicated"
    description: str = "an adjudicator's decision, else the majority"

    def choose(self, held: Sequence[tuple[int, int]]) -> int | None:
        decided = [g for a, g in held if self.kinds.get(a) == ADJUDICATOR]
        return decided[-1] if decided else super().choose(held)


@dataclass(frozen=True)
class OneAssessor(JudgmentPolicy):
    """Only `assessor`'s judgments count (documents they did not judge are unjudged)."""

    assessor: str = ""
    assessor_id: int | None = None

    def bind(self, store: Store) -> JudgmentPolicy:
        found = [a for a in store.team.assessors() if a.name == self.assessor]
        if not found:
            raise PolicyError(f"no assessor or judgment source named {self.assessor!r}")
        return dataclasses.replace(self, assessor_id=found[0].id)

    def choose(self, held: Sequence[tuple[int, int]]) -> int | None:
        mine = [g for a, g in held if a == self.assessor_id]
        return mine[-1] if mine else None


NEWEST = Newest()
POLICIES: dict[str, JudgmentPolicy] = {
    p.name: p
    for p in (
        NEWEST,
        Adjudicated(),
        Majority(),
        Extreme("max", "the highest grade"),
        Extreme("min", "the lowest grade"),
        Median(),
    )
}
DEFAULT_POLICY: JudgmentPolicy = NEWEST
POLICY_HELP = (
    "which judgment counts where a document has several: "
    + ", ".join(f"{n} ({p.description})" for n, p in POLICIES.items())
    + ", or assessor:NAME (one assessor's or source's judgments only)"
)


def parse_policy(text: str) -> JudgmentPolicy:
    """A policy from its name (`newest`, `majority`, ...), `assessor:NAME`, or a NAME that is
    no policy's name (one assessor or source)."""
    if text in POLICIES:
        return POLICIES[text]
    name = text.removeprefix("assessor:")
    if not name:
        raise PolicyError(f"unknown judgment policy {text!r}; {POLICY_HELP}")
    return OneAssessor(f"assessor:{name}", f"{name}'s judgments only", assessor=name)


def effective_judgments(
    store: Store,
    assessors: Sequence[str] | None = None,
    qid: str | None = None,
    policy: JudgmentPolicy = DEFAULT_POLICY,
) -> JudgmentArrays:
    """The effective judgments of `assessors` (all by default) per topic, as arrays."""
    return policy.bind(store).select(store.judgments.rows(assessors, qid)).arrays()


def qrels_rows(
    store: Store, assessors: Sequence[str] | None = None, policy: JudgmentPolicy = DEFAULT_POLICY
) -> list[tuple[str, str, int]]:
    """Effective judgments as (qid, docno, grade), in qid then docno byte order: what
    `export qrels` writes."""
    rows = store.judgments.rows(assessors, docnos=True)
    chosen = policy.bind(store).select(rows)
    assert rows.docnos is not None
    out: list[tuple[str, str, int]] = []
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
        (doc, assessor, grade) for _q, doc, assessor, grade in store.history.events(qid, assessors)
    )
    bound = policy.bind(store)
    return [(doc, after) for doc, _a, _before, after in bound.replay(events)]
