"""The dashboard's table follows a judgment in place and cheaply (issue 28: no GUI-thread
piece over 16-25 ms at TREC size): no reset (the selected row keeps its persistent index),
the rows kept sorted, the cells a paint asks for come from the model in one call each (`multiData`),
and they are painted by Fusion itself, not through the window's style written in Python,
with the same pixels."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelectionModel,
    QModelRoleData,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from judgeapp.measures import DEFAULT_GUI_MEASURES, parse_measure
from judgeapp.services.baseline import Significance
from judgeapp.ui import theme
from judgeapp.ui.dashboard.models import RunMeasureTableModel
from judgeapp.ui.dashboard.view import DashboardView, _table
from tests.ui.themed import show_themed

MEASURES = [parse_measure(m) for m in DEFAULT_GUI_MEASURES]
RUNS = [f"run{i:03d}" for i in range(115)]


@pytest.fixture
def view(qtbot):
    view = show_themed(qtbot, DashboardView(), 1366, 768)
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
    """The sort keys of column `col` in the order the table's rows show them (read
    through the table's model as the view reads it: row by row, the SortRole)."""
    shown = view.table.model()
    return [shown.index(i, col).data(view.model.SortRole) for i in range(shown.rowCount())]


def _shown_runs(view) -> list[str]:
    shown = view.table.model()
    return [shown.index(i, 0).data() for i in range(shown.rowCount())]


