"""Plain records shared by every layer (readers, store, engine, services, UI): what the
readers produce and the store takes, what the store returns and what a state change
reports. No behaviour beyond small helpers and conversions, no I/O, no SQL, no Qt; the only
import from judgeapp is :mod:`judgeapp.bytekeys` (a run's docnos as byte rows). Callers
never hold live ORM objects."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Self

import numpy as np

from judgeapp.bytekeys import ByteKeys

# --- what the readers produce (judgeapp.formats), and the store takes ----------------------


@dataclass(slots=True)
class Topic:
    qid: str
    title: str = ""
    description: str = ""
    narrative: str = ""
    # everything else the file says about the topic (subtopics, query/question, type, ...)
    fields: dict[str, Any] = field(default_factory=dict)
    line: int = 0  # where the topic starts in its file (1-based), for messages


@dataclass(slots=True)
class Document:
    docno: str
    title: str = ""
    text: str = ""
    fields: dict[str, Any] = field(default_factory=dict)  # authors, bibliography, date, ...
    line: int = 0


@dataclass(slots=True)
class RankedTopic:
    """One topic of a run, already in trec_eval order: score descending, then docno
    descending in byte order (trec_eval form_res_rels.c). ``lines`` are the source line
    numbers in the same order, so later checks can still point into the file.
    ``hashes``, when the reader gives them, are the docnos' ``hash()`` values (this process
    only), computed while the strings were in the CPU cache, so that a store can find the
    distinct docnos of millions of entries without touching every string again."""

    docnos: list[str]
    scores: np.ndarray  # float64, same length as docnos
    lines: np.ndarray  # int64 source line numbers
    hashes: np.ndarray | None = None  # int64 hash(docno), same order


class RunFile:
    """A run: per topic, its documents in trec_eval order (score descending, then docno
    descending in byte order; trec_eval form_res_rels.c). The one run type of the program:
    the readers make it, the store stores it, the engine, fusion and the API read it.

    It has two views of the same entries, each made from the other when first asked for:

    - the columns, what the bulk reader fills and the store interns in bulk: ``qids``
      (topic order; byte order when read from a file), ``bounds`` (topic ``k`` is rows
      ``bounds[k]:bounds[k+1]``), ``docnos`` (:class:`~judgeapp.bytekeys.ByteKeys`),
      ``hashes`` (their ``ByteKeys.hashes``), ``scores`` (float64) and ``lines`` (int64
      source line numbers);
    - ``topics``: qid -> :class:`RankedTopic`, the docnos as Python strings (what fusion,
      tie handling and the engine's vocabulary read).

    Made from ranked lists (``RunFile(path, tag, topics, n_lines)``: the line reader, ranx
    JSON, fusion, records made in code) or from columns (:meth:`of_columns`: the bulk
    reader). A run is not changed in place: a change makes another run."""

    __slots__ = ("_columns", "_topics", "n_lines", "path", "tag")

    def __init__(self, path: str, tag: str, topics: dict[str, RankedTopic], n_lines: int) -> None:
        self.path = path
        self.tag = tag  # the tag of the first line (a run's default name)
        self.n_lines = n_lines  # data lines read (comments and blank lines excluded)
        self._topics: dict[str, RankedTopic] | None = topics
        self._columns: _RunColumns | None = None

    @classmethod
    def of_columns(
        cls,
        path: str,
        tag: str,
        qids: list[str],
        bounds: np.ndarray,
        docnos: ByteKeys,
        hashes: np.ndarray,
        scores: np.ndarray,
        lines: np.ndarray,
        n_lines: int,
    ) -> RunFile:
        """A run from its columns (see the class), topics and entries in order."""
        run = cls.__new__(cls)
        run.path, run.tag, run.n_lines = path, tag, n_lines
        run._topics = None
        run._columns = _RunColumns(qids, bounds, docnos, hashes, scores, lines)
        return run

    def __repr__(self) -> str:
        return (
            f"RunFile(path={self.path!r}, tag={self.tag!r}, topics={len(self.qids)}, "
            f"entries={self.n_entries}, n_lines={self.n_lines})"
        )

    @property
    def topics(self) -> dict[str, RankedTopic]:
        """qid -> ranked list, the docnos as strings (made from the columns once)."""
        if self._topics is None:
            cols = self._cols()
            if len(cols.docnos) != len(cols.scores):
                raise ValueError(f"run {self.tag!r}: its docnos were numbered apart")
            docnos = cols.docnos.to_list()
            bounds = cols.bounds.tolist()
            self._topics = {
                qid: RankedTopic(docnos[a:b], cols.scores[a:b], cols.lines[a:b])
                for qid, a, b in zip(cols.qids, bounds, bounds[1:], strict=False)
            }
        return self._topics

    def _cols(self) -> _RunColumns:
        if self._columns is None:
            topics = self.topics
            sizes = [len(t.docnos) for t in topics.values()]
            keys = ByteKeys.from_strings([d for t in topics.values() for d in t.docnos])
            self._columns = _RunColumns(
                list(topics),
                np.concatenate(([0], np.cumsum(sizes))).astype(np.int64),
                keys,
                keys.hashes(),
                _joined([t.scores for t in topics.values()], np.float64),
                _joined([t.lines for t in topics.values()], np.int64),
            )
        return self._columns

    def with_topics(self) -> RunFile:
        """The run, its ``topics`` made now (a reader's records: docnos as strings)."""
        _ = self.topics  # made and kept
        return self

    def without_docnos(self) -> RunFile:
        """The run with its docno, hash and line columns left out: what stands with a
        numbering of the docnos made apart (``judgeapp.formats.bulk.NumberedRuns``), at a
        fraction of the bytes. Its ``topics`` can no longer be made."""
        cols = self._cols()
        return RunFile.of_columns(
            self.path,
            self.tag,
            cols.qids,
            cols.bounds,
            ByteKeys.empty(),
            np.zeros(0, dtype=np.uint64),
            cols.scores,
            np.zeros(0, dtype=np.int64),
            self.n_lines,
        )

    @property
    def n_entries(self) -> int:
        if self._columns is not None:
            return len(self._columns.scores)
        return sum(len(t.docnos) for t in self.topics.values())

    @property
    def qids(self) -> list[str]:
        return self._cols().qids

    @property
    def bounds(self) -> np.ndarray:
        return self._cols().bounds

    @property
    def docnos(self) -> ByteKeys:
        return self._cols().docnos

    @property
    def hashes(self) -> np.ndarray:
        return self._cols().hashes

    @property
    def scores(self) -> np.ndarray:
        return self._cols().scores

    @property
    def lines(self) -> np.ndarray:
        return self._cols().lines

    @property
    def topic(self) -> np.ndarray:
        """Each row's topic index."""
        return np.repeat(np.arange(len(self.qids)), np.diff(self.bounds))


@dataclass(frozen=True, slots=True)
class _RunColumns:
    """A run's columns (see :class:`RunFile`)."""

    qids: list[str]
    bounds: np.ndarray  # int64, len(qids) + 1
    docnos: ByteKeys
    hashes: np.ndarray  # uint64
    scores: np.ndarray  # float64
    lines: np.ndarray  # int64


def _joined(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)


class QrelsFile:
    """Qrels: (qid, docno, grade) rows in file order (comments skipped); grades may be
    negative. The one qrels type of the readers, the store's imports and the API.

    Like :class:`RunFile` it has two views of the same rows, each made from the other when
    first asked for: the rows as Python strings (``qids`` and ``docnos``, one a row: what
    the store imports and ``write_qrels`` writes), and the columns the bulk reader fills
    and `evaluate` numbers the judged docnos from: ``topic_qids`` (the distinct qids in
    byte order), ``topic`` (each row's index into them), ``docno_keys``
    (:class:`~judgeapp.bytekeys.ByteKeys`) and ``hashes`` (their ``ByteKeys.hashes``).
    ``grades`` (int64) and ``lines`` (int64 source line numbers) are shared. Qrels are not
    changed in place."""

    __slots__ = ("_columns", "_rows", "grades", "lines", "path")

    def __init__(
        self, path: str, qids: list[str], docnos: list[str], grades: np.ndarray, lines: np.ndarray
    ) -> None:
        self.path = path
        self.grades = grades
        self.lines = lines
        self._rows: tuple[list[str], list[str]] | None = (qids, docnos)
        self._columns: _QrelsColumns | None = None

    @classmethod
    def of_columns(
        cls,
        path: str,
        topic_qids: list[str],
        topic: np.ndarray,
        docno_keys: ByteKeys,
        grades: np.ndarray,
        lines: np.ndarray,
        hashes: np.ndarray | None = None,
    ) -> QrelsFile:
        """Qrels from their columns (see the class); ``hashes`` made when not given."""
        qrels = cls.__new__(cls)
        qrels.path, qrels.grades, qrels.lines = path, grades, lines
        qrels._rows = None
        qrels._columns = _QrelsColumns(topic_qids, topic, docno_keys, hashes)
        return qrels

    def __repr__(self) -> str:
        return f"QrelsFile(path={self.path!r}, rows={len(self)})"

    def __len__(self) -> int:
        return len(self.grades)

    def __iter__(self) -> Iterator[tuple[str, str, int]]:
        """``(qid, docno, grade)`` rows in file order (what ``write_qrels`` takes)."""
        return zip(self.qids, self.docnos, self.grades.tolist(), strict=True)

    def _row_view(self) -> tuple[list[str], list[str]]:
        if self._rows is None:
            cols = self._cols()
            names = cols.topic_qids
            self._rows = ([names[k] for k in cols.topic.tolist()], cols.docno_keys.to_list())
        return self._rows

    def _cols(self) -> _QrelsColumns:
        if self._columns is None:
            qids, docnos = self._row_view()
            distinct = sorted(set(qids))  # code-point order: UTF-8's byte order
            code = {q: i for i, q in enumerate(distinct)}
            topic = np.array([code[q] for q in qids], dtype=np.int64)
            self._columns = _QrelsColumns(distinct, topic, ByteKeys.from_strings(docnos), None)
        return self._columns

    def with_rows(self) -> QrelsFile:
        """The qrels, their rows as strings made now (a reader's records)."""
        self._row_view()
        return self

    @property
    def qids(self) -> list[str]:
        """Each row's qid."""
        return self._row_view()[0]

    @property
    def docnos(self) -> list[str]:
        """Each row's docno."""
        return self._row_view()[1]

    @property
    def topic_qids(self) -> list[str]:
        return self._cols().topic_qids

    @property
    def topic(self) -> np.ndarray:
        return self._cols().topic

    @property
    def docno_keys(self) -> ByteKeys:
        return self._cols().docno_keys

    @property
    def hashes(self) -> np.ndarray | None:
        """``ByteKeys.hashes`` of the docnos, when the reader made them (its check for a
        docno twice in a topic does): evaluate's numbering of the docnos uses them again."""
        return self._cols().hashes


@dataclass(frozen=True, slots=True)
class _QrelsColumns:
    """Qrels' columns (see :class:`QrelsFile`)."""

    topic_qids: list[str]  # distinct, byte order
    topic: np.ndarray  # int64 per row
    docno_keys: ByteKeys
    hashes: np.ndarray | None


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
