"""Every run of the dashboard against a baseline run: per measure, the difference of the
means, the p-value of a paired test (t-test or randomization) corrected across runs, the
effect size and whether the run is significantly better or worse (the statistics are
judgeapp.statistics.significance's)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgeapp.services.live_eval import Snapshot

TESTS = {"t": "paired t-test", "rand": "randomization test"}


@dataclass(frozen=True, slots=True)
class Significance:
    """Every run against the baseline, per table measure (arrays [measure, run]).

    ``p`` holds the p-values of the chosen test after the correction across runs, ``p_raw``
    before it; ``sign`` is +1 (significantly better), -1 (worse) or 0."""

    generation: int
    version: int
    baseline: str
    test: str  # "t" or "rand"
    correction: str
    alpha: float
    measures: tuple[str, ...]
    run_names: tuple[str, ...]
    delta: np.ndarray
    p: np.ndarray
    p_raw: np.ndarray
    p_t: np.ndarray  # corrected t-test p (also shown when the randomization test is chosen)
    effect: np.ndarray
    sign: np.ndarray
    topics: int
    permutations: int

    def describe(self, m: int, r: int) -> str:
        """Tooltip text for one cell."""
        if self.run_names[r] == self.baseline:
            return f"baseline of the significance tests ({TESTS[self.test]})"
        name = TESTS[self.test]
        corr = "" if self.correction == "none" else f", {self.correction}-corrected"
        lines = [
            f"vs {self.baseline}: Δ = {self.delta[m, r]:+.4f} over {self.topics} topics",
            f"{name}{corr}: p = {self.p[m, r]:.4g} (uncorrected {self.p_raw[m, r]:.4g})",
        ]
        if self.test == "rand":
            lines.append(f"paired t-test{corr}: p = {self.p_t[m, r]:.4g}")
            lines.append(f"{self.permutations} sign flips, seeded")
        lines.append(f"effect size (paired d) = {self.effect[m, r]:+.2f}")
        verdict = (
            "significant" if self.sign[m, r] else "not significant"
        ) + f" at p < {self.alpha:g}"
        lines.append(verdict)
        return "\n".join(lines)


def significance(
    snapshot: Snapshot,
    baseline: str,
    *,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 0,
) -> Significance:
    """Compare every run with `baseline` on each table measure's per-topic values
    (judgeapp.statistics.significance: paired t-test, or the seeded randomization test)."""
    from judgeapp.statistics.significance import compare_to_baseline

    if test not in TESTS:
        raise ValueError(f"unknown test {test!r} (t or rand)")
    b = snapshot.run_names.index(baseline)
    n_m, n_r = len(snapshot.measures), len(snapshot.run_names)
    arrays = {k: np.zeros((n_m, n_r)) for k in ("delta", "effect", "sign")}
    arrays.update({k: np.ones((n_m, n_r)) for k in ("p", "p_raw", "p_t")})
    topics = 0
    for i, m in enumerate(snapshot.measures):
        if m.aggregate != "mean" or snapshot.num_topics < 2:
            continue
        c = compare_to_baseline(
            snapshot.per_topic[i],
            snapshot.run_names,
            b,
            measure=str(m),
            permutations=permutations if test == "rand" else 0,
            seed=seed,
            correction=correction,  # type: ignore[arg-type]
        )
        topics = c.topics
        arrays["delta"][i] = c.delta
        arrays["effect"][i] = c.effect_size
        arrays["p_t"][i] = c.p_t_adjusted
        arrays["p"][i] = c.p_rand_adjusted if test == "rand" else c.p_t_adjusted
        arrays["p_raw"][i] = c.p_rand if test == "rand" else c.p_t
        arrays["sign"][i] = np.where(c.significant(alpha, test=test), np.sign(c.delta), 0)
    return Significance(
        generation=snapshot.generation,
        version=snapshot.version,
        baseline=baseline,
        test=test,
        correction=correction,
        alpha=alpha,
        measures=tuple(str(m) for m in snapshot.measures),
        run_names=snapshot.run_names,
        topics=topics,
        permutations=permutations if test == "rand" else 0,
        **arrays,
    )
