"""Precision and recall at a cutoff: P@k, R@k (trec_eval recall), relative_P, Success,
Rprec and Rprec_mult.

Sources (trec_eval 10.0, usnistgov/trec_eval): m_P.c, m_recall.c, m_relative_P.c,
m_success.c, m_Rprec.c, m_Rprec_mult.c. R-precision as in Buckley and Voorhees,
"Evaluating evaluation measure stability" (SIGIR 2000).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from judgeapp.measures.batch import (
    BatchView,
    KernelContext,
    MeasureArgs,
    cutoffs_of,
    for_each,
    safe_div,
)
from judgeapp.measures.family import Family
from judgeapp.measures.spec import LONG_CUTOFFS, Registrations, TrecSpec

REGISTRATIONS = Registrations()


@REGISTRATIONS.add(
    Family("Rprec", "Precision after R documents, R = number of relevant documents.", at=None),
    aliases=["RPrec"],
    trec=[TrecSpec("Rprec", 7, nicknames=("official", "all_trec"))],
)
def k_rprec(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_Rprec.c: relevant in the top min(R, retrieved), over R."""
    count = v.rel_below(np.maximum(v.num_rel, 1)[:, None])[:, 0]
    ok = np.minimum(v.num_ret, v.num_rel) > 0
    return for_each(np.where(ok, safe_div(count, v.num_rel_f), 0.0), ms)


@REGISTRATIONS.add(
    Family("P", "Precision at k: relevant documents in the top k, divided by k.", at_required=True),
    aliases=["Precision"],
    trec=[TrecSpec("P", 11, "long", LONG_CUTOFFS, nicknames=("official", "all_trec"))],
)
def k_p(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_P.c: relevant in the top k, over k (k counted even past the end of the list)."""
    cut = cutoffs_of(ms)
    return (v.rel_below(cut) / cut.astype(np.float64)).T


@REGISTRATIONS.add(
    Family(
        "R",
        "Recall at k: relevant documents in the top k over all relevant ones.",
        at_required=True,
    ),
    aliases=["Recall"],
    trec=[TrecSpec("recall", 13, "long", LONG_CUTOFFS)],
)
def k_recall(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    vals = safe_div(v.rel_below(cutoffs_of(ms)), v.num_rel_f[:, None])
    return np.where(v.num_rel[:, None] > 0, vals, 0.0).T


@REGISTRATIONS.add(
    Family("relative_P", "Relevant in the top k over min(k, R).", at_required=True),
    trec=[TrecSpec("relative_P", 28, "long", LONG_CUTOFFS)],
)
def k_relative_p(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_rel_P.c: relevant in the top k over min(k, R)."""
    cut = cutoffs_of(ms)
    den = np.minimum(cut[None, :], v.num_rel[:, None]).astype(np.float64)
    vals = safe_div(v.rel_below(cut), den)
    return np.where(v.num_rel[:, None] > 0, vals, 0.0).T


@REGISTRATIONS.add(
    Family("Success", "1 if a relevant document is in the top k, else 0.", at_required=True),
    aliases=["success"],
    trec=[TrecSpec("success", 29, "long", (1, 5, 10))],
)
def k_success(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return (v.rel_below(cutoffs_of(ms)) > 0).T.astype(np.float64)


@REGISTRATIONS.add(
    Family(
        "Rprec_mult",
        "Precision after x times R documents.",
        at="cutoff",
        at_kind=float,
        at_required=True,
    ),
    trec=[TrecSpec("Rprec_mult", 16, "double", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0))],
)
def k_rprec_mult(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_Rprec_mult.c: precision after (long)(x*R + 0.9) documents, in every version."""
    x = np.array([m.at for m in ms])
    cut = np.trunc(x[None, :] * v.num_rel_f[:, None] + 0.9).astype(np.int64)
    count = v.rel_below(np.maximum(cut, 1))
    cut_f = cut.astype(np.float64)
    prec = safe_div(count, cut_f)
    past = safe_div(v.num_rel_ret[:, None].astype(np.float64), cut_f)
    val = np.where(cut > v.num_ret[:, None], past, prec)
    return np.where(cut == 0, 0.0, val).T
