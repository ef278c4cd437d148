"""The records of judgments files and of the store: what `judgeapp.formats.judgments`
reads and writes, what the store returns and what a state change reports. Plain records, no
I/O, no SQL, no Qt. They are reached as :mod:`judgeapp.records` names too (that module
loads this one the first time one of them is asked for: defining these two dozen dataclasses
costs about 20 ms, which `evaluate`, reading only runs and qrels, need not pay)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Self

import numpy as np

__all__ = [
    "DEFAULT_SCALE",
    "JUDGMENT_FIELDS",
    "AssessorInfo",
    "Changes",
    "DocumentRecord",
    "GradeInfo",
    "HistoryEvent",
    "JudgmentArrays",
    "JudgmentChange",
    "JudgmentLine",
    "JudgmentRecord",
    "JudgmentRows",
    "JudgmentState",
    "MergeConflict",
    "MergeReport",
    "PoolHeader",
    "PoolInfo",
    "PoolRows",
    "ProjectInfo",
    "RankedLists",
    "RunInfo",
    "SearchHit",
    "SearchLogEntry",
    "TextQuery",
    "TopicCounts",
    "TopicRecord",
]

# the fields of a judgments file (jsonl, csv), in their order
JUDGMENT_FIELDS = (
    "topic",
    "docno",
    "assessor",
    "kind",
    "grade",
    "score",
    "note",
    "flagged",
    "time_spent",
    "created_at",
    "updated_at",
    "origin",
    "found_by",
    "query",
)


@dataclass(frozen=True, slots=True)
class JudgmentLine:
    """One judgment of a judgments file (judgeapp.formats.judgments reads and writes
    them) or of a project's export."""

    line: int
    topic: str
    docno: str
    grade: int
    assessor: str | None = None
    kind: str | None = None
    score: float | None = None
    note: str = ""
    flagged: bool = False
    time_spent: float = 0.0
    created_at: datetime | None = None
    updated_at: datetime | None = None
    origin: str | None = None
    found_by: str = "pool"
    query: str | None = None

    def record(self) -> dict[str, Any]:
        """The JSON-able record written by `write_judgments`."""
        out: dict[str, Any] = {f: getattr(self, f) for f in JUDGMENT_FIELDS}
        for key in ("created_at", "updated_at"):
            if out[key] is not None:
                out[key] = out[key].isoformat()
        return out


# --- what the store returns ----------------------------------------------------------------


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

    _FLAGS = ("topic_list", "documents", "runs", "pools", "assessors", "scale")

    def to_json(self) -> dict[str, Any]:
        """A JSON-able form (the project's change log stores it for other processes)."""
        out: dict[str, Any] = {f: True for f in self._FLAGS if getattr(self, f)}
        if self.topics:
            out["topics"] = sorted(self.topics)
        if self.judged:
            out["judged"] = [[q, d] for q, d in self.judged]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Changes:
        return cls(
            topics=frozenset(data.get("topics", ())),
            judged=tuple((str(q), int(d)) for q, d in data.get("judged", ())),
            **{f: bool(data.get(f, False)) for f in cls._FLAGS},
        )


@dataclass(frozen=True, slots=True)
class GradeInfo:
    """One step of a project's relevance scale: the number stored in judgments and qrels,
    the label on its button, the key that records it and what it means (for assessors)."""

    grade: int
    label: str
    key: str
    definition: str = ""


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
    kind: str  # person, source (imported qrels), automatic (a model), adjudicator
    role: str | None = None  # owner, evaluator, assessor; None: from the assignments


@dataclass(slots=True)
class RankedLists:
    """Every ranked list of some runs: per run name, per qid, doc ids (int32) and scores in
    trec_eval order. The arrays are read-only views on the stored bytes."""

    runs: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)  # per run name, read with the lists

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
class HistoryEvent:
    """One change to a judgment as another project can take it: documents by docno and
    assessors by name (a project's own ids mean nothing elsewhere), identified by `uid`."""

    uid: str
    qid: str
    docno: str
    assessor: str
    assessor_kind: str
    action: str  # create, update, delete
    origin: str
    grade: int | None
    previous_grade: int | None
    note: str
    flagged: bool
    time_spent: float
    at: datetime
    query: str | None = None  # origin "search": the query that found the document


@dataclass(frozen=True, slots=True)
class MergeConflict:
    """The same assessor judged the same document differently in the two projects: both
    changes are in the history now, and the newer one counts."""

    qid: str
    docno: str
    assessor: str
    kept: int | None  # the grade that counts now (the newer change's)
    other: int | None  # the other project's grade


