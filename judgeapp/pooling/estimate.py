"""How many relevant documents are still missing: estimates with intervals, and when to stop.

Two estimators of a topic's total number of relevant documents:

(a) `sample_estimate`, from a stratified random sample (`sample_topic` draws it, the store
    keeps it as a pool of strategy ``sample`` with each document's inclusion probability and
    stratum). The population is every document the runs retrieve down to a sampling depth
    (the pool and beyond it). Documents already judged when the sample is drawn form a
    certainty stratum (stratum 0, inclusion probability 1); the others are split into strata
    by best rank (1-10, 11-20, 21-40, ... doubling) and each stratum gets an equal share of
    the sample, drawn without replacement, so the inclusion probability n_h/N_h falls with
    rank as in statAP. The Horvitz-Thompson estimate is R0 + sum_h N_h r_h/m_h over the
    m_h sampled documents judged so far in stratum h (a blind judging order keeps a partly
    judged sample random); its variance is the stratified-sampling one,
    sum_h N_h^2 (1 - m_h/N_h) p_h (1 - p_h) / m_h, with p_h = (r_h + 1/2)/(m_h + 1) so that a
    stratum where no relevant document was seen yet still counts as uncertain (with the raw
    share such a stratum would claim zero variance and the interval would be too narrow).
    The interval is normal, clipped to what is certain (relevant documents seen) and to what
    is possible.

(b) `curve_estimate`, from the found-vs-judged curve of any judging order: the chance that
    the t-th judged document is relevant is modelled as logit p(t) = a + b log t (plus
    c (log t)^2 for adaptive orders, whose curves bend as they move between runs), fitted by
    maximum a posteriori with N(0, 2.5^2) priors on the coefficients (a weak prior that keeps
    the fit finite when no relevant document, or only relevant ones, have been seen). Parameter
    draws from the Laplace approximation, each followed by Bernoulli draws for every pooled
    document not judged yet, give the predictive distribution of the relevant documents
    left in the pool; the interval is its central quantiles. For adaptive orders the
    interval is ADAPTIVE_SPREAD times wider about its median (calibrated, see there). This
    estimate covers the pool only (an ordering says nothing about documents no run pooled).

Stopping advice: `knee_advice` (Cormack and Grossman, SIGIR 2016: at the knee s of the gain
curve, stop once the slope ratio (rel_s / s) / ((rel_n - rel_s + 1) / (n - s)) is at least 6
and at least 150 documents were judged; the knee is where the curve lies furthest above the
line from the origin to its end, as in Satopaa et al.'s Kneedle) and `recall_advice`
(relevant found over the upper end of an estimate's interval is a lower confidence bound on
recall; compare it with a target).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judgeapp.pooling.pools import PoolingError, PoolTopic, candidates, subset

DEFAULT_EDGES = (10, 20, 40, 80, 160, 320, 640)  # upper best ranks of strata 1, 2, ...
PRIOR_SD = 2.5
# The curve model describes a blind order exactly; an adaptive order's gain curve bends in
# ways the model's uncertainty understates (95% intervals covered 86-90% at half the pool
# judged). Their intervals are this many times wider about the median: the smallest factor
# of a grid whose intervals reach the stated 95% on half the Robust 2003 topics (601-625),
# checked on the other half (`python benchmarks/estimator_coverage.py --calibrate`). The
# point estimate is not changed.
ADAPTIVE_SPREAD = 1.5


@dataclass(frozen=True, slots=True)
class Estimate:
    """An estimate of a topic's total number of relevant documents."""

    qid: str
    method: str  # "sample" or "curve"
    point: float
    low: float
    high: float
    level: float  # the interval's coverage, e.g. 0.95
    found: int  # relevant documents judged so far (in the estimate's population)
    judged: int  # documents judged so far (in the estimate's population)

    @property
    def missing(self) -> float:
        return max(self.point - self.found, 0.0)

    @property
    def missing_interval(self) -> tuple[float, float]:
        """The interval of the relevant documents not found yet."""
        return max(self.low - self.found, 0.0), max(self.high - self.found, 0.0)


# -- (a) stratified sampling ------------------------------------------------------------------


def strata_of(best_rank: np.ndarray, edges: Sequence[int] = DEFAULT_EDGES) -> np.ndarray:
    """Stratum 1, 2, ... of each best rank (rank <= edges[0] is stratum 1, and so on)."""
    return 1 + np.searchsorted(np.asarray(edges), best_rank, side="left")


