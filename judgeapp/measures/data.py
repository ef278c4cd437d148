"""The engine's inputs: documents as dense integer ids, judgments and runs as numpy arrays.

Strings stay at the edges. A :class:`Vocabulary` turns docnos into ids for file-based use;
the store hands ids it already has. Everything here is plain data with checks: no SQL, no Qt.

- :class:`Judgments`: per topic id (qid, a string), the judged document ids (``int64``,
  sorted, unique) and their grades (``int64``; negative = pooled but not judged).
- :class:`Run`: a name, a runid (the tag trec_eval prints) and per topic the retrieved
  document ids already in trec_eval order (score descending, ties by docno descending).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from judgeapp.records import QrelsFile, RunFile


class Vocabulary:
    """A two-way map docno (str) <-> dense document id (int, 0, 1, 2, ...)."""

    __slots__ = ("_docnos", "_ids")

    def __init__(self, docnos: Iterable[str] = ()) -> None:
        # ids are insertion indices, so the dict's order is also the id -> docno list
        self._ids: dict[str, int] = {}
        self._docnos: list[str] = []
        self.ids(docnos)

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, docno: object) -> bool:
        return docno in self._ids

    def add(self, docno: str) -> int:
        """The id of ``docno``, given a new one if it has none yet."""
        return self._ids.setdefault(docno, len(self._ids))

    def id(self, docno: str) -> int:
        """The id of a known docno (KeyError otherwise)."""
        return self._ids[docno]

    def ids(self, docnos: Iterable[str], *, add: bool = True) -> np.ndarray:
        """Ids of many docnos as ``int64``; unknown docnos are added (or -1 with add=False)."""
        table = self._ids
        if add:
            setdefault = table.setdefault
            return np.array([setdefault(d, len(table)) for d in docnos], dtype=np.int64)
        get = table.get
        return np.array([get(d, -1) for d in docnos], dtype=np.int64)

    def _names(self) -> list[str]:
        if len(self._docnos) != len(self._ids):
            self._docnos = list(self._ids)
        return self._docnos

    def docno(self, doc_id: int) -> str:
        return self._names()[doc_id]

    def docnos(self, doc_ids: Iterable[int]) -> list[str]:
        names = self._names()
        return [names[int(i)] for i in doc_ids]


def _as_ids(values: object, what: str) -> np.ndarray:
    ids = np.asarray(values)
    if ids.ndim != 1:
        raise ValueError(f"{what}: expected a 1-d array of document ids")
    if ids.size == 0:
        return np.zeros(0, dtype=np.int64)
    if not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"{what}: document ids must be integers, got {ids.dtype}")
    if ids.min() < 0:
        raise ValueError(f"{what}: document ids must be >= 0")
    return ids.astype(np.int64, copy=False)


@dataclass(slots=True)
class TopicJudgments:
    """The judgments of one topic: ``docids`` sorted ascending and unique, ``grades`` aligned."""

    docids: np.ndarray
    grades: np.ndarray

    @classmethod
    def build(cls, docids: object, grades: object, qid: str = "?") -> TopicJudgments:
        ids = _as_ids(docids, f"judgments of topic {qid}")
        g = np.asarray(grades)
        if g.shape != ids.shape:
            raise ValueError(f"judgments of topic {qid}: {ids.size} documents but {g.size} grades")
        if g.size and not np.issubdtype(g.dtype, np.integer):
            raise ValueError(f"judgments of topic {qid}: grades must be integers, got {g.dtype}")
        g = g.astype(np.int64, copy=False)
        order = np.argsort(ids, kind="stable")
        ids, g = ids[order], g[order]
        if ids.size > 1:
            dup = np.flatnonzero(ids[1:] == ids[:-1])
            if dup.size:
                raise ValueError(f"judgments of topic {qid}: document id {ids[dup[0]]} twice")
        return cls(ids, g)

    def __len__(self) -> int:
        return int(self.docids.size)


@dataclass(slots=True)
class SubtopicJudgments:
    """One topic's diversity judgments: ``grades[i, j]`` is the grade of the topic's i-th
    judged document (ascending id, as ``TopicJudgments.docids``) for subtopic j;
    ``docno_rank[i]`` its place in docno byte order (ndeval breaks ties by docno)."""

    names: tuple[str, ...]
    grades: np.ndarray
    docno_rank: np.ndarray


@dataclass(slots=True)
class PrefJudgments:
    """One topic's preference judgments (trec_eval -R prefs / qrels_prefs), one entry per
    input line: judgment group, sub-group, the document (index into the topic's
    ``TopicJudgments.docids``) and its rel_level. ``docno_rank`` gives each of the topic's
    documents its place in docno byte order (trec_eval numbers unretrieved documents so)."""

    jg: list[str]
    jsg: list[str]
    doc: np.ndarray
    rel_level: np.ndarray
    docno_rank: np.ndarray


ABSENT = -(2**31)  # a document the judgment group does not judge (GroupJudgments)


@dataclass(slots=True)
class GroupJudgments:
    """One topic's judgment groups (trec_eval -R qrels_jg): ``grades[i, g]`` is group g's
    grade of the topic's i-th document (``ABSENT`` if the group does not judge it)."""

    names: tuple[str, ...]
    grades: np.ndarray


