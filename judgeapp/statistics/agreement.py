"""Agreement between assessors, and between the system rankings their judgments give.

No SQL, no Qt: numpy and scipy over grades. A *unit* is a (topic, document) pair graded by
two or more raters; ``Ratings`` holds them as a units x raters array (NaN where a rater did
not grade the unit) with each unit's group (its topic).

Figures (teams.md has the formulas and worked examples):

- percent agreement: the share of pairs of ratings of one unit (by two different raters)
  that are equal; with two raters, the share of units on which they agree;
- Cohen's kappa per pair of raters, unweighted and with linear (|i - j|) or quadratic
  ((i - j)^2) disagreement weights, i and j the positions of the grades in the ordered
  categories (as scikit-learn's ``cohen_kappa_score`` with ``labels=categories``);
- Fleiss' kappa, over the units with the same number n of ratings: ``Ratings.fleiss_raters``
  is the most common number of ratings per unit (ties to the larger), and units with another
  number are left out of this figure only (``fleiss_documents`` says how many count);
- Krippendorff's alpha (nominal, ordinal, interval, ratio) from the coincidence matrix of
  the pairable values, missing ratings allowed;
- on a relevant cut (grade >= K): with a = pairs of ratings both relevant and b + c = pairs
  with one relevant, positive agreement 2a / (2a + b + c) and the overlap of the relevant
  sets a / (a + b + c) (Voorhees 2000); with more than two raters a, b and c are summed over
  every pair of raters.

Every figure is a function of sums over units (``Tallies``): adding the tallies of topics
pools their units. That makes per-topic and overall figures one computation, and the
bootstrap over topics (resample topics with replacement, percentile intervals) a weighted
sum of per-topic tallies, exact and vectorised.

Rankings: Kendall's tau-b (``scipy.stats.kendalltau``) and tau_AP (Yilmaz, Aslam and
Robertson, "A new rank correlation coefficient for information retrieval", SIGIR 2008),
which weighs swaps near the top more and is not symmetric: it reads the other ranking from
the top and asks, for each system, how many of those above it the reference ranks above it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from itertools import combinations
from typing import Literal

import numpy as np

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")
Weights = Literal["linear", "quadratic"] | None
KAPPAS: dict[str, Weights] = {
    "cohen_kappa": None,
    "cohen_kappa_linear": "linear",
    "cohen_kappa_quadratic": "quadratic",
}


# -- the statistics over (possibly batched) sums ------------------------------------------------
def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where den is 0 (a figure undefined on these units)."""
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def confusion_matrix(a: np.ndarray, b: np.ndarray, categories: np.ndarray) -> np.ndarray:
    """Counts of (a's grade, b's grade) over units both graded: rows a, columns b, in the
    order of `categories` (every grade must be one of them). NaN marks a missing grade."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    both = ~(np.isnan(a) | np.isnan(b))
    c = len(categories)
    ia, ib = _category_index(a[both], categories), _category_index(b[both], categories)
    return np.bincount(ia * c + ib, minlength=c * c).reshape(c, c)


def cohen_kappa(confusion: np.ndarray, weights: Weights = None) -> np.ndarray:
    """Cohen's kappa of confusion matrices (..., C, C): 1 - sum(w o) / sum(w e), with e the
    counts expected from each rater's own marginals and w the disagreement weights (0/1,
    |i - j| or (i - j)^2 over category positions). NaN when nothing could disagree."""
    o = np.asarray(confusion, dtype=np.float64)
    c = o.shape[-1]
    pos = np.arange(c, dtype=np.float64)
    diff = pos[:, None] - pos[None, :]
    if weights is None:
        w = (diff != 0).astype(np.float64)
    elif weights == "linear":
        w = np.abs(diff)
    elif weights == "quadratic":
        w = diff**2
    else:
        raise ValueError(f"unknown kappa weights {weights!r} (None, linear or quadratic)")
    n = o.sum(axis=(-2, -1))
    expected = o.sum(axis=-1)[..., :, None] * o.sum(axis=-2)[..., None, :]
    expected = expected / np.where(n == 0, 1.0, n)[..., None, None]
    return 1.0 - _ratio((w * o).sum(axis=(-2, -1)), (w * expected).sum(axis=(-2, -1)))


def fleiss_kappa(counts: np.ndarray) -> float:
    """Fleiss' kappa of a units x categories table of counts, every unit rated by the same
    number of raters (n >= 2)."""
    table = np.asarray(counts, dtype=np.float64)
    n = table.sum(axis=1)
    if table.ndim != 2 or not len(n) or np.any(n != n[0]) or n[0] < 2:
        raise ValueError("Fleiss' kappa needs the same number (two or more) of ratings per unit")
    raters = int(n[0])
    agreement = ((table**2).sum(axis=1) - raters) / (raters * (raters - 1))
    return float(_fleiss(np.asarray(float(len(table))), agreement.sum(), table.sum(axis=0), raters))


def _fleiss(
    units: np.ndarray, agreement: np.ndarray, totals: np.ndarray, raters: int
) -> np.ndarray:
    """kappa = (P_bar - P_e) / (1 - P_e) from the number of units, the sum of their P_i and
    the ratings per category (batched over leading axes)."""
    p_bar = _ratio(agreement, units)
    p = totals / np.where(units == 0, 1.0, units * raters)[..., None]
    p_e = (p**2).sum(axis=-1)
    return _ratio(p_bar - p_e, 1.0 - p_e)


def coincidences(value_counts: np.ndarray) -> np.ndarray:
    """Krippendorff's coincidence matrix from a units x categories table of how many times
    each value was given to each unit: o_ck = sum over units of (pairs of values c, k by
    different raters) / (m_u - 1); units with fewer than two values are not pairable."""
    n = np.asarray(value_counts, dtype=np.float64)
    m = n.sum(axis=1)
    keep = m >= 2
    n, m = n[keep], m[keep]
    scaled = n / (m - 1.0)[:, None]
    out: np.ndarray = scaled.T @ n - np.diag(scaled.sum(axis=0))
    return out


def krippendorff_from_coincidences(
    coincidence: np.ndarray, values: np.ndarray, level: Level
) -> np.ndarray:
    """alpha = 1 - (n - 1) sum(o_ck d_ck) / sum(n_c n_k d_ck) from coincidence matrices
    (..., C, C) over the category `values` (ascending), with the squared difference d of the
    level of measurement. NaN when there is no expected disagreement (one value only)."""
    o = np.asarray(coincidence, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    if level == "nominal":
        delta = np.broadcast_to((v[:, None] != v[None, :]).astype(np.float64), o.shape)
    elif level == "ordinal":
        # (sum of n_g for g from c to k) - (n_c + n_k) / 2, written with cumulative sums
        cum = np.cumsum(n_c, axis=-1)
        delta = (
            cum[..., None, :] - cum[..., :, None] + (n_c[..., :, None] - n_c[..., None, :]) / 2
        ) ** 2
    elif level == "interval":
        delta = np.broadcast_to((v[:, None] - v[None, :]) ** 2, o.shape)
    elif level == "ratio":
        total = v[:, None] + v[None, :]
        ratio = _ratio(v[:, None] - v[None, :], total)
        delta = np.broadcast_to(np.where(total == 0, 0.0, ratio) ** 2, o.shape)
    else:
        raise ValueError(f"unknown level of measurement {level!r} ({', '.join(LEVELS)})")
    observed = (o * delta).sum(axis=(-2, -1))
    expected = (n_c[..., :, None] * n_c[..., None, :] * delta).sum(axis=(-2, -1))
    return 1.0 - _ratio((n - 1.0) * observed, expected)


def krippendorff_alpha(
    ratings: np.ndarray, level: Level = "nominal", values: np.ndarray | None = None
) -> float:
    """Krippendorff's alpha of a units x raters array (NaN: missing). `values` are the
    possible values (default: those that occur)."""
    data = np.asarray(ratings, dtype=np.float64)
    cats = _categories(data) if values is None else np.asarray(values, dtype=np.float64)
    counts = _value_counts(data, cats)
    return float(krippendorff_from_coincidences(coincidences(counts), cats, level))


def relevant_cut(
    confusion: np.ndarray, categories: np.ndarray, relevant_from: float
) -> tuple[np.ndarray, np.ndarray]:
    """(a, b + c) of confusion matrices (..., C, C) on the cut grade >= `relevant_from`:
    pairs both relevant, and pairs with exactly one relevant."""
    rel = np.asarray(categories, dtype=np.float64) >= relevant_from
    o = np.asarray(confusion, dtype=np.float64)
    both = o[..., rel, :][..., :, rel].sum(axis=(-2, -1))
    one = o[..., rel, :][..., :, ~rel].sum(axis=(-2, -1)) + o[..., ~rel, :][..., :, rel].sum(
        axis=(-2, -1)
    )
    return both, one


def positive_agreement(both: np.ndarray, one: np.ndarray) -> np.ndarray:
    return _ratio(2.0 * np.asarray(both), 2.0 * np.asarray(both) + one)


def relevant_overlap(both: np.ndarray, one: np.ndarray) -> np.ndarray:
    return _ratio(np.asarray(both), np.asarray(both) + one)


# -- units and their sums -------------------------------------------------------------------------
def _categories(data: np.ndarray) -> np.ndarray:
    return np.unique(data[~np.isnan(data)])


def _category_index(values: np.ndarray, categories: np.ndarray) -> np.ndarray:
    idx = np.searchsorted(categories, values)
    if np.any(idx >= len(categories)) or np.any(
        categories[np.minimum(idx, len(categories) - 1)] != values
    ):
        raise ValueError("a grade is not one of the categories")
    return idx.astype(np.int64)


def _value_counts(data: np.ndarray, categories: np.ndarray) -> np.ndarray:
    """units x categories: how many raters gave each value to each unit."""
    units, c = data.shape[0], len(categories)
    rows, cols = np.nonzero(~np.isnan(data))
    idx = _category_index(data[rows, cols], categories)
    return np.bincount(rows * c + idx, minlength=units * c).reshape(units, c)


@dataclass(frozen=True, slots=True)
class Tallies:
    """Sums over units from which every figure follows. Arrays may carry leading axes (one
    set of sums per topic, per bootstrap draw); adding sums pools the units.

    `pairs` and `agreeing` count ordered pairs of ratings of one unit by different raters;
    `fleiss_*` are over the units with `Ratings.fleiss_raters` ratings only; `confusion` has
    one matrix per pair of raters (`Ratings.rater_pairs`)."""

    units: np.ndarray  # (...,)
    pairs: np.ndarray  # (...,)
    agreeing: np.ndarray  # (...,)
    coincidence: np.ndarray  # (..., C, C)
    fleiss_units: np.ndarray  # (...,)
    fleiss_agreement: np.ndarray  # (...,) sum of P_i
    fleiss_totals: np.ndarray  # (..., C)
    confusion: np.ndarray  # (..., pairs of raters, C, C)

    def total(self) -> Tallies:
        """The sums over the first axis (all topics pooled)."""
        return Tallies(*(np.asarray(getattr(self, f)).sum(axis=0) for f in _FIELDS))

    def weighted(self, weights: np.ndarray) -> Tallies:
        """(draws x groups) weights times these per-group sums: one set of sums per draw."""
        w = np.asarray(weights, dtype=np.float64)
        return Tallies(*(np.tensordot(w, getattr(self, f), axes=(1, 0)) for f in _FIELDS))

    def take(self, index: int) -> Tallies:
        return Tallies(*(np.asarray(getattr(self, f))[index] for f in _FIELDS))


_FIELDS = tuple(f.name for f in fields(Tallies))


@dataclass(frozen=True, slots=True)
class Ratings:
    """Grades of units (rows) by raters (columns), NaN where a rater gave none; `groups`
    gives each unit's index in `group_names` (its topic); `categories` are the ordered
    possible grades (every given grade among them)."""

    values: np.ndarray
    groups: np.ndarray
    group_names: tuple[str, ...]
    raters: tuple[str, ...]
    categories: np.ndarray

    def __post_init__(self) -> None:
        if self.values.ndim != 2 or self.values.shape[1] != len(self.raters):
            raise ValueError("ratings: one column per rater")
        if len(self.groups) != len(self.values):
            raise ValueError("ratings: one group per unit")

    @property
    def rater_pairs(self) -> list[tuple[int, int]]:
        return list(combinations(range(len(self.raters)), 2))

    @property
    def fleiss_raters(self) -> int:
        """The most common number of ratings per pairable unit (ties to the larger); 0 when
        there is no pairable unit."""
        m = (~np.isnan(self.values)).sum(axis=1)
        m = m[m >= 2]
        if not len(m):
            return 0
        counts = np.bincount(m)
        return int(len(counts) - 1 - np.argmax(counts[::-1]))

    def tallies(self) -> Tallies:
        """Per group (leading axis: `group_names`), the sums of its pairable units."""
        cats = self.categories
        c, g = len(cats), len(self.group_names)
        counts = _value_counts(self.values, cats).astype(np.float64)
        m = counts.sum(axis=1)
        pairable = m >= 2
        fleiss_n = self.fleiss_raters
        pairs = self.rater_pairs
        idx = np.full(self.values.shape, -1, dtype=np.int64)
        given = ~np.isnan(self.values)
        idx[given] = _category_index(self.values[given], cats)
        out = {
            "units": np.zeros(g),
            "pairs": np.zeros(g),
            "agreeing": np.zeros(g),
            "coincidence": np.zeros((g, c, c)),
            "fleiss_units": np.zeros(g),
            "fleiss_agreement": np.zeros(g),
            "fleiss_totals": np.zeros((g, c)),
            "confusion": np.zeros((g, len(pairs), c, c)),
        }
        for k in range(g):
            sel = pairable & (self.groups == k)
            n, mu = counts[sel], m[sel]
            out["units"][k] = len(n)
            out["pairs"][k] = (mu * (mu - 1)).sum()
            out["agreeing"][k] = (n * (n - 1)).sum()
            out["coincidence"][k] = coincidences(n)
            if fleiss_n >= 2:
                f = n[mu == fleiss_n]
                out["fleiss_units"][k] = len(f)
                out["fleiss_agreement"][k] = (
                    ((f**2).sum(axis=1) - fleiss_n) / (fleiss_n * (fleiss_n - 1))
                ).sum()
                out["fleiss_totals"][k] = f.sum(axis=0)
            for p, (r, s) in enumerate(pairs):
                both = sel & given[:, r] & given[:, s]
                cells = idx[both, r] * c + idx[both, s]
                out["confusion"][k, p] = np.bincount(cells, minlength=c * c).reshape(c, c)
        return Tallies(**out)


# -- figures --------------------------------------------------------------------------------------
SCOPE_STATISTICS = (
    "percent_agreement",
    *KAPPAS,
    "fleiss_kappa",
    *(f"krippendorff_alpha_{level}" for level in LEVELS),
    "positive_agreement",
    "relevant_overlap",
    "documents",
    "fleiss_documents",
)
PAIR_STATISTICS = (
    "percent_agreement",
    *KAPPAS,
    "positive_agreement",
    "relevant_overlap",
    "documents",
)


def pair_figures(
    confusion: np.ndarray, categories: np.ndarray, relevant_from: float
) -> dict[str, np.ndarray]:
    """A pair of raters' figures from their confusion matrices (..., C, C)."""
    o = np.asarray(confusion, dtype=np.float64)
    units = o.sum(axis=(-2, -1))
    both, one = relevant_cut(o, categories, relevant_from)
    out = {
        "percent_agreement": _ratio(np.trace(o, axis1=-2, axis2=-1), units),
        **{name: cohen_kappa(o, w) for name, w in KAPPAS.items()},
        "positive_agreement": positive_agreement(both, one),
        "relevant_overlap": relevant_overlap(both, one),
        "documents": units,
    }
    return out


