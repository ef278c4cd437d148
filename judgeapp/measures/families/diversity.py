"""Novelty and diversity measures over subtopic judgments, as TREC Web track's ndeval
computes them (what ir_measures calls through pyndeval): alpha-DCG and alpha-nDCG (Clarke
et al. 2008), ERR-IA and nERR-IA (Chapelle et al. 2009), NRBP and nNRBP (Clarke et al.
2009), MAP-IA, P-IA and subtopic recall (Zhai et al. 2003).

Read from ndeval's definitions (not translated): relevance is binary per subtopic (grade >=
rel); only subtopics with a relevant document count (A of them); a document relevant to
subtopic s that already appeared in c earlier documents gains (1 - alpha)^c for s.
alpha-DCG@k and ERR-IA@k are normalised by the "ideal ideal" list (A subtopics covered at
every rank), the n- versions by ndeval's greedy ideal ranking of the judged documents (at
each rank the document of highest gain, ties to the greater docno). ndeval leaves rank 1
unnormalised, and so does this. Topics without subtopic judgments count as one subtopic
(their grades), as in ir_measures.

Diversity judgments come from ``qid subtopic docno grade`` files
(:func:`judgeapp.formats.interop.read_subtopic_qrels`, ``evaluate --subtopics``) or the
Python API (``{qid: {subtopic: {docno: grade}}}``, or ``iteration`` as the subtopic).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judgeapp.measures.batch import BatchView, KernelContext, MeasureArgs
from judgeapp.measures.family import JUDGED_ONLY, REL, Family, Param
from judgeapp.measures.spec import Alias, Registrations

REGISTRATIONS = Registrations()

ALPHA = Param("alpha", float, 0.5, desc="redundancy intolerance")
BETA = Param("beta", float, 0.5, desc="patience")
DEFAULT_ALPHA = 0.5  # ndeval's, for the measures that do not take alpha


@dataclass(slots=True)
class TopicLists:
    """One topic's rows: which subtopics each retrieved document is relevant to."""

    rows: slice
    rel: np.ndarray  # (runs, width, A) 0/1 per rank and counted subtopic
    judged: np.ndarray  # (docs, A) 0/1 of every judged document
    docno_rank: np.ndarray  # (docs,) place in docno order (ideal ties)


def _subtopic_matrix(ctx: KernelContext, qid: str, level: int) -> tuple[np.ndarray, np.ndarray]:
    tj = ctx.judgments.topics[qid]
    sub = ctx.judgments.subtopics.get(qid) if ctx.judgments is not None else None
    if sub is None:
        matrix = (tj.grades >= level)[:, None]
        rank = np.arange(tj.grades.size)
    else:
        matrix = sub.grades >= level
        rank = sub.docno_rank
    counted = matrix.any(axis=0)  # subtopics never judged relevant do not count
    return matrix[:, counted].astype(np.float64), rank


def _topic_lists(v: BatchView, ctx: KernelContext, width: int) -> list[TopicLists]:
    assert ctx.judged_index is not None, "the engine gives diversity kernels the judged index"
    index = ctx.judged_index()
    n_topics = len(ctx.qids)
    n_runs = v.n_rows // max(n_topics, 1)
    out = []
    for t, qid in enumerate(ctx.qids):
        rows = slice(t * n_runs, (t + 1) * n_runs)
        judged, rank = _subtopic_matrix(ctx, qid, v.level)
        idx = index[rows]
        if v.judged_only:  # drop what the qrels do not judge (grade >= 0), as the codes do
            grades = ctx.judgments.topics[qid].grades
            keep = (idx >= 0) & (grades[np.maximum(idx, 0)] >= 0)
            compact = np.full(idx.shape, -1, dtype=np.int64)
            for r in range(idx.shape[0]):
                kept = idx[r][keep[r]]
                compact[r, : kept.size] = kept
            idx = compact
        padded = np.vstack([judged, np.zeros((1, judged.shape[1]))])
        full = np.full((idx.shape[0], max(width, idx.shape[1])), -1, dtype=np.int64)
        full[:, : idx.shape[1]] = idx
        out.append(TopicLists(rows, padded[full], judged, rank))
    return out


def _gains(rel: np.ndarray, alpha: float) -> np.ndarray:
    """(..., ranks): each rank's novelty gain, sum over subtopics of (1-alpha)^(earlier)."""
    earlier = np.cumsum(rel, axis=-2) - rel
    return (rel * (1.0 - alpha) ** earlier).sum(axis=-1)


