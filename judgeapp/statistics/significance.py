"""Paired significance tests of runs against a baseline, over per-topic values.

- paired t-test: ``scipy.stats.ttest_rel`` (two-sided);
- paired randomization test: the signs of the per-topic differences are flipped at
  random (seeded), ``permutations`` times, all runs at once with one matrix product;
  two-sided p = (1 + #(|mean permuted diff| >= |observed|)) / (1 + permutations);
- Wilcoxon signed-rank test (``scipy.stats.wilcoxon``, zero differences dropped) and the
  sign test (an exact binomial test of the positive differences among the non-zero ones);
- correction across the runs compared with one baseline, per measure: Holm (default),
  Bonferroni, Benjamini-Hochberg (``bh``, false discovery rate) or none;
- effect size: paired Cohen's d (d_z) = mean of the differences / their standard
  deviation (n - 1); 0 when every difference is 0;
- bootstrap confidence intervals (``scipy.stats.bootstrap``, seeded; percentile or BCa) for
  each run's mean, for its mean difference from the baseline and for d_z;
- all pairs at once, Tukey's HSD three ways: ``blocked`` (default; as papers report it:
  a two-way ANOVA with topics as blocks, its residual mean square and (runs-1)(topics-1)
  degrees of freedom in the studentized range), ``randomised`` (Carterette 2012: the
  runs' values are shuffled within each topic, and a pair's p is the share of shuffles whose
  largest difference of run means reaches the pair's), ``oneway`` (``scipy.stats.tukey_hsd``,
  the runs as independent groups: what ranx computes; it ignores that topics are shared).

No Qt, no SQL: the dashboard calls :func:`compare_to_baseline` with a (runs x topics) array.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

Correction = Literal[
    "holm", "bonferroni", "bh", "by", "sidak", "holm-sidak", "hochberg", "hommel", "none"
]
CORRECTIONS: tuple[Correction, ...] = get_args(Correction)
TUKEY = ("blocked", "randomised", "oneway")
Interval = Literal["percentile", "bca"]
TESTS = ("t", "rand", "wilcoxon", "sign")


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
    if method in ("bh", "by"):
        from scipy import stats

        return np.asarray(stats.false_discovery_control(p, method=method), dtype=np.float64)
    if method == "sidak":
        return 1.0 - (1.0 - p) ** m
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    out = np.empty(m)
    if method == "holm-sidak":  # step-down: 1 - (1 - p_(i))^(m - i + 1), made monotone
        out[order] = np.minimum(
            np.maximum.accumulate(1.0 - (1.0 - ranked) ** (m - np.arange(m))), 1
        )
        return out
    if method == "hochberg":  # step-up: (m - i + 1) p_(i), the smallest from the largest down
        stepped = np.minimum.accumulate((ranked * (m - np.arange(m)))[::-1])[::-1]
        out[order] = np.minimum(stepped, 1.0)
        return out
    if method == "hommel":
        out[order] = _hommel(ranked)
        return out
    raise ValueError(f"unknown correction {method!r} ({', '.join(CORRECTIONS)})")


def _hommel(p: np.ndarray) -> np.ndarray:
    """Hommel's adjusted p-values of ascending ``p`` (Wright 1992's procedure: for each
    size j of the closed family, the smallest of j p_(i) / i over its members bounds the
    hypotheses it contains)."""
    m = p.size
    if m < 2:
        return p.copy()
    q = np.full(m, float(np.min(m * p / np.arange(1, m + 1))))
    adj = q.copy()
    for j in range(m - 1, 1, -1):
        head = slice(0, m - j + 1)
        tail = np.arange(m - j + 1, m)
        bound = float(np.min(j * p[tail] / np.arange(2, j + 1)))
        q[head] = np.minimum(j * p[head], bound)
        q[tail] = q[m - j]
        adj = np.maximum(adj, q)
    return np.minimum(np.maximum(adj, p), 1.0)


def wilcoxon_test(base: np.ndarray, runs: np.ndarray) -> np.ndarray:
    """Two-sided p-values of the Wilcoxon signed-rank test of each row against ``base``
    (zero differences dropped; a run equal to the baseline on every topic gets p = 1)."""
    from scipy import stats

    out = np.ones(runs.shape[0])
    for i, row in enumerate(runs):
        diff = row - base
        if np.count_nonzero(diff):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # small samples: exact p
                out[i] = float(stats.wilcoxon(diff, zero_method="wilcox").pvalue)
    return out


def sign_test(base: np.ndarray, runs: np.ndarray) -> np.ndarray:
    """Two-sided p-values of the sign test: an exact binomial test (p = 1/2) of how many of
    the non-zero differences are positive."""
    from scipy import stats

    out = np.ones(runs.shape[0])
    for i, row in enumerate(runs):
        diff = row - base
        n = int(np.count_nonzero(diff))
        if n:
            out[i] = float(stats.binomtest(int(np.count_nonzero(diff > 0)), n, 0.5).pvalue)
    return out


def _bootstrap(
    data: np.ndarray,
    statistic: object,
    *,
    method: Interval,
    confidence: float,
    n_resamples: int,
    seed: int,
) -> np.ndarray:
    """(rows, 2) bootstrap intervals of ``statistic`` over each row (topics resampled)."""
    from scipy import stats

    out = np.empty((data.shape[0], 2))
    for i, row in enumerate(data):
        value = statistic(row[None, :], axis=-1)[0]  # type: ignore[operator]
        if row.size < 2 or np.all(row == row[0]):
            out[i] = (value, value)  # nothing varies: the interval is the point
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy's degenerate-data notes for BCa
            found = stats.bootstrap(
                (row,),
                statistic,
                n_resamples=n_resamples,
                confidence_level=confidence,
                method="BCa" if method == "bca" else "percentile",
                random_state=np.random.default_rng(seed),
                vectorized=True,
                axis=-1,
            ).confidence_interval
        out[i] = (found.low, found.high)
    return out


def _mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis)


def _d_z(x: np.ndarray, axis: int = -1) -> np.ndarray:
    sd = np.std(x, axis=axis, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sd > 0, np.mean(x, axis=axis) / sd, 0.0)


def bootstrap_intervals(
    base: np.ndarray,
    values: np.ndarray,
    *,
    method: Interval = "bca",
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, 2) intervals of each row's mean, of its mean paired difference from
    ``base``, and of d_z (paired Cohen's d), by resampling topics."""
    diff = values - base[None, :]
    opts = {"method": method, "confidence": confidence, "n_resamples": n_resamples, "seed": seed}
    return (
        _bootstrap(values, _mean, **opts),  # type: ignore[arg-type]
        _bootstrap(diff, _mean, **opts),  # type: ignore[arg-type]
        _bootstrap(diff, _d_z, **opts),  # type: ignore[arg-type]
    )