def scope_figures(
    t: Tallies, categories: np.ndarray, relevant_from: float, fleiss_raters: int
) -> dict[str, np.ndarray]:
    """Every figure of a scope (a topic, all topics, a bootstrap draw) from its sums. Cohen's
    kappas only when there are exactly two raters (one pair)."""
    out: dict[str, np.ndarray] = {"percent_agreement": _ratio(t.agreeing, t.pairs)}
    if t.confusion.shape[-3] == 1:
        pair = pair_figures(t.confusion[..., 0, :, :], categories, relevant_from)
        out.update({name: pair[name] for name in KAPPAS})
    nan = np.full(np.shape(t.units), np.nan)
    out["fleiss_kappa"] = (
        _fleiss(t.fleiss_units, t.fleiss_agreement, t.fleiss_totals, fleiss_raters)
        if fleiss_raters >= 2
        else nan
    )
    values = np.asarray(categories, dtype=np.float64)
    for level in LEVELS:
        out[f"krippendorff_alpha_{level}"] = krippendorff_from_coincidences(
            t.coincidence, values, level
        )
    both, one = relevant_cut(t.confusion.sum(axis=-3), categories, relevant_from)
    out["positive_agreement"] = positive_agreement(both, one)
    out["relevant_overlap"] = relevant_overlap(both, one)
    out["documents"] = np.asarray(t.units, dtype=np.float64)
    out["fleiss_documents"] = np.asarray(t.fleiss_units, dtype=np.float64)
    return out


