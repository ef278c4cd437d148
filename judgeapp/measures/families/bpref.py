"""Measures for incomplete judgments: Bpref, gm_bpref and infAP.

Sources (trec_eval 10.0, usnistgov/trec_eval): m_bpref.c, m_gm_bpref.c, m_infap.c.
Bpref: Buckley and Voorhees, "Retrieval evaluation with incomplete information" (SIGIR
2004). infAP: Yilmaz and Aslam, "Estimating average precision with incomplete and
imperfect judgments" (CIKM 2006); documents with a negative grade are pooled but unjudged.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from judgeapp.measures.batch import (
    BatchView,
    KernelContext,
    MeasureArgs,
    for_each,
    safe_div,
    segment_starts,
)
from judgeapp.measures.family import Family
from judgeapp.measures.spec import Registrations, TrecSpec

INFAP_EPSILON = 0.00001

REGISTRATIONS = Registrations()


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
        k = np.arange(1, row_r.size + 1) - segment_starts(row_r, v.n_rows)[row_r]
        v.memo["nonrel_before_rel"] = (row_r, pos_r, k, nonrel_so_far[keep])
    return v.memo["nonrel_before_rel"]


@REGISTRATIONS.add(
    Family(
        "Bpref",
        "Binary preference: how often judged relevant documents come before "
        "judged non-relevant ones (Buckley and Voorhees 2004).",
        at=None,
    ),
    aliases=["BPref", "bpref"],
    trec=[TrecSpec("bpref", 8, nicknames=("official", "all_trec"))],
)
@REGISTRATIONS.add(
    Family(
        "gm_bpref",
        "Geometric mean over topics of Bpref (floored at 0.00001).",
        "gmean",
        at=None,
        per_topic=False,
    ),
    trec=[TrecSpec("gm_bpref", 15)],
)
def k_bpref(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_bpref.c: 1 - min(nonrel before, R) / min(judged nonrel, R) per relevant, over R."""
    if "bpref" not in v.memo:
        row, _, _, nonrel = _nonrel_before_rel(v)
        r = v.num_rel[row]
        frac = safe_div(np.minimum(nonrel, r), np.minimum(v.num_nonrel, v.num_rel)[row])
        total = v.sum_by_row(row, np.where(nonrel > 0, 1.0 - frac, 1.0))
        v.memo["bpref"] = np.where(v.num_rel > 0, safe_div(total, v.num_rel_f), total)
    return for_each(v.memo["bpref"], ms)


@REGISTRATIONS.add(
    Family(
        "infAP",
        "Inferred AP (Yilmaz and Aslam 2006): AP estimated from a judged "
        "sample of the pool; documents graded negative are pooled but unjudged.",
        at=None,
    ),
    trec=[TrecSpec("infAP", 14)],
)
def k_infap(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
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
    return for_each(np.where(v.num_rel > 0, safe_div(total, v.num_rel_f), total), ms)
