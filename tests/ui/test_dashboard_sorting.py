"""The dashboard's tables sort through MatrixSortProxy (keys taken from the model once per
change): the rows come out in the order Qt's own QSortFilterProxyModel gives them through
`data()`, after every update, ascending and descending, on values and labels, with values
missing and tied."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSortFilterProxyModel, Qt

from judgeapp.measures import parse_measure
from judgeapp.ui.dashboard.models import RunMeasureTableModel
from judgeapp.ui.dashboard.view import MatrixSortProxy

MEASURES = [parse_measure(m) for m in ("map", "P_10", "ndcg_cut_10")]


def _proxy(cls, model):
    proxy = cls()
    proxy.setSourceModel(model)
    proxy.setSortRole(model.SortRole)
    proxy.setDynamicSortFilter(True)
    return proxy


def _order(proxy) -> list[str]:
    return [proxy.index(i, 0).data() for i in range(proxy.rowCount())]


@pytest.mark.parametrize("column", [0, 1, 2])
@pytest.mark.parametrize("order", [Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder])
def test_rows_sort_as_qt_s_own_proxy_sorts_them(qapp, column, order):
    rng = np.random.default_rng(column)
    labels = [f"run{i}" for i in rng.permutation(60)]
    model = RunMeasureTableModel()
    values = np.round(rng.random((60, 3)), 1)  # one decimal: many ties
    values[rng.random((60, 3)) < 0.1] = np.nan
    model.set_matrix(labels, MEASURES, values)
    ours, qts = _proxy(MatrixSortProxy, model), _proxy(QSortFilterProxyModel, model)
    for proxy in (ours, qts):
        proxy.sort(column, order)
    assert _order(ours) == _order(qts)
    for _ in range(15):
        changed = rng.random((60, 3)) < 0.5
        values = np.where(changed, np.round(rng.random((60, 3)), 1), values)
        model.set_matrix(labels, MEASURES, values)
        assert _order(ours) == _order(qts)
    assert len(set(_order(ours))) == 60