def bootstrap_intervals(
    per_group: Tallies,
    figures: Callable[[Tallies], dict[str, np.ndarray]],
    *,
    resamples: int,
    seed: int,
    confidence: float = 0.95,
) -> dict[str, tuple[float, float]]:
    """Percentile intervals of `figures` over groups resampled with replacement.

    Draw i takes ``numpy.random.default_rng(seed).integers(0, G, size=(resamples, G))[i]``
    (G groups) and pools those groups' sums, a group drawn twice counting twice. Draws on
    which a figure is undefined (NaN) are left out of its interval. With fewer than two
    groups there is nothing to resample (every draw is the one group: an "interval" equal to
    the value): no interval."""
    groups = len(np.asarray(per_group.units))
    if resamples <= 0 or groups < 2:
        return {}
    draws = np.random.default_rng(seed).integers(0, groups, size=(resamples, groups))
    offsets = draws + np.arange(resamples)[:, None] * groups
    weights = np.bincount(offsets.ravel(), minlength=resamples * groups).reshape(resamples, groups)
    values = figures(per_group.weighted(weights))
    tail = (1.0 - confidence) / 2 * 100
    out = {}
    for name, v in values.items():
        v = np.asarray(v, dtype=np.float64)
        v = v[~np.isnan(v)]
        if len(v):
            low, high = np.percentile(v, [tail, 100 - tail])
            out[name] = (float(low), float(high))
        else:
            out[name] = (float("nan"), float("nan"))
    return out