class Judgments:
    """Relevance judgments (qrels) for many topics, keyed by qid.

    Build with :meth:`from_arrays` (per topic ids and grades), :meth:`from_columns` (three
    parallel columns, as the store reads them), :meth:`from_qrels` (a parsed qrels file and a
    Vocabulary) or :meth:`from_file`. A topic listed here is evaluated even with no relevant
    document (trec_eval counts it in the mean).
    """

    __slots__ = ("groups", "prefs", "subtopics", "topics")

    def __init__(
        self,
        topics: Mapping[str, TopicJudgments] | None = None,
        subtopics: Mapping[str, SubtopicJudgments] | None = None,
        *,
        prefs: Mapping[str, PrefJudgments] | None = None,
        groups: Mapping[str, GroupJudgments] | None = None,
    ) -> None:
        self.topics: dict[str, TopicJudgments] = dict(topics or {})
        # diversity judgments (qid subtopic docno grade), aligned with `topics`; a topic
        # without them counts as one subtopic (its grades)
        self.subtopics: dict[str, SubtopicJudgments] = dict(subtopics or {})
        # trec_eval's preference judgments and judgment groups (-R prefs, qrels_prefs,
        # qrels_jg); without them those measures read the grades (one group per topic)
        self.prefs: dict[str, PrefJudgments] = dict(prefs or {})
        self.groups: dict[str, GroupJudgments] = dict(groups or {})

    @classmethod
    def from_prefs(
        cls, rows: Mapping[str, Sequence[tuple[str, str, str, str, float]]], vocab: Vocabulary
    ) -> Judgments:
        """Preference judgments ``{qid: [(qid, jg, jsg, docno, rel_level), ...]}``. For the
        other measures a document is relevant (grade 1) when some group gives it a
        rel_level above 0."""
        topics: dict[str, TopicJudgments] = {}
        prefs: dict[str, PrefJudgments] = {}
        for qid, lines in rows.items():
            docnos = sorted({line[3] for line in lines})
            ids = vocab.ids(docnos)
            order = np.argsort(ids, kind="stable")
            place = np.empty(len(docnos), dtype=np.int64)
            place[order] = np.arange(len(docnos))  # docno order -> index among sorted ids
            where = {d: int(place[i]) for i, d in enumerate(docnos)}
            level = np.array([line[4] for line in lines], dtype=np.float64)
            doc = np.array([where[line[3]] for line in lines], dtype=np.int64)
            best = np.full(len(docnos), -np.inf)
            np.maximum.at(best, doc, level)
            topics[qid] = TopicJudgments(ids[order], (best > 0).astype(np.int64))
            prefs[qid] = PrefJudgments(
                [line[1] for line in lines],
                [line[2] for line in lines],
                doc,
                level,
                order.astype(np.int64),
            )
        return cls(topics, prefs=prefs)

    @classmethod
    def from_groups(
        cls, qrels: Mapping[str, Mapping[str, Mapping[str, int]]], vocab: Vocabulary
    ) -> Judgments:
        """Judgment groups ``{qid: {jg: {docno: grade}}}`` (trec_eval -R qrels_jg); a
        document's grade for the other measures is its highest in any group."""
        topics: dict[str, TopicJudgments] = {}
        groups: dict[str, GroupJudgments] = {}
        for qid, by_group in qrels.items():
            names = tuple(sorted(by_group, key=lambda x: x.encode("utf-8", "surrogateescape")))
            docnos = sorted({d for docs in by_group.values() for d in docs})
            row = {d: i for i, d in enumerate(docnos)}
            grades = np.full((len(docnos), len(names)), ABSENT, dtype=np.int64)
            for j, name in enumerate(names):
                for d, g in by_group[name].items():
                    grades[row[d], j] = g
            ids = vocab.ids(docnos)
            order = np.argsort(ids, kind="stable")
            best = grades.max(axis=1) if names else np.zeros(len(docnos), dtype=np.int64)
            topics[qid] = TopicJudgments(ids[order], best[order])
            groups[qid] = GroupJudgments(names, grades[order])
        return cls(topics, groups=groups)

    @classmethod
    def from_subtopics(
        cls, qrels: Mapping[str, Mapping[str, Mapping[str, int]]], vocab: Vocabulary
    ) -> Judgments:
        """Diversity judgments ``{qid: {subtopic: {docno: grade}}}`` (the TREC Web track's
        ``qid subtopic docno grade``). A document's grade for the other measures is its
        highest over the subtopics."""
        topics: dict[str, TopicJudgments] = {}
        subs: dict[str, SubtopicJudgments] = {}
        for qid, by_sub in qrels.items():
            names = sorted(by_sub, key=lambda x: (not x.isdigit(), int(x) if x.isdigit() else 0, x))
            docnos = sorted({d for docs in by_sub.values() for d in docs})
            row = {d: i for i, d in enumerate(docnos)}
            matrix = np.zeros((len(docnos), len(names)), dtype=np.int64)
            for j, name in enumerate(names):
                for d, g in by_sub[name].items():
                    matrix[row[d], j] = g
            ids = vocab.ids(docnos)
            best = matrix.max(axis=1) if names else np.zeros(len(docnos), dtype=np.int64)
            order = np.argsort(ids, kind="stable")
            topics[qid] = TopicJudgments(ids[order], best[order])
            # docnos were sorted: a document's place in that order breaks ideal-ranking ties
            subs[qid] = SubtopicJudgments(tuple(names), matrix[order], order.astype(np.int64))
        return cls(topics, subs)

    @classmethod
    def from_arrays(cls, topics: Mapping[str, tuple[object, object]]) -> Judgments:
        """``{qid: (docids, grades)}`` with any integer arrays (order does not matter)."""
        return cls({qid: TopicJudgments.build(d, g, qid) for qid, (d, g) in topics.items()})

    @classmethod
    def from_columns(cls, qids: Sequence[str], docids: object, grades: object) -> Judgments:
        """Three parallel columns: qid per row, document id per row, grade per row."""
        ids = _as_ids(docids, "judgments")
        g = np.asarray(grades)
        q = np.asarray(qids, dtype=object)
        if not (q.size == ids.size == g.size):
            raise ValueError("judgments: qids, docids and grades differ in length")
        if q.size == 0:
            return cls()
        uniq, inverse = np.unique(q.astype(str), return_inverse=True)
        order = np.argsort(inverse, kind="stable")
        bounds = np.searchsorted(inverse[order], np.arange(uniq.size + 1))
        topics = {}
        for k, qid in enumerate(uniq.tolist()):
            rows = order[bounds[k] : bounds[k + 1]]
            topics[qid] = TopicJudgments.build(ids[rows], g[rows], qid)
        return cls(topics)

    @classmethod
    def from_qrels(cls, qrels: QrelsFile, vocab: Vocabulary) -> Judgments:
        """From a parsed qrels file; a docno twice for one topic is a FormatError."""
        from judgeapp.formats.errors import FormatError

        ids = vocab.ids(qrels.docnos)
        grades = np.asarray(qrels.grades, dtype=np.int64)
        lines = np.asarray(qrels.lines, dtype=np.int64)
        by_topic: dict[str, list[int]] = {}
        for row, qid in enumerate(qrels.qids):
            by_topic.setdefault(qid, []).append(row)
        topics = {}
        for qid, rows_list in by_topic.items():
            rows = np.asarray(rows_list, dtype=np.int64)
            order = rows[np.argsort(ids[rows], kind="stable")]
            sorted_ids = ids[order]
            dup = np.flatnonzero(sorted_ids[1:] == sorted_ids[:-1])
            if dup.size:
                a, b = order[dup[0]], order[dup[0] + 1]
                first, second = sorted((int(lines[a]), int(lines[b])))
                raise FormatError(
                    qrels.path,
                    second,
                    f"duplicate docno {vocab.docno(int(sorted_ids[dup[0]]))} for topic {qid} "
                    f"at lines {first} and {second}",
                )
            topics[qid] = TopicJudgments(sorted_ids, grades[order])
        return cls(topics)

    @classmethod
    def from_file(cls, path: str | PathLike[str], vocab: Vocabulary) -> Judgments:
        from judgeapp.formats import read_qrels

        return cls.from_qrels(read_qrels(path), vocab)

    def set_topic(self, qid: str, docids: object, grades: object) -> None:
        """Replace one topic's judgments (an empty array leaves the topic with none)."""
        self.topics[qid] = TopicJudgments.build(docids, grades, qid)

    @property
    def qids(self) -> list[str]:
        """Topic ids in trec_eval's order (byte order of the UTF-8 text)."""
        return sorted(self.topics, key=_byte_key)

    def __len__(self) -> int:
        return len(self.topics)

    def __contains__(self, qid: object) -> bool:
        return qid in self.topics

    def max_doc_id(self) -> int:
        return max((int(t.docids[-1]) for t in self.topics.values() if t.docids.size), default=-1)


