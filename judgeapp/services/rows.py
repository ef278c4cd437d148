"""Plain rows the workbench shows: one per topic, one per pooled document. No Qt."""

from __future__ import annotations

import re
from dataclasses import dataclass


def natural_key(text: str) -> tuple:
    """'2' before '10', and 'q2' before 'q10': digits compare as numbers."""
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part.lower())
        for part in re.split(r"(\d+)", text)
        if part
    )


@dataclass(frozen=True, slots=True)
class TopicRow:
    """A topic in the topic list. `judged` and `relevant` count the current assessor's
    judgments of the topic's pooled documents (all of their judgments of the topic when
    there is no pool). `missing` is the estimate of relevant documents not found yet, with
    its interval, when the pool can give one."""

    qid: str
    title: str
    pool_size: int
    judged: int
    relevant: int
    missing: float | None = None
    missing_low: float | None = None
    missing_high: float | None = None
    assigned: bool = False  # the current assessor's work
    shared: bool = False  # assigned to more assessors than usual (for agreement)
    imported: int = 0  # pooled documents the imported qrels judge (not in `judged`)

    @property
    def progress(self) -> float:
        return self.judged / self.pool_size if self.pool_size else 0.0


@dataclass(frozen=True, slots=True)
class QueueItem:
    """A pooled document in the judging list. `best_rank` and `runs` stay None/empty in
    blind mode, so nothing downstream can show them."""

    doc_id: int
    docno: str
    grade: int | None = None
    flagged: bool = False
    note: str = ""
    best_rank: int | None = None
    runs: tuple[str, ...] = ()
    others: int = 0  # how many other assessors judged it (never their grades)

    @property
    def judged(self) -> bool:
        return self.grade is not None