def _ideal_gains(judged: np.ndarray, rank: np.ndarray, alpha: float) -> np.ndarray:
    """ndeval's greedy ideal ranking, as its sequence of gains (zeros after the last)."""
    weight = np.ones(judged.shape[1])
    placed = np.zeros(judged.shape[0], dtype=bool)
    found = []
    while True:
        current = (judged * weight).sum(axis=1)
        current[placed] = -1.0
        best = current.max(initial=0.0)
        if best <= 0.0:
            break
        tied = np.flatnonzero(current == best)
        pick = tied[np.argmax(rank[tied])]
        placed[pick] = True
        found.append(best)
        weight = np.where(judged[pick] > 0, weight * (1.0 - alpha), weight)
    return np.array(found, dtype=np.float64)


def _discount_dcg(n: int) -> np.ndarray:
    i = np.arange(n, dtype=np.float64)
    return np.where(i > 0, np.log(2.0) / np.log(i + 2.0), 1.0)


def _discount_err(n: int) -> np.ndarray:
    return 1.0 / np.arange(1, n + 1, dtype=np.float64)


def _cumulative(gains: np.ndarray, discount: np.ndarray, n_sub: int, alpha: float) -> np.ndarray:
    """ndeval's normalised cumulative values: summed gain x discount over the "ideal
    ideal" (n_sub at rank 1, times (1-alpha) per rank), rank 1 left as it is."""
    n = gains.shape[-1]
    cum = np.cumsum(gains * discount[:n], axis=-1)
    ideal_ideal = np.cumsum(n_sub * (1.0 - alpha) ** np.arange(n) * discount[:n])
    out = cum.copy()
    out[..., 1:] = cum[..., 1:] / ideal_ideal[1:]
    return out


def _at(values: np.ndarray, k: int) -> np.ndarray:
    return values[..., k - 1]


def _cutoffs(ms: Sequence[MeasureArgs]) -> int:
    return max((int(m.at) for m in ms if m.at is not None), default=1)


def _normalised(
    v: BatchView, ctx: KernelContext, ms: Sequence[MeasureArgs], discount: str, alpha_of: str | None
) -> tuple[np.ndarray, np.ndarray]:
    """(len(ms), rows) of the ideal-ideal-normalised value and of the value over the greedy
    ideal's, for alpha-(n)DCG (discount 'dcg') or (n)ERR-IA ('err')."""
    plain = np.zeros((len(ms), v.n_rows))
    normal = np.zeros((len(ms), v.n_rows))
    width = _cutoffs(ms)
    disc = (_discount_dcg if discount == "dcg" else _discount_err)(width)
    dcg_disc = _discount_dcg(width)
    for topic in _topic_lists(v, ctx, width):
        n_sub = topic.judged.shape[1]
        if n_sub == 0:
            continue
        for i, m in enumerate(ms):
            alpha = m[alpha_of] if alpha_of else DEFAULT_ALPHA
            k = int(m.at or 1)
            gains = _gains(topic.rel[:, :width], alpha)
            ideal = np.zeros(width)
            found = _ideal_gains(topic.judged, topic.docno_rank, alpha)[:width]
            ideal[: found.size] = found
            run_v = _at(_cumulative(gains, disc, n_sub, alpha), k)
            ideal_v = _at(_cumulative(ideal, disc, n_sub, alpha), k)
            # ndeval divides only where the run's alpha-DCG is not 0
            dcg_v = _at(_cumulative(gains, dcg_disc, n_sub, alpha), k)
            plain[i, topic.rows] = run_v
            with np.errstate(divide="ignore", invalid="ignore"):
                normal[i, topic.rows] = np.where(dcg_v != 0, run_v / ideal_v, 0.0)
    return plain, normal


def _family(name: str, description: str, params: tuple[Param, ...], cutoff: bool) -> Family:
    return Family(
        name,
        description + " (diversity; ndeval's definition).",
        at="cutoff" if cutoff else None,
        at_required=cutoff,
        params=params,
    )


