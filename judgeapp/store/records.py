"""Plain records the store returns. Callers never hold live ORM objects."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np


@dataclass(frozen=True, slots=True)
class Changes:
    """What a state change touched, so views refresh only that.

    `judged` lists the (qid, doc_id) pairs whose judgments changed; `topics` the qids whose
    judgments changed. The flags say which other collections changed."""

    topics: frozenset[str] = frozenset()
    judged: tuple[tuple[str, int], ...] = ()
    topic_list: bool = False
    documents: bool = False
    runs: bool = False
    pools: bool = False
    assessors: bool = False
    scale: bool = False

    def __or__(self, other: Changes) -> Changes:
        return Changes(
            topics=self.topics | other.topics,
            judged=self.judged + other.judged,
            topic_list=self.topic_list or other.topic_list,
            documents=self.documents or other.documents,
            runs=self.runs or other.runs,
            pools=self.pools or other.pools,
            assessors=self.assessors or other.assessors,
            scale=self.scale or other.scale,
        )

    @property
    def empty(self) -> bool:
        return self == Changes()


@dataclass(frozen=True, slots=True)
class GradeInfo:
    grade: int
    label: str
    key: str


DEFAULT_SCALE = (
    GradeInfo(0, "Not relevant", "0"),
    GradeInfo(1, "Related", "1"),
    GradeInfo(2, "Highly relevant", "2"),
    GradeInfo(3, "Perfectly relevant", "3"),
)


@dataclass(frozen=True, slots=True)
class TopicRecord:
    qid: str
    title: str
    description: str
    narrative: str
    fields: dict[str, Any]
    source: str | None = None


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    doc_id: int
    docno: str
    title: str
    text: str
    fields: dict[str, Any]
    source: str | None = None


@dataclass(frozen=True, slots=True)
class RunInfo:
    id: int
    name: str
    tag: str
    source_path: str | None
    source_sha256: str | None
    imported_at: datetime
    n_topics: int
    n_entries: int


@dataclass(frozen=True, slots=True)
class AssessorInfo:
    id: int
    name: str
    kind: str  # "person" or "source" (imported qrels)


@dataclass(slots=True)
class RankedLists:
    """Every ranked list of some runs: per run name, per qid, doc ids (int32) and scores in
    trec_eval order. The arrays are read-only views on the stored bytes."""

    runs: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)

    @property
    def n_entries(self) -> int:
        return sum(len(ids) for topics in self.runs.values() for ids, _ in topics.values())


@dataclass(frozen=True, slots=True)
class JudgmentRecord:
    qid: str
    doc_id: int
    docno: str
    assessor: str
    grade: int
    note: str
    flagged: bool
    time_spent: float
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class JudgmentState:
    """A judgment's content, or its absence (grade None): what undo restores."""

    grade: int | None
    note: str = ""
    flagged: bool = False


@dataclass(frozen=True, slots=True)
class JudgmentChange:
    qid: str
    doc_id: int
    assessor_id: int
    before: JudgmentState
    after: JudgmentState
    changes: Changes


@dataclass(frozen=True, slots=True)
class JudgmentArrays:
    """Effective judgments as arrays, per qid: doc ids (int64, ascending) and grades."""

    topics: dict[str, tuple[np.ndarray, np.ndarray]]

    def __len__(self) -> int:
        return sum(len(ids) for ids, _ in self.topics.values())


@dataclass(frozen=True, slots=True)
class TopicCounts:
    qid: str
    title: str | None  # None when the topic is not in the project (a gap)
    runs: int
    retrieved: int
    judged: int
    relevant: int


@dataclass(frozen=True, slots=True)
class ProjectInfo:
    topics: int
    documents: int
    docnos: int
    runs: int
    ranked_entries: int
    assessors: int
    judgments: int
    pools: int
    per_topic: list[TopicCounts]
    run_topics_missing: list[str]  # topics named by runs but absent from the project
    judged_topics_missing: list[str]  # topics with judgments but absent from the project
    topics_without_runs: list[str]
    topics_without_judgments: list[str]
    retrieved_docs_without_text: int  # distinct retrieved docnos with no document text
    judged_docs_without_text: int
