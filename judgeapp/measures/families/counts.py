"""Counts and coverage: runid, relstring, num_q, num_ret, num_rel, num_rel_ret,
num_nonrel_judged_ret, unj (trec_eval) and Judged (ir_measures).

Sources (trec_eval 10.0, usnistgov/trec_eval): m_runid.c, m_relstring.c, m_num_q.c,
m_num_ret.c, m_num_rel.c, m_num_rel_ret.c, m_num_nonrel_judged_ret.c, m_unjudged.c;
ir_measures' Judged@k (terrierteam/ir_measures, measures/judged.py), the share of the top k
that the judgments name. The counts are summed over topics, as trec_eval prints them.
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
    safe_div,
)
from judgeapp.measures.family import JUDGED_ONLY, REL, Family
from judgeapp.measures.spec import Reading, Registrations, TrecSpec

REGISTRATIONS = Registrations()


def _read_relstring(values: list[float], raw: str | None) -> Reading:
    return Reading("relstring", max(int(values[0]), 0) or 0)


@REGISTRATIONS.add(
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
@REGISTRATIONS.add(
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
def k_zero(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return np.zeros((len(ms), v.n_rows))


@REGISTRATIONS.add(
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
def k_one(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return np.ones((len(ms), v.n_rows))


@REGISTRATIONS.add(
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
def k_num_ret(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return for_each(v.num_ret.astype(np.float64), ms)


@REGISTRATIONS.add(
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
def k_num_rel(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return for_each(v.num_rel_f, ms)


@REGISTRATIONS.add(
    Family(
        "NumRelRet",
        "Number of relevant documents retrieved, or in the top k (summed over topics).",
        "sum",
        integer=True,
    ),
    aliases=["num_rel_ret"],
    trec=[TrecSpec("num_rel_ret", 4, nicknames=("official", "all_trec", "set"))],
)
def k_num_rel_ret(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    if all(m.at is None for m in ms):
        return for_each(v.num_rel_ret.astype(np.float64), ms)
    cut = np.array([v.depth if m.at is None else m.at for m in ms], dtype=np.int64)
    return v.rel_below(cut).T.astype(np.float64)


@REGISTRATIONS.add(
    Family(
        "num_nonrel_judged_ret",
        "Number of judged non-relevant documents retrieved (summed over topics).",
        "sum",
        at=None,
        integer=True,
    ),
    trec=[TrecSpec("num_nonrel_judged_ret", 35)],
)
def k_num_nonrel_judged_ret(
    v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext
) -> np.ndarray:
    # m_num_nonrel_judged_ret.c: num_ret - not in pool - unjudged in pool - num_rel_ret
    return for_each((v.num_judged - v.num_rel_ret).astype(np.float64), ms)


@REGISTRATIONS.add(
    Family(
        "unj",
        "Share of the top k that is unjudged (k counted even when fewer were retrieved).",
        at_required=True,
        params=(JUDGED_ONLY,),
    ),
    trec=[TrecSpec("unj", 56, "long", (5, 10, 20), since=10)],
)
def k_unj(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_unjudged.c: unjudged in the top k over k."""
    cut = cutoffs_of(ms)
    ret = np.minimum(v.num_ret[:, None], cut[None, :])
    return ((ret - v.judged_below(cut)) / cut.astype(np.float64)).T


@REGISTRATIONS.add(
    Family(
        "Judged",
        "Share of the top min(k, retrieved) documents that have a judgment (as in "
        "ir_measures: any grade, negative included; trec_eval's unj counts negative "
        "grades as unjudged).",
        params=(JUDGED_ONLY,),
    )
)
def k_judged(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
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
        out[i] = np.where(ret > 0, safe_div(judged, ret.astype(np.float64)), 0.0)
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
