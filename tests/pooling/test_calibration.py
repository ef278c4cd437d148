"""Calibrating the curve estimator's intervals (judgeapp.pooling.calibration): levels fitted
from cases whose truth is known are the PIT quantiles of those cases, and intervals read at
them cover as stated on fresh cases of the same kind, whatever the predictive got wrong."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import poisson

from judgeapp.pooling.calibration import (
    ADAPTIVE,
    FOUND_EDGES,
    RATE_EDGES,
    SHARES,
    TAILS,
    Calibration,
    CalibrationCase,
    fit_calibration,
    found_bucket,
    rate_bin,
)
from judgeapp.pooling.estimate import Predictive


def reference_quantile(values, q):
    """The smallest value with at least a fraction q of the values at or below it."""
    ordered = np.sort(values)
    return ordered[max(math.ceil(q * len(ordered) - 1e-9) - 1, 0)]


def cases_at(pits, order="mtf", share=0.25, found=10, size=500):
    return [CalibrationCase(order, order != "blind", share, size, found, float(u)) for u in pits]


def test_found_buckets():
    assert [found_bucket(f) for f in (0, 2, 3, 7, 8, 17, 18, 39, 40, 500)] == [
        0, 0, 1, 1, 2, 2, 3, 3, 4, 4,
    ]  # fmt: skip
    assert FOUND_EDGES[0] == 0


def test_levels_are_the_quantiles_of_the_cases_pits():
    """300 cases in one cell, PITs skewed low (the truth mostly below what the predictive
    expects): the pooled adaptive levels (ADAPTIVE) for tail tau are the tau-quantile of the
    PITs for the lower end, and 1 minus their (1 - tau)-quantile for the upper end; the
    order's own levels are those of its cases with 40 points of the pooled ones, the same
    here but for a little; the neighbouring cells, with no cases of their own, take the same
    (their neighbour's cases, at a quarter weight; the order's, with the same 40 points,
    nearly the same)."""
    rng = np.random.default_rng(1)
    pits = rng.random(300) ** 2
    fitted = fit_calibration(cases_at(pits), "test")
    assert set(fitted.low) == {"mtf", ADAPTIVE}
    share, bucket = SHARES.index(0.25), found_bucket(10)
    rate = rate_bin(10, 125)  # 10 relevant of 125 judged (a quarter of 500)
    for i, tau in enumerate(TAILS):
        low = fitted.low[ADAPTIVE][rate][bucket][share][i]
        high = fitted.high[ADAPTIVE][rate][bucket][share][i]
        assert low == pytest.approx(reference_quantile(pits, tau), rel=1e-3)
        assert high == pytest.approx(1 - reference_quantile(pits, 1 - tau), rel=1e-3)
        assert fitted.low["mtf"][rate][bucket][share][i] == pytest.approx(low, abs=0.01)
        assert fitted.high["mtf"][rate][bucket][share][i] == pytest.approx(high, abs=0.01)
    pooled = fitted.low[ADAPTIVE][rate][bucket]
    assert pooled[share - 1] == pooled[share]
    # the order's neighbouring cell: its neighbour's cases (at a quarter weight) and the 40
    # points of the pooled levels, so a little further from its cases than the cell itself
    near, own = fitted.low["mtf"][rate][bucket][share - 1], fitted.low["mtf"][rate][bucket][share]
    assert near == pytest.approx(own, abs=0.01)
    assert fitted.sizes == (500, 500) and fitted.cases == 300
    i = TAILS.index(0.025)
    assert fitted.levels("mtf", 0.25, 10, 0.025, judged=125) == pytest.approx(
        (fitted.low["mtf"][rate][bucket][share][i], fitted.high["mtf"][rate][bucket][share][i])
    )


def test_calibrated_intervals_cover_as_stated_where_the_model_is_wrong():
    """The model says Poisson(m) relevant documents are left; the truth is Poisson(m / 3)
    (an adaptive order whose runs ran dry): read at the model's own levels, the intervals
    miss low far more than stated; read at levels fitted on 1,500 such cases, fresh cases
    are covered about as stated, on either end apart as well."""
    rng = np.random.default_rng(2)

    def case():
        mean = rng.uniform(2, 30)
        predictive = Predictive(poisson.pmf(np.arange(200), mean))
        return predictive, rng.poisson(mean / 3)

    fit = [case() for _ in range(1500)]
    calibration = fit_calibration(cases_at([p.level(k) for p, k in fit]), "test")
    fresh = [case() for _ in range(2000)]
    for level in (0.8, 0.95):
        tail = (1 - level) / 2
        own = np.mean([p.lower(tail) <= k <= max(p.upper(tail), p.lower(tail)) for p, k in fresh])
        a, c = calibration.levels("mtf", 0.25, 10, tail, judged=125)
        below = np.mean([k < p.lower(a) for p, k in fresh])
        above = np.mean([k > max(p.upper(c), p.lower(a)) for p, k in fresh])
        assert own < level - 0.2
        # 2,000 cases: a tail of 0.1 within 0.025, of 0.025 within 0.012 (three standard
        # errors and a little for the discrete ends)
        margin = 0.025 if level == 0.8 else 0.012
        assert below == pytest.approx(tail, abs=margin)
        assert above == pytest.approx(tail, abs=margin)


def test_a_prior_holds_the_levels_until_the_cases_outweigh_it():
    """A project's own topics move the built-in levels only as far as their number allows:
    ten cases part of the way (with the prior's 40 points, the tenth quantile of 50 values
    is the fifth: 0.037, between the prior's 0.1 and the cases' 0.001), thousands nearly
    all the way."""
    uniform = fit_calibration(cases_at((np.arange(2000) + 0.5) / 2000), "uniform")
    share, bucket, tau = SHARES.index(0.25), found_bucket(10), TAILS.index(0.1)
    rate = rate_bin(10, 125)
    assert uniform.low["mtf"][rate][bucket][share][tau] == pytest.approx(0.1, abs=0.002)
    skewed = lambda n: np.linspace(0, 1, n) ** 3  # noqa: E731  (tenth quantile: 0.001)
    few = fit_calibration(cases_at(skewed(10)), "few", prior=uniform)
    many = fit_calibration(cases_at(skewed(4000)), "many", prior=uniform)
    assert few.low["mtf"][rate][bucket][share][tau] == pytest.approx(0.037, abs=0.001)
    assert many.low["mtf"][rate][bucket][share][tau] < 0.005
    assert few.sizes == (500, 500)


def test_an_order_with_few_cases_keeps_near_the_pooled_adaptive_levels():
    rng = np.random.default_rng(3)
    pooled_pits = rng.random(1000) ** 2
    cases = cases_at(pooled_pits, order="maxmean") + cases_at(rng.random(8), order="hedge")
    fitted = fit_calibration(cases, "test")
    share, bucket, tau = SHARES.index(0.25), found_bucket(10), TAILS.index(0.1)
    rate = rate_bin(10, 125)
    # the hedge cases alone would put the level near 0.1; with 40 pooled points they pull
    # only a little from the pooled (squared-uniform) quantile 0.01
    assert fitted.low["hedge"][rate][bucket][share][tau] < 0.05


def test_what_a_calibration_vouches_for():
    table = [[[[t for t in TAILS] for _ in SHARES] for _ in FOUND_EDGES] for _ in RATE_EDGES]
    calibration = Calibration("t", SHARES, TAILS, {"mtf": table}, {"mtf": table}, (100, 900), 1)
    assert calibration.vouches("mtf", 0.3, 500) == ""
    assert "the cal order" in calibration.vouches("cal", 0.3, 500)
    assert "less than 5%" in calibration.vouches("mtf", 0.04, 500)
    assert "a pool of 1,000 documents (checked: 100 to 900)" in calibration.vouches(
        "mtf", 0.3, 1000
    )
    # beyond the last share the last levels hold; tails interpolate log-log, so that
    # levels that are a power of the tail stay that power between the tails tabled
    squared = [[[[t * t for t in TAILS] for _ in SHARES] for _ in FOUND_EDGES] for _ in RATE_EDGES]
    calibration = Calibration("t", SHARES, TAILS, {"mtf": squared}, {"mtf": table}, (1, 9), 1)
    assert calibration.levels("mtf", 0.95, 3, 0.025, judged=30) == pytest.approx((0.025**2, 0.025))
    assert calibration.levels("mtf", 0.3, 3, 0.0375, judged=30) == pytest.approx(
        (0.0375**2, 0.0375)
    )


def test_levels_follow_the_share_of_judgments_that_were_relevant():
    """Ten relevant found in 125 judgments (8%) and in 25 (40%) fall in different rate bins
    (RATE_EDGES), two apart, so neither's cases reach the other's cell: uniform PITs in the
    first give the nominal level, squared ones in the second a level near the square."""
    rng = np.random.default_rng(5)
    sparse = cases_at(rng.random(1500), size=500)  # 125 judged
    dense = cases_at(rng.random(1500) ** 2, size=100)  # 25 judged
    assert rate_bin(10, 125) + 2 == rate_bin(10, 25)
    fitted = fit_calibration(sparse + dense, "test")
    a_sparse, _ = fitted.levels("mtf", 0.25, 10, 0.1, judged=125)
    a_dense, _ = fitted.levels("mtf", 0.25, 10, 0.1, judged=25)
    assert a_sparse == pytest.approx(0.1, abs=0.02)
    assert a_dense == pytest.approx(0.01, abs=0.005)
    with pytest.raises(ValueError, match="rate bins"):
        fit_calibration(sparse, "other bins", prior=fitted, rate_edges=(0.0, 0.3))


def test_a_tail_scale_reads_every_tail_that_much_wider_and_carries_over_to_a_project():
    """The built-in calibration reads a nominal tail t at t x its tail scale (its levels
    covered a little more than stated over whole collections); a calibration fitted with it
    as the prior keeps the scale."""
    import dataclasses

    rng = np.random.default_rng(6)
    plain_fit = fit_calibration(cases_at(rng.random(2000)), "plain")
    scaled = dataclasses.replace(plain_fit, tail_scale=1.2)
    for tail in (0.025, 0.1):
        assert scaled.levels("mtf", 0.25, 10, tail, judged=125) == pytest.approx(
            plain_fit.levels("mtf", 0.25, 10, tail * 1.2, judged=125)
        )
    assert scaled.levels("cal", 0.25, 10, 0.025, judged=125) == (0.025, 0.025)  # unchecked
    project = fit_calibration(cases_at(rng.random(30)), "project", prior=scaled)
    assert project.tail_scale == 1.2 and plain_fit.tail_scale == 1.0
