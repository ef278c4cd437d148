"""Rank-biased precision: trec_eval's rbp and rbp_resid, and ir_measures' RBP.

Sources: m_rbp.c and m_rbp_resid.c (trec_eval 10.0, usnistgov/trec_eval); ir_measures'
RBP (terrierteam/ir_measures, measures/rbp.py). Moffat and Zobel, "Rank-biased precision
for measurement of retrieval effectiveness" (ACM TOIS 27(1), 2008).
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
    TopicStats,
    nonzero2d,
)
from judgeapp.measures.family import GAINS, JUDGED_ONLY, REL, Family, Param
from judgeapp.measures.spec import Registrations, TrecSpec

REGISTRATIONS = Registrations()


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


@REGISTRATIONS.add(
    Family(
        "rbp",
        "Rank-biased precision with persistence p (Moffat and Zobel 2008); "
        "gains scaled into [0, 1].",
        at=None,
        params=(Param("p", float, 0.9), GAINS, JUDGED_ONLY),
    ),
    trec=[TrecSpec("rbp", 54, "pairs", since=10)],
)
def k_rbp(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_rbp.c: (1 - p) times the sum of gain * p^i over ranks i."""
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        out[i] = rbp_values(v, m["p"], m["gains"])
    return out


def rbp_values(v: BatchView, p: float, gains: tuple | None) -> np.ndarray:
    """trec_eval's rbp per row: gains as m_rbp.c scales them, persistence p."""
    row, pos, code = v.judged
    topic = v.row_topic[row]
    tables = [_rbp_gain_table(s, gains) for s in v.stats]
    top = max((max(t, default=0) for t in tables), default=0)
    lookup = np.zeros((len(tables), top + 1))
    for t, table in enumerate(tables):
        for level, gain in table.items():
            if level >= 0:
                lookup[t, level] = gain
    g = lookup[topic, np.minimum(code, top)]
    weights = g * v.powers(p)[pos]
    extra = [(lvl, gain) for lvl, gain in (gains or ()) if lvl in (NONPOOL, UNJUDGED)]
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
    return (1.0 - p) * total


@REGISTRATIONS.add(
    Family(
        "rbp_resid",
        "Residual of RBP: the most it could rise if every unjudged "
        "retrieved document had full gain.",
        at=None,
        params=(Param("p", float, 0.9), JUDGED_ONLY),
    ),
    trec=[TrecSpec("rbp_resid", 55, "pairs", since=10)],
)
def k_rbp_resid(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        out[i] = rbp_residual(v, m["p"])
    return out


def rbp_residual(v: BatchView, p: float) -> np.ndarray:
    """m_rbp_resid.c: p^num_ret + (1-p) * sum of p^i over unjudged ranks i (if any)."""
    row, pos, _ = v.judged
    any_unj = v.num_judged < v.num_ret
    powers = v.powers(p)
    every = np.concatenate(([0.0], np.cumsum(powers[:-1])))  # sum of p^i, i < n
    unjudged = every[v.num_ret] - v.sum_by_row(row, powers[pos])
    return np.where(any_unj, powers[v.num_ret] + (1 - p) * unjudged, 0.0)


# -- ir_measures' RBP -----------------------------------------------------------------------


@REGISTRATIONS.add(
    Family(
        "RBP",
        "Rank-biased precision (Moffat and Zobel 2008), persistence p (ir_measures' default "
        "0.8): graded as trec_eval's rbp (gains scaled into [0, 1]), binary with rel=; "
        "resid=True gives its residual (trec_eval's rbp_resid).",
        params=(
            Param("p", float, 0.8, desc="persistence"),
            REL,
            Param("resid", bool, False, desc="the residual instead of the value"),
            JUDGED_ONLY,
        ),
    )
)
def k_rbp_ir(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        p = m["p"]
        if m["resid"]:
            out[i] = rbp_residual(v, p)
            continue
        if m["rel"] is None and m.at is None:
            out[i] = rbp_values(v, p, None)
            continue
        row, pos, code = v.judged
        if m["rel"] is None:  # graded with a cutoff: trec_eval's gains (grade / top), cut at k
            top = np.array([max(s.grades.max(initial=0), 1) for s in v.stats], dtype=np.float64)
            gain = code / top[v.row_topic[row]]
        else:
            gain = (code >= v.level).astype(np.float64)
        keep = pos < (v.depth if m.at is None else m.at)
        out[i] = (1.0 - p) * v.sum_by_row(row[keep], gain[keep] * v.powers(p)[pos[keep]])
    return out