def tukey_hsd(values: np.ndarray) -> np.ndarray:
    """(runs, runs) p-values of Tukey's HSD over all pairs, each run's per-topic values a
    group (``scipy.stats.tukey_hsd``; ranx's test)."""
    from scipy import stats

    if values.shape[0] < 2:
        return np.ones((values.shape[0], values.shape[0]))
    return np.asarray(stats.tukey_hsd(*values).pvalue, dtype=np.float64)


def tukey_blocked(values: np.ndarray) -> np.ndarray:
    """(runs, runs) p-values of Tukey's HSD with topics as blocks: the two-way ANOVA
    (runs x topics, one value per cell) gives the residual mean square MSE on
    (k-1)(n-1) degrees of freedom; a pair's q = |mean_i - mean_j| / sqrt(MSE / n), and
    its p is the studentized range's upper tail (k runs, those degrees of freedom)."""
    from scipy import stats

    k, n = values.shape
    if k < 2 or n < 2:
        return np.ones((k, k))
    grand = values.mean()
    run_means = values.mean(axis=1)
    topic_means = values.mean(axis=0)
    resid = values - run_means[:, None] - topic_means[None, :] + grand
    df = (k - 1) * (n - 1)
    mse = float((resid**2).sum()) / df
    diff = np.abs(run_means[:, None] - run_means[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        q = diff / np.sqrt(mse / n)
    p = np.where(diff == 0, 1.0, 0.0)
    if mse > 0:
        p = np.where(diff == 0, 1.0, stats.studentized_range.sf(q, k, df))
    np.fill_diagonal(p, 1.0)
    return np.asarray(p, dtype=np.float64)


def tukey_randomised(
    values: np.ndarray, *, permutations: int = 10_000, seed: int = 0
) -> np.ndarray:
    """(runs, runs) p-values of Carterette's randomised Tukey HSD: each of ``permutations``
    times, every topic's values are shuffled among the runs (the draws: one
    ``rng.permuted`` of the (topics x runs) table along its rows per shuffle, ``rng =
    numpy.random.default_rng(seed)``); p of a pair = (1 + number of shuffles whose range of
    run means is at least the pair's observed difference) / (1 + permutations)."""
    k, n = values.shape
    if k < 2 or n == 0:
        return np.ones((k, k))
    rng = np.random.default_rng(seed)
    table = values.T.copy()  # topics x runs
    ranges = np.empty(permutations)
    for b in range(permutations):
        means = rng.permuted(table, axis=1).mean(axis=0)
        ranges[b] = means.max() - means.min()
    observed = np.abs(values.mean(axis=1)[:, None] - values.mean(axis=1)[None, :])
    ranges.sort()
    # shuffles at least as extreme, with the same tolerance as the randomization test
    extreme = permutations - np.searchsorted(ranges, observed - 1e-12, side="left")
    p = (1.0 + extreme) / (1.0 + permutations)
    np.fill_diagonal(p, 1.0)
    return p


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
    # optional tests, and bootstrap intervals ((runs, 2); None when not asked for)
    p_wilcoxon: np.ndarray | None = None
    p_wilcoxon_adjusted: np.ndarray | None = None
    p_sign: np.ndarray | None = None
    p_sign_adjusted: np.ndarray | None = None
    ci_mean: np.ndarray | None = None
    ci_delta: np.ndarray | None = None
    ci_effect: np.ndarray | None = None
    ci_method: str = ""
    confidence: float = 0.95
    resamples: int = 0

    def adjusted(self, test: str) -> np.ndarray:
        """Corrected p-values of one test: 't', 'rand', 'wilcoxon' or 'sign'."""
        found = {
            "t": self.p_t_adjusted,
            "rand": self.p_rand_adjusted,
            "wilcoxon": self.p_wilcoxon_adjusted,
            "sign": self.p_sign_adjusted,
        }.get(test)
        if found is None:
            raise ValueError(f"test {test!r} was not run")
        return found

    def significant(self, alpha: float = 0.05, *, test: str = "rand") -> np.ndarray:
        """Runs whose corrected p-value (randomization by default) is below alpha."""
        out = self.adjusted(test) < alpha
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
    tests: tuple[str, ...] = ("t", "rand"),
    bootstrap: int = 0,
    interval: Interval = "bca",
    confidence: float = 0.95,
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
    extra: dict[str, object] = {}
    for name, test in (("wilcoxon", wilcoxon_test), ("sign", sign_test)):
        if name in tests:
            p = np.ones(n_runs)
            if others.size and data.shape[1] >= 1:
                p[others] = test(base, data[others])
            p_adj = np.ones(n_runs)
            p_adj[others] = adjust(p[others], correction)
            extra[f"p_{name}"], extra[f"p_{name}_adjusted"] = p, p_adj
    if bootstrap:
        ci_mean, ci_delta, ci_effect = bootstrap_intervals(
            base, data, method=interval, confidence=confidence, n_resamples=bootstrap, seed=seed
        )
        extra.update(
            ci_mean=ci_mean,
            ci_delta=ci_delta,
            ci_effect=ci_effect,
            ci_method=interval,
            confidence=confidence,
            resamples=bootstrap,
        )
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
        **extra,  # type: ignore[arg-type]
    )


@dataclass(slots=True)
class AllPairs:
    """One measure, every pair of runs: Tukey's HSD p-values (runs x runs)."""

    measure: str
    runs: tuple[str, ...]
    topics: int
    mean: np.ndarray
    p_tukey: np.ndarray
    ci_mean: np.ndarray | None = None
    tukey: str = "blocked"

    def better_than(self, alpha: float = 0.05) -> list[list[int]]:
        """For each run, the runs it is significantly better than (higher mean)."""
        return [
            [
                j
                for j in range(len(self.runs))
                if j != i and self.p_tukey[i, j] < alpha and self.mean[i] > self.mean[j]
            ]
            for i in range(len(self.runs))
        ]


def compare_all_pairs(
    values: np.ndarray,
    run_names: tuple[str, ...] | list[str],
    *,
    measure: str = "",
    bootstrap: int = 0,
    interval: Interval = "bca",
    confidence: float = 0.95,
    seed: int = 0,
    tukey: str = "blocked",
    permutations: int = 10_000,
) -> AllPairs:
    """Tukey's HSD over every pair of runs (rows of ``values``; ``tukey``: blocked,
    randomised or oneway); topics with a NaN for any run are left out."""
    values = np.asarray(values, dtype=np.float64)
    data = values[:, ~np.isnan(values).any(axis=0)]
    mean = data.T.sum(axis=0) / data.shape[1] if data.shape[1] else np.full(len(data), np.nan)
    if tukey == "blocked":
        p = tukey_blocked(data)
    elif tukey == "randomised":
        p = tukey_randomised(data, permutations=permutations, seed=seed)
    elif tukey == "oneway":
        p = tukey_hsd(data)
    else:
        raise ValueError(f"unknown Tukey HSD {tukey!r} ({', '.join(TUKEY)})")
    ci = None
    if bootstrap:
        ci = _bootstrap(
            data, _mean, method=interval, confidence=confidence, n_resamples=bootstrap, seed=seed
        )
    return AllPairs(measure, tuple(run_names), int(data.shape[1]), mean, p, ci, tukey)
