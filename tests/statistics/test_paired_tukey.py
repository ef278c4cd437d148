"""All-pairs statistics as papers report them, against references that share no code with
judgeapp's: Tukey's HSD blocked by topic against statsmodels' two-way ANOVA and an HSD
computed here from its residual mean square; Carterette's randomised Tukey HSD against
exact enumeration of every shuffle and a brute-force loop with the same seed; every
multiple-comparison correction against statsmodels. Per-topic values are trec_eval's own
(-q output of four Robust 2003 runs), not judgeapp's."""

from __future__ import annotations

import gzip
import itertools
import json

import numpy as np
import pytest

from judgeapp.cli import main
from judgeapp.statistics.significance import (
    CORRECTIONS,
    adjust,
    compare_all_pairs,
    tukey_blocked,
    tukey_randomised,
)
from tests.conftest import require

statsmodels = require("statsmodels")
RUNS = ("InexpC2", "SABIR03BASE", "uic0301", "pircRBa1")


@pytest.fixture(scope="module")
def per_topic(shared_data):
    """(runs x topics) AP as trec_eval 10.0 printed it."""
    folder = shared_data / "robust03" / "trec_eval-outputs" / "robust03_trec_eval_v10"
    table = []
    for run in RUNS:
        with gzip.open(folder / f"{run}.all_trec.q.txt.gz", "rt") as fh:
            rows = [line.split() for line in fh if line.startswith("map ")]
        table.append({q: float(v) for _, q, v in rows if q != "all"})
    topics = sorted(set.intersection(*(set(t) for t in table)))
    return np.array([[t[q] for q in topics] for t in table])


def _anova_reference(values):
    """Residual mean square and degrees of freedom of the two-way ANOVA, by statsmodels."""
    import pandas as pd
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    k, n = values.shape
    frame = pd.DataFrame(
        {
            "v": values.ravel(),
            "run": np.repeat([f"r{i}" for i in range(k)], n),
            "topic": np.tile([f"t{j}" for j in range(n)], k),
        }
    )
    table = anova_lm(ols("v ~ C(run) + C(topic)", data=frame).fit())
    return float(table.loc["Residual", "mean_sq"]), float(table.loc["Residual", "df"])


def test_blocked_tukey_equals_two_way_anova_and_an_independent_hsd(per_topic):
    from scipy.stats import studentized_range

    k, n = per_topic.shape
    mse, df = _anova_reference(per_topic)
    assert df == (k - 1) * (n - 1)
    ours = tukey_blocked(per_topic)
    means = per_topic.mean(axis=1)
    for i, j in itertools.combinations(range(k), 2):
        q = abs(means[i] - means[j]) / np.sqrt(mse / n)
        assert ours[i, j] == pytest.approx(studentized_range.sf(q, k, df), rel=1e-9, abs=1e-12)
        assert ours[i, j] == ours[j, i]
    # blocking takes out the topics' variance: smaller p than the one-way test on the same data
    oneway = compare_all_pairs(per_topic, list(RUNS), tukey="oneway").p_tukey
    assert (ours[np.triu_indices(k, 1)] <= oneway[np.triu_indices(k, 1)] + 1e-12).all()


def _exact_randomised(values):
    """Every assignment of each topic's values to the runs, counted."""
    k, n = values.shape
    observed = np.abs(values.mean(axis=1)[:, None] - values.mean(axis=1)[None, :])
    count = np.zeros((k, k))
    total = 0
    perms = list(itertools.permutations(range(k)))
    for choice in itertools.product(perms, repeat=n):
        shuffled = np.array([[values[choice[t][r], t] for t in range(n)] for r in range(k)])
        means = shuffled.mean(axis=1)
        count += (means.max() - means.min()) >= observed - 1e-12
        total += 1
    return count / total


def test_randomised_tukey_converges_to_exact_enumeration():
    values = np.array([[0.1, 0.5, 0.3, 0.9], [0.2, 0.4, 0.1, 0.3], [0.6, 0.8, 0.5, 0.7]])
    exact = _exact_randomised(values)
    ours = tukey_randomised(values, permutations=40_000, seed=3)
    off = ~np.eye(3, dtype=bool)
    assert np.abs(ours[off] - exact[off]).max() < 0.01


def test_randomised_tukey_equals_brute_force_with_the_same_seed(per_topic):
    values = per_topic[:, :30]
    perms, seed = 500, 11
    rng = np.random.default_rng(seed)
    table = values.T
    k = values.shape[0]
    means = values.mean(axis=1)
    count = np.zeros((k, k))
    for _ in range(perms):
        shuffled = rng.permuted(table, axis=1)
        m = [sum(shuffled[t][r] for t in range(table.shape[0])) / table.shape[0] for r in range(k)]
        spread = max(m) - min(m)
        for i in range(k):
            for j in range(k):
                if spread >= abs(means[i] - means[j]) - 1e-12:
                    count[i, j] += 1
    want = (1 + count) / (1 + perms)
    np.fill_diagonal(want, 1.0)
    assert np.allclose(tukey_randomised(values, permutations=perms, seed=seed), want)


@pytest.mark.parametrize("method", [c for c in CORRECTIONS if c != "none"])
def test_every_correction_equals_statsmodels(method):
    from statsmodels.stats.multitest import multipletests

    name = {"bh": "fdr_bh", "by": "fdr_by", "hochberg": "simes-hochberg"}.get(method, method)
    rng = np.random.default_rng(5)
    for _ in range(200):
        p = rng.uniform(0, 0.3, size=rng.integers(1, 10))
        assert np.allclose(adjust(p, method), multipletests(p, method=name)[1], atol=1e-12)


def test_compare_json_has_one_layout(shared_data, capsys):
    robust = shared_data / "robust03"
    qrels = robust / "robust03_qrels.txt"
    runs = [str(robust / "runs" / f"input.{r}.gz") for r in RUNS[:3]]
    layouts = []
    for extra in (
        ["--baseline", runs[0]],
        ["--baseline", runs[0], "--tests", "t,rand,wilcoxon,sign", "--correction", "hommel"],
        ["--all-pairs"],
        ["--all-pairs", "--tukey", "randomised", "--permutations", "200"],
    ):
        assert main(["compare", str(qrels), *runs, "--format", "json", *extra]) == 0
        found = json.loads(capsys.readouterr().out)
        layouts.append(sorted(k for k in found if k != "rows"))
        assert found["rows"] and found["comparison"] in ("baseline", "all_pairs")
    assert all(layout == layouts[0] for layout in layouts)
