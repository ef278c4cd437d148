"""The dashboard's comparison panel follows new significance results for the same runs in
place: the rows change, the model is not reset, and the table stays sorted by what it shows."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from judgeapp.services.baseline import Significance
from judgeapp.ui.dashboard.comparison import ComparisonTableModel
from judgeapp.ui.dashboard.view import _table

RUNS = ("base", "r1", "r2", "r3", "r4")
MEASURES = ("AP", "P@10")


def significance(rng: np.random.Generator, runs=RUNS) -> tuple[Significance, np.ndarray]:
    shape = (len(MEASURES), len(runs))
    p = rng.uniform(0, 1, shape)
    sig = Significance(
        generation=1, version=1, baseline="base", test="t", correction="none", alpha=0.05,
        measures=MEASURES, run_names=runs, delta=rng.normal(0, 0.1, shape), p=p, p_raw=p,
        p_t=p, effect=rng.normal(0, 1, shape), sign=np.where(p < 0.05, 1, 0), topics=50,
        permutations=0,
    )  # fmt: skip
    return sig, rng.uniform(0, 1, shape)


def shown(table, model) -> list[tuple[str, str, str]]:
    """(run, measure, p) of each row in the order the table shows them."""
    shown = table.model()
    assert shown is model  # sorted by the model itself, no proxy
    return [
        tuple(shown.index(r, c).data() for c in (model.RUN, model.MEASURE, model.P))
        for r in range(shown.rowCount())
    ]


def test_new_values_for_the_same_runs_change_the_rows_in_place_and_keep_the_order(qtbot):
    model = ComparisonTableModel()
    table = _table(model)
    qtbot.addWidget(table)
    table.sortByColumn(model.P, Qt.SortOrder.AscendingOrder)
    rng = np.random.default_rng(3)
    first, means = significance(rng)
    model.set_significance(first, means)
    assert model.resets == 1 and model.rowCount() == 8  # four runs (not the baseline) x 2
    resets = []
    model.modelReset.connect(lambda: resets.append(1))
    for _ in range(5):  # a judgment each: new p-values, the same runs and measures
        sig, means = significance(rng)
        model.set_significance(sig, means)
        rows = shown(table, model)
        expected = sorted(
            (float(sig.p[m, r]), run, measure)
            for r, run in enumerate(RUNS)
            if run != "base"
            for m, measure in enumerate(MEASURES)
        )
        assert [float(p) for _run, _m, p in rows] == [float(f"{p:.3g}") for p, _run, _m in expected]
        assert {(run, m) for run, m, _p in rows} == {(run, m) for _p, run, m in expected}
    assert not resets and model.resets == 1
    # other runs: the rows are made again
    sig, means = significance(rng, RUNS[:3])
    model.set_significance(sig, means)
    assert resets and model.resets == 2 and model.rowCount() == 4
    model.set_significance(None, None)
    assert model.rowCount() == 0
