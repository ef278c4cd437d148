"""Calibrating the curve estimator's intervals on topics whose truth is known.

The curve estimator (`judgeapp.pooling.estimate`) gives a predictive distribution F of the
relevant documents a pool still holds. Where F is right, the truth k falls below its
tau-quantile a fraction tau of the time. On real topics it is not quite right, and how
wrong depends on the judging order and the share of the pool judged. So the estimator
reads its intervals at calibrated levels instead (quantile recalibration, as in conformal
prediction): on topics with known truth, judged in the same order down to the same share,
each case gives the rank of the truth in its own predictive, its mid-p probability
integral transform u = P(X < k) + P(X = k) / 2 (F is discrete; the estimator reads its
ends by mid-p too). A lower end read at level a = the tau-quantile of those u then misses
the truth in about a fraction tau of the cases, whatever F got wrong, as long as the case
at hand is like those cases; the upper end likewise, at the (1 - tau)-quantile. Lower and
upper ends are calibrated apart, so one-sided bounds (for stopping) hold too.

`Calibration` holds those levels per judging order, per share of its judgments that were
relevant (RATE_EDGES), per relevant found (FOUND_EDGES), per share judged (SHARES) and per
tail probability (TAILS), fitted by `fit_calibration` from `CalibrationCase`s; the built-in
one (`judgeapp/pooling/calibration.json`, written by `python
benchmarks/estimator_coverage.py --calibrate curve`) comes from the fit topics of Robust
2003 and three classic collections, and reads every tail a little wider (`tail_scale`,
chosen on the same fit topics so that the collections' coverage lies nearest the middle of
the target bands; docs/estimators.md). A project's own topics judged to the end, or a collection's qrels in
`simulate --check-estimates --fit-topics`, give cases of that collection; fitted with the
built-in calibration as a prior worth PRIOR_CASES cases, they move the levels towards what
that collection shows.

A calibration vouches only for what it was fitted on: orders it has cases of, shares
between its first and last (beyond the last it holds the last), pool sizes in its range;
`Calibration.vouches` says why not otherwise, and the estimator then falls back on a
conservative interval.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np

# the shares of the pool judged at which levels are fitted, the relevant documents found by
# then (bucket i holds FOUND_EDGES[i] up to the next edge), and the tail probabilities
SHARES = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
FOUND_EDGES = (0, 3, 8, 18, 40)
# the share of the order's judgments so far that were relevant (bin i holds RATE_EDGES[i] up
# to the next edge): at the same number found, a topic whose judgments were mostly relevant
# (many relevant documents a topic, CISI) leaves its curve's tail less predictable than one
# where they were few (Cranfield), and the calibration pooled over both left the first
# too narrow and the second too wide (docs/estimators.md)
RATE_EDGES = (0.0, 0.05, 0.1, 0.2)
TAILS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
# cases one step away along any of the three (rate bin, found bucket, share) count this much
# in a cell's fit, per step (the levels change slowly along each; neighbours cut the noise
# of the tails). At 0.5 a cell's own cases were an eighth of its weight ((1 + 2 x 0.5)^3 = 8
# once the rate bins made three dimensions), so the bins hardly told collections apart; at
# 0.25 they are 30% of it. Chosen on the fit topics, split in two (topic numbers 1 and 3
# modulo 4), each half calibrated and checked on the other: of 0, 0.25, 0.35 and 0.5, 0.25
# spread the nine collections and depths least (standard deviation of their 95% coverage
# 0.0086, against 0.0093 and 0.0104; 0 overfits: 0.896-0.939); docs/estimators.md
NEIGHBOUR_WEIGHT = 0.25
# a prior's levels (the pooled adaptive orders' for one order; the built-in calibration's
# for a project's own) join each cell as this many cases
PRIOR_CASES = 40
# fewer cases than this in a cell (neighbours weighted): the cell takes its neighbour's
MIN_CASES = 20
# levels are kept above this (their logarithms are interpolated)
LEAST_LEVEL = 1e-12
ADAPTIVE = "adaptive"  # the key of the adaptive orders pooled (an adaptive order not named)

Table = Sequence[Sequence[Sequence[Sequence[float]]]]  # [rate bin][found bucket][share][tail]


@dataclass(frozen=True, slots=True)
class CalibrationCase:
    """One topic judged in `order` down to `share` of its pool, `found` relevant documents
    found by then, with the truth known: `pit` = P(X < k) + P(X = k) / 2, X the predictive
    of the relevant documents left and k the number actually left."""

    order: str
    adaptive: bool
    share: float
    pool_size: int
    found: int
    pit: float

    @property
    def judged(self) -> int:
        """The judgments made by `share` (as `simulate` counts them)."""
        return min(max(round(self.share * self.pool_size), 1), self.pool_size)


def found_bucket(found: int) -> int:
    return int(np.searchsorted(FOUND_EDGES, found, side="right")) - 1


def rate_bin(found: int, judged: int, edges: Sequence[float] = RATE_EDGES) -> int:
    """The bin of the share of judgments that were relevant (`edges`, from 0)."""
    return int(np.searchsorted(edges, found / max(judged, 1), side="right")) - 1


@dataclass(frozen=True)
class Calibration:
    """Calibrated levels: for each order key, bin of the share of judgments relevant
    (`rate_edges`), found bucket (FOUND_EDGES) and share in `shares`, the PIT level at
    which to read the lower end (`low`) and the tail probability above the upper end
    (`high`), one per nominal tail probability in `tails`."""

    source: str  # what it was fitted on, for the user ("built in: ...", "12 topics of ...")
    shares: tuple[float, ...]
    tails: tuple[float, ...]
    low: Mapping[str, Table]
    high: Mapping[str, Table]
    sizes: tuple[int, int]  # smallest and largest pool of the cases
    cases: int
    rate_edges: tuple[float, ...] = RATE_EDGES
    # every nominal tail is read as tail x this: fitted per cell, the levels still covered
    # a little more than stated over whole collections (the built-in one's choice:
    # benchmarks/estimator_coverage.py --calibrate curve)
    tail_scale: float = 1.0

    def key(self, order: str) -> str | None:
        """The levels an order takes: its own (ADAPTIVE: those pooled over the adaptive
        orders, for an order not named); None for an order it has no cases of (an order
        that learns from other things, text or an automatic judge, may leave what is left
        quite unlike the orders it was checked on)."""
        return order if order in self.low else None

    def vouches(self, order: str, share: float, pool_size: int) -> str:
        """Empty when this calibration covers the case, else why not (for the user)."""
        if self.key(order) is None:
            return f"the {order} order was not among those checked"
        if share < self.shares[0] - 1e-9:
            return f"less than {self.shares[0]:.0%} of the pool judged"
        lo, hi = self.sizes
        if not lo <= pool_size <= hi:
            return f"a pool of {pool_size:,} documents (checked: {lo:,} to {hi:,})"
        return ""

    def levels(
        self, order: str, share: float, found: int, tail: float, *, judged: int
    ) -> tuple[float, float]:
        """(a, c): read the lower end at PIT level a and the upper end at 1 - c, for a
        nominal probability `tail` below the lower end (and above the upper one), after
        `judged` judgments of which `found` were relevant."""
        key = self.key(order)
        if key is None:
            return tail, tail
        tail *= self.tail_scale
        r, b = rate_bin(found, judged, self.rate_edges), found_bucket(found)
        return (
            _interpolate(self.shares, self.tails, self.low[key][r][b], share, tail),
            _interpolate(self.shares, self.tails, self.high[key][r][b], share, tail),
        )


def _interpolate(
    shares: Sequence[float],
    tails: Sequence[float],
    table: Sequence[Sequence[float]],
    share: float,
    tail: float,
) -> float:
    """Linear in the share (held at the ends), log-log in the tail (held at the ends)."""
    grid = np.asarray(table, dtype=float)
    s = min(max(share, shares[0]), shares[-1])
    j = int(np.clip(np.searchsorted(shares, s) - 1, 0, len(shares) - 2))
    w = (s - shares[j]) / (shares[j + 1] - shares[j])
    row = np.log(np.maximum((1 - w) * grid[j] + w * grid[j + 1], LEAST_LEVEL))
    x = math.log(min(max(tail, tails[0]), tails[-1]))
    return float(math.exp(np.interp(x, np.log(tails), row)))


def _weighted_quantile(x: np.ndarray, w: np.ndarray, q: float) -> float:
    """The smallest x whose weighted share at or below it reaches q."""
    order = np.argsort(x, kind="stable")
    x, w = x[order], w[order]
    cum = np.cumsum(w) / w.sum()
    return float(x[min(int(np.searchsorted(cum, q - 1e-12)), len(x) - 1)])


def _cell_levels(
    u: np.ndarray, w: np.ndarray, tails: Sequence[float]
) -> tuple[list[float], list[float]] | None:
    """Lower-end levels and upper-end tails of one cell from its weighted PITs u (None with
    fewer than MIN_CASES effective cases)."""
    n = w.sum() ** 2 / (w**2).sum() if len(w) else 0.0
    if n < MIN_CASES:
        return None
    low, high = [], []
    for tau in tails:
        low.append(max(_weighted_quantile(u, w, tau), LEAST_LEVEL))
        high.append(max(1.0 - _weighted_quantile(u, w, 1.0 - tau), LEAST_LEVEL))
    # levels grow with the tail (ties of a discrete PIT can make them flat); four
    # significant digits are plenty for the table
    low = [float(f"{x:.4g}") for x in np.maximum.accumulate(low)]
    high = [float(f"{x:.4g}") for x in np.maximum.accumulate(high)]
    return low, high


def _prior_points(
    prior: Calibration, key: str, rate: int, bucket: int, share: float, count: int
) -> np.ndarray:
    """`count` PIT values spread as the prior's levels say for a cell: its quantile
    function read at evenly spaced probabilities."""
    probs = (np.arange(count) + 0.5) / count
    low, high = prior.low[key][rate][bucket], prior.high[key][rate][bucket]
    out = [
        _interpolate(prior.shares, prior.tails, low, share, p)
        if p <= 0.5
        else 1.0 - _interpolate(prior.shares, prior.tails, high, share, 1.0 - p)
        for p in probs
    ]
    points: np.ndarray = np.clip(np.array(out), 0.0, 1.0)
    return points


def _fit_key(
    u: np.ndarray,
    weight: np.ndarray,
    share_of: np.ndarray,
    bucket_of: np.ndarray,
    rate_of: np.ndarray,
    shares: Sequence[float],
    tails: Sequence[float],
    rates: int,
    prior: tuple[Calibration, str] | None,
    prior_cases: int,
) -> tuple[Table, Table] | None:
    """Levels of one key from its cases (u, weight, share, found bucket, rate bin): per
    rate bin, found bucket and share, the weighted PIT quantiles over the cell and its
    neighbours (plus the prior's points); a cell with too few cases takes the nearest
    fitted cell's."""
    buckets = len(FOUND_EDGES)
    grid = [(r, b, i) for r in range(rates) for b in range(buckets) for i in range(len(shares))]
    # each case's share index (-99 off the grid: no cell's neighbour)
    share_index = np.full(len(u), -99)
    for j, s in enumerate(shares):
        share_index[np.isclose(share_of, s)] = j
    cells: dict[tuple[int, int, int], tuple[list[float], list[float]] | None] = {}
    for r, b, i in grid:
        steps = np.abs(rate_of - r), np.abs(bucket_of - b), np.abs(share_index - i)
        near = (steps[0] <= 1) & (steps[1] <= 1) & (steps[2] <= 1)
        w = np.where(near, NEIGHBOUR_WEIGHT ** (steps[0] + steps[1] + steps[2]), 0.0)
        chosen = w > 0
        values, weights = u[chosen], (w * weight)[chosen]
        if prior is not None and prior_cases > 0:
            points = _prior_points(prior[0], prior[1], r, b, shares[i], prior_cases)
            values = np.r_[values, points]
            weights = np.r_[weights, np.ones(len(points))]
        cells[r, b, i] = _cell_levels(values, weights, tails)
    fitted = [c for c in grid if cells[c] is not None]
    if not fitted:
        return None
    low: list = []
    high: list = []
    for r in range(rates):
        low.append([[None] * len(shares) for _ in range(buckets)])
        high.append([[None] * len(shares) for _ in range(buckets)])
        for b in range(buckets):
            for i in range(len(shares)):
                # the nearest fitted cell: fewest steps, then the same share, then lower ones
                near = min(
                    fitted,
                    key=lambda c: (abs(c[0] - r) + abs(c[1] - b) + abs(c[2] - i), c[2] != i, c),
                )
                cell = cells[near]
                assert cell is not None
                low[r][b][i], high[r][b][i] = cell
    return low, high


def fit_calibration(
    cases: Iterable[CalibrationCase],
    source: str,
    *,
    prior: Calibration | None = None,
    prior_cases: int = PRIOR_CASES,
    shares: Sequence[float] = SHARES,
    tails: Sequence[float] = TAILS,
    weights: Sequence[float] | None = None,
    rate_edges: Sequence[float] = RATE_EDGES,
) -> Calibration:
    """Levels from cases (each at one of `shares`), per found bucket and share: pooled over
    the adaptive orders (ADAPTIVE), and for each order, with the pooled levels as a prior
    worth `prior_cases` cases per cell (an order with few cases keeps close to them). With
    `prior` (a calibration fitted elsewhere, such as the built-in one) each key's cells
    also get that prior's points, so that a few cases of a project move the levels only a
    little. `weights` weigh the cases (so that each collection counts the same in the
    built-in fit). `rate_edges` bin the share of judgments that were relevant (a prior
    must have the same bins); the prior's `tail_scale` carries over."""
    cases = list(cases)
    if not cases:
        raise ValueError("no cases to calibrate on")
    rate_edges = tuple(rate_edges)
    if prior is not None and prior.rate_edges != rate_edges:
        raise ValueError(f"the prior's rate bins {prior.rate_edges} are not {rate_edges}")
    u = np.array([c.pit for c in cases])
    w = np.ones(len(cases)) if weights is None else np.asarray(weights, dtype=float)
    share_of = np.array([c.share for c in cases])
    bucket_of = np.array([found_bucket(c.found) for c in cases])
    rate_of = np.array([rate_bin(c.found, c.judged, rate_edges) for c in cases])
    orders = np.array([c.order for c in cases])
    adaptive = np.array([c.adaptive for c in cases])
    low: dict[str, Table] = {}
    high: dict[str, Table] = {}

    def fit(key: str, members: np.ndarray, within: tuple[Calibration, str] | None) -> None:
        if not members.any():
            return
        part = w[members] * (members.sum() / w[members].sum())  # case counts kept
        fitted = _fit_key(
            u[members],
            part,
            share_of[members],
            bucket_of[members],
            rate_of[members],
            shares,
            tails,
            len(rate_edges),
            within,
            prior_cases,
        )
        if fitted is not None:
            low[key], high[key] = fitted

    def outer(key: str) -> tuple[Calibration, str] | None:
        if prior is None:
            return None
        found = prior.key(key)
        return None if found is None else (prior, found)

    fit(ADAPTIVE, adaptive, outer(ADAPTIVE))
    pooled = Calibration(
        source, tuple(shares), tuple(tails), dict(low), dict(high), (0, 0), 0, rate_edges
    )
    for order in dict.fromkeys(orders.tolist()):
        members = orders == order
        if adaptive[members].any() and ADAPTIVE in low:
            within = (
                outer(order) if prior is not None and order in prior.low else (pooled, ADAPTIVE)
            )
        else:
            within = outer(order)
        fit(order, members, within)
    sizes = [c.pool_size for c in cases]
    if prior is not None:
        sizes += list(prior.sizes)
    return Calibration(
        source,
        tuple(shares),
        tuple(tails),
        low,
        high,
        (min(sizes), max(sizes)),
        len(cases),
        rate_edges,
        prior.tail_scale if prior is not None else 1.0,
    )


CALIBRATION_FILE = "calibration.json"  # beside this module
_BUILTIN: list[Calibration] = []


def builtin_calibration() -> Calibration:
    """The calibration shipped with judgeapp (judgeapp/pooling/calibration.json, written by
    `python benchmarks/estimator_coverage.py --calibrate curve`)."""
    if not _BUILTIN:
        t = json.loads(resources.files("judgeapp.pooling").joinpath(CALIBRATION_FILE).read_text())
        _BUILTIN.append(
            Calibration(
                t["source"],
                tuple(t["shares"]),
                tuple(t["tails"]),
                t["low"],
                t["high"],
                (t["sizes"][0], t["sizes"][1]),
                t["cases"],
                tuple(t["rate_edges"]),
                t["tail_scale"],
            )
        )
    return _BUILTIN[0]