def _byte_key(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


@dataclass(slots=True)
class Run:
    """One system's ranked lists: per qid the document ids in trec_eval order.

    ``name`` identifies the run in judgeapp (file name, store name); ``tag`` is the runid
    trec_eval prints (the run file's tag column).
    """

    name: str
    topics: dict[str, np.ndarray] = field(default_factory=dict)
    tag: str = ""

    def __post_init__(self) -> None:
        if not self.tag:
            self.tag = self.name

    @classmethod
    def from_arrays(cls, name: str, topics: Mapping[str, object], *, tag: str | None = None) -> Run:
        """``{qid: docids}``, each already in trec_eval order; a repeated id is a ValueError."""
        checked: dict[str, np.ndarray] = {}
        for qid, docids in topics.items():
            ids = _as_ids(docids, f"run {name}, topic {qid}")
            if ids.size > 1:
                s = np.sort(ids)
                dup = np.flatnonzero(s[1:] == s[:-1])
                if dup.size:
                    raise ValueError(f"run {name}, topic {qid}: document id {s[dup[0]]} twice")
            checked[qid] = ids
        return cls(name, checked, tag or name)

    @classmethod
    def from_run_file(
        cls,
        run_file: RunFile,
        vocab: Vocabulary,
        *,
        name: str | None = None,
        float32_scores: bool = False,
    ) -> Run:
        """From a parsed run file.

        ``float32_scores`` re-sorts each topic as trec_eval 9.x does: it keeps scores as C
        ``float``, so scores that differ only beyond float precision become ties broken by
        docno (descending).
        """
        topics: dict[str, np.ndarray] = {}
        for qid, ranked in run_file.topics.items():
            docnos = ranked.docnos
            if float32_scores and len(docnos) > 1:
                order = float32_order(docnos, np.asarray(ranked.scores, dtype=np.float64))
                docnos = [docnos[i] for i in order]
            topics[qid] = vocab.ids(docnos)
        stem = name or run_file.tag or str(run_file.path)
        return cls(stem, topics, run_file.tag or stem)

    @classmethod
    def from_file(
        cls,
        path: str | PathLike[str],
        vocab: Vocabulary,
        *,
        name: str | None = None,
        float32_scores: bool = False,
    ) -> Run:
        from judgeapp.formats import read_run

        return cls.from_run_file(read_run(path), vocab, name=name, float32_scores=float32_scores)

    @property
    def num_entries(self) -> int:
        return sum(int(a.size) for a in self.topics.values())


def float32_order(docnos: Sequence[str], scores: np.ndarray) -> np.ndarray:
    """Positions of ``docnos`` sorted by float32 score descending, then docno descending."""
    names = np.array([_byte_key(d) for d in docnos], dtype=object)
    # rank of each docno in byte order, so lexsort can use an integer key
    name_rank = np.empty(len(names), dtype=np.int64)
    name_rank[np.argsort(names, kind="stable")] = np.arange(len(names))
    s32 = scores.astype(np.float32)
    return np.lexsort((-name_rank, -s32.astype(np.float64)))
