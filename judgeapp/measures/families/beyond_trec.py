"""Measures ir_measures computes beyond trec_eval, each registered once with its kernel.

Each follows the reference implementation ir_measures calls for it (read for the formula,
not translated) and is checked against it on the Robust 2003 runs
(``benchmarks/parity_measures.py``, the README's parity table):

- ``ERR@k``: expected reciprocal rank as gdeval computes it (Chapelle et al. 2009):
  r = (2^grade - 1) / 2^max_rel with gdeval's max_rel = 4;
- C/W/L measures as cwl_eval computes them (Azzopardi et al. 2019): ``INST``, ``INSQ``,
  ``NERR8``..``NERR11``, ``BPM``, ``SDCG``: gains (grade clipped to [min_rel, max_rel])
  scaled into [0, 1], unjudged 0; the user model's continuation probabilities over a list
  padded or cut to 1000 ranks (cwl_eval's depth), expected utility per document;
- ``Compat``: compatibility (Clarke et al. 2021), the rank-biased overlap with the ideal
  ranking (relevant documents by grade, then as the run ranks them), normalised;
- ``Accuracy``: ir_measures' pairwise accuracy, the share of (relevant, non-relevant)
  pairs of retrieved documents in which the relevant one comes first (the lecture notes'
  (TP+TN)/N accuracy is ``Acc``);
- ``Hits@k``: relevant documents in the top k, averaged over topics (ranx's hits; the sum
  is ``NumRelRet@k``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from judgeapp.measures.batch import BatchView, KernelContext, MeasureArgs, for_each
from judgeapp.measures.family import JUDGED_ONLY, REL, Family, Param
from judgeapp.measures.spec import Registrations

REGISTRATIONS = Registrations()

CWL_DEPTH = 1000  # cwl_eval's default list depth (RankingMaker max_n)
GDEVAL_MAX_GRADE = 4  # gdeval.pl's MAX_JUDGMENT

MIN_REL = Param("min_rel", int, 0, desc="grade of no gain (grades below count as it)")
MAX_REL = Param("max_rel", int, 1, desc="grade of full gain (default 1: binary)")


def _grades(v: BatchView, width: int) -> np.ndarray:
    """(rows, width) grades of the first ``width`` ranks; unjudged, pooled-unjudged and past
    the end of the list: 0."""
    out = np.zeros((v.n_rows, width))
    w = min(width, v.depth)
    codes = v.codes[:, :w]
    out[:, :w] = np.where(codes > 0, codes, 0)
    return out


def _scaled(v: BatchView, m: MeasureArgs, width: int = CWL_DEPTH) -> np.ndarray:
    """cwl_eval's gains as ir_measures feeds them: negative grades as 0, clipped to
    [min_rel, max_rel], scaled into [0, 1]."""
    lo, hi = m["min_rel"], m["max_rel"]
    if hi <= lo:
        raise ValueError(f"{m}: max_rel must be greater than min_rel")
    g = np.clip(_grades(v, width), lo, hi)
    return (g - lo) / float(hi - lo)


def _cwl_utility(c: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """Expected utility per document from continuation probabilities c (rows, N):
    W_1 = 1 / sum_k prod_{j<k} c_j, W_i = W_1 prod_{j<i} c_j (cwl_metrics.w_vector)."""
    reach = np.ones_like(c)
    np.cumprod(c[:, :-1], axis=1, out=reach[:, 1:])
    w1 = 1.0 / reach.sum(axis=1)
    return np.einsum("ij,ij->i", reach * w1[:, None], gains)


def _ranks(n: int) -> np.ndarray:
    return np.arange(1, n + 1, dtype=np.float64)


# -- ERR ------------------------------------------------------------------------------------


@REGISTRATIONS.add(
    Family(
        "ERR",
        "Expected reciprocal rank (Chapelle et al. 2009) as gdeval computes it: a document of "
        "grade g stops the user with probability (2^g - 1) / 2^max_rel (gdeval: max_rel 4).",
        params=(Param("max_rel", int, GDEVAL_MAX_GRADE, desc="highest grade"), JUDGED_ONLY),
    )
)
def k_err(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        depth = v.depth if m.at is None else min(int(m.at), v.depth)
        g = _grades(v, depth)
        r = (np.exp2(g) - 1.0) / 2.0 ** m["max_rel"]
        decay = np.ones_like(r)
        np.cumprod(1.0 - r[:, :-1], axis=1, out=decay[:, 1:])
        out[i] = (r * decay / _ranks(depth)).sum(axis=1)
    return out


# -- C/W/L ----------------------------------------------------------------------------------

CWL_PARAMS = (MIN_REL, MAX_REL)


def _cwl_family(name: str, description: str, *, cutoff: bool, extra: tuple[Param, ...]) -> Family:
    return Family(
        name,
        description + " (C/W/L, as cwl_eval).",
        at="cutoff" if cutoff else None,
        at_required=cutoff,
        params=(*extra, *CWL_PARAMS),
    )


T_GOAL = Param("T", float, 1.0, desc="total gain wanted (in [0, 1] units)")


@REGISTRATIONS.add(
    _cwl_family("INST", "INST: patience falls as gain is found", cutoff=False, extra=(T_GOAL,))
)
def k_inst(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    i1 = _ranks(CWL_DEPTH)
    for i, m in enumerate(ms):
        g = _scaled(v, m)
        t = m["T"]
        ti = t - np.cumsum(g, axis=1)
        c = ((i1 + t + ti - 1.0) / (i1 + t + ti)) ** 2.0
        out[i] = _cwl_utility(c, g)
    return out


@REGISTRATIONS.add(
    _cwl_family("INSQ", "INSQ: patience set by the gain wanted", cutoff=False, extra=(T_GOAL,))
)
def k_insq(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    i1 = _ranks(CWL_DEPTH)
    for i, m in enumerate(ms):
        g = _scaled(v, m)
        t = m["T"]
        c = ((i1 + 2.0 * t - 1.0) / (i1 + 2.0 * t)) ** 2.0
        out[i] = _cwl_utility(np.broadcast_to(c, g.shape).copy(), g)
    return out


def _truncated(c: np.ndarray, k: int) -> np.ndarray:
    c[:, max(k - 1, 0) :] = 0.0
    return c


@REGISTRATIONS.add(
    _cwl_family("NERR8", "NERR eq. 8: gain-based stopping, cut at k", cutoff=True, extra=())
)
def k_nerr8(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        g = _scaled(v, m)
        out[i] = _cwl_utility(_truncated(1.0 - g, int(m.at or 0)), g)
    return out


@REGISTRATIONS.add(
    _cwl_family(
        "NERR9",
        "NERR eq. 9: gain-based stopping and rank discount, cut at k",
        cutoff=True,
        extra=(),
    )
)
def k_nerr9(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    rank = _ranks(CWL_DEPTH)
    for i, m in enumerate(ms):
        g = _scaled(v, m)
        c = (rank / (rank + 1.0)) * (1.0 - g)
        out[i] = _cwl_utility(_truncated(c, int(m.at or 0)), g)
    return out


@REGISTRATIONS.add(
    _cwl_family(
        "NERR10",
        "NERR eq. 10: gain-based stopping with RBP's persistence p",
        cutoff=False,
        extra=(Param("p", float, 0.9, desc="persistence"),),
    )
)
def k_nerr10(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        g = _scaled(v, m)
        out[i] = _cwl_utility(m["p"] * (1.0 - g), g)
    return out


@REGISTRATIONS.add(
    _cwl_family(
        "NERR11",
        "NERR eq. 11: gain-based stopping with INST's goal T",
        cutoff=False,
        extra=(T_GOAL,),
    )
)
def k_nerr11(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    rank = _ranks(CWL_DEPTH)
    for i, m in enumerate(ms):
        g = _scaled(v, m)
        t = m["T"]
        c = ((rank + 2.0 * t - 1.0) / (rank + 2.0 * t)) ** 2.0 * (1.0 - g)
        out[i] = _cwl_utility(c, g)
    return out


@REGISTRATIONS.add(
    _cwl_family(
        "BPM",
        "Bejeweled player model (Zhang et al. 2017, static): the user goes on while the gain "
        "so far is below T and fewer than k documents are read",
        cutoff=True,
        extra=(T_GOAL,),
    )
)
def k_bpm(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    rank = _ranks(CWL_DEPTH)
    for i, m in enumerate(ms):
        g = _scaled(v, m)
        # each condition holds on a prefix of the ranks (cwl_bpm's while loops)
        goal = np.cumprod(np.cumsum(g, axis=1) < m["T"], axis=1)
        budget = rank < float(m.at or 0)
        out[i] = _cwl_utility((goal * budget).astype(np.float64), g)
    return out


@REGISTRATIONS.add(
    _cwl_family(
        "SDCG",
        "Scaled DCG: DCG@k with gains in [0, 1] over the DCG of k fully relevant documents",
        cutoff=True,
        extra=(Param("dcg", str, "log2", ("log2",), desc="DCG formulation"),),
    )
)
def k_sdcg(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    rank = _ranks(CWL_DEPTH)
    for i, m in enumerate(ms):
        g = _scaled(v, m)
        c = np.where(rank < float(m.at or 0), np.log(rank + 1.0) / np.log(rank + 2.0), 0.0)
        out[i] = _cwl_utility(np.broadcast_to(c, g.shape).copy(), g)
    return out


# -- Compat ---------------------------------------------------------------------------------


@REGISTRATIONS.add(
    Family(
        "Compat",
        "Compatibility (Clarke et al. 2021): rank-biased overlap (persistence p) of the run "
        "with the ideal ranking (relevant documents by grade, ties as the run ranks them), "
        "over that of the ideal with itself when normalize.",
        at=None,
        params=(
            Param("p", float, 0.95, desc="persistence"),
            Param("normalize", bool, True, desc="divide by the ideal's own overlap"),
        ),
    )
)
def k_compat(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    row, pos, code = v.judged
    rel = code > 0
    row, pos, code = row[rel], pos[rel], code[rel]
    n_rel = np.array([np.count_nonzero(s.grades > 0) for s in v.stats], dtype=np.int64)
    r_rows = n_rel[v.row_topic]
    # place of each relevant retrieved document in the ideal ranking: before it come the
    # topic's documents of higher grade, and those of its grade the run ranks higher
    higher = np.zeros(row.size, dtype=np.int64)
    for t, s in enumerate(v.stats):
        on = v.row_topic[row] == t
        if on.any():
            higher[on] = np.searchsorted(np.sort(-s.grades), -code[on], side="left")
    same_before = np.zeros(row.size, dtype=np.int64)
    if row.size:
        order = np.lexsort((pos, -code, row))
        key_r, key_c = row[order], code[order]
        start = np.flatnonzero(np.r_[True, (key_r[1:] != key_r[:-1]) | (key_c[1:] != key_c[:-1])])
        group = np.cumsum(np.r_[True, (key_r[1:] != key_r[:-1]) | (key_c[1:] != key_c[:-1])]) - 1
        same_before[order] = np.arange(row.size) - start[group]
    ideal_pos = higher + same_before  # 0-based
    depth = np.maximum(v.num_ret, r_rows)  # reference: max(len(ranking), len(ideal))
    width = int(depth.max(initial=0)) + 1
    i1 = _ranks(width)
    for j, m in enumerate(ms):
        p = m["p"]
        weight = np.ones(width)
        weight[1:] = np.cumprod(np.full(width - 1, p))
        term = weight / i1
        prefix = np.concatenate(([0.0], np.cumsum(term)))  # prefix[i] = sum of first i terms
        norm = np.concatenate(([0.0], np.cumsum(weight)))[depth]
        # a document counts in the overlap from depth max(run place, ideal place) on
        first = np.maximum(pos, ideal_pos)  # 0-based
        score = v.sum_by_row(row, prefix[depth[row]] - prefix[first])
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.where(norm > 0, score / norm, 0.0)
            if m["normalize"]:
                # the ideal against itself: overlap min(i, R) at depth i
                kk = np.minimum(np.arange(1, width + 1)[None, :], r_rows[:, None])
                upto = np.arange(1, width + 1)[None, :] <= depth[:, None]
                best = np.where(upto, weight * kk / i1, 0.0).sum(axis=1) / norm
                value = np.where(best > 0, value / best, value)
        out[j] = value
    return out


# -- Accuracy and Hits ----------------------------------------------------------------------


@REGISTRATIONS.add(
    Family(
        "Accuracy",
        "ir_measures' accuracy: the share of (relevant, non-relevant) pairs of retrieved "
        "documents (top k) in which the relevant one is ranked first; 0 with no relevant "
        "retrieved, 1 with no non-relevant (unjudged documents count as non-relevant).",
        params=(REL,),
    )
)
def k_accuracy(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    row, pos, k = v.rel
    nonrel_before = (pos - (k - 1)).astype(np.float64)  # ranks above it not relevant
    for i, m in enumerate(ms):
        cut = v.num_ret if m.at is None else np.minimum(v.num_ret, int(m.at))
        keep = pos < cut[row]
        n_rel = np.bincount(row[keep], minlength=v.n_rows).astype(np.float64)
        pairs_before = v.sum_by_row(row[keep], nonrel_before[keep])
        n_nonrel = cut - n_rel
        with np.errstate(divide="ignore", invalid="ignore"):
            val = 1.0 - pairs_before / (n_nonrel * n_rel)
        out[i] = np.where(n_rel == 0, 0.0, np.where(n_nonrel == 0, 1.0, val))
    return out


@REGISTRATIONS.add(
    Family(
        "Hits",
        "Relevant documents in the top k, averaged over topics (ranx's hits; NumRelRet@k "
        "is the sum).",
    )
)
def k_hits(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    cut = np.array([v.depth if m.at is None else m.at for m in ms], dtype=np.int64)
    if cut.size and (cut == cut[0]).all():
        return for_each(v.rel_below(cut[:1])[:, 0].astype(np.float64), ms)
    return v.rel_below(cut).T.astype(np.float64)
