"""Vectorised measure kernels: one topic, every run at once.

A :class:`TopicView` holds, for one topic and one evaluation context (relevance level L,
judged-only or not), the grade codes of every run's ranked list as an (runs x depth)
matrix, with trec_eval's codes: the grade for a judged document, -1 for a document not in
the judgments, -2 for one in the judgments with a negative grade (pooled, unjudged), and
``PAD`` past the end of a shorter list. Most measures only look at the judged entries, so
the view extracts them once as sparse, run-major arrays (run, rank) and the kernels work
on those, counting with ``searchsorted`` and summing with ``bincount``.

Exactness: trec_eval sums in rank order; ``np.bincount`` with weights and ``cumsum`` also
add strictly in input order, so sums of rationals (AP, bpref, ...) come out bit-identical
and values on a rounding boundary print the same 4 decimals. Formulas keep trec_eval's
operation order for the same reason. The comments name the trec_eval source each kernel
follows (``m_<name>.c``, read for its formula, not translated).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from judgeapp.measures.measure import Measure

NONPOOL = -1  # retrieved, not in the judgments
UNJUDGED = -2  # in the judgments with a negative grade: pooled but not judged
PAD = -3  # past the end of a run's list
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001


@dataclass(slots=True)
class TopicStats:
    """What the judgments of one topic say, independent of runs."""

    grades: np.ndarray  # grades of every judged document (>= 0 only), any order
    num_judgments: int

    def num_rel(self, level: int) -> int:
        # trec_eval form_res_rels.c: counts judgments with grade >= 0 and >= level
        return int(np.count_nonzero(self.grades >= level))

    def num_nonrel(self, level: int) -> int:
        return int(np.count_nonzero(self.grades < level))


def lround(x: np.ndarray | float) -> np.ndarray:
    """C lround for non-negative values: halves away from zero (np.round rounds to even)."""
    x = np.asarray(x, dtype=np.float64)
    t = np.trunc(x)
    return (t + (x - t >= 0.5)).astype(np.int64)


def recall_counts(levels: Sequence[float], num_rel: int, version: int) -> np.ndarray:
    """trec_eval's conversion of recall levels into counts of relevant documents:
    10.0 lround(x*R) (m_iprec_at_recall.c); 9.x (long)(x*R + 0.9)."""
    x = np.asarray(levels, dtype=np.float64) * float(num_rel)
    if version >= 10:
        return lround(x)
    return np.trunc(x + 0.9).astype(np.int64)


def _segment_starts(run: np.ndarray, n_runs: int) -> np.ndarray:
    return np.searchsorted(run, np.arange(n_runs + 1))


class TopicView:
    """One topic, one context (level, judged_only), every run."""

    def __init__(
        self,
        codes: np.ndarray,
        num_ret: np.ndarray,
        stats: TopicStats,
        level: int,
        judged_only: bool,
    ) -> None:
        self.level = level
        self.judged_only = judged_only
        self.stats = stats
        self.n_runs = codes.shape[0]
        self.num_rel = stats.num_rel(level)
        self.num_nonrel = stats.num_nonrel(level)
        if judged_only:
            # trec_eval -J: unjudged documents leave the ranking before anything is computed
            run, pos = np.nonzero(codes >= 0)
            code = codes[run, pos]
            starts = _segment_starts(run, self.n_runs)
            pos = np.arange(run.size) - starts[run]
            self.num_ret = np.diff(starts)
            depth = int(self.num_ret.max(initial=0))
            dense = np.full((self.n_runs, depth), PAD, dtype=codes.dtype)
            dense[run, pos] = code
            self.codes = dense
        else:
            self.codes = codes
            self.num_ret = num_ret
        self.depth = self.codes.shape[1]

    # -- sparse entries ------------------------------------------------------------------
    @cached_property
    def judged(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(run, rank0, grade) of every judged retrieved document, run-major, rank ascending."""
        run, pos = np.nonzero(self.codes >= 0)
        return run, pos, self.codes[run, pos]

    @cached_property
    def judged_starts(self) -> np.ndarray:
        return _segment_starts(self.judged[0], self.n_runs)

    @cached_property
    def num_judged(self) -> np.ndarray:
        return np.diff(self.judged_starts)

    def _entries(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        run, pos = np.nonzero(mask)
        return run, pos

    @cached_property
    def _rel_all(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if self.level >= 0:
            run, pos, code = self.judged
            keep = code >= self.level
            run, pos = run[keep], pos[keep]
        else:
            # with L <= -1 trec_eval's measures count unjudged codes as relevant too
            run, pos = self._entries((self.codes >= self.level) & (self.codes != PAD))
        starts = _segment_starts(run, self.n_runs)
        k = np.arange(1, run.size + 1) - starts[run]
        return run, pos, k, starts

    @property
    def rel(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(run, rank0, k) of documents with code >= L; k = 1-based count within the run."""
        return self._rel_all[:3]

    @property
    def rel_starts(self) -> np.ndarray:
        return self._rel_all[3]

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        """Relevant retrieved per run as trec_eval's res_rels counts it (judged docs only)."""
        if self.level >= 0:
            return np.diff(self.rel_starts)
        run, _pos, code = self.judged
        return np.bincount(run[code >= self.level], minlength=self.n_runs)

    @cached_property
    def unjudged_pool(self) -> tuple[np.ndarray, np.ndarray]:
        return self._entries(self.codes == UNJUDGED)

    def keys(self, run: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """Sort keys of entries (run-major, then rank): run * (depth + 1) + rank0."""
        return run.astype(np.int64) * (self.depth + 1) + pos

    @cached_property
    def rel_keys(self) -> np.ndarray:
        run, pos, _ = self.rel
        return self.keys(run, pos)

    @cached_property
    def judged_keys(self) -> np.ndarray:
        run, pos, _ = self.judged
        return self.keys(run, pos)

    def count_below(self, keys: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
        """(runs, len(cutoffs)): entries (given by their keys) of each run with rank0 < cutoff."""
        cut = np.minimum(np.asarray(cutoffs, dtype=np.int64), self.depth)
        base = np.arange(self.n_runs, dtype=np.int64)[:, None] * (self.depth + 1)
        return np.searchsorted(keys, base + cut[None, :]) - np.searchsorted(keys, base)

    def rel_below(self, cutoffs: np.ndarray) -> np.ndarray:
        return self.count_below(self.rel_keys, cutoffs)

    def judged_below(self, cutoffs: np.ndarray) -> np.ndarray:
        return self.count_below(self.judged_keys, cutoffs)

    def sum_by_run(self, run: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Per-run sums, added in entry order (rank order): bit-identical to trec_eval."""
        return np.bincount(run, weights=weights, minlength=self.n_runs)

    @cached_property
    def rel_precision(self) -> np.ndarray:
        """Precision at each relevant document: k / rank."""
        _run, pos, k = self.rel
        return k / (pos + 1.0)

    @cached_property
    def iprec_table(self) -> np.ndarray:
        """(runs, max relevant retrieved): best precision at or after the k-th relevant."""
        run, _pos, k = self.rel
        width = int(k.max(initial=0))
        table = np.zeros((self.n_runs, width))
        table[run, k - 1] = self.rel_precision
        return np.maximum.accumulate(table[:, ::-1], axis=1)[:, ::-1]

    def iprec_at_counts(self, counts: np.ndarray) -> np.ndarray:
        """Interpolated precision when ``counts`` relevant documents are found (runs x n):
        trec_eval m_iprec_at_recall.c. 0 when a run found fewer."""
        counts = np.asarray(counts, dtype=np.int64)
        nrr = self.num_rel_ret[:, None]
        table = self.iprec_table
        out = np.zeros((self.n_runs, counts.size))
        if table.shape[1]:
            col = np.clip(np.maximum(counts, 1) - 1, 0, table.shape[1] - 1)
            out = np.where(counts[None, :] <= nrr, table[:, col], 0.0)
        # no relevant retrieved: the count-0 level gets num_rel_ret / num_ret = 0 (0/0 if empty)
        none = (self.num_rel_ret == 0)[:, None] & (counts[None, :] == 0)
        if none.any():
            with np.errstate(invalid="ignore", divide="ignore"):
                empty = 0.0 / self.num_ret.astype(np.float64)
            out = np.where(none, empty[:, None], out)
        return out

    # -- dense helpers -------------------------------------------------------------------
    @cached_property
    def powers_cache(self) -> dict[float, np.ndarray]:
        return {}

    def powers(self, p: float) -> np.ndarray:
        """p**i for i = 0..depth by repeated multiplication, as trec_eval's loop does."""
        found = self.powers_cache.get(p)
        if found is None:
            found = np.empty(self.depth + 1)
            found[0] = 1.0
            if self.depth:
                found[1:] = np.cumprod(np.full(self.depth, p))
            self.powers_cache[p] = found
        return found


# -- gains and ideal rankings (nDCG and friends) --------------------------------------------


def gain_lookup(grades: np.ndarray, gains: tuple[tuple[int, float], ...] | None) -> np.ndarray:
    """Gain of each grade: the given gain for listed grades, else the grade (negative: 0)."""
    out = np.maximum(grades, 0).astype(np.float64)
    if gains:
        for level, gain in gains:
            out[grades == level] = gain
    return out


def transform_gain(gain: np.ndarray, dcg: str) -> np.ndarray:
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
    gains: np.ndarray  # positive gains of the ideal ranking, best first
    prefix: np.ndarray  # prefix[i] = ideal DCG of the first i+1 documents (sequential sum)
    top_gain: float  # the highest gain any listed level has (trec_eval starts from it)

    @property
    def size(self) -> int:
        return int(self.gains.size)

    def at(self, n: np.ndarray | int) -> np.ndarray:
        """Ideal DCG of the first n documents (0 for n = 0)."""
        n = np.minimum(np.asarray(n, dtype=np.int64), self.size)
        padded = np.concatenate(([0.0], self.prefix))
        return padded[n]


def build_ideal(stats: TopicStats, gains: tuple | None, dcg: str) -> Ideal:
    g = transform_gain(gain_lookup(stats.grades, gains), dcg)
    listed = [g.max(initial=-np.inf)] if g.size else []
    if gains:
        listed += [transform_gain(np.float64(v), dcg) for _, v in gains]
    top = float(max(listed)) if listed else 0.0
    positive = np.sort(g[g > 0])[::-1]
    terms = positive / discount(np.arange(positive.size), dcg)
    return Ideal(positive, np.cumsum(terms), top)


# -- kernels -------------------------------------------------------------------------------
# Each takes the view and a list of measures of one family (same parameters but the @
# value) and returns an array (len(measures), runs).

Kernel = Callable[["TopicView", Sequence[Measure], "KernelContext"], np.ndarray]


@dataclass(slots=True)
class KernelContext:
    version: int
    num_docs: int  # trec_eval -N
    ideal: Callable[[tuple | None, str], Ideal]


def _cutoffs(measures: Sequence[Measure]) -> np.ndarray:
    return np.array([m.at for m in measures], dtype=np.int64)


def _safe_div(num: np.ndarray, den: np.ndarray | float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(num, den)


def k_num_ret(v: TopicView, ms, ctx) -> np.ndarray:
    return np.tile(v.num_ret.astype(np.float64), (len(ms), 1))


def k_num_rel(v: TopicView, ms, ctx) -> np.ndarray:
    return np.full((len(ms), v.n_runs), float(v.num_rel))


def k_num_rel_ret(v: TopicView, ms, ctx) -> np.ndarray:
    return np.tile(v.num_rel_ret.astype(np.float64), (len(ms), 1))


def k_num_nonrel_judged_ret(v: TopicView, ms, ctx) -> np.ndarray:
    # m_num_nonrel_judged_ret.c: num_ret - not in pool - unjudged in pool - num_rel_ret
    return np.tile((v.num_judged - v.num_rel_ret).astype(np.float64), (len(ms), 1))


def k_ap(v: TopicView, ms, ctx) -> np.ndarray:
    """m_map.c / m_map_cut.c: sum of precision at relevant documents, over R."""
    run, pos, _k = v.rel
    prec = v.rel_precision
    out = np.zeros((len(ms), v.n_runs))
    found = np.bincount(run, minlength=v.n_runs) > 0
    for i, m in enumerate(ms):
        if m.at is None:
            total = v.sum_by_run(run, prec)
            out[i] = np.where(found, _safe_div(total, float(v.num_rel)), 0.0)
        elif v.num_rel:
            total = v.sum_by_run(run, np.where(pos < m.at, prec, 0.0))
            out[i] = total / float(v.num_rel)
    return out


def k_rprec(v: TopicView, ms, ctx) -> np.ndarray:
    """m_Rprec.c: relevant in the top min(R, retrieved), over R."""
    if not v.num_rel:
        return np.zeros((len(ms), v.n_runs))
    count = v.rel_below(np.array([v.num_rel]))[:, 0]
    val = np.where(np.minimum(v.num_ret, v.num_rel) > 0, count / float(v.num_rel), 0.0)
    return np.tile(val, (len(ms), 1))


def _nonrel_before_rel(v: TopicView) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each judged relevant document (grade >= max(L, 0)): run, rank0, relevant so far
    (inclusive) and judged non-relevant so far (bpref and infAP count only judged docs)."""
    run, pos, code = v.judged
    is_nonrel = code < v.level
    cum = np.cumsum(is_nonrel)
    starts = v.judged_starts
    before = np.concatenate(([0], cum))[starts[:-1]]
    nonrel_so_far = cum - before[run]
    keep = ~is_nonrel
    run_r, pos_r = run[keep], pos[keep]
    rstarts = _segment_starts(run_r, v.n_runs)
    k = np.arange(1, run_r.size + 1) - rstarts[run_r]
    return run_r, pos_r, k, nonrel_so_far[keep]


def k_bpref(v: TopicView, ms, ctx) -> np.ndarray:
    """m_bpref.c: 1 - min(nonrel before, R) / min(judged nonrel, R) per relevant, over R."""
    run, _pos, _k, nonrel = _nonrel_before_rel(v)
    r = v.num_rel
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.minimum(nonrel, r) / float(min(v.num_nonrel, r))
        terms = np.where(nonrel > 0, 1.0 - frac, 1.0)
    total = v.sum_by_run(run, terms)
    val = total / float(r) if r else total
    return np.tile(val, (len(ms), 1))


def k_infap(v: TopicView, ms, ctx) -> np.ndarray:
    """m_infap.c: inferred AP, pooled-but-unjudged documents (grade < 0) estimated."""
    run, pos, k, nonrel = _nonrel_before_rel(v)
    if v.judged_only:
        pool_unj = np.zeros_like(pos)
    else:
        ukeys = v.keys(*v.unjudged_pool)
        pool_unj = np.searchsorted(ukeys, v.keys(run, pos)) - np.searchsorted(
            ukeys, v.keys(run, np.zeros_like(pos))
        )
    fj = pos.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = 1.0 / (fj + 1.0)
        b = fj / (fj + 1.0)
        c = (k - 1 + nonrel + pool_unj).astype(np.float64) / fj
        d = ((k - 1).astype(np.float64) + INFAP_EPSILON) / (
            (k - 1 + nonrel).astype(np.float64) + 2 * INFAP_EPSILON
        )
        terms = np.where(pos == 0, 1.0, a + b * c * d)
    total = v.sum_by_run(run, terms)
    val = total / float(v.num_rel) if v.num_rel else total
    return np.tile(val, (len(ms), 1))


def k_rr(v: TopicView, ms, ctx) -> np.ndarray:
    """m_recip_rank.c: 1 / rank of the first relevant document."""
    run, pos, k = v.rel
    first = k == 1
    out = np.zeros((len(ms), v.n_runs))
    for i, m in enumerate(ms):
        keep = first if m.at is None else first & (pos < m.at)
        out[i, run[keep]] = 1.0 / (pos[keep] + 1.0)
    return out


def k_iprec(v: TopicView, ms, ctx) -> np.ndarray:
    counts = recall_counts([m.at for m in ms], v.num_rel, ctx.version)
    return v.iprec_at_counts(counts).T


def k_11pt(v: TopicView, ms, ctx) -> np.ndarray:
    """m_11pt_avg.c: mean of iprec over the levels (summed from the last level down)."""
    out = np.zeros((len(ms), v.n_runs))
    for i, m in enumerate(ms):
        levels = m["levels"]
        vals = v.iprec_at_counts(recall_counts(levels, v.num_rel, ctx.version))
        total = np.zeros(v.n_runs)
        for j in range(len(levels) - 1, -1, -1):
            total = total + vals[:, j]
        out[i] = total / float(len(levels))
    return out


def k_ap_11pt(v: TopicView, ms, ctx) -> np.ndarray:
    """Textbook 11-point AP: at level x, the best precision at recall >= x."""
    from judgeapp.measures.measure import ELEVEN_LEVELS

    if not v.num_rel:
        return np.zeros((len(ms), v.n_runs))
    counts = np.ceil(np.asarray(ELEVEN_LEVELS) * v.num_rel - 1e-9).astype(np.int64)
    vals = v.iprec_at_counts(np.maximum(counts, 1))
    total = np.zeros(v.n_runs)
    for j in range(vals.shape[1]):
        total = total + vals[:, j]
    return np.tile(total / float(len(ELEVEN_LEVELS)), (len(ms), 1))


def k_p(v: TopicView, ms, ctx) -> np.ndarray:
    """m_P.c: relevant in the top k, over k (k counted even past the end of the list)."""
    cut = _cutoffs(ms)
    return (v.rel_below(cut) / cut.astype(np.float64)).T


def k_recall(v: TopicView, ms, ctx) -> np.ndarray:
    if not v.num_rel:
        return np.zeros((len(ms), v.n_runs))
    return (v.rel_below(_cutoffs(ms)) / float(v.num_rel)).T


def k_relative_p(v: TopicView, ms, ctx) -> np.ndarray:
    """m_rel_P.c: relevant in the top k over min(k, R)."""
    if not v.num_rel:
        return np.zeros((len(ms), v.n_runs))
    cut = _cutoffs(ms)
    return (v.rel_below(cut) / np.minimum(cut, v.num_rel).astype(np.float64)).T


def k_success(v: TopicView, ms, ctx) -> np.ndarray:
    return (v.rel_below(_cutoffs(ms)) > 0).T.astype(np.float64)


def k_rprec_mult(v: TopicView, ms, ctx) -> np.ndarray:
    """m_Rprec_mult.c: precision after (long)(x*R + 0.9) documents, in every version."""
    cut = np.trunc(np.array([m.at for m in ms]) * float(v.num_rel) + 0.9).astype(np.int64)
    count = v.rel_below(np.maximum(cut, 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = count / cut[None, :].astype(np.float64)
        past = v.num_rel_ret[:, None] / cut[None, :].astype(np.float64)
    val = np.where(cut[None, :] > v.num_ret[:, None], past, prec)
    return np.where(cut[None, :] == 0, 0.0, val).T


def k_utility(v: TopicView, ms, ctx) -> np.ndarray:
    """m_utility.c with trec_eval's evaluation order."""
    out = np.zeros((len(ms), v.n_runs))
    rr = v.num_rel_ret.astype(np.float64)
    ret = v.num_ret.astype(np.float64)
    rel = float(v.num_rel)
    for i, m in enumerate(ms):
        a, b, c, d = m["coeffs"]
        n = float(m["N"] or ctx.num_docs)
        out[i] = a * rr + b * (ret - rr) + c * (rel - rr) + d * (n + rr - ret - rel)
    return out


def k_bing(v: TopicView, ms, ctx) -> np.ndarray:
    """m_binG.c: each relevant counts 1 / log2(2 + non-relevant before it), over R."""
    run, pos, k = v.rel
    terms = 1.0 / np.log2((3 + pos - k).astype(np.float64))
    total = v.sum_by_run(run, terms)
    found = v.num_rel_ret > 0 if v.level >= 0 else np.bincount(run, minlength=v.n_runs) > 0
    val = np.where(found, _safe_div(total, float(v.num_rel)), 0.0)
    return np.tile(val, (len(ms), 1))


def _gain_entries(v: TopicView, gains: tuple | None, dcg: str) -> tuple[np.ndarray, ...]:
    """(run, rank0, gain) of every retrieved document with a non-zero gain."""
    run, pos, code = v.judged
    g = transform_gain(gain_lookup(code, gains), dcg)
    neg = [(lvl, gain) for lvl, gain in (gains or ()) if lvl < 0 and gain != 0]
    if neg and not v.judged_only:
        # a gain given for a negative code (-m ndcg.-1=...): those documents count too
        extra_run, extra_pos, extra_gain = [run], [pos], [g]
        for lvl, gain in neg:
            code_here = NONPOOL if lvl == NONPOOL else (UNJUDGED if lvl == UNJUDGED else None)
            if code_here is None:
                continue
            r2, p2 = np.nonzero(v.codes == code_here)
            extra_run.append(r2)
            extra_pos.append(p2)
            extra_gain.append(np.full(r2.size, transform_gain(np.float64(gain), dcg)))
        run = np.concatenate(extra_run)
        pos = np.concatenate(extra_pos)
        g = np.concatenate(extra_gain)
        order = np.lexsort((pos, run))
        run, pos, g = run[order], pos[order], g[order]
    keep = g != 0
    return run[keep], pos[keep], g[keep]


def _run_prefix(v: TopicView, run: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Running sum of ``values`` within each run (entries run-major), added in order."""
    if not run.size:
        return values.copy()
    starts = _segment_starts(run, v.n_runs)
    idx = np.arange(run.size) - starts[run]
    table = np.zeros((v.n_runs, int(idx.max()) + 1))
    table[run, idx] = values
    return np.cumsum(table, axis=1)[run, idx]


def k_ndcg(v: TopicView, ms, ctx) -> np.ndarray:
    """m_ndcg.c (no cutoff) and m_ndcg_cut.c (@k); gains and DCG variants as named."""
    out = np.zeros((len(ms), v.n_runs))
    gains, dcg = ms[0]["gains"], ms[0]["dcg"]
    ideal = ctx.ideal(gains, dcg)
    run, pos, g = _gain_entries(v, gains, dcg)
    terms = g / discount(pos, dcg)
    for i, m in enumerate(ms):
        if m.at is None:
            total = v.sum_by_run(run, terms)
            full = ideal.at(ideal.size)
            out[i] = total / full if full > 0 else 0.0
        else:
            total = v.sum_by_run(run, np.where(pos < m.at, terms, 0.0))
            best = float(ideal.at(min(m.at, ideal.size)))
            out[i] = total / best if best > 0 else total
    return out


def k_dcg(v: TopicView, ms, ctx) -> np.ndarray:
    gains = ms[0]["gains"]
    run, pos, g = _gain_entries(v, gains, "log2")
    total = v.sum_by_run(run, g / discount(pos, "log2"))
    return np.tile(total, (len(ms), 1))


def k_ideal_dcg(v: TopicView, ms, ctx) -> np.ndarray:
    ideal = ctx.ideal(ms[0]["gains"], "log2")
    return np.full((len(ms), v.n_runs), float(ideal.at(ideal.size)))


def k_ndcg_rel(v: TopicView, ms, ctx) -> np.ndarray:
    """m_ndcg_rel.c: nDCG at each retrieved document with positive gain, and the final nDCG
    for each relevant document not retrieved, averaged over the relevant documents."""
    ideal = ctx.ideal(ms[0]["gains"], "log2")
    run, pos, g = _gain_entries(v, ms[0]["gains"], "log2")
    terms = g / discount(pos, "log2")
    prefix = _run_prefix(v, run, terms)
    total_dcg = v.sum_by_run(run, terms)
    m_size = ideal.size
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(g > 0, prefix / ideal.at(np.minimum(pos + 1, m_size)), 0.0)
        s = v.sum_by_run(run, ratio)
        retrieved = np.bincount(run[g > 0], minlength=v.n_runs)
        s = s + (m_size - retrieved).astype(np.float64) * total_dcg / ideal.at(m_size)
        val = np.where(s > 0, s / float(m_size), 0.0)
    return np.tile(val, (len(ms), 1))


def k_rndcg(v: TopicView, ms, ctx) -> np.ndarray:
    """m_Rndcg.c: nDCG averaged at each rank where the ideal gain changes."""
    if not v.num_rel:
        return np.zeros((len(ms), v.n_runs))
    ideal = ctx.ideal(ms[0]["gains"], "log2")
    run, pos, g = _gain_entries(v, ms[0]["gains"], "log2")
    terms = g / discount(pos, "log2")
    m = ideal.size
    seq = np.concatenate((ideal.gains, [0.0]))  # gain at ideal positions 0..m (m: exhausted)
    prev = np.concatenate(([ideal.top_gain], seq[:-1]))
    bounds = np.flatnonzero(seq != prev)
    bounds = bounds[bounds >= 1]  # at position 0 the ideal DCG is still 0: not counted
    # DCG of each run over its first n documents, for every boundary n (capped by num_ret)
    n = np.minimum(bounds[None, :], v.num_ret[:, None])
    width = v.depth + 1
    keys = v.keys(run, pos)
    prefix = np.concatenate(([0.0], np.cumsum(terms)))
    base = np.searchsorted(keys, np.arange(v.n_runs, dtype=np.int64) * width)
    upto = np.searchsorted(keys, np.arange(v.n_runs, dtype=np.int64)[:, None] * width + n)
    dcg_at = prefix[upto] - prefix[base][:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (dcg_at / ideal.at(bounds)[None, :]).sum(axis=1)
        count = np.full(v.n_runs, float(bounds.size))
        # trec_eval adds the full list once more when it runs past the ideal by 2 or more
        extra = (m >= 1) & (v.num_ret > m + 1)
        total = v.sum_by_run(run, terms)
        s = s + np.where(extra, total / ideal.at(m), 0.0)
        count = count + extra
        val = s / count
    return np.tile(val, (len(ms), 1))


def k_g(v: TopicView, ms, ctx) -> np.ndarray:
    """m_G.c: gain over log2(2 + cost so far - gain so far), normalised by the ideal gain."""
    ideal = ctx.ideal(ms[0]["gains"], "log2")
    run, pos, g = _gain_entries(v, ms[0]["gains"], "log2")
    # cost of position i: the ideal gain there if >= 1, else 1 (trec_eval's min_cost)
    cost = np.ones(v.depth)
    lim = min(ideal.size, v.depth)
    cost[:lim] = np.maximum(ideal.gains[:lim], 1.0)
    cost_so_far = np.cumsum(cost)
    gain_so_far = _run_prefix(v, run, g)
    terms = g / np.log2((2.0 + cost_so_far[pos]) - gain_so_far)
    total = v.sum_by_run(run, terms)
    best = float(ideal.gains.sum()) if ideal.size else 0.0
    val = total / best if best > 0 else np.zeros(v.n_runs)
    return np.tile(val, (len(ms), 1))


def k_set_p(v: TopicView, ms, ctx) -> np.ndarray:
    out = np.zeros((len(ms), v.n_runs))
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


def k_set_r(v: TopicView, ms, ctx) -> np.ndarray:
    val = v.num_rel_ret / float(v.num_rel) if v.num_rel else np.zeros(v.n_runs)
    return np.tile(val, (len(ms), 1))


def k_set_ap(v: TopicView, ms, ctx) -> np.ndarray:
    rr = v.num_rel_ret.astype(np.float64)
    ok = (v.num_ret > 0) & (v.num_rel > 0)
    val = np.where(ok, _safe_div(rr * rr, v.num_ret.astype(np.float64) * float(v.num_rel)), 0.0)
    return np.tile(val, (len(ms), 1))


def k_set_f(v: TopicView, ms, ctx) -> np.ndarray:
    """m_set_F.c: (x+1)PR / (xP + R), x the parameter (beta squared)."""
    out = np.zeros((len(ms), v.n_runs))
    rr = v.num_rel_ret.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = rr / v.num_ret.astype(np.float64)
        r = rr / float(v.num_rel)
        for i, m in enumerate(ms):
            x = m["beta"]
            out[i] = np.where(rr > 0, (x + 1.0) * p * r / (x * p + r), 0.0)
    return out


def _retrieved_counts(v: TopicView, m: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(retrieved, relevant retrieved, judged non-relevant retrieved) in the top k or all."""
    if m.at is None:
        ret = v.num_ret
        rr = v.num_rel_ret
        judged = v.num_judged
    else:
        cut = np.array([m.at])
        ret = np.minimum(v.num_ret, m.at)
        rr = v.rel_below(cut)[:, 0]
        judged = v.judged_below(cut)[:, 0]
    return ret.astype(np.float64), rr.astype(np.float64), (judged - rr).astype(np.float64)


def _collection_size(m: Measure, ctx: KernelContext) -> float:
    n = m["N"] or ctx.num_docs
    if n <= 0:
        raise ValueError(f"{m} needs the collection size: give N= or -N")
    return float(n)


def k_f(v: TopicView, ms, ctx) -> np.ndarray:
    out = np.zeros((len(ms), v.n_runs))
    for i, m in enumerate(ms):
        ret, rr, _ = _retrieved_counts(v, m)
        b2 = m["beta"] ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(ret > 0, rr / ret, 0.0)
            r = rr / float(v.num_rel) if v.num_rel else np.zeros(v.n_runs)
            out[i] = np.where(rr > 0, (1.0 + b2) * p * r / (b2 * p + r), 0.0)
    return out


def k_fallout(v: TopicView, ms, ctx) -> np.ndarray:
    out = np.zeros((len(ms), v.n_runs))
    for i, m in enumerate(ms):
        _, _, nonrel = _retrieved_counts(v, m)
        out[i] = nonrel / (_collection_size(m, ctx) - v.num_rel)
    return out


def k_acc(v: TopicView, ms, ctx) -> np.ndarray:
    out = np.zeros((len(ms), v.n_runs))
    for i, m in enumerate(ms):
        n = _collection_size(m, ctx)
        ret, rr, _ = _retrieved_counts(v, m)
        true_neg = n - ret - (v.num_rel - rr)
        out[i] = (rr + true_neg) / n
    return out


def _rbp_gains(v: TopicView, gains: tuple | None) -> tuple[tuple[int, float], ...]:
    """m_rbp.c: the gain list of gain_init.c (listed grades, then grades 0..max) scaled into
    [0, 1] when any gain lies outside it."""
    top = int(v.stats.grades.max(initial=-1))
    table = dict(gains or ())
    for level in range(top + 1):
        table.setdefault(level, float(level))
    if not table:
        return ()
    lo, hi = min(table.values()), max(table.values())
    if lo < 0 or hi > 1:
        table = {k: (g - lo) / (hi - lo) for k, g in table.items()}
    return tuple(sorted(table.items()))


def k_rbp(v: TopicView, ms, ctx) -> np.ndarray:
    out = np.zeros((len(ms), v.n_runs))
    for i, m in enumerate(ms):
        p = m["p"]
        run, pos, g = _gain_entries(v, _rbp_gains(v, m["gains"]), "log2")
        total = v.sum_by_run(run, g * v.powers(p)[pos])
        out[i] = (1.0 - p) * total
    return out


def k_rbp_resid(v: TopicView, ms, ctx) -> np.ndarray:
    """m_rbp_resid.c: p^num_ret + (1-p) * sum of p^i over unjudged ranks i (if any)."""
    out = np.zeros((len(ms), v.n_runs))
    unjudged = (v.codes < 0) & (v.codes != PAD)
    any_unj = unjudged.any(axis=1)
    for i, m in enumerate(ms):
        p = m["p"]
        powers = v.powers(p)
        s = np.cumsum(np.where(unjudged, powers[None, : v.depth], 0.0), axis=1)
        s = s[:, -1] if v.depth else np.zeros(v.n_runs)
        out[i] = np.where(any_unj, powers[v.num_ret] + (1 - p) * s, 0.0)
    return out


def k_unj(v: TopicView, ms, ctx) -> np.ndarray:
    """m_unjudged.c: unjudged in the top k over k."""
    cut = _cutoffs(ms)
    judged = v.judged_below(cut)
    ret = np.minimum(v.num_ret[:, None], cut[None, :])
    return ((ret - judged) / cut.astype(np.float64)).T


def k_judged(v: TopicView, ms, ctx) -> np.ndarray:
    out = np.zeros((len(ms), v.n_runs))
    for i, m in enumerate(ms):
        if m.at is None:
            judged, ret = v.num_judged, v.num_ret
        else:
            judged = v.judged_below(np.array([m.at]))[:, 0]
            ret = np.minimum(v.num_ret, m.at)
        out[i] = np.where(ret > 0, _safe_div(judged, ret.astype(np.float64)), 0.0)
    return out


def k_zero(v: TopicView, ms, ctx) -> np.ndarray:
    return np.zeros((len(ms), v.n_runs))


def k_one(v: TopicView, ms, ctx) -> np.ndarray:
    return np.ones((len(ms), v.n_runs))


KERNELS: dict[str, Kernel] = {
    "runid": k_zero,
    "NumQ": k_one,
    "NumRet": k_num_ret,
    "NumRel": k_num_rel,
    "NumRelRet": k_num_rel_ret,
    "num_nonrel_judged_ret": k_num_nonrel_judged_ret,
    "AP": k_ap,
    "gm_map": k_ap,
    "Rprec": k_rprec,
    "Bpref": k_bpref,
    "gm_bpref": k_bpref,
    "RR": k_rr,
    "IPrec": k_iprec,
    "P": k_p,
    "relstring": k_zero,
    "R": k_recall,
    "infAP": k_infap,
    "Rprec_mult": k_rprec_mult,
    "utility": k_utility,
    "11pt_avg": k_11pt,
    "AP_11pt": k_ap_11pt,
    "binG": k_bing,
    "G": k_g,
    "nDCG": k_ndcg,
    "dcg": k_dcg,
    "ideal_dcg": k_ideal_dcg,
    "ndcg_rel": k_ndcg_rel,
    "Rndcg": k_rndcg,
    "relative_P": k_relative_p,
    "Success": k_success,
    "SetP": k_set_p,
    "SetR": k_set_r,
    "SetAP": k_set_ap,
    "SetF": k_set_f,
    "F": k_f,
    "Fallout": k_fallout,
    "Acc": k_acc,
    "rbp": k_rbp,
    "rbp_resid": k_rbp_resid,
    "unj": k_unj,
    "Judged": k_judged,
}


def relstrings(v: TopicView, n: int) -> list[str]:
    """m_relstring.c: one character per rank for the first n documents of each run."""
    chars = np.array(list("0123456789"), dtype="<U1")
    width = min(max(n, 0), v.depth)
    codes = v.codes[:, :width]
    text = np.full(codes.shape, "<", dtype="<U1")
    text[codes > 9] = ">"
    ok = (codes >= 0) & (codes <= 9)
    text[ok] = chars[codes[ok]]
    text[codes == NONPOOL] = "-"
    text[codes == UNJUDGED] = "."
    out = []
    for r in range(v.n_runs):
        length = min(width, int(v.num_ret[r]))
        out.append("".join(text[r, :length].tolist()))
    return out
