"""Plain records the readers produce. No I/O here, no SQL, no Qt."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judgeapp.formats.keys import ByteKeys


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


@dataclass(slots=True)
class RunFile:
    path: str
    tag: str  # the tag of the first line (a run's default name)
    topics: dict[str, RankedTopic]  # qid -> ranked list
    n_lines: int  # data lines read (comments and blank lines excluded)
    # the same run as columns of byte keys, when the bulk reader read it (stores intern
    # its docnos in bulk from these)
    columns: RunColumns | None = field(default=None, repr=False, compare=False)

    @property
    def n_entries(self) -> int:
        return sum(len(t.docnos) for t in self.topics.values())


@dataclass(slots=True)
class QrelsFile:
    """Qrels columns in file order (comments skipped). Grades may be negative."""

    path: str
    qids: list[str]
    docnos: list[str]
    grades: np.ndarray  # int64
    lines: np.ndarray  # int64 source line numbers

    def __len__(self) -> int:
        return len(self.qids)

    def __iter__(self) -> Iterator[tuple[str, str, int]]:
        """``(qid, docno, grade)`` rows in file order (what ``write_qrels`` takes)."""
        return zip(self.qids, self.docnos, self.grades.tolist(), strict=True)


@dataclass(slots=True)
class RunColumns:
    """A run file in trec_eval order: topic ``k`` is rows ``bounds[k]:bounds[k+1]``."""

    path: str
    tag: str
    qids: list[str]  # byte order
    bounds: np.ndarray  # int64, len(qids) + 1
    docnos: ByteKeys
    hashes: np.ndarray  # uint64 hash of each docno (ByteKeys.hashes)
    scores: np.ndarray  # float64
    lines: np.ndarray  # int64 source line numbers
    n_lines: int

    @property
    def topic(self) -> np.ndarray:
        """Each row's topic index."""
        return np.repeat(np.arange(len(self.qids)), np.diff(self.bounds))

    def to_run_file(self) -> RunFile:
        docnos = self.docnos.to_list()
        topics = {}
        for k, qid in enumerate(self.qids):
            a, b = int(self.bounds[k]), int(self.bounds[k + 1])
            topics[qid] = RankedTopic(
                docnos=docnos[a:b], scores=self.scores[a:b], lines=self.lines[a:b]
            )
        return RunFile(
            path=self.path, tag=self.tag, topics=topics, n_lines=self.n_lines, columns=self
        )