@dataclass(frozen=True, slots=True)
class MergeReport:
    events: int  # history events added
    judgments: int  # current judgments created, changed or removed
    conflicts: list[MergeConflict]
    changes: Changes


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
    time_spent: float = 0.0  # seconds this change added (an undo takes them back)
    # how the document came to be judged (pool, search) and the query that found it: a
    # redo that makes the judgment again makes it so again
    found_by: str = "pool"
    query: str | None = None


@dataclass(frozen=True, slots=True)
class JudgmentRows:
    """Stored judgments as they are (every assessor's, not yet reduced to one per document),
    grouped by topic, then by document, each document's most recently changed judgment
    last: what a judgment policy (`judgeapp.services.policy`) reads.

    Topic ``qids[i]`` owns rows ``bounds[i]:bounds[i+1]``; `docnos` is filled only when
    asked for (exports)."""

    qids: list[str]
    bounds: np.ndarray  # int64, len(qids) + 1
    doc_ids: np.ndarray  # int64, ascending within a topic
    assessor_ids: np.ndarray  # int64
    grades: np.ndarray  # int64
    docnos: list[str] | None = None

    def __len__(self) -> int:
        return len(self.doc_ids)


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


@dataclass(frozen=True, slots=True)
class PoolInfo:
    id: int
    name: str
    strategy: str  # depth, take, rbp, rrf, sample
    params: dict[str, Any]  # depth / budget / p / k, topics, and the history of extensions
    judging_order: str  # a name in judgeapp.pooling.order.ORDERS
    seed: int
    runs: tuple[str, ...]  # in the order of the runs' ids (import order)
    created_at: datetime
    updated_at: datetime
    n_topics: int
    n_docs: int


@dataclass(frozen=True, slots=True)
class PoolHeader:
    """A pool by name, without counting its documents (the window's menu and status)."""

    name: str
    strategy: str
    judging_order: str


@dataclass(frozen=True, slots=True)
class PoolRows:
    """The pooled documents of one topic as stored: parallel arrays sorted by document id
    (`judgeapp.pooling.pools.PoolTopic` adds the pooling operations on top).

    Contributors are stored CSR-style: document ``i``'s runs are
    ``runs[run_idx[offsets[i]:offsets[i+1]]]`` with ranks ``ranks[offsets[i]:offsets[i+1]]``
    (1-based positions in each run's list), in run order."""

    qid: str
    runs: tuple[str, ...]
    doc_ids: np.ndarray  # int64, ascending
    best_rank: np.ndarray  # int32
    offsets: np.ndarray  # int64, len(doc_ids) + 1
    run_idx: np.ndarray  # int32, indexes `runs`
    ranks: np.ndarray  # int32
    inclusion_prob: np.ndarray  # float64, 1.0 unless the document was drawn by sampling
    # sample pools only: 0 for documents judged before the draw, 1, 2, ... the best-rank
    # stratum a document was drawn from (see judgeapp.pooling.estimate)
    stratum: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.doc_ids)

    @classmethod
    def empty(cls, qid: str, runs: Sequence[str]) -> Self:
        """A topic with no pooled document."""
        return cls(
            qid,
            tuple(runs),
            np.empty(0, np.int64),
            np.empty(0, np.int32),
            np.zeros(1, np.int64),
            np.empty(0, np.int32),
            np.empty(0, np.int32),
            np.empty(0, np.float64),
        )

    @property
    def n_runs(self) -> np.ndarray:
        """How many runs contributed each document."""
        return np.diff(self.offsets)


@dataclass(frozen=True, slots=True)
class TextQuery:
    """A full-text search as the store runs it: phrases of one or more words (a word is a
    phrase of one); every phrase required (`require_all`) or any of them, ranked; with
    `prefix_last` the last word also matches the words it begins (the word being typed)."""

    phrases: tuple[tuple[str, ...], ...]
    require_all: bool = False
    prefix_last: bool = False


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One document a search found, with its score (BM25 on SQLite, ts_rank on PostgreSQL:
    higher is better, comparable within one search only)."""

    doc_id: int
    docno: str
    title: str
    score: float


@dataclass(frozen=True, slots=True)
class SearchLogEntry:
    """One search an assessor made: over the whole collection or within a topic's pool."""

    assessor: str
    qid: str | None
    scope: str  # collection, pool
    query: str
    results: int
    at: datetime
