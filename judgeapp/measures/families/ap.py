"""Average precision and interpolated precision: AP (trec_eval map, AP@k map_cut), gm_map,
IPrec (iprec_at_recall), 11pt_avg, and the textbook 11-point AP_11pt.

Sources (trec_eval 10.0, usnistgov/trec_eval): m_map.c, m_map_cut.c, m_gm_map.c,
m_iprec_at_recall.c, m_11pt_avg.c. AP as defined for TREC (Voorhees and Harman, eds.,
TREC: Experiment and Evaluation in Information Retrieval, MIT Press 2005, appendix);
AP_11pt as in Manning, Raghavan and Schuetze, Introduction to Information Retrieval (2008),
section 8.4: at each recall level, the best precision at that recall or above.
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
    recall_counts,
    safe_div,
)
from judgeapp.measures.family import ELEVEN_LEVELS, JUDGED_ONLY, REL, Family, Param
from judgeapp.measures.spec import LONG_CUTOFFS, Reading, Registrations, TrecSpec

REGISTRATIONS = Registrations()


def _read_11pt(values: list[float], raw: str | None) -> Reading:
    return Reading("11pt_avg", params={"levels": tuple(values)})


def _ap(v: BatchView) -> np.ndarray:
    """m_map.c: the precision at each relevant document summed in rank order, over R;
    0 when none is retrieved."""
    if "ap" not in v.memo:
        total = v.sum_by_row(v.rel[0], v.rel_precision)
        v.memo["ap"] = np.where(v.num_rel_ret > 0, safe_div(total, v.num_rel_f), 0.0)
    return v.memo["ap"]


@REGISTRATIONS.add(
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
@REGISTRATIONS.add(
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
def k_ap(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_map.c (AP) and m_map_cut.c (AP@k: over R even when R is not reached)."""
    out = np.zeros((len(ms), v.n_rows))
    cut = [i for i, m in enumerate(ms) if m.at is not None]
    if cut:
        table = v.prefix_table(v.rel[0], v.rel_precision)
        sums = v.sum_below(table, v.rel_keys, cutoffs_of([ms[i] for i in cut]))
        out[cut] = np.where(v.num_rel[:, None] > 0, safe_div(sums, v.num_rel_f[:, None]), 0).T
    for i, m in enumerate(ms):
        if m.at is None:
            out[i] = _ap(v)
    return out


@REGISTRATIONS.add(
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
def k_iprec(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    counts = recall_counts(np.array([m.at for m in ms], dtype=np.float64), v.num_rel, ctx.version)
    return v.iprec_at_counts(counts).T


@REGISTRATIONS.add(
    Family(
        "11pt_avg",
        "Mean interpolated precision at the 11 recall levels 0.0 ... 1.0 "
        "(levels turned into counts of relevant documents as trec_eval does).",
        at=None,
        params=(Param("levels", tuple, ELEVEN_LEVELS), REL, JUDGED_ONLY),
    ),
    trec=[TrecSpec("11pt_avg", 18, "dparams", ELEVEN_LEVELS, read=_read_11pt)],
)
def k_11pt(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
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


@REGISTRATIONS.add(
    Family(
        "AP_11pt",
        "11-point interpolated AP as textbooks compute it: at each level, "
        "the best precision at a recall at or above it (seed 000, 'AP alternative 2').",
        at=None,
    )
)
def k_ap_11pt(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """Textbook 11-point AP: at level x, the best precision at recall >= x."""
    levels = np.asarray(ELEVEN_LEVELS)
    counts = np.ceil(levels[None, :] * v.num_rel_f[:, None] - 1e-9).astype(np.int64)
    vals = v.iprec_at_counts(np.maximum(counts, 1))
    total = np.zeros(v.n_rows)
    for j in range(vals.shape[1]):
        total = total + vals[:, j]
    return for_each(np.where(v.num_rel > 0, total / float(levels.size), 0.0), ms)
