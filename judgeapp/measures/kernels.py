"""Vectorised measure kernels: many topics and every run in one pass.

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
operation order for the same reason. Each kernel names the trec_eval source whose formula
it follows (``m_<name>.c``, read for the formula, not translated).

Every measure family is registered here, once, on the kernel that computes it
(:func:`judgeapp.measures.registry.register`): its description and parameters, its
ir_measures aliases and its trec_eval names. Adding a measure is adding a registered kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

import numpy as np

from judgeapp.measures.measure import (
    COLLECTION,
    DCG_VARIANT,
    ELEVEN_LEVELS,
    GAINS,
    JUDGED_ONLY,
    REL,
    EvaluationError,
    Family,
    Measure,
    MeasureError,
    Param,
)
from judgeapp.measures.registry import LONG_CUTOFFS, Alias, TrecSpec, register

NONPOOL = -1  # retrieved, not in the judgments
UNJUDGED = -2  # in the judgments with a negative grade: pooled but not judged
PAD = -3  # past the end of a run's list
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001


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


def _segment_starts(row: np.ndarray, n_rows: int) -> np.ndarray:
    # the probes in the entries' own integer type: numpy would otherwise copy them all
    return np.searchsorted(row, np.arange(n_rows + 1, dtype=row.dtype))


def _safe_div(num: np.ndarray | float, den: np.ndarray | float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(num, den)


# -- ideal rankings (nDCG and friends) ------------------------------------------------------


def gain_lookup(grades: np.ndarray, gains: tuple[tuple[int, float], ...] | None) -> np.ndarray:
    """Gain of each grade: the given gain for listed grades, else the grade (negative: 0)."""
    out = np.maximum(grades, 0).astype(np.float64)
    if gains:
        for level, gain in gains:
            out[grades == level] = gain
    return out


GainT = TypeVar("GainT", np.ndarray, np.float64)


def transform_gain(gain: GainT, dcg: str) -> GainT:
    if dcg == "exp-log2":
        return np.exp2(gain) - 1.0
    return gain


def discount(rank0: np.ndarray, dcg: str) -> np.ndarray:
    """Discount for 0-based ranks: log2(rank + 1); Jarvelin-Kekalainen: max(1, log2(rank))."""
    if dcg == "jk":
        return np.maximum(1.0, np.log2(rank0 + 1.0))
    return np.log2(rank0 + 2.0)


@dataclass(slots=True)
class Ideal:
    """The ideal ranking of one topic: positive gains, best first."""

    gains: np.ndarray
    prefix: np.ndarray  # prefix[i] = ideal DCG of the first i documents (prefix[0] = 0)
    top_gain: float  # the highest gain any listed grade has (trec_eval starts from it)


def _c_gain_order(entries: list[tuple[float, int]]) -> list[tuple[float, int]]:
    """gain_init.c's qsort of the gain list, with its comparator ``(int)(g1 - g2)``: gains
    less than 1 apart compare equal and keep their list order. glibc sorts such small arrays
    with a stable top-down merge sort, reproduced here (entries: (gain, count))."""
    if len(entries) <= 1:
        return list(entries)
    half = len(entries) // 2
    left, right = _c_gain_order(entries[:half]), _c_gain_order(entries[half:])
    out: list[tuple[float, int]] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if int(left[i][0] - right[j][0]) <= 0:  # C truncates the difference toward zero
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def build_ideal(stats: TopicStats, gains: tuple | None, dcg: str) -> Ideal:
    """The ideal ranking as gain_init.c and m_ndcg.c build it: the listed grades (in the
    order given) then grades 0..max, each with its gain and number of judged documents,
    sorted by gain; walked from the top, it stops at the first gain <= 0 it reaches."""
    counts = np.bincount(stats.grades) if stats.grades.size else np.zeros(0, dtype=np.int64)
    listed: list[list[float]] = [[level, gain, 0] for level, gain in (gains or ())]
    for level in range(counts.size):
        found = next((e for e in listed if e[0] == level), None)
        if found is not None:
            found[2] = int(counts[level])
        else:
            listed.append([level, float(level), int(counts[level])])
    entries = [(float(transform_gain(np.float64(g), dcg)), int(n)) for _, g, n in listed]
    ordered = _c_gain_order(entries)
    top = ordered[-1][0] if ordered else 0.0
    seq: list[float] = []
    for gain, count in reversed(ordered):
        if count == 0:
            continue
        if gain <= 0:
            break
        seq.extend([gain] * count)
    positive = np.array(seq, dtype=np.float64)
    terms = positive / discount(np.arange(positive.size), dcg)
    prefix = np.concatenate(([0.0], np.cumsum(terms)))  # cumsum adds in order
    return Ideal(positive, prefix, top)


class BatchIdeal:
    """The ideal rankings of the topics of a batch, looked up per row."""

    def __init__(self, ideals: Sequence[Ideal], row_topic: np.ndarray) -> None:
        self.ideals = ideals
        self.row_topic = row_topic
        self.size = np.array([i.gains.size for i in ideals], dtype=np.int64)
        lengths = self.size + 1
        self.offset = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        self.flat = np.concatenate([i.prefix for i in ideals]) if ideals else np.zeros(1)

    def at(self, topic: np.ndarray, n: np.ndarray) -> np.ndarray:
        """Ideal DCG of the first n documents for the given topics (broadcasting)."""
        n = np.minimum(n, self.size[topic])
        return self.flat[self.offset[topic] + n]

    def rows_size(self) -> np.ndarray:
        return self.size[self.row_topic]

    def rows_total(self) -> np.ndarray:
        return self.at(self.row_topic, self.rows_size())


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
            starts = _segment_starts(row, self.n_rows)
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
        return _segment_starts(self.judged[0], self.n_rows)

    @cached_property
    def num_judged(self) -> np.ndarray:
        return np.diff(self.judged_starts)

    @cached_property
    def _rel_all(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        row, pos, code = self.judged  # the level is >= 0: only judged documents qualify
        keep = code >= self.level
        row, pos = row[keep], pos[keep]
        starts = _segment_starts(row, self.n_rows)
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
        starts = _segment_starts(row, self.n_rows)
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
            empty = _safe_div(0.0, self.num_ret.astype(np.float64))
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


# -- kernels -------------------------------------------------------------------------------
# Each takes the view, the measures of one family that share parameters (their @ values may
# differ) and the context, and returns an array (len(measures), rows). Each is registered
# (registry.register) with the family or families it computes: the family's description
# and parameters, its ir_measures aliases and its trec_eval names. A new measure is a new
# registered kernel here.


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


Kernel = Callable[[BatchView, Sequence[Measure], KernelContext], np.ndarray]


def _cutoffs(measures: Sequence[Measure]) -> np.ndarray:
    return np.array([m.at for m in measures], dtype=np.int64)


def _each(values: np.ndarray, ms: Sequence[Measure]) -> np.ndarray:
    return np.broadcast_to(values, (len(ms), values.shape[-1]))


# trec_eval parameter lists ('dparams') and the measures they mean


def _read_relstring(values: list[float], raw: str | None) -> Measure:
    return Measure("relstring", max(int(values[0]), 0) or 0)


def _read_11pt(values: list[float], raw: str | None) -> Measure:
    return Measure("11pt_avg", params={"levels": tuple(values)})


def _read_utility(values: list[float], raw: str | None) -> Measure:
    if len(values) != 4:
        raise MeasureError(f"utility needs 4 coefficients, got {len(values)} in {raw!r}")
    return Measure("utility", params={"coeffs": tuple(values)})


def _read_set_f(values: list[float], raw: str | None) -> Measure:
    return Measure("SetF", params={"beta": values[0]})


def _gain_family(name: str, description: str) -> Family:
    """A trec_eval measure taking per-grade gains (-m ndcg_rel.1=3,2=9) and no cutoff."""
    return Family(name, description, at=None, params=(GAINS, REL, JUDGED_ONLY))


@register(
    Family(
        "runid",
        "The run's tag, as the run file names it.",
        "text",
        at=None,
        params=(),
        per_topic=False,
    ),
    trec=[
        TrecSpec(
            "runid", 0, nicknames=("official", "all_trec", "set", "all_prefs", "prefs", "qrels_jg")
        )
    ],
)
@register(
    Family(
        "relstring",
        "The grades of the top k documents as text ('-' not in the "
        "judgments, '.' pooled but unjudged).",
        "text",
        at_default=10,
    ),
    # the text itself comes from relstrings()
    trec=[TrecSpec("relstring", 12, "dparams", (10.0,), read=_read_relstring)],
)
def k_zero(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    return np.zeros((len(ms), v.n_rows))


@register(
    Family(
        "NumQ",
        "Number of topics averaged over.",
        "count",
        at=None,
        params=(),
        integer=True,
        per_topic=False,
    ),
    aliases=["num_q"],
    trec=[
        TrecSpec(
            "num_q", 1, nicknames=("official", "all_trec", "set", "all_prefs", "prefs", "qrels_jg")
        )
    ],
)
def k_one(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    return np.ones((len(ms), v.n_rows))


@register(
    Family(
        "NumRet",
        "Number of documents retrieved (summed over topics).",
        "sum",
        at=None,
        params=(JUDGED_ONLY,),
        integer=True,
    ),
    aliases=["num_ret"],
    trec=[TrecSpec("num_ret", 2, nicknames=("official", "all_trec", "set"))],
)
def k_num_ret(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    return _each(v.num_ret.astype(np.float64), ms)


@register(
    Family(
        "NumRel",
        "Number of relevant documents in the judgments (summed over topics).",
        "sum",
        at=None,
        params=(REL,),
        integer=True,
    ),
    aliases=["num_rel"],
    trec=[TrecSpec("num_rel", 3, nicknames=("official", "all_trec", "set"))],
)
def k_num_rel(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    return _each(v.num_rel_f, ms)


@register(
    Family(
        "NumRelRet",
        "Number of relevant documents retrieved, or in the top k (summed over topics).",
        "sum",
        integer=True,
    ),
    aliases=["num_rel_ret"],
    trec=[TrecSpec("num_rel_ret", 4, nicknames=("official", "all_trec", "set"))],
)
def k_num_rel_ret(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    if all(m.at is None for m in ms):
        return _each(v.num_rel_ret.astype(np.float64), ms)
    cut = np.array([v.depth if m.at is None else m.at for m in ms], dtype=np.int64)
    return v.rel_below(cut).T.astype(np.float64)


@register(
    Family(
        "num_nonrel_judged_ret",
        "Number of judged non-relevant documents retrieved (summed over topics).",
        "sum",
        at=None,
        integer=True,
    ),
    trec=[TrecSpec("num_nonrel_judged_ret", 35)],
)
def k_num_nonrel_judged_ret(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    # m_num_nonrel_judged_ret.c: num_ret - not in pool - unjudged in pool - num_rel_ret
    return _each((v.num_judged - v.num_rel_ret).astype(np.float64), ms)


def _ap(v: BatchView) -> np.ndarray:
    """m_map.c: the precision at each relevant document summed in rank order, over R;
    0 when none is retrieved."""
    if "ap" not in v.memo:
        total = v.sum_by_row(v.rel[0], v.rel_precision)
        v.memo["ap"] = np.where(v.num_rel_ret > 0, _safe_div(total, v.num_rel_f), 0.0)
    return v.memo["ap"]


@register(
    Family(
        "AP",
        "Average precision: mean of the precision at each relevant document "
        "retrieved, over all relevant documents (trec_eval map; AP@k is map_cut_k).",
    ),
    aliases=["MAP", "map"],
    trec=[
        TrecSpec("map", 5, nicknames=("official", "all_trec")),
        TrecSpec("map_cut", 27, "long", LONG_CUTOFFS),
    ],
)
@register(
    Family(
        "gm_map",
        "Geometric mean over topics of AP (per topic floored at 0.00001).",
        "gmean",
        at=None,
        per_topic=False,
    ),
    aliases=["GMAP"],
    trec=[TrecSpec("gm_map", 6, nicknames=("official", "all_trec"))],
)
def k_ap(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_map.c (AP) and m_map_cut.c (AP@k: over R even when R is not reached)."""
    out = np.zeros((len(ms), v.n_rows))
    cut = [i for i, m in enumerate(ms) if m.at is not None]
    if cut:
        table = v.prefix_table(v.rel[0], v.rel_precision)
        sums = v.sum_below(table, v.rel_keys, _cutoffs([ms[i] for i in cut]))
        out[cut] = np.where(v.num_rel[:, None] > 0, _safe_div(sums, v.num_rel_f[:, None]), 0).T
    for i, m in enumerate(ms):
        if m.at is None:
            out[i] = _ap(v)
    return out


