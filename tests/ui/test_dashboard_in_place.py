"""The dashboard's table follows a judgment in place and cheaply (issue 28: no GUI-thread
piece over 16-25 ms at TREC size): no reset (the selected row keeps its persistent index),
the rows kept sorted, the cells a paint asks for come from the model in one call each (`multiData`),
and they are painted by Fusion itself, not through the window's style written in Python,
with the same pixels."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QItemSelectionModel, QPersistentModelIndex, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from judgeapp.measures import DEFAULT_GUI_MEASURES, parse_measure
from judgeapp.ui import theme
from judgeapp.ui.dashboard.models import RunMeasureTableModel
from judgeapp.ui.dashboard.view import DashboardView
from judgeapp.ui.style import Style

MEASURES = [parse_measure(m) for m in DEFAULT_GUI_MEASURES]
RUNS = [f"run{i:03d}" for i in range(115)]


@pytest.fixture
def view(qtbot):
    theme.apply_theme(QApplication.instance())  # the window's look (as test_looks.py does)
    assert isinstance(QApplication.style(), Style)
    view = DashboardView()
    qtbot.addWidget(view)
    view.resize(1366, 768)
    view.show()
    qtbot.waitExposed(view)
    values = np.random.default_rng(3).random((len(RUNS), len(MEASURES)))
    view.model.set_matrix(RUNS, MEASURES, values, fresh=True)
    qtbot.wait(20)
    return view


def _pixels(view) -> bytes:
    """The table as drawn (its frame, header, cells and scroll bar; the plots beside it
    come from the plot child whenever they come)."""
    # 32 bits a pixel: no padding at the rows' ends (RGB888's rows are padded to 4 bytes
    # with whatever the memory held, and the grabs then differed where the pixels did not)
    image = view.table.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    return bytes(image.constBits())


def _shown_keys(view, col: int) -> list[float]:
    keys = view.model.sort_keys(col)
    proxy = view.proxy
    return [keys[proxy.mapToSource(proxy.index(i, 0)).row()] for i in range(proxy.rowCount())]


def test_a_judgment_that_keeps_the_order_moves_no_row(view):
    model, proxy = view.model, view.proxy
    assert proxy.sortColumn() == 1 and proxy.sortOrder() == Qt.SortOrder.DescendingOrder
    values = model._values.copy()
    order = [proxy.mapToSource(proxy.index(i, 0)).row() for i in range(proxy.rowCount())]
    # the selected row keeps its persistent index: the values change in place, no reset
    view.table.selectionModel().select(
        proxy.index(5, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    held = QPersistentModelIndex(proxy.index(5, 0))
    resets = model.resets
    model.set_matrix(RUNS, MEASURES, values * 1.01)  # every value changed, the order kept
    assert model.resets == resets
    assert [proxy.mapToSource(proxy.index(i, 0)).row() for i in range(proxy.rowCount())] == order
    assert held.isValid() and held.row() == 5
    assert view.selected_runs() == [RUNS[order[5]]]
    # values that reorder the runs: sorted again, best first, the selection follows its run
    model.set_matrix(RUNS, MEASURES, values[::-1] * 1.01)
    assert model.resets == resets
    shown = _shown_keys(view, 1)
    assert shown == sorted(shown, reverse=True) and len(shown) == len(RUNS)
    assert view.selected_runs() == [RUNS[order[5]]]


@pytest.mark.parametrize("column", [0, 2])
@pytest.mark.parametrize("order", [Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder])
def test_the_rows_stay_sorted_through_judgments(view, column, order):
    rng = np.random.default_rng(column)
    view.table.sortByColumn(column, order)
    values = np.round(rng.random((len(RUNS), len(MEASURES))), 1)  # many ties
    for _ in range(10):
        changed = rng.random(values.shape) < 0.3
        values = np.where(changed, np.round(rng.random(values.shape), 1), values)
        values[rng.random(values.shape) < 0.05] = np.nan
        view.model.set_matrix(RUNS, MEASURES, values)
        shown = _shown_keys(view, column)
        ascending = order == Qt.SortOrder.AscendingOrder
        assert shown == sorted(shown, reverse=not ascending)


def test_a_paint_asks_each_cell_once_and_draws_what_the_window_style_draws(qtbot, view):
    model = view.model
    calls = {"data": 0, "fill_roles": 0}
    data, fill = RunMeasureTableModel.data, RunMeasureTableModel.fill_roles

    def counted_data(self, *args):
        calls["data"] += 1
        return data(self, *args)

    def counted_fill(self, *args):
        calls["fill_roles"] += 1
        return fill(self, *args)

    model.data = counted_data.__get__(model)
    model.fill_roles = counted_fill.__get__(model)
    view.model.set_matrix(RUNS, MEASURES, model._values + 0.001)
    view.table.viewport().repaint()
    assert calls["fill_roles"] > 0 and calls["data"] == 0
    # the same pixels as the window's style (judgeapp.ui.style) paints, focused or not
    view.table.setFocus()
    view.table.selectRow(3)
    qtbot.wait(150)
    ours = [_pixels(view)]
    view.table.clearFocus()
    qtbot.wait(150)
    ours.append(_pixels(view))
    view.table.removeEventFilter(view.table.frame_painter)
    view.table.setStyle(QApplication.style())
    view.table.setFocus()
    qtbot.wait(150)
    theirs = [_pixels(view)]
    view.table.clearFocus()
    qtbot.wait(150)
    theirs.append(_pixels(view))
    assert ours[0] != ours[1]  # the focus frame shows
    assert ours == theirs
