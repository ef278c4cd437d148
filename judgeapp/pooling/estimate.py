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
    judged sample random). Its interval is not a normal one about the estimate (with a few
    judged documents per stratum, most of them non-relevant, that covered 95-99% at a stated
    80%): each stratum's share of relevant documents gets a posterior from its r_h relevant
    of m_h judged under a mixture of two Beta priors (SAMPLE_PRIOR: mostly one whose mean is
    small, as most strata hold few relevant documents, partly a broader one, so that a rich
    stratum is not pulled down), so its N_h - m_h unjudged documents hold a mixture of
    beta-binomial numbers of relevant ones (each judged document counting SAMPLE_WEIGHT,
    see there); the
    distribution of the total over the strata, a convolution, is exact, and the
    interval is its central part (mid-p, see `_central`), so it is skewed where the counts
    are small and never leaves what is certain or possible.

(b) `fit_curve` / `curve_estimate`, from the found-vs-judged curve of a judging order (the
    relevance of the pooled documents judged so far, in the order judged). A random order
    (blind) leaves a random part of the pool unjudged: the relevant documents left follow
    the beta-binomial under Jeffreys' prior (BLIND_PRIOR), exactly. For an adaptive order
    the chance that the t-th judged document is relevant is modelled as logit p(t) = a + b u
    + c u^2, u = log t / log(pool size), fitted by maximum a posteriori with N(0, 2.5^2)
    priors (a weak prior that keeps the fit finite when nothing, or everything, judged was
    relevant); the extrapolated log-odds also get a random discrepancy that grows with the
    distance extrapolated and a random offset that does not (DRIFT_*, see there): such
    curves fall off faster than the model says, by an amount that varies from topic to
    topic. Parameter draws from the Laplace approximation (CURVE_DRAWS), each summed over
    the judgments still to come (`_future`'s quadrature), and binomial draws around them
    give the predictive distribution of the relevant documents left (`Predictive`).
    Its ends are read by mid-p at levels calibrated on topics with known truth, per order,
    share judged and relevant found (judgeapp.pooling.calibration; the built-in table, or
    a project's own topics judged whole). Where the calibration cannot vouch (an order,
    pool size or share it has no cases of; an adaptive order with fewer than MIN_FOUND
    relevant found) the estimate says so (`Estimate.calibrated`, `note`) and its interval
    is conservative: from nothing left to at least the beta-binomial bound as if the
    documents left were as likely relevant as those judged. This estimate covers the pool
    only (an ordering says nothing about documents no run pooled). How it was checked:
    docs/estimators.md.

Stopping advice: `CurveFit.stop_advice`, a rule with a stated guarantee (stop once found /
(found + U) >= the target recall, U the calibrated one-sided bound on the relevant left,
with a margin for being checked again and again: STOP_TAIL; on the topics it was checked
on, at least the stated share of topics stopped at the target recall or more); and, kept
for callers of before, `knee_advice` (Cormack and Grossman, SIGIR 2016: at the knee s of the
gain curve, stop once the slope ratio (rel_s / s) / ((rel_n - rel_s + 1) / (n - s)) is at
least 6 and at least 150 documents were judged; the knee is where the curve lies furthest
above the line from the origin to its end, as in Satopaa et al.'s Kneedle) and
`recall_advice` (relevant found over the upper end of an estimate's interval).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judgeapp.pooling.calibration import ADAPTIVE, Calibration, builtin_calibration
from judgeapp.pooling.candidates import PoolingError, PoolTopic, candidates, subset

DEFAULT_EDGES = (10, 20, 40, 80, 160, 320, 640)  # upper best ranks of strata 1, 2, ...
PRIOR_SD = 2.5
# The sampling estimator's prior on each stratum's share of relevant documents, a mixture of
# Beta(a, b) components given as (weight, a, b): most strata of a pool hold few relevant
# documents, and a stratum where none was seen yet should not claim as many as Jeffreys'
# Beta(1/2, 1/2) would (the normal interval this replaces covered 95-99% at a stated 80%),
# hence the first component, Beta(0.2, 4) (chosen on Robust 2003 topics 601-625 alone, with
# judged documents counting 0.7). Alone, it pulled rich strata down: on CISI, whose topics
# have many relevant documents, 80% intervals covered 72-80%, while on Cranfield 1-100 they
# covered 89-92%. The second, broader component lets a stratum whose judgments show many
# relevant documents follow them (the posterior moves its weight there), and judged
# documents count fully (SAMPLE_WEIGHT). Chosen on Robust 601-625 and Cranfield 1-100
# (`python benchmarks/estimator_coverage.py --calibrate sample`): the only mixture of the
# grid whose 80% and 95% intervals covered within the target bands (78-88%, 93-98%) in
# every scenario of both; checked on the others (benchmarks/results/estimators.md).
SAMPLE_PRIOR = ((0.8, 0.2, 4.0), (0.2, 1.0, 3.0))
SAMPLE_WEIGHT = 1.0
# An adaptive order's gain curve falls off faster, and less predictably, than the fitted
# curve says once the runs it favoured run dry: fitted to a quarter of a Robust 2003 pool the
# curve over-predicted the relevant documents left by a factor of about e^0.9 (median), and
# by about the same on the classic collections. So the log-odds of every document still to
# judge get a discrepancy (DRIFT_MEAN + DRIFT_SD z) (DRIFT_LEAD + log(t / n)) + DRIFT_SHIFT z',
# z, z' ~ N(0, 1) per draw: the first part grows with how far the curve is extrapolated (t
# judgments from n), the second does not. Without the second, the predictive of a topic
# half judged was too sure of small counts (80% intervals such as [1, 5] when nothing was
# left, or [0, 1] when two were: 80% intervals covered 0.77 of the tuning cases at half the
# pool, 95% ones 0.98). The four numbers come from Robust 2003 topics 601-625 at a quarter
# and half of the pool judged (`--calibrate curve`): of the drifts whose intervals still
# narrow as judgments accumulate, the five with the best mean log predictive score of the
# relevant documents left (their scores differ by less than the Monte Carlo noise), and of
# those the one whose coverage is nearest the middle of the target bands. A blind order
# needs none (its curve is flat in expectation, and the model covers it).
DRIFT_MEAN = -0.9
DRIFT_SD = 0.65
DRIFT_LEAD = 0.3
DRIFT_SHIFT = 0.5


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
    # whether the interval is vouched for (calibrated, or exact by design); when not, it is
    # the conservative one and `note` says why
    calibrated: bool = True
    note: str = ""  # what the interval was calibrated on, or why it could not be
    advice: StopAdvice | None = None  # whether the topic may stop (curve estimates, if asked)

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


def stratum_sizes(topic: PoolTopic) -> dict[int, int]:
    """Each drawn stratum's size N_h when the sample was drawn, as its inclusion
    probability n_h / N_h implies (the certainty stratum 0 left out)."""
    assert topic.stratum is not None
    sizes: dict[int, int] = {}
    for h in np.unique(topic.stratum[topic.stratum != 0]).tolist():
        members = topic.stratum == h
        sizes[h] = round(int(members.sum()) / float(topic.inclusion_prob[members][0]))
    return sizes


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
    prior: Sequence[tuple[float, float, float]] = SAMPLE_PRIOR,
    weight: float = SAMPLE_WEIGHT,
) -> Estimate | None:
    """Horvitz-Thompson estimate of the total relevant documents of a sampled topic, from
    the judgments (doc ids, grades) made so far; None until every sampled stratum has at
    least one judged document. The interval is the central `level` of the exact predictive
    distribution of the total (see the module docstring)."""
    parts = sample_predictive(topic, judged, min_grade=min_grade, prior=prior, weight=weight)
    if parts is None:
        return None
    point, seen, unseen = parts
    is_judged, is_rel = _relevance(topic, judged, min_grade)
    low, high = _central(unseen, level)
    # the design-unbiased point estimate stays inside its interval
    return Estimate(
        topic.qid,
        "sample",
        point,
        float(min(seen + low, point)),
        float(max(seen + high, point)),
        level,
        int(is_rel.sum()),
        int(is_judged.sum()),
    )


def sample_predictive(
    topic: PoolTopic,
    judged: tuple[np.ndarray, np.ndarray],
    *,
    min_grade: int = 1,
    prior: Sequence[tuple[float, float, float]] = SAMPLE_PRIOR,
    weight: float = SAMPLE_WEIGHT,
) -> tuple[float, int, np.ndarray] | None:
    """(Horvitz-Thompson estimate, relevant documents judged, distribution of the relevant
    documents not judged over 0, 1, ...) of a sampled topic; None while a stratum has no
    judged document. Each stratum's unjudged documents hold a number of relevant ones
    distributed as a mixture of beta-binomials: its share's posterior under the mixture of
    Beta components `prior` ((weight, a, b), ...), each judged document counting `weight`;
    the strata are independent, so the distribution of their sum is the convolution of
    these, exactly."""
    from scipy.special import betaln
    from scipy.stats import betabinom

    if topic.stratum is None:
        raise PoolingError(f"topic {topic.qid} of this pool is not a sample")
    is_judged, is_rel = _relevance(topic, judged, min_grade)
    certain = topic.stratum == 0
    point = float(is_rel[certain].sum())
    seen = int(point)
    unseen = np.ones(1)
    for h, big_n in stratum_sizes(topic).items():
        members = topic.stratum == h
        m = int(is_judged[members].sum())
        if m == 0:
            return None
        r = int(is_rel[members].sum())
        point += big_n * r / m
        seen += r
        rest = big_n - m
        if rest > 0:
            rel, non = weight * r, weight * (m - r)
            # each component's posterior weight: its prior weight times the marginal
            # likelihood of the (weighted) judgments, B(a + rel, b + non) / B(a, b)
            log_w = np.array(
                [math.log(c) + betaln(a + rel, b + non) - betaln(a, b) for c, a, b in prior]
            )
            post = np.exp(log_w - log_w.max())
            post /= post.sum()
            k = np.arange(rest + 1)
            share = sum(
                pw * betabinom.pmf(k, rest, a + rel, b + non)
                for pw, (_, a, b) in zip(post, prior, strict=True)
            )
            unseen = np.convolve(unseen, share)
    return point, seen, unseen


def _central(pmf: np.ndarray, level: float) -> tuple[int, int]:
    """The central `level` interval of a distribution over 0, 1, ..., len(pmf) - 1, by mid-p
    (an end value counts half inside): with counts this small, intervals whose ends hold
    their full mass are much wider than stated (a 80% interval of a count that is 0 with
    probability 0.85 would be [0, 0] and hold 85%, one more and it holds 97%)."""
    pmf = pmf / pmf.sum()
    tail = (1.0 - level) / 2.0
    cdf = np.cumsum(pmf)
    below = cdf - pmf / 2.0  # P(X < k) + P(X = k) / 2
    above = 1.0 - cdf + pmf / 2.0  # P(X > k) + P(X = k) / 2
    low = int(np.argmax(below > tail))
    high = len(pmf) - 1 - int(np.argmax(above[::-1] > tail))
    return low, max(low, high)


# -- (b) extrapolating the found-vs-judged curve ----------------------------------------------

CURVE_DRAWS = 1000  # parameter draws of the adaptive model
COUNT_DRAWS = 4  # binomial draws of the relevant documents left per parameter draw
# a random order: Jeffreys' prior on the pool's share of relevant documents
BLIND_PRIOR = (0.5, 0.5)
# fewer relevant documents found than this, and an adaptive order's curve says nothing of
# where the relevant documents lie: the conservative interval is shown instead
MIN_FOUND = 1
# the stopping rule's bound on the relevant documents left is one-sided at confidence
# 1 - (1 - C) x STOP_TAIL: the rule is checked again and again as judging goes on, and each
# check is a chance to cross the bound early by chance, so a bound at C itself stops too
# many topics short of the target (on the fit topics, 80% recall at 95% confidence was
# reached in as few as 79% of a collection's topics with a bound at 95%, 88% at 97.5%).
# Chosen on the fit topics: of 1, 0.5, 0.25, 0.1, 0.05 and 0.02, the largest with which
# every order reached the target R in at least C of the topics of every collection and
# depth (`python benchmarks/estimator_coverage.py --calibrate stop`, R = 0.8, C = 0.95), and
# at the other targets checked (`--stop-targets R:C:margin --on-fit-topics`: 0.9 at 0.9,
# 0.7 at 0.95; docs/estimators.md). With the calibration refitted (neighbours a quarter per
# step) 0.05 fell short on the fit topics (0.949 at 0.8/0.95, CISI at depth 100; 0.923 at
# 0.7/0.95, CACM at depth 100), 0.02 did not (lowest 0.974, 0.961, 0.962)
STOP_TAIL = 0.02
# the stopping advice's target recall and confidence unless the project says otherwise
STOP_TARGET = 0.8
STOP_CONFIDENCE = 0.95


class Predictive:
    """A distribution of the relevant documents not judged yet, over 0, 1, ..., rest.

    Its ends are read by mid-p: a count k is at M(k) = P(X < k) + P(X = k) / 2, the level
    a count of probability P(k) sits at when it counts half inside; with counts this small,
    ends that hold their whole probability cover much more than stated (a count that is 0
    with probability 0.85 would make [0, 0] an 80% interval holding 85%)."""

    __slots__ = ("mid", "pmf")

    def __init__(self, pmf: np.ndarray) -> None:
        pmf = np.asarray(pmf, dtype=float)
        self.pmf = pmf / pmf.sum()
        self.mid = np.cumsum(self.pmf) - self.pmf / 2.0

    @classmethod
    def from_draws(cls, draws: np.ndarray, rest: int) -> Predictive:
        return cls(np.bincount(np.asarray(draws, np.int64), minlength=rest + 1)[: rest + 1])

    @property
    def rest(self) -> int:
        return len(self.pmf) - 1

    @property
    def mean(self) -> float:
        return float(self.pmf @ np.arange(len(self.pmf)))

    def lower(self, a: float) -> int:
        """The lowest count k with M(k) > a (the rest when none)."""
        return min(int(np.searchsorted(self.mid, a, side="right")), self.rest)

    def upper(self, c: float) -> int:
        """The highest count k with M(k) < 1 - c (0 when none)."""
        return max(int(np.searchsorted(self.mid, 1.0 - c, side="left")) - 1, 0)

    def level(self, k: int) -> float:
        """M(k): where a count k sits in this distribution (its mid-p PIT)."""
        return float(self.mid[min(max(int(k), 0), self.rest)])


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


def _future(judged: int, pool_size: int, nodes: int = 64, head: int = 16) -> tuple:
    """Judgments t still to come, judged + 1 ... pool_size, as quadrature nodes and weights:
    every one while there are few, else the first `head` and then a geometric grid, each
    node standing for the judgments around it (trapezoids; the weights sum to the count).
    The chance of relevance changes smoothly in log t, so a sum over a few dozen nodes is
    within 0.2% of the sum over every judgment."""
    rest = pool_size - judged
    if rest <= nodes:
        t = np.arange(judged + 1.0, pool_size + 1.0)
        return t, np.ones(len(t))
    first = np.arange(judged + 1.0, judged + head + 1.0)
    tail = np.round(np.geomspace(judged + head, pool_size, nodes - head))
    t = np.unique(np.r_[first, tail])
    gaps = np.diff(t)
    weights = np.zeros(len(t))
    weights[:-1] += gaps / 2.0
    weights[1:] += gaps / 2.0
    weights[[0, -1]] += 0.5
    return t, weights


def curve_draws(
    relevant: np.ndarray,
    pool_size: int,
    *,
    draws: int = CURVE_DRAWS,
    seed: int = 0,
    drift: tuple[float, float, float, float] | None = None,
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """An adaptive order's curve model (module docstring): draws of the relevant documents
    left (COUNT_DRAWS per parameter draw), and (t, weight, mean chance of relevance) at the
    quadrature nodes of the judgments still to come."""
    mean, sd, lead, shift = (
        (DRIFT_MEAN, DRIFT_SD, DRIFT_LEAD, DRIFT_SHIFT) if drift is None else drift
    )
    y = np.asarray(relevant, dtype=float)
    n = len(y)
    rest = pool_size - n
    # u = log t / log(pool size), in [0, 1]: the prior then means the same in every pool
    scale = math.log(max(pool_size, 2))
    beta, cov = _fit_logistic(_design(np.log(np.arange(1.0, n + 1)) / scale, 2), y)
    from scipy.special import expit

    rng = np.random.default_rng(seed)
    params = beta + rng.standard_normal((draws, len(beta))) @ np.linalg.cholesky(cov).T
    t, weight = _future(n, pool_size)
    eta = params @ _design(np.log(t) / scale, 2).T
    eta += (mean + sd * rng.standard_normal(draws))[:, None] * (lead + np.log(t / max(n, 1)))
    eta += (shift * rng.standard_normal(draws))[:, None]
    chance = expit(eta)
    share = np.clip(chance @ weight / rest, 0.0, 1.0)
    counts = rng.binomial(rest, np.repeat(share, COUNT_DRAWS))
    return counts, (t, weight, chance.mean(axis=0))


def curve_predictive(
    relevant: Sequence[bool] | np.ndarray,
    pool_size: int,
    *,
    adaptive: bool = True,
    draws: int = CURVE_DRAWS,
    seed: int = 0,
    drift: tuple[float, float, float, float] | None = None,
) -> tuple[Predictive, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The predictive of the relevant documents left in the pool after the judgments
    `relevant` (in judging order), and the expected chance of relevance of the judgments
    still to come as (t, weight, chance) nodes: the curve model for an adaptive order, the
    beta-binomial for a random one (module docstring). At least one document is left."""
    y = np.asarray(relevant, dtype=bool)
    n, found = len(y), int(y.sum())
    rest = pool_size - n
    if not adaptive:
        from scipy.stats import betabinom

        a, b = BLIND_PRIOR[0] + found, BLIND_PRIOR[1] + n - found
        k = np.arange(rest + 1)
        t = np.arange(n + 1.0, pool_size + 1.0)
        return Predictive(betabinom.pmf(k, rest, a, b)), (
            t,
            np.ones(rest),
            np.full(rest, a / (a + b)),
        )
    counts, rate = curve_draws(y, pool_size, draws=draws, seed=seed, drift=drift)
    return Predictive.from_draws(counts, rest), rate


@dataclass(frozen=True)
class CurveFit:
    """The curve estimator's model of one topic, from which intervals, bounds and stopping
    advice are read (`fit_curve`)."""

    qid: str
    order: str
    adaptive: bool
    pool_size: int  # of the order's curve: the pool without the documents kept apart
    judged: int  # judgments on the order's curve
    found: int  # relevant among them
    predictive: Predictive
    rate: tuple[np.ndarray, np.ndarray, np.ndarray]  # (t, weight, expected chance) to come
    calibration: Calibration | None
    reason: str  # why the calibration does not vouch for this case (empty: it does)
    apart_judged: int = 0  # pooled documents judged outside the order (found by searching)
    apart_found: int = 0  # relevant among them

    @property
    def calibrated(self) -> bool:
        return not self.reason

    @property
    def share(self) -> float:
        return self.judged / self.pool_size if self.pool_size else 1.0

    @property
    def total_found(self) -> int:
        return self.found + self.apart_found

    def bounds(self, tail: float) -> tuple[int, int]:
        """(low, high) of the relevant documents left, each end missing the truth with
        probability `tail`: read at calibrated levels, else conservatively (module
        docstring)."""
        p = self.predictive
        if p.rest == 0:
            return 0, 0
        if self.calibrated:
            a = c = tail
            if self.calibration is not None:
                a, c = self.calibration.levels(
                    self.order, self.share, self.found, tail, judged=self.judged
                )
            low = p.lower(a)
            return low, max(p.upper(c), low)
        # conservative: nothing certain left, and at most as many as if the documents left
        # were as likely relevant as those judged (an order that judges likely documents
        # first leaves fewer), or as the model says, whichever is more
        as_judged, _ = curve_predictive(
            np.r_[np.ones(self.found, bool), np.zeros(self.judged - self.found, bool)],
            self.pool_size,
            adaptive=False,
        )
        return 0, max(as_judged.upper(tail), p.upper(tail), p.lower(tail))

    def interval(self, level: float) -> tuple[int, int]:
        return self.bounds((1.0 - level) / 2.0)

    def upper_bound(self, confidence: float) -> int:
        """At most this many relevant documents left, with one-sided `confidence`."""
        return self.bounds(1.0 - confidence)[1]

    def estimate(self, level: float = 0.95) -> Estimate:
        low, high = self.interval(level)
        # the predictive's mean, held inside the interval shown with it
        point = min(max(self.predictive.mean, float(low)), float(high))
        if self.calibrated:
            note = self.calibration.source if self.calibration is not None else ""
            if not self.adaptive and not note:
                note = "exact for a random order"
        else:
            note = f"uncalibrated: {self.reason}; conservative interval"
        found = self.total_found
        return Estimate(
            self.qid,
            "curve",
            found + point,
            float(found + low),
            float(found + high),
            level,
            found,
            self.judged + self.apart_judged,
            self.calibrated,
            note,
        )

    def expected_more(self, wanted: float) -> int:
        """Judgments expected until `wanted` relevant documents are found in all (the rest
        of the pool if the model never expects that many)."""
        need = wanted - self.total_found
        if need <= 0:
            return 0
        t, weight, chance = self.rate
        cumulative = np.cumsum(chance * weight)
        i = int(np.searchsorted(cumulative, need))
        return int(t[i]) - self.judged if i < len(t) else self.pool_size - self.judged

    def stop_advice(self, target: float = 0.8, confidence: float = 0.95) -> StopAdvice:
        """Whether the topic may stop: stop once found / (found + U) >= target, U the upper
        bound on the relevant left at one-sided confidence 1 - (1 - confidence) STOP_TAIL
        (the conservative bound when the calibration cannot vouch)."""
        bound = self.bounds((1.0 - confidence) * STOP_TAIL)[1]
        total = self.total_found + bound
        recall_low = self.total_found / total if total else 1.0
        stop = recall_low >= target - 1e-12
        more = 0 if stop else self.expected_more(target * total)
        return StopAdvice(
            stop, target, confidence, self.total_found, bound, more, self.calibrated, self.reason
        )


def fit_curve(
    relevant: Sequence[bool] | np.ndarray,
    pool_size: int,
    *,
    order: str | None = None,
    adaptive: bool = True,
    calibration: Calibration | str | None = "built-in",
    qid: str = "",
    draws: int = CURVE_DRAWS,
    seed: int = 0,
    drift: tuple[float, float, float, float] | None = None,
    apart: tuple[int, int] = (0, 0),
) -> CurveFit:
    """The curve estimator's model of a topic from the relevance of its pooled documents
    judged so far in the judging order, oldest first. Judgments of documents the order did
    not lead to (found by searching the pool) say nothing of its curve: give them as
    `apart` = (judged, relevant) and leave them out of `relevant`; they count as judged and
    found. `order` names the judging order (None: an unnamed one, `adaptive` or not);
    `calibration` is the built-in calibration unless given (None: the model's own levels,
    uncalibrated)."""
    if isinstance(calibration, str):
        calibration = builtin_calibration()
    y = np.asarray(relevant, dtype=bool)
    n, found = len(y), int(y.sum())
    size = pool_size - apart[0]
    if n > size:
        raise ValueError(f"{n + apart[0]} judgments of a pool of {pool_size} documents")
    name = order if order is not None else (ADAPTIVE if adaptive else "blind")
    if n == size:
        predictive = Predictive(np.ones(1))
        rate = (np.empty(0), np.empty(0), np.empty(0))
    else:
        predictive, rate = curve_predictive(
            y, size, adaptive=adaptive, draws=draws, seed=seed, drift=drift
        )
    reason = ""
    if calibration is not None and n < size:
        reason = calibration.vouches(name, n / size, size)
        if adaptive and not reason and found < MIN_FOUND:
            reason = f"only {found} relevant found so far"
        if not adaptive:
            reason = ""  # the beta-binomial is exact for a random order: never conservative
            if calibration.vouches(name, n / size, size):
                calibration = None  # its levels do not reach here: the model's own
    return CurveFit(
        qid, name, adaptive, size, n, found, predictive, rate, calibration, reason, *apart
    )


def curve_estimate(
    relevant: Sequence[bool] | np.ndarray,
    pool_size: int,
    *,
    adaptive: bool = True,
    level: float = 0.95,
    qid: str = "",
    draws: int = CURVE_DRAWS,
    seed: int = 0,
    drift: tuple[float, float, float, float] | None = None,
    order: str | None = None,
    calibration: Calibration | str | None = "built-in",
) -> Estimate:
    """Estimate of the relevant documents in a pool of `pool_size` from the relevance of the
    documents judged so far, in judging order (`fit_curve`), with a `level` interval."""
    fit = fit_curve(
        relevant,
        pool_size,
        order=order,
        adaptive=adaptive,
        calibration=calibration,
        qid=qid,
        draws=draws,
        seed=seed,
        drift=drift,
    )
    return fit.estimate(level)


# -- stopping -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StopAdvice:
    """Whether a topic may stop being judged, with a stated guarantee (`CurveFit.stop_advice`)."""

    stop: bool
    target: float  # recall
    confidence: float
    found: int
    bound: int  # at most this many relevant left, at the rule's one-sided confidence
    more: int  # judgments expected still to need before the rule says stop (0: it does)
    calibrated: bool
    reason: str  # why the bound is the conservative one (empty: calibrated)

    @property
    def recall_low(self) -> float:
        total = self.found + self.bound
        return self.found / total if total else 1.0

    def text(self) -> str:
        """One sentence for the user (why the bound is conservative is `reason`)."""
        loose = "" if self.calibrated else " (conservative bound)"
        if self.stop:
            return (
                f"Stop: {self.confidence:.0%} confident that {self.target:.0%} of the relevant "
                f"are found{loose}."
            )
        more = f"about {self.more:,} more judgment{'s' if self.more != 1 else ''}"
        return (
            f"Judge on: {more} until {self.confidence:.0%} confident that {self.target:.0%} "
            f"are found{loose}."
        )


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