def test_a_judgment_that_keeps_the_order_moves_no_row(view):
    model = view.model
    assert view.table.model() is model  # sorted by the model itself, no proxy
    assert model.sort_column() == 1 and model.sort_order() == Qt.SortOrder.DescendingOrder
    values = model._values.copy()
    order = _shown_runs(view)
    moves = []
    model.layoutChanged.connect(lambda *_: moves.append(1))
    # the selected row keeps its persistent index: the values change in place, no reset
    view.table.selectionModel().select(
        model.index(5, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    held = QPersistentModelIndex(model.index(5, 0))
    resets = model.resets
    model.set_matrix(RUNS, MEASURES, values * 1.01)  # every value changed, the order kept
    assert model.resets == resets and not moves
    assert _shown_runs(view) == order
    assert held.isValid() and held.row() == 5
    assert view.selected_runs() == [order[5]]
    # values that reorder the runs: sorted again, best first, the selection follows its run
    model.set_matrix(RUNS, MEASURES, values[::-1] * 1.01)
    assert model.resets == resets and moves == [1]
    shown = _shown_keys(view, 1)
    assert shown == sorted(shown, reverse=True) and len(shown) == len(RUNS)
    assert view.selected_runs() == [order[5]]
    assert held.isValid() and held.data() == order[5] and held.row() != 5
    rows = {i.row() for i in view.table.selectionModel().selectedRows()}
    assert rows == {held.row()}


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


def _painted(model, row: int, col: int) -> dict[str, object]:
    """What a paint is given for a cell (the roles it asks, in one `multiData` call)."""
    asked = {
        "text": Qt.ItemDataRole.DisplayRole,
        "tint": Qt.ItemDataRole.BackgroundRole,
        "colour": Qt.ItemDataRole.ForegroundRole,
        "font": Qt.ItemDataRole.FontRole,
    }
    roles = [QModelRoleData(int(role)) for role in asked.values()]
    model.multiData(model.index(row, col), roles)
    return dict(zip(asked, (r.data() for r in roles), strict=True))


def test_what_a_paint_was_given_follows_every_change_of_the_cell(view):
    model = view.model
    run = model.label_at(0)
    row, col = model.row_of(run), 2  # the second measure, not the sorted one
    before = _painted(model, row, col)
    assert before["tint"] is None and before["font"] is None
    assert before["text"] == f"{model.value(run, str(MEASURES[1])):.4f}"
    values = model._values.copy()
    own = model.labels().index(run)
    values[own, 1] += 0.25  # a judgment raises this cell
    model.set_matrix(RUNS, MEASURES, values)
    row = model.row_of(run)
    after = _painted(model, row, col)
    assert after["text"] == f"{values[own, 1]:.4f}  +.2500" and after["tint"] is not None
    model.set_baseline(run)  # the baseline's row is bold
    assert _painted(model, model.row_of(run), col)["font"].bold()
    assert _painted(model, model.row_of(run), 0)["font"].bold()
    model.clear_changes()  # the highlight ends
    ended = _painted(model, model.row_of(run), col)
    assert ended["text"] == f"{values[own, 1]:.4f}" and ended["tint"] is None
    model.set_baseline(None)
    assert _painted(model, model.row_of(run), col)["font"] is None


def _significance(model, sign: np.ndarray, p: np.ndarray, runs=RUNS) -> Significance:
    shape = sign.shape  # [measure, run], as the background analysis gives them
    return Significance(
        generation=1, version=1, baseline=runs[0], test="t", correction="holm", alpha=0.05,
        measures=tuple(str(m) for m in MEASURES), run_names=tuple(runs),
        delta=np.zeros(shape), p=p, p_raw=p, p_t=p, effect=np.zeros(shape), sign=sign,
        topics=50, permutations=0,
    )  # fmt: skip


def test_new_p_values_repaint_only_the_cells_whose_mark_changed(view):
    model = view.model
    shape = (len(MEASURES), len(RUNS))
    rng = np.random.default_rng(5)
    sign = np.zeros(shape, dtype=int)
    sign[0, 7] = 1
    model.set_significance(_significance(model, sign, rng.uniform(0.2, 1, shape)))
    run = RUNS[7]
    assert "▲" in model.index(model.row_of(run), 1).data()
    changed = []
    model.dataChanged.connect(lambda first, last, *_: changed.append((first, last)))
    p = rng.uniform(0.2, 1, shape)  # a judgment later: every p-value moved, no mark
    p[0, 7] = 0.001
    model.set_significance(_significance(model, sign, p))
    assert changed == []  # nothing shown changed: no repaint
    cell = model.index(model.row_of(run), 1)
    assert cell.data(model.PValueRole) == pytest.approx(0.001)
    assert "p = 0.001" in cell.data(Qt.ItemDataRole.ToolTipRole)
    sign[0, 7], sign[1, 9] = 0, -1  # marks that change: those cells are signalled
    model.set_significance(_significance(model, sign, p))
    assert len(changed) == 1
    first, last = changed[0]
    rows = {model.row_of(RUNS[7]), model.row_of(RUNS[9])}
    assert first.row() == min(rows) and last.row() == max(rows)
    assert (first.column(), last.column()) == (1, 2)
    assert "▲" not in model.index(model.row_of(run), 1).data()
    assert "▼" in model.index(model.row_of(RUNS[9]), 2).data()
    model.set_significance(None)  # the marks go: their cells are signalled
    assert len(changed) == 2 and "▼" not in model.index(model.row_of(RUNS[9]), 2).data()


class _RoleByRole(RunMeasureTableModel):
    """The same model read the way Qt reads one without `multiData`: `data()` role by role."""

    multiData = QAbstractTableModel.multiData


def test_a_marked_cell_colours_no_cell_painted_after_it(qtbot):
    """The roles a paint asks are handed on from cell to cell: a role a cell has no value
    for is cleared, not left as the cell before set it (every cell after the first mark
    was painted in the mark's green, the labels right-aligned)."""
    theme.apply_theme(QApplication.instance())
    shape = (len(MEASURES), 20)
    sign = np.zeros(shape, dtype=int)
    sign[0, ::5], sign[1, 3] = 1, -1
    grabs = []
    for cls in (RunMeasureTableModel, _RoleByRole):
        model = cls()
        table = _table(model)
        qtbot.addWidget(table)
        table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        table.resize(900, 400)
        model.set_matrix(RUNS[:20], MEASURES, np.random.default_rng(2).random((20, 7)), fresh=True)
        model.set_significance(_significance(model, sign, np.full(shape, 0.01), RUNS[:20]))
        model.set_baseline(RUNS[4])
        table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        table.show()
        qtbot.waitExposed(table)
        grabs.append(table.grab().toImage().convertToFormat(QImage.Format.Format_RGB32))
    ours, role_by_role = grabs
    assert ours.size() == role_by_role.size()
    assert bytes(ours.constBits()) == bytes(role_by_role.constBits())
