"""Paired significance tests of runs against a baseline, over per-topic values.

- paired t-test: ``scipy.stats.ttest_rel`` (two-sided);
- paired randomization test: the signs of the per-topic differences are flipped at
  random (seeded), ``permutations`` times, all runs at once with one matrix product;
  two-sided p = (1 + #(|mean permuted diff| >= |observed|)) / (1 + permutations);
- correction across the runs compared with one baseline, per measure: Holm (default),
  Bonferroni or none;
- effect size: paired Cohen's d (d_z) = mean of the differences / their standard
  deviation (n - 1); 0 when every difference is 0.

No Qt, no SQL: the dashboard calls :func:`compare_to_baseline` with a (runs x topics) array.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np

Correction = Literal["holm", "bonferroni", "none"]


def paired_t_test(base: np.ndarray, runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """t statistics and two-sided p-values of each row of ``runs`` (k x n) against ``base``
    (n). A run identical to the baseline on every topic gets t = 0, p = 1."""
    from scipy import stats

    diff = runs - base[None, :]
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        # a run that differs by the same amount on every topic: t is infinite, p is 0
        warnings.simplefilter("ignore", RuntimeWarning)
        t, p = stats.ttest_rel(runs, np.broadcast_to(base, runs.shape), axis=1)
    t = np.asarray(t, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    same = np.all(diff == 0, axis=1)
    t[same], p[same] = 0.0, 1.0
    return t, p


def randomization_test(
    base: np.ndarray, runs: np.ndarray, *, permutations: int = 10_000, seed: int = 0
) -> np.ndarray:
    """Two-sided p-values of the paired randomization (sign-flip) test, one per row."""
    diff = runs - base[None, :]
    n = diff.shape[1]
    if n == 0:
        return np.ones(diff.shape[0])
    rng = np.random.default_rng(seed)
    observed = np.abs(diff.mean(axis=1))
    # one set of sign flips shared by every run: (permutations x topics) @ (topics x runs)
    signs = rng.integers(0, 2, size=(permutations, n), dtype=np.int8) * 2 - 1
    permuted = np.abs(signs.astype(np.float64) @ diff.T) / n
    # a tolerance so that exact ties (e.g. identical runs) count as at least as extreme
    extreme = permuted >= observed[None, :] - 1e-12
    return (1.0 + extreme.sum(axis=0)) / (1.0 + permutations)


def adjust(p: np.ndarray, method: Correction = "holm") -> np.ndarray:
    """Family-wise corrected p-values (capped at 1)."""
    p = np.asarray(p, dtype=np.float64)
    m = p.size
    if method == "none" or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    if method == "holm":
        order = np.argsort(p, kind="stable")
        stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
        out = np.empty(m)
        out[order] = np.minimum(stepped, 1.0)
        return out
    raise ValueError(f"unknown correction {method!r} (holm, bonferroni or none)")


def cohens_d_paired(base: np.ndarray, runs: np.ndarray) -> np.ndarray:
    """Paired Cohen's d (d_z) of each row against the baseline."""
    diff = runs - base[None, :]
    if diff.shape[1] < 2:
        return np.zeros(diff.shape[0])
    sd = diff.std(axis=1, ddof=1)
    mean = diff.mean(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        d = mean / sd
    return np.where(sd > 0, d, 0.0)


@dataclass(slots=True)
class Comparison:
    """One measure, every run against the baseline (arrays indexed like ``runs``)."""

    measure: str
    runs: tuple[str, ...]
    baseline: int
    topics: int  # topics compared (evaluated for every run)
    mean: np.ndarray
    delta: np.ndarray  # mean - baseline mean
    effect_size: np.ndarray  # paired Cohen's d
    t: np.ndarray
    p_t: np.ndarray
    p_t_adjusted: np.ndarray
    p_rand: np.ndarray
    p_rand_adjusted: np.ndarray
    correction: Correction
    permutations: int
    seed: int

    def significant(self, alpha: float = 0.05, *, test: str = "rand") -> np.ndarray:
        """Runs whose corrected p-value (randomization by default) is below alpha."""
        p = self.p_rand_adjusted if test == "rand" else self.p_t_adjusted
        out = p < alpha
        out[self.baseline] = False
        return out


def compare_to_baseline(
    values: np.ndarray,
    run_names: tuple[str, ...] | list[str],
    baseline: int,
    *,
    measure: str = "",
    permutations: int = 10_000,
    seed: int = 0,
    correction: Correction = "holm",
) -> Comparison:
    """Compare every run (rows of the runs x topics ``values``) with row ``baseline``.

    Topics with a NaN for any run (not evaluated) are left out. The baseline's own row
    gets delta 0, p = 1 and takes no part in the correction."""
    values = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(values).any(axis=0)
    data = values[:, keep]
    base = data[baseline]
    others = np.array([r for r in range(values.shape[0]) if r != baseline], dtype=np.int64)
    n_runs = values.shape[0]
    t = np.zeros(n_runs)
    p_t = np.ones(n_runs)
    p_rand = np.ones(n_runs)
    if others.size and data.shape[1] >= 2:
        t[others], p_t[others] = paired_t_test(base, data[others])
        p_rand[others] = randomization_test(
            base, data[others], permutations=permutations, seed=seed
        )
    p_t_adj = np.ones(n_runs)
    p_rand_adj = np.ones(n_runs)
    p_t_adj[others] = adjust(p_t[others], correction)
    p_rand_adj[others] = adjust(p_rand[others], correction)
    # topics on axis 0 so numpy adds them in order: the same mean trec_eval prints
    mean = data.T.sum(axis=0) / data.shape[1] if data.shape[1] else np.full(n_runs, np.nan)
    return Comparison(
        measure=measure,
        runs=tuple(run_names),
        baseline=baseline,
        topics=int(data.shape[1]),
        mean=mean,
        delta=mean - mean[baseline],
        effect_size=cohens_d_paired(base, data),
        t=t,
        p_t=p_t,
        p_t_adjusted=p_t_adj,
        p_rand=p_rand,
        p_rand_adjusted=p_rand_adj,
        correction=correction,
        permutations=permutations,
        seed=seed,
    )
