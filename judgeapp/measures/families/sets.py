"""Measures of the whole retrieved set (or the top k): SetP, SetR, SetAP, SetF (trec_eval
set_*), F with a real beta, Fallout, Acc and utility.

Sources (trec_eval 10.0, usnistgov/trec_eval): m_set_P.c, m_set_relative_P.c,
m_set_recall.c, m_set_map.c, m_set_F.c, m_utility.c. F-measure: van Rijsbergen,
Information Retrieval (2nd ed., 1979), chapter 7; fallout and accuracy as in Manning,
Raghavan and Schuetze, Introduction to Information Retrieval (2008), section 8.3.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from judgeapp.measures.batch import BatchView, KernelContext, MeasureArgs, for_each, safe_div
from judgeapp.measures.family import (
    COLLECTION,
    JUDGED_ONLY,
    REL,
    EvaluationError,
    Family,
    MeasureError,
    Param,
)
from judgeapp.measures.spec import Alias, Reading, Registrations, TrecSpec

REGISTRATIONS = Registrations()


def _read_utility(values: list[float], raw: str | None) -> Reading:
    if len(values) != 4:
        raise MeasureError(f"utility needs 4 coefficients, got {len(values)} in {raw!r}")
    return Reading("utility", params={"coeffs": tuple(values)})


def _read_set_f(values: list[float], raw: str | None) -> Reading:
    return Reading("SetF", params={"beta": values[0]})


@REGISTRATIONS.add(
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
def k_utility(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
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


@REGISTRATIONS.add(
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
def k_set_p(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    rr = v.num_rel_ret.astype(np.float64)
    for i, m in enumerate(ms):
        if m["relative"]:
            den = np.minimum(v.num_ret, v.num_rel).astype(np.float64)
            ok = (v.num_ret > 0) & (v.num_rel > 0)
        else:
            den = v.num_ret.astype(np.float64)
            ok = v.num_ret > 0
        out[i] = np.where(ok, safe_div(rr, den), 0.0)
    return out


@REGISTRATIONS.add(
    Family("SetR", "Recall of the whole retrieved set.", at=None),
    aliases=["set_recall"],
    trec=[TrecSpec("set_recall", 32, nicknames=("all_trec", "set"))],
)
def k_set_r(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    val = safe_div(v.num_rel_ret.astype(np.float64), v.num_rel_f)
    return for_each(np.where(v.num_rel > 0, val, 0.0), ms)


@REGISTRATIONS.add(
    Family("SetAP", "SetP times SetR.", at=None),
    aliases=["set_map"],
    trec=[TrecSpec("set_map", 33, nicknames=("all_trec", "set"))],
)
def k_set_ap(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    rr = v.num_rel_ret.astype(np.float64)
    ok = (v.num_ret > 0) & (v.num_rel > 0)
    val = safe_div(rr * rr, v.num_ret.astype(np.float64) * v.num_rel_f)
    return for_each(np.where(ok, val, 0.0), ms)


@REGISTRATIONS.add(
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
def k_set_f(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
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


def _retrieved_counts(v: BatchView, m: MeasureArgs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(retrieved, relevant retrieved, judged non-relevant retrieved) in the top k or all."""
    if m.at is None:
        ret, rr, judged = v.num_ret, v.num_rel_ret, v.num_judged
    else:
        cut = np.array([m.at])
        ret = np.minimum(v.num_ret, m.at)
        rr = v.rel_below(cut)[:, 0]
        judged = v.judged_below(cut)[:, 0]
    return ret.astype(np.float64), rr.astype(np.float64), (judged - rr).astype(np.float64)


def _collection_size(m: MeasureArgs, ctx: KernelContext) -> float:
    n = m["N"] or ctx.num_docs
    if n <= 0:
        raise EvaluationError(f"{m} needs the collection size: give N= or -N")
    return float(n)


@REGISTRATIONS.add(
    Family(
        "F",
        "F-measure with a real beta: (1+b^2)PR/(b^2 P + R), on the whole "
        "retrieved set or the top k.",
        params=(REL, Param("beta", float, 1.0), JUDGED_ONLY),
    )
)
def k_f(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        ret, rr, _ = _retrieved_counts(v, m)
        b2 = m["beta"] ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(ret > 0, rr / ret, 0.0)
            r = np.where(v.num_rel > 0, rr / v.num_rel_f, 0.0)
            out[i] = np.where(rr > 0, (1.0 + b2) * p * r / (b2 * p + r), 0.0)
    return out


@REGISTRATIONS.add(
    Family(
        "Fallout",
        "Judged non-relevant retrieved over (collection size - R).",
        params=(REL, JUDGED_ONLY, COLLECTION),
    )
)
def k_fallout(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        _, _, nonrel = _retrieved_counts(v, m)
        out[i] = nonrel / (_collection_size(m, ctx) - v.num_rel_f)
    return out


@REGISTRATIONS.add(
    Family(
        "Acc",
        "Accuracy: (relevant retrieved + non-relevant not retrieved) over the collection size.",
        params=(REL, JUDGED_ONLY, COLLECTION),
    ),
)
def k_acc(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        n = _collection_size(m, ctx)
        ret, rr, _ = _retrieved_counts(v, m)
        true_neg = n - ret - (v.num_rel_f - rr)
        out[i] = (rr + true_neg) / n
    return out
