"""Agreement statistics against published worked examples and reference implementations
(scikit-learn, statsmodels, the krippendorff package: test-only dependencies)."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from agreement_reference import scope_reference
from sklearn.metrics import accuracy_score, cohen_kappa_score, f1_score, jaccard_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from judgeapp.statistics.agreement import (
    LEVELS,
    Ratings,
    bootstrap_intervals,
    cohen_kappa,
    confusion_matrix,
    fleiss_kappa,
    kendall_tau,
    krippendorff_alpha,
    pair_figures,
    scope_figures,
    tau_ap,
)

NAN = np.nan

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers x 12 units
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)
# Fleiss (1971): 10 subjects, 14 raters, 5 categories (counts per category)
FLEISS_1971 = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)


# -- worked examples ------------------------------------------------------------------------------
def test_cohen_kappa_worked_example():
    # 50 units: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> p_o .70, p_e .50, kappa .40
    assert cohen_kappa(np.array([[20, 5], [10, 15]])) == pytest.approx(0.40, abs=1e-12)


def test_fleiss_kappa_worked_example():
    assert fleiss_kappa(FLEISS_1971) == pytest.approx(0.2099, abs=5e-5)
    assert fleiss_kappa(FLEISS_1971) == pytest.approx(sm_fleiss_kappa(FLEISS_1971), abs=1e-12)


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_alpha_published_example(level, published):
    ours = krippendorff_alpha(KRIPPENDORFF_2011.T, level)
    assert round(ours, 3) == published
    reference = krippendorff.alpha(KRIPPENDORFF_2011, level_of_measurement=level)
    assert ours == pytest.approx(reference, abs=1e-9)


def test_fleiss_kappa_refuses_units_with_different_numbers_of_ratings():
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa(np.array([[2, 0], [1, 2]]))


# -- random data against the reference implementations --------------------------------------------
@pytest.mark.parametrize("seed", range(20))
def test_cohen_kappa_equals_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    labels = np.array([0, 1, 2, 3])
    a = rng.integers(0, 4, size=rng.integers(5, 60))
    # b mostly agrees with a, sometimes off by a random amount
    b = np.where(rng.random(len(a)) < 0.6, a, rng.integers(0, 4, size=len(a)))
    conf = confusion_matrix(a, b, labels)
    assert conf.sum() == len(a)
    for weights in (None, "linear", "quadratic"):
        ours = float(cohen_kappa(conf, weights))
        ref = cohen_kappa_score(a, b, labels=labels, weights=weights)
        assert ours == pytest.approx(ref, abs=1e-9), weights
    figures = pair_figures(conf, labels.astype(float), 2)
    assert figures["percent_agreement"] == pytest.approx(accuracy_score(a, b), abs=1e-12)
    if ((a >= 2) | (b >= 2)).any():
        assert figures["positive_agreement"] == pytest.approx(f1_score(a >= 2, b >= 2), abs=1e-12)
        assert figures["relevant_overlap"] == pytest.approx(
            jaccard_score(a >= 2, b >= 2), abs=1e-12
        )


@pytest.mark.parametrize("seed", range(20))
def test_fleiss_kappa_equals_statsmodels(seed):
    rng = np.random.default_rng(seed)
    raters = int(rng.integers(2, 7))
    data = rng.integers(0, 4, size=(int(rng.integers(3, 40)), raters))
    counts, _cats = aggregate_raters(data)
    assert fleiss_kappa(counts) == pytest.approx(sm_fleiss_kappa(counts), abs=1e-9)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_alpha_with_missing_values_equals_the_package(seed, level):
    rng = np.random.default_rng(seed)
    raters, units = int(rng.integers(2, 6)), int(rng.integers(4, 50))
    truth = rng.integers(0, 5, size=units)
    data = np.where(
        rng.random((raters, units)) < 0.7, truth, rng.integers(0, 5, size=(raters, units))
    ).astype(float)
    data[rng.random((raters, units)) < 0.3] = np.nan
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    if len(np.unique(data[:, pairable][~np.isnan(data[:, pairable])])) < 2:
        pytest.skip("alpha is undefined with one value")
    ours = krippendorff_alpha(data.T, level)
    assert ours == pytest.approx(krippendorff.alpha(data, level_of_measurement=level), abs=1e-9)


# -- grouped ratings: every scope figure and the bootstrap ---------------------------------------
def random_ratings(seed: int, raters: int = 3) -> Ratings:
    rng = np.random.default_rng(seed)
    groups = 8
    rows, unit_groups = [], []
    for g in range(groups):
        for _ in range(int(rng.integers(3, 12))):
            truth = rng.integers(0, 4)
            row = np.where(rng.random(raters) < 0.65, truth, rng.integers(0, 4, size=raters))
            row = row.astype(float)
            keep = rng.permutation(raters)[: int(rng.integers(2, raters + 1))]
            mask = np.ones(raters, dtype=bool)
            mask[keep] = False
            row[mask] = np.nan
            rows.append(row)
            unit_groups.append(g)
    return Ratings(
        values=np.array(rows),
        groups=np.array(unit_groups),
        group_names=tuple(str(g) for g in range(groups)),
        raters=tuple(f"r{i}" for i in range(raters)),
        categories=np.array([0.0, 1.0, 2.0, 3.0]),
    )


@pytest.mark.parametrize("raters", [2, 3, 4])
@pytest.mark.parametrize("seed", range(5))
def test_scope_figures_of_pooled_groups_equal_the_references(seed, raters):
    ratings = random_ratings(seed, raters)
    per_group = ratings.tallies()
    n = ratings.fleiss_raters
    ours = {
        k: float(v) for k, v in scope_figures(per_group.total(), ratings.categories, 2, n).items()
    }
    ref = scope_reference(ratings.values, 2, n)
    assert set(ours) == set(ref)
    for name, value in ref.items():
        assert ours[name] == pytest.approx(value, abs=1e-9, nan_ok=True), name
    # one group alone
    g = 3
    ours_g = scope_figures(per_group.take(g), ratings.categories, 2, n)
    ref_g = scope_reference(ratings.values[ratings.groups == g], 2, n)
    for name in ("percent_agreement", "krippendorff_alpha_ordinal", "documents"):
        assert float(ours_g[name]) == pytest.approx(ref_g[name], abs=1e-9), name


def test_fleiss_raters_is_the_most_common_count_ties_to_the_larger():
    values = np.array([[0, 1, np.nan], [1, 1, np.nan], [0, 0, 1], [1, 1, 1], [2, np.nan, np.nan]])
    ratings = Ratings(values, np.zeros(5, int), ("1",), ("a", "b", "c"), np.array([0.0, 1, 2]))
    assert ratings.fleiss_raters == 3
    assert float(ratings.tallies().total().units[()]) == 4  # the single rating is not a unit


def test_bootstrap_resamples_topics_with_replacement():
    ratings = random_ratings(7, 2)
    per_group = ratings.tallies()
    groups = len(ratings.group_names)
    n = ratings.fleiss_raters

    def figures(t):
        return scope_figures(t, ratings.categories, 2, n)

    intervals = bootstrap_intervals(per_group, figures, resamples=200, seed=11)
    # the same draws, each resample rebuilt as a list of units and scored by the references
    draws = np.random.default_rng(11).integers(0, groups, size=(200, groups))
    kappas, alphas = [], []
    for draw in draws:
        values = np.concatenate([ratings.values[ratings.groups == g] for g in draw])
        kappas.append(cohen_kappa_score(values[:, 0], values[:, 1], labels=[0, 1, 2, 3]))
        alphas.append(krippendorff.alpha(values.T, level_of_measurement="ordinal"))
    assert intervals["cohen_kappa"] == pytest.approx(np.percentile(kappas, [2.5, 97.5]), abs=1e-9)
    assert intervals["krippendorff_alpha_ordinal"] == pytest.approx(
        np.percentile(alphas, [2.5, 97.5]), abs=1e-9
    )
    low, high = intervals["cohen_kappa"]
    assert low < float(figures(per_group.total())["cohen_kappa"]) < high


# -- rankings ------------------------------------------------------------------------------------
def test_tau_ap_hand_computed():
    ref = [4, 3, 2, 1]  # systems a > b > c > d
    # a swap at the top costs more than the same swap at the bottom
    assert tau_ap(ref, [3, 4, 2, 1]) == pytest.approx(1 / 3)  # (0/1 + 2/2 + 3/3) * 2/3 - 1
    assert tau_ap(ref, [4, 3, 1, 2]) == pytest.approx(7 / 9)  # (1 + 1 + 2/3) * 2/3 - 1
    assert kendall_tau(ref, [3, 4, 2, 1]) == pytest.approx(2 / 3)
    assert kendall_tau(ref, [4, 3, 1, 2]) == pytest.approx(2 / 3)
    assert tau_ap(ref, ref) == 1.0
    assert tau_ap(ref, ref[::-1]) == -1.0


def test_tau_ap_is_not_symmetric():
    # reference a b c d e, other c a b d e: other's 2nd (a) has c above it, wrongly: 0/1;
    # b has c, a above: 1/2; d: 3/3; e: 4/4 -> (0 + 1/2 + 1 + 1) / 4 * 2 - 1 = 1/4
    ref = [5, 4, 3, 2, 1]
    other = [4, 3, 5, 2, 1]
    assert tau_ap(ref, other) == pytest.approx(0.25)
    # the other way: reading a b c d e, c has a and b above it that the (other) reference
    # ranks below it: b: 1/1, c: 0/2, d: 3/3, e: 4/4 -> (1 + 0 + 1 + 1) / 4 * 2 - 1 = 1/2
    assert tau_ap(other, ref) == pytest.approx(0.5)


def test_tau_ap_orders_ties_by_name():
    # b and c tie in the other scoring: by name b comes first, as in the reference
    assert tau_ap([3, 2, 1], [3, 2, 2], names=["a", "b", "c"]) == 1.0
    assert tau_ap([3, 1, 2], [3, 2, 2], names=["a", "b", "c"]) < 1.0