# -- rankings --------------------------------------------------------------------------------------
def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b between two scorings of the same systems (NaN if either is constant)."""
    from scipy.stats import kendalltau

    if len(x) < 2:
        return float("nan")
    return float(kendalltau(x, y).statistic)


def ranking_order(scores: Sequence[float], names: Sequence[str] | None = None) -> np.ndarray:
    """Indices of the systems, best (highest score) first; equal scores by name, or by
    position without names."""
    s = np.asarray(scores, dtype=np.float64)
    keys = (
        np.arange(len(s)) if names is None else np.argsort(np.argsort(list(names), kind="stable"))
    )
    return np.lexsort((keys, -s))


def tau_ap(
    reference: Sequence[float], other: Sequence[float], names: Sequence[str] | None = None
) -> float:
    """tau_AP of `other` against `reference` (scores of the same systems, higher better):
    2 / (N - 1) * sum over i = 2..N of C(i) / (i - 1), minus 1, where `other` is read from
    the top and C(i) counts the systems above its i-th that the reference also ranks above
    it. Equal scores are ordered by name (or position) in both rankings. NaN below two
    systems."""
    n = len(reference)
    if n != len(other):
        raise ValueError("tau_AP: the two rankings must score the same systems")
    if n < 2:
        return float("nan")
    ref_rank = np.empty(n, dtype=np.int64)
    ref_rank[ranking_order(reference, names)] = np.arange(n)
    ranks = ref_rank[ranking_order(other, names)]  # reference rank of other's i-th system
    above = np.tril(ranks[None, :] < ranks[:, None], k=-1)  # [i, j]: j above i, also in ref
    correct = above.sum(axis=1)[1:]
    return float(2.0 / (n - 1) * (correct / np.arange(1, n)).sum() - 1.0)
