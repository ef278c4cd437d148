"""The dashboard's tables keep their rows sorted in the models themselves (no proxy,
judgeapp.ui.dashboard.sorting): the rows come out in the order Qt's own
QSortFilterProxyModel gives them through `data()` when it sorts the same rows afresh, after
every update, ascending and descending, on values and labels, with values missing and
tied; the header's clicks sort them."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QSortFilterProxyModel, Qt
from PySide6.QtTest import QTest

from judgeapp.measures import parse_measure
from judgeapp.ui.dashboard.comparison import ComparisonTableModel
from judgeapp.ui.dashboard.models import RunMeasureTableModel
from judgeapp.ui.dashboard.sorting import sorted_rows
from judgeapp.ui.dashboard.view import DashboardView, _table
from tests.ui.test_comparison_panel import significance

MEASURES = [parse_measure(m) for m in ("map", "P_10", "ndcg_cut_10")]
ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder


def _qt_order(unsorted, column: int, order: Qt.SortOrder, role: int) -> list[str]:
    """The rows of `unsorted` (a model showing its own order) as Qt's proxy sorts them
    afresh: a stable sort of the sort role, ties in the model's own order."""
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(unsorted)
    proxy.setSortRole(role)
    proxy.sort(column, order)
    return [proxy.index(i, 0).data() for i in range(proxy.rowCount())]


def _order(model) -> list[str]:
    return [model.index(i, 0).data() for i in range(model.rowCount())]


@pytest.mark.parametrize("column", [0, 1, 2])
@pytest.mark.parametrize("order", [ASC, DESC])
def test_rows_sort_as_qt_s_own_proxy_sorts_them(qapp, column, order):
    rng = np.random.default_rng(column)
    labels = [f"run{i}" for i in rng.permutation(60)]
    ours, unsorted = RunMeasureTableModel(), RunMeasureTableModel()
    ours.sort(column, order)
    unsorted.sort(-1)  # its own order: the reference proxy's source
    values = np.round(rng.random((60, 3)), 1)  # one decimal: many ties
    values[rng.random((60, 3)) < 0.1] = np.nan
    for model in (ours, unsorted):
        model.set_matrix(labels, MEASURES, values)
    assert _order(unsorted) == labels
    assert _order(ours) == _qt_order(unsorted, column, order, ours.SortRole)
    for _ in range(15):
        changed = rng.random((60, 3)) < 0.5
        values = np.where(changed, np.round(rng.random((60, 3)), 1), values)
        for model in (ours, unsorted):
            model.set_matrix(labels, MEASURES, values)
        assert _order(ours) == _qt_order(unsorted, column, order, ours.SortRole)
    assert len(set(_order(ours))) == 60
    # each row's cells are its own, wherever it is shown
    for row in range(60):
        run = ours.index(row, 0).data()
        for c in range(3):
            value = ours.index(row, c + 1).data(ours.ValueRole)
            assert value == pytest.approx(ours.value(run, str(MEASURES[c])), nan_ok=True)


@pytest.mark.parametrize("column", [0, 2, 4, 5])
@pytest.mark.parametrize("order", [ASC, DESC])
def test_the_comparison_panel_sorts_as_qt_s_own_proxy(qapp, column, order):
    rng = np.random.default_rng(column)
    ours, unsorted = ComparisonTableModel(), ComparisonTableModel()
    ours.sort(column, order)
    unsorted.sort(-1)
    for _ in range(6):
        sig, means = significance(rng)
        sig.p[0, 1] = np.nan  # a test that could not be made
        for model in (ours, unsorted):
            model.set_significance(sig, means)
        mine = [tuple(ours.index(r, c).data() for c in range(7)) for r in range(ours.rowCount())]
        proxy = QSortFilterProxyModel()
        proxy.setSourceModel(unsorted)
        proxy.setSortRole(ours.SortRole)
        proxy.sort(column, order)
        qts = [tuple(proxy.index(r, c).data() for c in range(7)) for r in range(proxy.rowCount())]
        # Qt compares a NaN as neither less nor greater: ours puts it first (ascending)
        keep = [i for i, row in enumerate(qts) if row[ours.P] != "nan"]
        if column != ours.P:
            assert mine == qts
        else:
            assert [r for r in mine if r[ours.P] != "nan"] == [qts[i] for i in keep]
            nan_at = [i for i, r in enumerate(mine) if r[ours.P] == "nan"]
            assert nan_at == ([0] if order == ASC else [len(mine) - 1])


def test_ties_keep_the_model_s_order_ascending_and_the_reverse_descending():
    keys = [2, 1, 2, 1, 3]
    assert sorted_rows(keys, descending=False) == [1, 3, 0, 2, 4]
    assert sorted_rows(keys, descending=True) == [4, 2, 0, 3, 1]


def test_the_header_sorts_the_rows_and_a_second_click_turns_the_order(qtbot):
    view = DashboardView()
    qtbot.addWidget(view)
    view.resize(1200, 700)
    view.show()
    qtbot.waitExposed(view)
    runs = ["run10", "run2", "run1", "run3"]
    values = np.array([[0.1, 0.5, 0.3], [0.4, 0.2, 0.3], [0.2, 0.9, np.nan], [0.3, 0.1, 0.0]])
    view.model.set_matrix(runs, MEASURES, values, fresh=True)
    assert view.table.model() is view.model
    assert _order(view.model) == ["run2", "run3", "run1", "run10"]  # best AP first
    header = view.table.horizontalHeader()

    def click(section: int) -> None:
        x = header.sectionViewportPosition(section) + header.sectionSize(section) // 2
        QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))

    click(0)  # by run name, naturally: run2 before run10
    order = view.model.sort_order()
    names = ["run1", "run2", "run3", "run10"]
    assert view.model.sort_column() == 0
    assert _order(view.model) == (names if order == ASC else names[::-1])
    click(0)
    assert view.model.sort_order() != order
    assert _order(view.model) == (names[::-1] if order == ASC else names)
    click(2)  # P@10
    shown = [view.model.index(r, 2).data(view.model.ValueRole) for r in range(4)]
    ascending = view.model.sort_order() == ASC
    assert shown == sorted(shown, reverse=not ascending)
    # a new snapshot keeps the column and order the user chose
    view.model.set_matrix(runs, MEASURES, values[::-1] + 0.01)
    shown = [view.model.index(r, 2).data(view.model.ValueRole) for r in range(4)]
    assert view.model.sort_column() == 2 and shown == sorted(shown, reverse=not ascending)


def test_the_drill_down_table_sorts_through_its_header(qtbot):
    model = RunMeasureTableModel()
    table = _table(model)
    qtbot.addWidget(table)
    model.set_matrix(["b", "a", "c"], MEASURES, np.arange(9.0).reshape(3, 3), fresh=True)
    header = table.horizontalHeader()  # sorted as its indicator says from the start
    assert (model.sort_column(), model.sort_order()) == (
        header.sortIndicatorSection(),
        header.sortIndicatorOrder(),
    )
    table.sortByColumn(0, ASC)
    assert _order(model) == ["a", "b", "c"]
    table.sortByColumn(3, DESC)
    assert _order(model) == ["c", "a", "b"]