@register(
    Family("Rprec", "Precision after R documents, R = number of relevant documents.", at=None),
    aliases=["RPrec"],
    trec=[TrecSpec("Rprec", 7, nicknames=("official", "all_trec"))],
)
def k_rprec(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_Rprec.c: relevant in the top min(R, retrieved), over R."""
    count = v.rel_below(np.maximum(v.num_rel, 1)[:, None])[:, 0]
    ok = np.minimum(v.num_ret, v.num_rel) > 0
    return _each(np.where(ok, _safe_div(count, v.num_rel_f), 0.0), ms)


def _nonrel_before_rel(v: BatchView) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each judged relevant document (grade >= L): row, rank0, relevant so far
    (inclusive) and judged non-relevant so far (bpref and infAP count only judged docs)."""
    if "nonrel_before_rel" not in v.memo:
        row, pos, code = v.judged
        is_nonrel = code < v.level
        cum = np.cumsum(is_nonrel)
        before = np.concatenate(([0], cum))[v.judged_starts[:-1]]
        nonrel_so_far = cum - before[row]
        keep = ~is_nonrel
        row_r, pos_r = row[keep], pos[keep]
        k = np.arange(1, row_r.size + 1) - _segment_starts(row_r, v.n_rows)[row_r]
        v.memo["nonrel_before_rel"] = (row_r, pos_r, k, nonrel_so_far[keep])
    return v.memo["nonrel_before_rel"]


@register(
    Family(
        "Bpref",
        "Binary preference: how often judged relevant documents come before "
        "judged non-relevant ones (Buckley and Voorhees 2004).",
        at=None,
    ),
    aliases=["BPref", "bpref"],
    trec=[TrecSpec("bpref", 8, nicknames=("official", "all_trec"))],
)
@register(
    Family(
        "gm_bpref",
        "Geometric mean over topics of Bpref (floored at 0.00001).",
        "gmean",
        at=None,
        per_topic=False,
    ),
    trec=[TrecSpec("gm_bpref", 15)],
)
def k_bpref(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_bpref.c: 1 - min(nonrel before, R) / min(judged nonrel, R) per relevant, over R."""
    if "bpref" not in v.memo:
        row, _, _, nonrel = _nonrel_before_rel(v)
        r = v.num_rel[row]
        frac = _safe_div(np.minimum(nonrel, r), np.minimum(v.num_nonrel, v.num_rel)[row])
        total = v.sum_by_row(row, np.where(nonrel > 0, 1.0 - frac, 1.0))
        v.memo["bpref"] = np.where(v.num_rel > 0, _safe_div(total, v.num_rel_f), total)
    return _each(v.memo["bpref"], ms)


@register(
    Family(
        "infAP",
        "Inferred AP (Yilmaz and Aslam 2006): AP estimated from a judged "
        "sample of the pool; documents graded negative are pooled but unjudged.",
        at=None,
    ),
    trec=[TrecSpec("infAP", 14)],
)
def k_infap(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_infap.c: inferred AP, pooled-but-unjudged documents (grade < 0) estimated."""
    row, pos, k, nonrel = _nonrel_before_rel(v)
    if v.any_unjudged_pool:
        ukeys = v.keys(*v.unjudged_pool)
        pool_unj = np.searchsorted(ukeys, v.keys(row, pos)) - np.searchsorted(
            ukeys, v.keys(row, np.zeros_like(pos))
        )
    else:
        pool_unj = np.zeros_like(pos)  # no negative grade: nothing pooled but unjudged
    fj = pos.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = 1.0 / (fj + 1.0)
        b = fj / (fj + 1.0)
        c = (k - 1 + nonrel + pool_unj).astype(np.float64) / fj
        d = ((k - 1).astype(np.float64) + INFAP_EPSILON) / (
            (k - 1 + nonrel).astype(np.float64) + 2 * INFAP_EPSILON
        )
        terms = np.where(pos == 0, 1.0, a + b * c * d)
    total = v.sum_by_row(row, terms)
    return _each(np.where(v.num_rel > 0, _safe_div(total, v.num_rel_f), total), ms)


@register(
    Family("RR", "Reciprocal rank of the first relevant document (trec_eval recip_rank)."),
    aliases=["MRR", "recip_rank"],
    trec=[TrecSpec("recip_rank", 9, nicknames=("official", "all_trec"))],
)
def k_rr(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_recip_rank.c: 1 / rank of the first relevant document."""
    row, pos, k = v.rel
    first = k == 1
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        keep = first if m.at is None else first & (pos < m.at)
        out[i, row[keep]] = 1.0 / (pos[keep] + 1.0)
    return out


@register(
    Family(
        "IPrec",
        "Interpolated precision at a recall level: the best precision at or "
        "after the rank where that share of the relevant documents is reached.",
        at="recall",
        at_kind=float,
        at_required=True,
    ),
    trec=[
        TrecSpec("iprec_at_recall", 10, "double", ELEVEN_LEVELS, nicknames=("official", "all_trec"))
    ],
)
def k_iprec(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    counts = recall_counts(np.array([m.at for m in ms], dtype=np.float64), v.num_rel, ctx.version)
    return v.iprec_at_counts(counts).T


@register(
    Family(
        "11pt_avg",
        "Mean interpolated precision at the 11 recall levels 0.0 ... 1.0 "
        "(levels turned into counts of relevant documents as trec_eval does).",
        at=None,
        params=(Param("levels", tuple, ELEVEN_LEVELS), REL, JUDGED_ONLY),
    ),
    trec=[TrecSpec("11pt_avg", 18, "dparams", ELEVEN_LEVELS, read=_read_11pt)],
)
def k_11pt(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_11pt_avg.c: mean of iprec over the levels (summed from the last level down)."""
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        levels = m["levels"]
        vals = v.iprec_at_counts(recall_counts(levels, v.num_rel, ctx.version))
        total = np.zeros(v.n_rows)
        for j in range(len(levels) - 1, -1, -1):
            total = total + vals[:, j]
        out[i] = total / float(len(levels))
    return out


@register(
    Family(
        "AP_11pt",
        "11-point interpolated AP as textbooks compute it: at each level, "
        "the best precision at a recall at or above it (seed 000, 'AP alternative 2').",
        at=None,
    )
)
def k_ap_11pt(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """Textbook 11-point AP: at level x, the best precision at recall >= x."""
    levels = np.asarray(ELEVEN_LEVELS)
    counts = np.ceil(levels[None, :] * v.num_rel_f[:, None] - 1e-9).astype(np.int64)
    vals = v.iprec_at_counts(np.maximum(counts, 1))
    total = np.zeros(v.n_rows)
    for j in range(vals.shape[1]):
        total = total + vals[:, j]
    return _each(np.where(v.num_rel > 0, total / float(levels.size), 0.0), ms)


@register(
    Family("P", "Precision at k: relevant documents in the top k, divided by k.", at_required=True),
    aliases=["Precision"],
    trec=[TrecSpec("P", 11, "long", LONG_CUTOFFS, nicknames=("official", "all_trec"))],
)
def k_p(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_P.c: relevant in the top k, over k (k counted even past the end of the list)."""
    cut = _cutoffs(ms)
    return (v.rel_below(cut) / cut.astype(np.float64)).T


@register(
    Family(
        "R",
        "Recall at k: relevant documents in the top k over all relevant ones.",
        at_required=True,
    ),
    aliases=["Recall"],
    trec=[TrecSpec("recall", 13, "long", LONG_CUTOFFS)],
)
def k_recall(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    vals = _safe_div(v.rel_below(_cutoffs(ms)), v.num_rel_f[:, None])
    return np.where(v.num_rel[:, None] > 0, vals, 0.0).T


@register(
    Family("relative_P", "Relevant in the top k over min(k, R).", at_required=True),
    trec=[TrecSpec("relative_P", 28, "long", LONG_CUTOFFS)],
)
def k_relative_p(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_rel_P.c: relevant in the top k over min(k, R)."""
    cut = _cutoffs(ms)
    den = np.minimum(cut[None, :], v.num_rel[:, None]).astype(np.float64)
    vals = _safe_div(v.rel_below(cut), den)
    return np.where(v.num_rel[:, None] > 0, vals, 0.0).T


@register(
    Family("Success", "1 if a relevant document is in the top k, else 0.", at_required=True),
    aliases=["success"],
    trec=[TrecSpec("success", 29, "long", (1, 5, 10))],
)
def k_success(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    return (v.rel_below(_cutoffs(ms)) > 0).T.astype(np.float64)


@register(
    Family(
        "Rprec_mult",
        "Precision after x times R documents.",
        at="cutoff",
        at_kind=float,
        at_required=True,
    ),
    trec=[TrecSpec("Rprec_mult", 16, "double", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0))],
)
def k_rprec_mult(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_Rprec_mult.c: precision after (long)(x*R + 0.9) documents, in every version."""
    x = np.array([m.at for m in ms])
    cut = np.trunc(x[None, :] * v.num_rel_f[:, None] + 0.9).astype(np.int64)
    count = v.rel_below(np.maximum(cut, 1))
    cut_f = cut.astype(np.float64)
    prec = _safe_div(count, cut_f)
    past = _safe_div(v.num_rel_ret[:, None].astype(np.float64), cut_f)
    val = np.where(cut > v.num_ret[:, None], past, prec)
    return np.where(cut == 0, 0.0, val).T


@register(
    Family(
        "utility",
        "Utility a*relret + b*nonrelret + c*relnotret + d*nonrelnotret.",
        at=None,
        params=(Param("coeffs", tuple, (1.0, -1.0, 0.0, 0.0)), REL, JUDGED_ONLY, COLLECTION),
    ),
    trec=[
        TrecSpec(
            "utility",
            17,
            "dparams",
            (1.0, -1.0, 0.0, 0.0),
            read=_read_utility,
            nicknames=("all_trec", "set"),
        )
    ],
)
def k_utility(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_utility.c with trec_eval's evaluation order."""
    out = np.zeros((len(ms), v.n_rows))
    rr = v.num_rel_ret.astype(np.float64)
    ret = v.num_ret.astype(np.float64)
    rel = v.num_rel_f
    for i, m in enumerate(ms):
        a, b, c, d = m["coeffs"]
        n = float(m["N"] or ctx.num_docs)
        out[i] = a * rr + b * (ret - rr) + c * (rel - rr) + d * (n + rr - ret - rel)
    return out


@register(
    Family(
        "binG",
        "Binary G: relevant documents discounted by log2(2 + non-relevant before them), over R.",
        at=None,
    ),
    trec=[TrecSpec("binG", 19)],
)
def k_bing(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_binG.c: each relevant counts 1 / log2(2 + non-relevant before it), over R."""
    row, pos, k = v.rel
    total = v.sum_by_row(row, 1.0 / np.log2((3 + pos - k).astype(np.float64)))
    return _each(np.where(v.num_rel_ret > 0, _safe_div(total, v.num_rel_f), 0.0), ms)


def _gain_entries(v: BatchView, gains: tuple | None, dcg: str) -> tuple[np.ndarray, ...]:
    """(row, rank0, gain) of every retrieved document with a non-zero gain (memoised: the
    nDCG family shares them)."""
    key = f"gains {gains} {dcg}"
    if key not in v.memo:
        row, pos, code = v.judged
        g = transform_gain(gain_lookup(code, gains), dcg)
        neg = [(lvl, gain) for lvl, gain in (gains or ()) if lvl in (NONPOOL, UNJUDGED) and gain]
        if neg and not v.judged_only:
            # a gain given for a negative code (-m ndcg.-1=...): those documents count too
            rows, poss, gs = [row], [pos], [g]
            for lvl, gain in neg:
                r2, p2 = nonzero2d(v.codes == lvl)
                rows.append(r2)
                poss.append(p2)
                gs.append(np.full(r2.size, transform_gain(np.float64(gain), dcg)))
            row, pos, g = np.concatenate(rows), np.concatenate(poss), np.concatenate(gs)
            order = np.lexsort((pos, row))
            row, pos, g = row[order], pos[order], g[order]
        keep = g != 0
        v.memo[key] = (row[keep], pos[keep], g[keep])
    return v.memo[key]


def _row_prefix(v: BatchView, row: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Running sum of ``values`` within each row (entries row-major), added in order."""
    idx = np.arange(row.size) - _segment_starts(row, v.n_rows)[row]
    return v.prefix_table(row, values)[row, idx + 1]


@register(
    Family(
        "nDCG",
        "Normalised discounted cumulative gain: gain = grade, discount "
        "log2(rank+1), ideal from all judged documents (trec_eval ndcg; nDCG@k is "
        "ndcg_cut_k). dcg='exp-log2': gain 2^grade-1; dcg='jk': Jarvelin-Kekalainen "
        "discount (ranks 1 and 2 undiscounted, then log2(rank)).",
        params=(GAINS, DCG_VARIANT, REL, JUDGED_ONLY),
    ),
    aliases=["NDCG", "ndcg"],
    trec=[TrecSpec("ndcg", 23, "pairs"), TrecSpec("ndcg_cut", 26, "long", LONG_CUTOFFS)],
)
def k_ndcg(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_ndcg.c (no cutoff) and m_ndcg_cut.c (@k); gains and DCG variants as named."""
    out = np.zeros((len(ms), v.n_rows))
    gains, dcg = ms[0]["gains"], ms[0]["dcg"]
    ideal = ctx.ideal(gains, dcg)
    row, pos, g = _gain_entries(v, gains, dcg)
    table = v.prefix_table(row, g / discount(pos, dcg))
    cut = [i for i, m in enumerate(ms) if m.at is not None]
    if cut:
        cutoffs = _cutoffs([ms[i] for i in cut])
        dcg_at = v.sum_below(table, v.keys(row, pos), cutoffs)
        best = ideal.at(v.row_topic[:, None], cutoffs[None, :])
        # m_ndcg_cut.c leaves the DCG unnormalised when the ideal is 0
        out[cut] = np.where(best > 0, _safe_div(dcg_at, best), dcg_at).T
    for i, m in enumerate(ms):
        if m.at is None:
            full = ideal.rows_total()
            total = table[np.arange(v.n_rows), np.bincount(row, minlength=v.n_rows)]
            out[i] = np.where(full > 0, _safe_div(total, full), 0.0)
    return out


@register(
    Family(
        "DCG",
        "Discounted cumulative gain, not normalised (trec_eval dcg); same gains and "
        "variants as nDCG.",
        params=(GAINS, DCG_VARIANT, REL, JUDGED_ONLY),
    ),
    trec=[TrecSpec("dcg", 21, "pairs", since=10, nicknames=())],
)
def k_dcg(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_ndcg.c's results_dcg (trec_eval dcg), with nDCG's gains, variants and cutoffs."""
    gains, dcg = ms[0]["gains"], ms[0]["dcg"]
    row, pos, g = _gain_entries(v, gains, dcg)
    table = v.prefix_table(row, g / discount(pos, dcg))
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        cutoff = np.array([v.depth if m.at is None else m.at])
        out[i] = v.sum_below(table, v.keys(row, pos), cutoff)[:, 0]
    return out


@register(
    _gain_family("ideal_dcg", "Discounted cumulative gain of the ideal ranking."),
    trec=[TrecSpec("ideal_dcg", 22, "pairs", since=10, nicknames=())],
)
def k_ideal_dcg(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    return _each(ctx.ideal(ms[0]["gains"], "log2").rows_total(), ms)


@register(
    _gain_family("ndcg_rel", "nDCG averaged over the ranks of the relevant documents."),
    trec=[TrecSpec("ndcg_rel", 24, "pairs")],
)
def k_ndcg_rel(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_ndcg_rel.c: nDCG at each retrieved document with positive gain, and the final nDCG
    for each relevant document not retrieved, averaged over the relevant documents."""
    ideal = ctx.ideal(ms[0]["gains"], "log2")
    row, pos, g = _gain_entries(v, ms[0]["gains"], "log2")
    terms = g / discount(pos, "log2")
    prefix = _row_prefix(v, row, terms)
    total = v.sum_by_row(row, terms)
    size = ideal.rows_size()
    topic = v.row_topic[row]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(g > 0, prefix / ideal.at(topic, pos + 1), 0.0)
        s = v.sum_by_row(row, ratio)
        retrieved = np.bincount(row[g > 0], minlength=v.n_rows)
        s = s + (size - retrieved).astype(np.float64) * total / ideal.rows_total()
        val = np.where(s > 0, s / size, 0.0)
    return _each(val, ms)


@register(
    _gain_family("Rndcg", "nDCG averaged at the ranks where the ideal gain changes."),
    trec=[TrecSpec("Rndcg", 25, "pairs")],
)
def k_rndcg(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_Rndcg.c: nDCG averaged at each rank where the ideal gain changes."""
    ideal = ctx.ideal(ms[0]["gains"], "log2")
    row, pos, g = _gain_entries(v, ms[0]["gains"], "log2")
    terms = g / discount(pos, "log2")
    # per topic, the ideal positions where the gain changes (not 0: no ideal DCG there)
    bounds = []
    for one in ideal.ideals:
        seq = np.concatenate((one.gains, [0.0]))  # position m: the ideal is exhausted
        prev = np.concatenate(([one.top_gain], seq[:-1]))
        b = np.flatnonzero(seq != prev)
        bounds.append(b[b >= 1])
    n_bounds = np.array([b.size for b in bounds], dtype=np.int64)
    flat_bounds = np.concatenate(bounds) if bounds else np.zeros(0, dtype=np.int64)
    bound_start = np.concatenate(([0], np.cumsum(n_bounds)[:-1]))
    # one pair per (row, boundary of its topic)
    per_row = n_bounds[v.row_topic]
    pair_row = np.repeat(np.arange(v.n_rows), per_row)
    pair_idx = np.arange(pair_row.size) - np.repeat(np.cumsum(per_row) - per_row, per_row)
    pair_topic = v.row_topic[pair_row]
    pair_bound = flat_bounds[bound_start[pair_topic] + pair_idx]
    # DCG of the row's first min(boundary, num_ret) documents, over the ideal there
    table = v.prefix_table(row, terms)
    keys = v.keys(row, pos)
    n = np.minimum(pair_bound, v.num_ret[pair_row])
    width = v.depth + 1
    upto = np.searchsorted(keys, pair_row.astype(np.int64) * width + n)
    base = np.searchsorted(keys, np.arange(v.n_rows, dtype=np.int64) * width)
    dcg_at = table[pair_row, upto - base[pair_row]]
    with np.errstate(divide="ignore", invalid="ignore"):
        s = v.sum_by_row(pair_row, dcg_at / ideal.at(pair_topic, pair_bound))
        count = per_row.astype(np.float64)
        # trec_eval adds the whole list once more when it runs past the ideal by 2 or more
        size = ideal.rows_size()
        extra = (size >= 1) & (v.num_ret > size + 1)
        full = table[np.arange(v.n_rows), np.bincount(row, minlength=v.n_rows)]
        s = s + np.where(extra, full / ideal.rows_total(), 0.0)
        val = s / (count + extra)
    return _each(np.where(v.num_rel > 0, val, 0.0), ms)


@register(
    Family(
        "G",
        "G: gain of each document over log2(2 + cost so far - gain so far), "
        "normalised by the ideal gain.",
        at=None,
        params=(GAINS, REL, JUDGED_ONLY),
    ),
    trec=[TrecSpec("G", 20, "pairs")],
)
def k_g(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_G.c: gain over log2(2 + cost so far - gain so far), normalised by the ideal gain."""
    ideal = ctx.ideal(ms[0]["gains"], "log2")
    row, pos, g = _gain_entries(v, ms[0]["gains"], "log2")
    # cost of ideal position i: its gain if >= 1, else 1 (trec_eval's min_cost); per topic
    cost = np.ones((len(ideal.ideals), v.depth))
    best = np.zeros(len(ideal.ideals))
    for t, one in enumerate(ideal.ideals):
        lim = min(one.gains.size, v.depth)
        cost[t, :lim] = np.maximum(one.gains[:lim], 1.0)
        best[t] = np.cumsum(one.gains)[-1] if one.gains.size else 0.0
    cost_so_far = np.cumsum(cost, axis=1)
    gain_so_far = _row_prefix(v, row, g)
    terms = g / np.log2((2.0 + cost_so_far[v.row_topic[row], pos]) - gain_so_far)
    total = v.sum_by_row(row, terms)
    best_rows = best[v.row_topic]
    return _each(np.where(best_rows > 0, _safe_div(total, best_rows), 0.0), ms)


@register(
    Family(
        "SetP",
        "Precision of the whole retrieved set (relative=True: over min(retrieved, R)).",
        at=None,
        params=(REL, Param("relative", bool, False), JUDGED_ONLY),
    ),
    aliases=[Alias("SetRelP", {"relative": True}), "set_P"],
    trec=[
        TrecSpec("set_P", 30, nicknames=("all_trec", "set")),
        TrecSpec("set_relative_P", 31, params={"relative": True}, nicknames=("all_trec", "set")),
    ],
)
def k_set_p(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    rr = v.num_rel_ret.astype(np.float64)
    for i, m in enumerate(ms):
        if m["relative"]:
            den = np.minimum(v.num_ret, v.num_rel).astype(np.float64)
            ok = (v.num_ret > 0) & (v.num_rel > 0)
        else:
            den = v.num_ret.astype(np.float64)
            ok = v.num_ret > 0
        out[i] = np.where(ok, _safe_div(rr, den), 0.0)
    return out


@register(
    Family("SetR", "Recall of the whole retrieved set.", at=None),
    aliases=["set_recall"],
    trec=[TrecSpec("set_recall", 32, nicknames=("all_trec", "set"))],
)
def k_set_r(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    val = _safe_div(v.num_rel_ret.astype(np.float64), v.num_rel_f)
    return _each(np.where(v.num_rel > 0, val, 0.0), ms)


@register(
    Family("SetAP", "SetP times SetR.", at=None),
    aliases=["set_map"],
    trec=[TrecSpec("set_map", 33, nicknames=("all_trec", "set"))],
)
def k_set_ap(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    rr = v.num_rel_ret.astype(np.float64)
    ok = (v.num_ret > 0) & (v.num_rel > 0)
    val = _safe_div(rr * rr, v.num_ret.astype(np.float64) * v.num_rel_f)
    return _each(np.where(ok, val, 0.0), ms)


@register(
    Family(
        "SetF",
        "trec_eval set_F: (x+1)PR/(xP+R) on the whole retrieved set; as in "
        "trec_eval and ir_measures, the parameter x (named beta) is beta squared.",
        at=None,
        params=(REL, Param("beta", float, 1.0), JUDGED_ONLY),
    ),
    trec=[
        TrecSpec("set_F", 34, "dparams", (1.0,), read=_read_set_f, nicknames=("all_trec", "set"))
    ],
)
def k_set_f(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_set_F.c: (x+1)PR / (xP + R), x the parameter (beta squared)."""
    out = np.zeros((len(ms), v.n_rows))
    rr = v.num_rel_ret.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = rr / v.num_ret.astype(np.float64)
        r = rr / v.num_rel_f
        for i, m in enumerate(ms):
            x = m["beta"]
            out[i] = np.where(rr > 0, (x + 1.0) * p * r / (x * p + r), 0.0)
    return out


def _retrieved_counts(v: BatchView, m: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(retrieved, relevant retrieved, judged non-relevant retrieved) in the top k or all."""
    if m.at is None:
        ret, rr, judged = v.num_ret, v.num_rel_ret, v.num_judged
    else:
        cut = np.array([m.at])
        ret = np.minimum(v.num_ret, m.at)
        rr = v.rel_below(cut)[:, 0]
        judged = v.judged_below(cut)[:, 0]
    return ret.astype(np.float64), rr.astype(np.float64), (judged - rr).astype(np.float64)


def _collection_size(m: Measure, ctx: KernelContext) -> float:
    n = m["N"] or ctx.num_docs
    if n <= 0:
        raise EvaluationError(f"{m} needs the collection size: give N= or -N")
    return float(n)


@register(
    Family(
        "F",
        "F-measure with a real beta: (1+b^2)PR/(b^2 P + R), on the whole "
        "retrieved set or the top k.",
        params=(REL, Param("beta", float, 1.0), JUDGED_ONLY),
    )
)
def k_f(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        ret, rr, _ = _retrieved_counts(v, m)
        b2 = m["beta"] ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(ret > 0, rr / ret, 0.0)
            r = np.where(v.num_rel > 0, rr / v.num_rel_f, 0.0)
            out[i] = np.where(rr > 0, (1.0 + b2) * p * r / (b2 * p + r), 0.0)
    return out


@register(
    Family(
        "Fallout",
        "Judged non-relevant retrieved over (collection size - R).",
        params=(REL, JUDGED_ONLY, COLLECTION),
    )
)
def k_fallout(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        _, _, nonrel = _retrieved_counts(v, m)
        out[i] = nonrel / (_collection_size(m, ctx) - v.num_rel_f)
    return out


@register(
    Family(
        "Acc",
        "Accuracy: (relevant retrieved + non-relevant not retrieved) over the collection size.",
        params=(REL, JUDGED_ONLY, COLLECTION),
    ),
)
def k_acc(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        n = _collection_size(m, ctx)
        ret, rr, _ = _retrieved_counts(v, m)
        true_neg = n - ret - (v.num_rel_f - rr)
        out[i] = (rr + true_neg) / n
    return out


def _rbp_gain_table(stats: TopicStats, gains: tuple | None) -> dict[int, float]:
    """m_rbp.c: the gain list of gain_init.c (listed grades, then grades 0..max) scaled into
    [0, 1] when any gain lies outside it."""
    table = dict(gains or ())
    for level in range(int(stats.grades.max(initial=-1)) + 1):
        table.setdefault(level, float(level))
    if table:
        lo, hi = min(table.values()), max(table.values())
        if lo < 0 or hi > 1:
            table = {k: (g - lo) / (hi - lo) for k, g in table.items()}
    return table


@register(
    Family(
        "rbp",
        "Rank-biased precision with persistence p (Moffat and Zobel 2008); "
        "gains scaled into [0, 1].",
        at=None,
        params=(Param("p", float, 0.9), GAINS, JUDGED_ONLY),
    ),
    trec=[TrecSpec("rbp", 54, "pairs", since=10)],
)
def k_rbp(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    row, pos, code = v.judged
    topic = v.row_topic[row]
    for i, m in enumerate(ms):
        p = m["p"]
        tables = [_rbp_gain_table(s, m["gains"]) for s in v.stats]
        top = max((max(t, default=0) for t in tables), default=0)
        lookup = np.zeros((len(tables), top + 1))
        for t, table in enumerate(tables):
            for level, gain in table.items():
                if level >= 0:
                    lookup[t, level] = gain
        g = lookup[topic, np.minimum(code, top)]
        weights = g * v.powers(p)[pos]
        extra = [(lvl, gain) for lvl, gain in (m["gains"] or ()) if lvl in (NONPOOL, UNJUDGED)]
        total = v.sum_by_row(row, weights)
        if extra and not v.judged_only:
            # a gain listed for a negative code: rare enough to take the slow, exact path
            r2, p2 = nonzero2d((v.codes == NONPOOL) | (v.codes == UNJUDGED))
            c2 = v.codes[r2, p2]
            g2 = np.array(
                [tables[v.row_topic[r]].get(int(c), 0.0) for r, c in zip(r2, c2, strict=True)]
            )
            allrow = np.concatenate((row, r2))
            allw = np.concatenate((weights, g2 * v.powers(p)[p2]))
            order = np.lexsort((np.concatenate((pos, p2)), allrow))
            total = v.sum_by_row(allrow[order], allw[order])
        out[i] = (1.0 - p) * total
    return out


@register(
    Family(
        "rbp_resid",
        "Residual of RBP: the most it could rise if every unjudged "
        "retrieved document had full gain.",
        at=None,
        params=(Param("p", float, 0.9), JUDGED_ONLY),
    ),
    trec=[TrecSpec("rbp_resid", 55, "pairs", since=10)],
)
def k_rbp_resid(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_rbp_resid.c: p^num_ret + (1-p) * sum of p^i over unjudged ranks i (if any)."""
    out = np.zeros((len(ms), v.n_rows))
    row, pos, _ = v.judged
    any_unj = v.num_judged < v.num_ret
    for i, m in enumerate(ms):
        p = m["p"]
        powers = v.powers(p)
        every = np.concatenate(([0.0], np.cumsum(powers[:-1])))  # sum of p^i, i < n
        unjudged = every[v.num_ret] - v.sum_by_row(row, powers[pos])
        out[i] = np.where(any_unj, powers[v.num_ret] + (1 - p) * unjudged, 0.0)
    return out


@register(
    Family(
        "unj",
        "Share of the top k that is unjudged (k counted even when fewer were retrieved).",
        at_required=True,
        params=(JUDGED_ONLY,),
    ),
    trec=[TrecSpec("unj", 56, "long", (5, 10, 20), since=10)],
)
def k_unj(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """m_unjudged.c: unjudged in the top k over k."""
    cut = _cutoffs(ms)
    ret = np.minimum(v.num_ret[:, None], cut[None, :])
    return ((ret - v.judged_below(cut)) / cut.astype(np.float64)).T


@register(
    Family(
        "Judged",
        "Share of the top min(k, retrieved) documents that have a judgment (as in "
        "ir_measures: any grade, negative included; trec_eval's unj counts negative "
        "grades as unjudged).",
        params=(JUDGED_ONLY,),
    )
)
def k_judged(v: BatchView, ms: Sequence[Measure], ctx: KernelContext) -> np.ndarray:
    """ir_measures' Judged: share of the top min(k, retrieved) that the judgments name, with
    any grade (a negative grade counts: it is in the qrels)."""
    out = np.zeros((len(ms), v.n_rows))
    negative = v.keys(*v.unjudged_pool) if v.any_unjudged_pool else None
    for i, m in enumerate(ms):
        cut = np.array([v.depth if m.at is None else m.at])
        judged = v.judged_below(cut)[:, 0]
        if negative is not None:
            judged = judged + v.count_below(negative, cut)[:, 0]
        ret = np.minimum(v.num_ret, cut[0])
        out[i] = np.where(ret > 0, _safe_div(judged, ret.astype(np.float64)), 0.0)
    return out


def relstrings(v: BatchView, n: int) -> list[str]:
    """m_relstring.c: one character per rank for the first n documents of each row."""
    width = min(max(n, 0), v.depth)
    codes = v.codes[:, :width]
    text = np.full(codes.shape, "<", dtype="<U1")
    text[codes > 9] = ">"
    ok = (codes >= 0) & (codes <= 9)
    text[ok] = np.array(list("0123456789"), dtype="<U1")[codes[ok]]
    text[codes == NONPOOL] = "-"
    text[codes == UNJUDGED] = "."
    lengths = np.minimum(width, v.num_ret)
    return ["".join(text[r, : lengths[r]].tolist()) for r in range(v.n_rows)]


# Families beyond trec_eval register in modules of their own (imported here, once every
# kernel they build on exists): the measures ir_measures has and trec_eval lacks.
from judgeapp.measures import beyond_trec, diversity, prefs  # noqa: E402, F401