def allocate(sizes: np.ndarray, total: int) -> np.ndarray:
    """Split `total` draws equally over strata of the given sizes, none beyond its size
    (what a small stratum cannot take goes to the others)."""
    sizes = np.asarray(sizes, np.int64)
    alloc = np.zeros(len(sizes), np.int64)
    left = min(int(total), int(sizes.sum()))
    while left > 0:
        open_ = np.flatnonzero(alloc < sizes)
        share = max(left // len(open_), 1)
        for i in open_:
            take = min(share, sizes[i] - alloc[i], left)
            alloc[i] += take
            left -= take
            if left == 0:
                break
    return alloc


def sample_topic(
    qid: str,
    runs: Sequence[str],
    run_lists: Sequence[np.ndarray],
    *,
    depth: int,
    size: int,
    judged: np.ndarray | None = None,
    edges: Sequence[int] = DEFAULT_EDGES,
    seed: int = 0,
) -> PoolTopic:
    """A stratified random sample of the documents the runs retrieve down to `depth`.

    Documents in `judged` (ids judged already) are all kept, as stratum 0 with inclusion
    probability 1; `size` more are drawn from the rest, equally over the best-rank strata
    (see the module docstring). Each drawn document records its stratum and its inclusion
    probability n_h / N_h, from which the stratum's size is recovered."""
    if depth < 1:
        raise PoolingError(f"sampling depth must be at least 1, not {depth}")
    e = candidates(run_lists, depth)
    best = e.best_rank
    certain = np.isin(e.doc_ids, judged) if judged is not None else np.zeros(len(e.doc_ids), bool)
    stratum = np.where(certain, 0, strata_of(best, edges))
    labels, sizes = np.unique(stratum[~certain], return_counts=True)
    if len(labels) > size:
        raise PoolingError(
            f"topic {qid}: a sample of {size} cannot cover its {len(labels)} strata; "
            "draw at least one document per stratum"
        )
    alloc = allocate(sizes, size)
    rng = np.random.default_rng(seed)
    chosen = [np.flatnonzero(certain)]
    prob = np.zeros(len(e.doc_ids))
    prob[certain] = 1.0
    for label, n_h, big_n in zip(labels.tolist(), alloc.tolist(), sizes.tolist(), strict=True):
        members = np.flatnonzero(stratum == label)
        picked = rng.choice(members, n_h, replace=False)
        prob[picked] = n_h / big_n
        chosen.append(picked)
    keep = np.sort(np.concatenate(chosen)).astype(np.int64)
    doc_ids, offsets, run_idx, ranks = subset(e, keep)
    return PoolTopic(
        qid,
        tuple(runs),
        doc_ids,
        best[keep],
        offsets,
        run_idx,
        ranks,
        prob[keep],
        stratum[keep].astype(np.int32),
    )


def _relevance(
    topic: PoolTopic, judged: tuple[np.ndarray, np.ndarray], min_grade: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per pooled document: judged?, relevant?"""
    ids, grades = (np.asarray(a) for a in judged)
    order = np.argsort(ids, kind="stable")
    ids, grades = ids[order], grades[order]
    if not len(ids):
        none = np.zeros(len(topic), bool)
        return none, none
    pos = np.minimum(np.searchsorted(ids, topic.doc_ids), len(ids) - 1)
    is_judged = ids[pos] == topic.doc_ids
    return is_judged, is_judged & (grades[pos] >= min_grade)


def sample_estimate(
    topic: PoolTopic,
    judged: tuple[np.ndarray, np.ndarray],
    *,
    min_grade: int = 1,
    level: float = 0.95,
) -> Estimate | None:
    """Horvitz-Thompson estimate of the total relevant documents of a sampled topic, from
    the judgments (doc ids, grades) made so far; None until every sampled stratum has at
    least one judged document."""
    from scipy.stats import norm

    if topic.stratum is None:
        raise PoolingError(f"topic {topic.qid} of this pool is not a sample")
    is_judged, is_rel = _relevance(topic, judged, min_grade)
    certain = topic.stratum == 0
    point = float(is_rel[certain].sum())
    lowest = highest = point
    variance = 0.0
    for h in np.unique(topic.stratum[~certain]).tolist():
        members = topic.stratum == h
        n_h = int(members.sum())
        big_n = round(n_h / float(topic.inclusion_prob[members][0]))
        m = int(is_judged[members].sum())
        if m == 0:
            return None
        r = int(is_rel[members].sum())
        point += big_n * r / m
        smoothed = (r + 0.5) / (m + 1.0)
        variance += big_n**2 * (1.0 - m / big_n) * smoothed * (1.0 - smoothed) / m
        lowest += r
        highest += big_n - (m - r)
    half = float(norm.ppf(0.5 + level / 2.0)) * math.sqrt(variance)
    return Estimate(
        topic.qid,
        "sample",
        point,
        max(point - half, lowest),
        min(point + half, highest),
        level,
        int(is_rel.sum()),
        int(is_judged.sum()),
    )


# -- (b) extrapolating the found-vs-judged curve ----------------------------------------------


def _design(t_log: np.ndarray, degree: int) -> np.ndarray:
    return np.column_stack([t_log**k for k in range(degree + 1)])


def _fit_logistic(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """MAP of logit p = x @ beta with N(0, PRIOR_SD^2) priors; (mean, covariance)."""
    beta = np.zeros(x.shape[1])
    precision = np.eye(x.shape[1]) / PRIOR_SD**2
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        grad = x.T @ (y - p) - precision @ beta
        hess = (x * (p * (1.0 - p))[:, None]).T @ x + precision
        step = np.linalg.solve(hess, grad)
        beta += step
        if np.abs(step).max() < 1e-9:
            break
    p = 1.0 / (1.0 + np.exp(-(x @ beta)))
    hess = (x * (p * (1.0 - p))[:, None]).T @ x + precision
    return beta, np.linalg.inv(hess)


def curve_estimate(
    relevant: Sequence[bool] | np.ndarray,
    pool_size: int,
    *,
    adaptive: bool = True,
    level: float = 0.95,
    qid: str = "",
    draws: int = 2000,
    seed: int = 0,
    spread: float | None = None,
) -> Estimate:
    """Estimate of the relevant documents in a pool of `pool_size` from the relevance of the
    documents judged so far, in judging order (see the module docstring). `adaptive` says
    the order learns from judgments (every order but blind): the model then gets a second
    term, (log t)^2, because such orders change course as runs run dry, and its interval
    is `spread` times wider about its median (ADAPTIVE_SPREAD unless given; 1 for blind)."""
    if spread is None:
        spread = ADAPTIVE_SPREAD if adaptive else 1.0
    y = np.asarray(relevant, dtype=float)
    n = len(y)
    found = int(y.sum())
    rest = pool_size - n
    if rest <= 0:
        return Estimate(qid, "curve", found, found, found, level, found, n)
    degree = 2 if adaptive else 1
    beta, cov = _fit_logistic(_design(np.log(np.arange(1.0, n + 1)), degree), y)
    rng = np.random.default_rng(seed)
    params = rng.multivariate_normal(beta, cov, size=draws)
    future = _design(np.log(np.arange(n + 1.0, pool_size + 1)), degree)
    remaining = np.empty(draws)
    chunk = max(1, 4_000_000 // rest)  # bound the memory of the Bernoulli draws
    for start in range(0, draws, chunk):
        p = 1.0 / (1.0 + np.exp(-(params[start : start + chunk] @ future.T)))
        remaining[start : start + chunk] = (rng.random(p.shape) < p).sum(axis=1)
    low, mid, high = np.quantile(remaining, [0.5 - level / 2.0, 0.5, 0.5 + level / 2.0])
    # the interval widened about its median, within what is possible
    low = max(mid - spread * (mid - low), 0.0)
    high = min(mid + spread * (high - mid), float(rest))
    return Estimate(
        qid,
        "curve",
        found + float(remaining.mean()),
        found + float(low),
        found + float(high),
        level,
        found,
        n,
    )


# -- stopping -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KneeAdvice:
    stop: bool
    knee: int  # judgments up to the knee of the gain curve (0 when there is none yet)
    ratio: float  # slope before the knee over slope after it (+1 smoothed)
    judged: int


def knee_advice(
    relevant: Sequence[bool] | np.ndarray, *, ratio: float = 6.0, min_judged: int = 150
) -> KneeAdvice:
    """Cormack and Grossman's knee method on the gain curve of the judgments so far."""
    found = np.cumsum(np.asarray(relevant, dtype=np.int64))
    n = len(found)
    if n == 0 or found[-1] == 0:
        return KneeAdvice(False, 0, 0.0, n)
    s = np.arange(1, n + 1)
    distance = found / found[-1] - s / n
    knee = int(np.argmax(distance)) + 1
    if knee >= n:
        return KneeAdvice(False, knee, 0.0, n)
    before = found[knee - 1] / knee
    after = (found[-1] - found[knee - 1] + 1) / (n - knee)
    rho = float(before / after)
    return KneeAdvice(rho >= ratio and n >= min_judged, knee, rho, n)


@dataclass(frozen=True, slots=True)
class RecallAdvice:
    recall: float  # relevant found over the point estimate
    recall_low: float  # relevant found over the interval's upper end
    confidence: float  # one-sided confidence of recall_low
    target: float
    reached: bool  # recall_low >= target


def recall_advice(estimate: Estimate, target: float = 0.8) -> RecallAdvice:
    """Whether `target` recall is reached with the one-sided confidence that the upper end
    of `estimate`'s interval gives, (1 + level) / 2."""
    recall = estimate.found / estimate.point if estimate.point > 0 else 1.0
    low = estimate.found / estimate.high if estimate.high > 0 else 1.0
    return RecallAdvice(recall, low, (1.0 + estimate.level) / 2.0, target, low >= target)
