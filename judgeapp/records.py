"""Plain records shared by every layer (readers, store, engine, services, UI): what the
readers produce and the store takes, what the store returns and what a state change
reports. No behaviour beyond small helpers and conversions, no I/O, no SQL, no Qt; the only
import from judgeapp is :mod:`judgeapp.bytekeys` (a run's docnos as byte rows). Callers
never hold live ORM objects. The records of judgments files and of the store are defined in
:mod:`judgeapp.store_records` and reached here as well (loaded when first asked for)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

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


# --- judgments files and the store's records (judgeapp.store_records) ----------------------
# Defined in judgeapp.store_records and loaded the first time one is asked for, as
# `from judgeapp.records import Changes` or `records.Changes`: their two dozen dataclasses
# cost about 20 ms to define, which a command reading only runs and qrels need not pay.

if TYPE_CHECKING:  # the names as type checkers see them
    from judgeapp.store_records import *  # noqa: F403


def __getattr__(name: str) -> Any:
    if not name.startswith("__"):  # (dunder probes, such as `__path__`, load nothing)
        from judgeapp import store_records

        if name in store_records.__all__:
            return getattr(store_records, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
