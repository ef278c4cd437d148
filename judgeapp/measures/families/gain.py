"""Graded gain measures: nDCG (trec_eval ndcg, nDCG@k ndcg_cut), DCG, ideal_dcg, ndcg_rel,
Rndcg, G and binG.

Sources (trec_eval 10.0, usnistgov/trec_eval): m_ndcg.c, m_ndcg_cut.c, m_ndcg_rel.c,
m_Rndcg.c, m_G.c, m_binG.c, gain_init.c (the gains); the ideal rankings are built in
:mod:`judgeapp.measures.ideal`. nDCG: Jarvelin and Kekalainen, "Cumulated gain-based
evaluation of IR techniques" (ACM TOIS 20(4), 2002); the ``exp-log2`` gain 2^grade - 1 as
in Burges et al., "Learning to rank using gradient descent" (ICML 2005).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from judgeapp.measures.batch import (
    NONPOOL,
    UNJUDGED,
    BatchView,
    KernelContext,
    MeasureArgs,
    cutoffs_of,
    for_each,
    nonzero2d,
    safe_div,
    segment_starts,
)
from judgeapp.measures.family import DCG_VARIANT, GAINS, JUDGED_ONLY, REL, Family
from judgeapp.measures.ideal import discount, gain_lookup, transform_gain
from judgeapp.measures.spec import LONG_CUTOFFS, Registrations, TrecSpec

REGISTRATIONS = Registrations()


def _gain_family(name: str, description: str) -> Family:
    """A trec_eval measure taking per-grade gains (-m ndcg_rel.1=3,2=9) and no cutoff."""
    return Family(name, description, at=None, params=(GAINS, REL, JUDGED_ONLY))


@REGISTRATIONS.add(
    Family(
        "binG",
        "Binary G: relevant documents discounted by log2(2 + non-relevant before them), over R.",
        at=None,
    ),
    trec=[TrecSpec("binG", 19)],
)
def k_bing(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_binG.c: each relevant counts 1 / log2(2 + non-relevant before it), over R."""
    row, pos, k = v.rel
    total = v.sum_by_row(row, 1.0 / np.log2((3 + pos - k).astype(np.float64)))
    return for_each(np.where(v.num_rel_ret > 0, safe_div(total, v.num_rel_f), 0.0), ms)


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
    idx = np.arange(row.size) - segment_starts(row, v.n_rows)[row]
    return v.prefix_table(row, values)[row, idx + 1]


@REGISTRATIONS.add(
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
def k_ndcg(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_ndcg.c (no cutoff) and m_ndcg_cut.c (@k); gains and DCG variants as named."""
    out = np.zeros((len(ms), v.n_rows))
    gains, dcg = ms[0]["gains"], ms[0]["dcg"]
    ideal = ctx.ideal(gains, dcg)
    row, pos, g = _gain_entries(v, gains, dcg)
    table = v.prefix_table(row, g / discount(pos, dcg))
    cut = [i for i, m in enumerate(ms) if m.at is not None]
    if cut:
        cutoffs = cutoffs_of([ms[i] for i in cut])
        dcg_at = v.sum_below(table, v.keys(row, pos), cutoffs)
        best = ideal.at(v.row_topic[:, None], cutoffs[None, :])
        # m_ndcg_cut.c leaves the DCG unnormalised when the ideal is 0
        out[cut] = np.where(best > 0, safe_div(dcg_at, best), dcg_at).T
    for i, m in enumerate(ms):
        if m.at is None:
            full = ideal.rows_total()
            total = table[np.arange(v.n_rows), np.bincount(row, minlength=v.n_rows)]
            out[i] = np.where(full > 0, safe_div(total, full), 0.0)
    return out


@REGISTRATIONS.add(
    Family(
        "DCG",
        "Discounted cumulative gain, not normalised (trec_eval dcg); same gains and "
        "variants as nDCG.",
        params=(GAINS, DCG_VARIANT, REL, JUDGED_ONLY),
    ),
    trec=[TrecSpec("dcg", 21, "pairs", since=10, nicknames=())],
)
def k_dcg(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_ndcg.c's results_dcg (trec_eval dcg), with nDCG's gains, variants and cutoffs."""
    gains, dcg = ms[0]["gains"], ms[0]["dcg"]
    row, pos, g = _gain_entries(v, gains, dcg)
    table = v.prefix_table(row, g / discount(pos, dcg))
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        cutoff = np.array([v.depth if m.at is None else m.at])
        out[i] = v.sum_below(table, v.keys(row, pos), cutoff)[:, 0]
    return out


@REGISTRATIONS.add(
    _gain_family("ideal_dcg", "Discounted cumulative gain of the ideal ranking."),
    trec=[TrecSpec("ideal_dcg", 22, "pairs", since=10, nicknames=())],
)
def k_ideal_dcg(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return for_each(ctx.ideal(ms[0]["gains"], "log2").rows_total(), ms)


@REGISTRATIONS.add(
    _gain_family("ndcg_rel", "nDCG averaged over the ranks of the relevant documents."),
    trec=[TrecSpec("ndcg_rel", 24, "pairs")],
)
def k_ndcg_rel(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
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
    return for_each(val, ms)


@REGISTRATIONS.add(
    _gain_family("Rndcg", "nDCG averaged at the ranks where the ideal gain changes."),
    trec=[TrecSpec("Rndcg", 25, "pairs")],
)
def k_rndcg(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
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
    return for_each(np.where(v.num_rel > 0, val, 0.0), ms)


@REGISTRATIONS.add(
    Family(
        "G",
        "G: gain of each document over log2(2 + cost so far - gain so far), "
        "normalised by the ideal gain.",
        at=None,
        params=(GAINS, REL, JUDGED_ONLY),
    ),
    trec=[TrecSpec("G", 20, "pairs")],
)
def k_g(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
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
    return for_each(np.where(best_rows > 0, safe_div(total, best_rows), 0.0), ms)
