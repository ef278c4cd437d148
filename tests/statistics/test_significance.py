"""Paired tests, corrections and effect size of judgeapp.statistics.significance."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from judgeapp.statistics.significance import (
    adjust,
    cohens_d_paired,
    compare_to_baseline,
    paired_t_test,
    randomization_test,
)


def exact_sign_flip_p(diff: np.ndarray) -> float:
    """Two-sided p of the sign-flip test over all 2^n assignments."""
    observed = abs(diff.mean())
    hits = 0
    for signs in itertools.product((-1, 1), repeat=diff.size):
        if abs((np.array(signs) * diff).mean()) >= observed - 1e-12:
            hits += 1
    return hits / 2**diff.size


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_randomization_matches_exact_enumeration(seed):
    rng = np.random.default_rng(seed)
    base = rng.random(10)
    runs = np.vstack([base + rng.normal(shift, 0.1, 10) for shift in (0.0, 0.05, 0.2)])
    p = randomization_test(base, runs, permutations=50_000, seed=seed)
    for row, value in zip(runs, p, strict=True):
        assert value == pytest.approx(exact_sign_flip_p(row - base), abs=0.01)


def test_randomization_is_seeded():
    rng = np.random.default_rng(3)
    base, runs = rng.random(30), rng.random((2, 30))
    a = randomization_test(base, runs, permutations=2000, seed=7)
    assert np.array_equal(a, randomization_test(base, runs, permutations=2000, seed=7))
    assert not np.array_equal(a, randomization_test(base, runs, permutations=2000, seed=8))
    assert np.all(a >= 1 / 2001) and np.all(a <= 1)


def test_t_test_against_the_formula():
    rng = np.random.default_rng(4)
    base = rng.random(25)
    runs = np.vstack([base + rng.normal(0.03, 0.1, 25), base - 0.01 + rng.normal(0, 0.05, 25)])
    t, p = paired_t_test(base, runs)
    for k in range(2):
        d = runs[k] - base
        t_formula = d.mean() / (d.std(ddof=1) / math.sqrt(d.size))
        assert t[k] == pytest.approx(t_formula)
        assert p[k] == pytest.approx(2 * stats.t.sf(abs(t_formula), d.size - 1))


def test_identical_runs():
    base = np.array([0.1, 0.5, 0.3, 0.9])
    t, p = paired_t_test(base, base[None, :])
    assert (t[0], p[0]) == (0.0, 1.0)
    assert randomization_test(base, base[None, :], permutations=500)[0] == 1.0
    assert cohens_d_paired(base, base[None, :])[0] == 0.0


def test_corrections():
    p = np.array([0.01, 0.04, 0.03, 0.5])
    assert adjust(p, "bonferroni").tolist() == pytest.approx([0.04, 0.16, 0.12, 1.0])
    # Holm: sorted 0.01*4, 0.03*3, 0.04*2, 0.5*1, made monotone
    assert adjust(p, "holm").tolist() == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert adjust(p, "none").tolist() == p.tolist()
    with pytest.raises(ValueError, match="unknown correction"):
        adjust(p, "fisher")


def test_cohens_d_is_mean_over_sd_of_differences():
    base = np.array([0.2, 0.4, 0.6, 0.8, 0.5])
    run = np.array([0.3, 0.45, 0.7, 0.85, 0.5])
    d = run - base
    assert cohens_d_paired(base, run[None, :])[0] == pytest.approx(d.mean() / d.std(ddof=1))


def test_compare_to_baseline():
    rng = np.random.default_rng(6)
    values = rng.random((4, 40))
    values[2] = values[0] + 0.2
    values[3, 5] = np.nan  # topic 5 not evaluated for run 3: left out for everyone
    c = compare_to_baseline(
        values, ["a", "b", "c", "d"], 0, measure="AP", permutations=5000, seed=1
    )
    assert c.topics == 39
    kept = np.delete(values, 5, axis=1)
    total = np.zeros(4)
    for t in range(kept.shape[1]):
        total += kept[:, t]
    assert c.mean.tolist() == (total / 39).tolist()
    assert c.delta[0] == 0 and c.p_t[0] == 1 and c.p_rand_adjusted[0] == 1
    assert c.delta[2] == pytest.approx(0.2)
    assert c.significant(0.05).tolist() == [False, False, True, False]
    # Holm across the three runs compared with the baseline, the baseline left out
    assert c.p_rand_adjusted[1:].tolist() == adjust(c.p_rand[1:], "holm").tolist()
    assert c.p_t_adjusted[1:].tolist() == adjust(c.p_t[1:], "holm").tolist()