@REGISTRATIONS.add(
    _family(
        "alpha_DCG", "alpha-DCG@k over the 'ideal ideal' list", (REL, ALPHA, JUDGED_ONLY), True
    ),
)
def k_alpha_dcg(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return _normalised(v, ctx, ms, "dcg", "alpha")[0]


@REGISTRATIONS.add(
    _family(
        "alpha_nDCG",
        "alpha-nDCG@k: alpha-DCG over the greedy ideal's",
        (REL, ALPHA, JUDGED_ONLY),
        True,
    ),
)
def k_alpha_ndcg(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return _normalised(v, ctx, ms, "dcg", "alpha")[1]


@REGISTRATIONS.add(
    _family("ERR_IA", "Intent-aware ERR@k over the 'ideal ideal' list", (REL, JUDGED_ONLY), True)
)
def k_err_ia(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return _normalised(v, ctx, ms, "err", None)[0]


@REGISTRATIONS.add(
    _family("nERR_IA", "Intent-aware ERR@k over the greedy ideal's", (REL, JUDGED_ONLY), True)
)
def k_nerr_ia(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return _normalised(v, ctx, ms, "err", None)[1]


def _nrbp(gains: np.ndarray, alpha: float, beta: float, n_sub: int) -> np.ndarray:
    decay = np.ones(gains.shape[-1])
    decay[1:] = np.cumprod(np.full(gains.shape[-1] - 1, beta))
    total = (
        np.cumsum(gains * decay, axis=-1)[..., -1]
        if gains.shape[-1]
        else np.zeros(gains.shape[:-1])
    )
    return total * (1.0 - (1.0 - alpha) * beta) / n_sub


@REGISTRATIONS.add(_family("NRBP", "Novelty- and rank-biased precision", (REL, ALPHA, BETA), False))
@REGISTRATIONS.add(
    _family("nNRBP", "NRBP over the greedy ideal ranking's", (REL, ALPHA, BETA), False)
)
def k_nrbp(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for topic in _topic_lists(v, ctx, 0):
        n_sub = topic.judged.shape[1]
        if n_sub == 0:
            continue
        for i, m in enumerate(ms):
            alpha, beta = m["alpha"], m["beta"]
            value = _nrbp(_gains(topic.rel, alpha), alpha, beta, n_sub)
            if m.family == "nNRBP":
                ideal = _nrbp(
                    _ideal_gains(topic.judged, topic.docno_rank, alpha), alpha, beta, n_sub
                )
                with np.errstate(divide="ignore", invalid="ignore"):
                    value = np.where(ideal > 0, value / ideal, 0.0)
            out[i, topic.rows] = value
    return out


@REGISTRATIONS.add(
    _family("AP_IA", "Intent-aware AP: AP per subtopic, averaged", (REL, JUDGED_ONLY), False),
    aliases=[Alias("MAP_IA")],
)
def k_ap_ia(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for topic in _topic_lists(v, ctx, 0):
        n_sub = topic.judged.shape[1]
        if n_sub == 0:
            continue
        rel = topic.rel
        found = np.cumsum(rel, axis=1)
        ranks = np.arange(1, rel.shape[1] + 1, dtype=np.float64)[None, :, None]
        per_sub = (
            np.cumsum(np.where(rel > 0, found / ranks, 0.0), axis=1)[:, -1, :]
            if rel.shape[1]
            else np.zeros((rel.shape[0], n_sub))
        )
        value = (per_sub / topic.judged.sum(axis=0)).sum(axis=1) / n_sub
        out[:, topic.rows] = value
    return out


@REGISTRATIONS.add(_family("P_IA", "Intent-aware precision@k", (REL, JUDGED_ONLY), True))
def k_p_ia(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    width = _cutoffs(ms)
    for topic in _topic_lists(v, ctx, width):
        n_sub = topic.judged.shape[1]
        if n_sub == 0:
            continue
        count = np.cumsum(topic.rel[:, :width].sum(axis=2), axis=1)
        for i, m in enumerate(ms):
            k = int(m.at or 1)
            out[i, topic.rows] = count[:, k - 1] / (k * n_sub)
    return out


@REGISTRATIONS.add(
    _family("StRecall", "Subtopic recall@k: share of subtopics covered", (REL,), True)
)
def k_strecall(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    width = _cutoffs(ms)
    for topic in _topic_lists(v, ctx, width):
        n_sub = topic.judged.shape[1]
        if n_sub == 0:
            continue
        seen = np.maximum.accumulate(topic.rel[:, :width], axis=1).sum(axis=2)
        for i, m in enumerate(ms):
            out[i, topic.rows] = seen[:, int(m.at or 1) - 1] / n_sub
    return out
