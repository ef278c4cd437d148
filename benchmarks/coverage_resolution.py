"""How finely a coverage target can be checked on the topics there are: issue 17 asks that
95% intervals cover 93-98% and 80% intervals 78-88% "in every order and share of the pool
judged" on held-out topics. A cell of the coverage table holds one case per topic (blind:
three shuffles per topic), so its coverage is a binomial proportion, and even intervals
that are exactly calibrated land outside a band by chance.

    python benchmarks/coverage_resolution.py [benchmarks/results/estimators.md]

Prints, as Markdown:

1. for the cell sizes of the held-out sets, the exact probability that an exactly
   calibrated pair of central intervals (80% inside 95%) covers within both bands, and
   what that makes of "every one of the 12 cells" (6 orders x 2 shares);
2. the curve estimator's cells as measured (read from the by-collection table that
   `estimator_coverage.py` wrote into the results file), held-out Robust (626-650 and
   303-448 together) and held-out classic (Cranfield 101-225, CISI, CACM together): the
   cases, the coverage, whether it is in its band, and the exact two-sided binomial test of
   the coverage against the stated level (scipy). A cell outside its band with a large p is
   what chance alone gives calibrated intervals; a small p is a real miscalibration.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
from scipy import stats

RESULTS = Path(__file__).resolve().parent / "results" / "estimators.md"
BANDS = {0.8: (0.78, 0.88), 0.95: (0.93, 0.98)}
HELD_OUT = {
    "held-out Robust": ("Robust 626-650", "Robust 303-448"),
    "held-out classic": ("Cranfield 101-225", "CISI", "CACM"),
}
ORDERS = ("blind", "rank", "mtf", "hedge", "maxmean", "maxmean-ns")
# the tables print coverage to two decimals: a band's edge is met by what rounds to it
_HALF = 0.005


def in_band(coverage: float, level: float) -> bool:
    low, high = BANDS[level]
    return low - _HALF <= coverage < high + _HALF


def band_probability(n: int) -> float:
    """P(both coverages in their bands) for n cases of exactly calibrated nested central
    intervals: each case falls inside the 80% interval with probability 0.8, inside the 95%
    one but not the 80% with 0.15, outside both with 0.05 (a trinomial), summed exactly."""
    k95 = np.arange(n + 1)
    p95 = stats.binom.pmf(k95, n, 0.95)
    total = 0.0
    for k, p in zip(k95, p95, strict=True):
        if not in_band(k / n, 0.95) or p == 0:
            continue
        k80 = np.arange(k + 1)
        ok = np.array([in_band(a / n, 0.8) for a in k80])
        total += p * stats.binom.pmf(k80[ok], k, 0.8 / 0.95).sum()
    return float(total)


ROW = re.compile(
    r"^\| (?P<group>[^|]+?) \| (?P<order>[a-z-]+) \| (?P<share>\d+)% \| (?P<n>\d+) "
    r"\| (?P<c80>[\d.]+) \([\d.]+\) \| (?P<c95>[\d.]+) \([\d.]+\) \|"
)


def measured_cells(text: str) -> dict[tuple[str, str, int], tuple[int, int, int]]:
    """(set, order, share %) -> (cases, covered at 80%, covered at 95%), the by-collection
    rows of the held-out groups added up (each row's count is its coverage x cases)."""
    cells: dict[tuple[str, str, int], tuple[int, int, int]] = {}
    for line in text.splitlines():
        m = ROW.match(line)
        if not m or m["order"] not in ORDERS:
            continue
        for name, groups in HELD_OUT.items():
            if m["group"] in groups:
                n = int(m["n"])
                key = (name, m["order"], int(m["share"]))
                a, b, c = cells.get(key, (0, 0, 0))
                cells[key] = (
                    a + n,
                    b + round(float(m["c80"]) * n),
                    c + round(float(m["c95"]) * n),
                )
    return cells


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else RESULTS
    cells = measured_cells(path.read_text())
    if not cells:
        sys.exit(f"{path}: no by-collection coverage table found")
    robust_sizes = sorted({n for (s, _, _), (n, _, _) in cells.items() if s == "held-out Robust"})
    print("## Chance alone: exactly calibrated intervals against the bands\n")
    print("| cases in the cell | P(80% and 95% coverage both in band) |")
    print("|---:|---:|")
    probs = {}
    for n in sorted({25, 50, *robust_sizes}):
        probs[n] = band_probability(n)
        print(f"| {n} | {probs[n]:.3f} |")
    sizes = [cells["held-out Robust", o, s][0] for o in ORDERS for s in (25, 50)]
    p_all = float(np.prod([probs[n] for n in sizes]))
    expected = sum(probs[n] for n in sizes)
    print(
        f"\nHeld-out Robust, 12 cells of {', '.join(map(str, sorted(set(sizes))))} cases: an "
        f"exactly calibrated estimator meets both bands in all 12 with probability {p_all:.4f}, "
        f"and in {expected:.1f} of them on average.\n"
    )
    print("## The curve estimator's cells, measured\n")
    print(
        "| topics | order | judged | cases | 80% covers | in band | p (vs 0.80) "
        "| 95% covers | in band | p (vs 0.95) |"
    )
    print("|---|---|---:|---:|---:|---|---:|---:|---|---:|")
    for name in HELD_OUT:
        for order in ORDERS:
            for share in (25, 50):
                n, k80, k95 = cells[name, order, share]
                parts = []
                for k, level in ((k80, 0.8), (k95, 0.95)):
                    p = stats.binomtest(k, n, level).pvalue
                    ok = "yes" if in_band(k / n, level) else "**no**"
                    parts.append(f"{k / n:.2f} | {ok} | {p:.3f}")
                print(f"| {name} | {order} | {share}% | {n} | {' | '.join(parts)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
