"""What every measure kernel works on: a batch of topics x runs as one matrix, and helpers.

A :class:`BatchView` holds, for a batch of topics and one evaluation context (relevance
level L, judged-only or not), the grade codes of every run's ranked list for every topic
of the batch as one (rows x depth) matrix, a row per (topic, run) pair, topic-major. Codes
follow trec_eval: the grade for a judged document, -1 for a document not in the judgments,
-2 for one judged with a negative grade (pooled, unjudged), ``PAD`` past the end of a
shorter list. What the judgments say (R, the ideal ranking, ...) is per topic and is
spread to the rows. Most measures look only at the judged entries, so the view extracts
them once as sparse, row-major arrays (row, rank) and kernels work on those, counting with
``searchsorted`` and summing with ``bincount``.

Exactness: trec_eval sums in rank order; ``np.bincount`` with weights and ``cumsum`` also
add strictly in input order, so sums of rationals (AP, bpref, ...) come out bit-identical
and values on a rounding boundary print the same 4 decimals. Formulas keep trec_eval's
operation order for the same reason.

A kernel (:data:`Kernel`) takes the view, the measures of one family that share parameters
(their @ values may differ) and a :class:`KernelContext`, and returns an array
(len(measures), rows). The kernels, one module per family of measures, are in
:mod:`judgeapp.measures.families`; each names the trec_eval source whose formula it
follows (``m_<name>.c``, read for the formula, not translated).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

import numpy as np

from judgeapp.measures.ideal import BatchIdeal

NONPOOL = -1  # retrieved, not in the judgments
UNJUDGED = -2  # in the judgments with a negative grade: pooled but not judged
PAD = -3  # past the end of a run's list
MIN_GEO_MEAN = 0.00001


@dataclass(slots=True)
class TopicStats:
    """What the judgments of one topic say, independent of runs."""

    grades: np.ndarray  # grades of every judged document (>= 0 only), any order
    num_judgments: int  # including negative grades
    # relevant documents by level, counted once (the statistics outlive a batch of runs)
    _num_rel: dict[int, int] = field(default_factory=dict, repr=False, compare=False)

    def num_rel(self, level: int) -> int:
        # form_res_rels.c: judgments with grade >= 0 and >= level
        found = self._num_rel.get(level)
        if found is None:
            found = self._num_rel[level] = int(np.count_nonzero(self.grades >= level))
        return found

    def num_nonrel(self, level: int) -> int:
        return int(self.grades.size) - self.num_rel(level)

    @property
    def has_unjudged(self) -> bool:
        return self.num_judgments > self.grades.size


def lround(x: np.ndarray | float) -> np.ndarray:
    """C lround for non-negative values: halves away from zero (np.round rounds to even)."""
    x = np.asarray(x, dtype=np.float64)
    t = np.trunc(x)
    return (t + (x - t >= 0.5)).astype(np.int64)


def recall_counts(
    levels: Sequence[float] | np.ndarray, num_rel: np.ndarray, version: int
) -> np.ndarray:
    """(rows, levels): trec_eval's conversion of recall levels into counts of relevant
    documents: 10.0 lround(x*R) (m_iprec_at_recall.c); 9.x (long)(x*R + 0.9)."""
    x = np.asarray(levels, dtype=np.float64)[None, :] * num_rel.astype(np.float64)[:, None]
    if version >= 10:
        return lround(x)
    return np.trunc(x + 0.9).astype(np.int64)


def nonzero2d(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of the True cells in row-major order; faster than 2-d np.nonzero."""
    flat = np.flatnonzero(mask)
    return np.divmod(flat, mask.shape[1]) if mask.shape[1] else (flat, flat)


def segment_starts(row: np.ndarray, n_rows: int) -> np.ndarray:
    # the probes in the entries' own integer type: numpy would otherwise copy them all
    return np.searchsorted(row, np.arange(n_rows + 1, dtype=row.dtype))


def safe_div(num: np.ndarray | float, den: np.ndarray | float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(num, den)


# -- the view ------------------------------------------------------------------------------


class BatchView:
    """Topics x runs as rows, one context (level, judged_only)."""

    def __init__(
        self,
        codes: np.ndarray,
        num_ret: np.ndarray,
        row_topic: np.ndarray,
        stats: Sequence[TopicStats],
        level: int,
        judged_only: bool,
    ) -> None:
        self.level = level
        self.judged_only = judged_only
        self.stats = stats
        self.row_topic = row_topic
        self.n_rows = codes.shape[0]
        topic_rel = np.array([s.num_rel(level) for s in stats], dtype=np.int64)
        topic_nonrel = np.array([s.num_nonrel(level) for s in stats], dtype=np.int64)
        self.num_rel = topic_rel[row_topic]  # R per row
        self.num_rel_f = self.num_rel.astype(np.float64)
        self.num_nonrel = topic_nonrel[row_topic]
        self.any_unjudged_pool = any(s.has_unjudged for s in stats)
        if judged_only:
            # trec_eval -J: unjudged documents leave the ranking before anything is computed
            row, pos = nonzero2d(codes >= 0)
            code = codes[row, pos]
            starts = segment_starts(row, self.n_rows)
            pos = np.arange(row.size) - starts[row]
            self.num_ret = np.diff(starts)
            dense = np.full((self.n_rows, int(self.num_ret.max(initial=0))), PAD, codes.dtype)
            dense[row, pos] = code
            self.codes = dense
            self.any_unjudged_pool = False
        else:
            self.codes = codes
            self.num_ret = num_ret
        self.depth = self.codes.shape[1]
        self.memo: dict[str, Any] = {}  # results kernels share (bpref and gm_bpref, ...)

    # -- sparse entries ------------------------------------------------------------------
    @cached_property
    def judged(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, rank0, grade) of every judged retrieved document, row-major, by rank; rows
        and ranks as 32-bit integers (half the memory of a batch's largest arrays; a batch
        has far fewer than 2**31 cells, see engine.BATCH_CELLS)."""
        flat = np.flatnonzero(self.codes >= 0)
        if self.codes.size < 2**31:
            flat = flat.astype(np.int32)
        row, pos = np.divmod(flat, max(self.depth, 1))
        return row, pos, self.codes.ravel()[flat]

    @cached_property
    def judged_starts(self) -> np.ndarray:
        return segment_starts(self.judged[0], self.n_rows)

    @cached_property
    def num_judged(self) -> np.ndarray:
        return np.diff(self.judged_starts)

    @cached_property
    def _rel_all(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        row, pos, code = self.judged  # the level is >= 0: only judged documents qualify
        keep = code >= self.level
        row, pos = row[keep], pos[keep]
        starts = segment_starts(row, self.n_rows)
        k = np.arange(1, row.size + 1) - starts[row]
        return row, pos, k, starts

    @property
    def rel(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, rank0, k) of documents with code >= L; k = 1-based count within the row."""
        return self._rel_all[:3]

    @property
    def rel_starts(self) -> np.ndarray:
        return self._rel_all[3]

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        """Relevant retrieved per row."""
        return np.diff(self.rel_starts)

    @cached_property
    def unjudged_pool(self) -> tuple[np.ndarray, np.ndarray]:
        return nonzero2d(self.codes == UNJUDGED)

    # -- counting and summing per row ----------------------------------------------------
    def keys(self, row: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """Sort keys of entries (row-major, then rank): row * (depth + 1) + rank0."""
        return row.astype(np.int64) * (self.depth + 1) + pos

    @cached_property
    def rel_keys(self) -> np.ndarray:
        row, pos, _ = self.rel
        return self.keys(row, pos)

    @cached_property
    def judged_keys(self) -> np.ndarray:
        row, pos, _ = self.judged
        return self.keys(row, pos)

    def count_below(self, keys: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
        """Entries (given by their keys) of each row with rank0 < cutoff; ``cutoffs`` is
        (k,) for every row or (rows, k); the result is (rows, k)."""
        cut = np.minimum(np.asarray(cutoffs, dtype=np.int64), self.depth)
        base = np.arange(self.n_rows, dtype=np.int64)[:, None] * (self.depth + 1)
        return np.searchsorted(keys, base + np.atleast_2d(cut)) - np.searchsorted(keys, base)

    def rel_below(self, cutoffs: np.ndarray) -> np.ndarray:
        return self.count_below(self.rel_keys, cutoffs)

    def judged_below(self, cutoffs: np.ndarray) -> np.ndarray:
        return self.count_below(self.judged_keys, cutoffs)

    def sum_by_row(self, row: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Per-row sums, added in entry order (rank order): bit-identical to trec_eval."""
        return np.bincount(row, weights=weights, minlength=self.n_rows)

    def prefix_table(self, row: np.ndarray, values: np.ndarray) -> np.ndarray:
        """(rows, widest + 1): column j holds the sum of a row's first j entries, added one
        by one in rank order (a cumsum along rows is sequential, so sums match trec_eval's)."""
        starts = segment_starts(row, self.n_rows)
        idx = np.arange(row.size) - starts[row]
        table = np.zeros((self.n_rows, int(np.diff(starts).max(initial=0)) + 1))
        table[row, idx + 1] = values
        np.cumsum(table, axis=1, out=table)
        return table

    def sum_below(self, table: np.ndarray, keys: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
        """(rows, len(cutoffs)): sums of the entries above each cutoff, from a prefix table."""
        counts = self.count_below(keys, cutoffs)
        return table[np.arange(self.n_rows)[:, None], counts]

    # -- interpolated precision ------------------------------------------------------------
    @cached_property
    def rel_precision(self) -> np.ndarray:
        """Precision at each relevant document: k / rank."""
        _, pos, k = self.rel
        return k / (pos + 1.0)

    @cached_property
    def iprec_table(self) -> np.ndarray:
        """(rows, most relevant retrieved): best precision at or after the k-th relevant."""
        row, _, k = self.rel
        table = np.zeros((self.n_rows, int(k.max(initial=0))))
        table[row, k - 1] = self.rel_precision
        return np.maximum.accumulate(table[:, ::-1], axis=1)[:, ::-1]

    def iprec_at_counts(self, counts: np.ndarray) -> np.ndarray:
        """(rows, n) interpolated precision once ``counts`` (rows, n) relevant documents are
        found: m_iprec_at_recall.c. 0 when a row found fewer."""
        nrr = self.num_rel_ret[:, None]
        table = self.iprec_table
        out = np.zeros(counts.shape)
        if table.shape[1]:
            col = np.clip(np.maximum(counts, 1) - 1, 0, table.shape[1] - 1)
            picked = table[np.arange(self.n_rows)[:, None], col]
            out = np.where(counts <= nrr, picked, 0.0)
        # none relevant retrieved: the count-0 level gets num_rel_ret / num_ret = 0 (0/0 if
        # the list is empty, as in trec_eval)
        none = (self.num_rel_ret == 0)[:, None] & (counts == 0)
        if none.any():
            empty = safe_div(0.0, self.num_ret.astype(np.float64))
            out = np.where(none, empty[:, None], out)
        return out

    def powers(self, p: float) -> np.ndarray:
        """p**i for i = 0..depth by repeated multiplication, as trec_eval's loop does."""
        key = f"powers {p}"
        if key not in self.memo:
            found = np.empty(self.depth + 1)
            found[0] = 1.0
            if self.depth:
                found[1:] = np.cumprod(np.full(self.depth, p))
            self.memo[key] = found
        return self.memo[key]


# -- kernels ------------------------------------------------------------------------------


class MeasureArgs(Protocol):
    """A measure as a kernel reads it: family name, @ value and parameters (by name, the
    family's default when not given). :class:`~judgeapp.measures.measure.Measure` is one;
    kernels need nothing else of it."""

    @property
    def family(self) -> str: ...

    @property
    def at(self) -> float | None: ...

    def __getitem__(self, name: str) -> Any: ...


@dataclass(slots=True)
class KernelContext:
    version: int
    num_docs: int  # trec_eval -N
    ideal: Callable[[tuple | None, str], BatchIdeal]
    # the batch's qids, and the judgments (diversity measures read subtopics there)
    qids: Sequence[str] = ()
    judgments: Any = None
    # (rows, depth): each retrieved document's index among its topic's judged documents
    # (TopicJudgments.docids), -1 if not judged; computed on first call
    judged_index: Callable[[], np.ndarray] | None = None


Kernel = Callable[[BatchView, Sequence[MeasureArgs], KernelContext], np.ndarray]


def cutoffs_of(measures: Sequence[MeasureArgs]) -> np.ndarray:
    """The @ values of measures that all have one, as integers."""
    return np.array([m.at for m in measures], dtype=np.int64)


def for_each(values: np.ndarray, ms: Sequence[MeasureArgs]) -> np.ndarray:
    """One row of values for every measure (kernels whose value ignores the @ value)."""
    return np.broadcast_to(values, (len(ms), values.shape[-1]))
