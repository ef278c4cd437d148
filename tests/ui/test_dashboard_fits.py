"""The dashboard's numbers, headers and plots fit (issue 30, item 7): with "± 95% CI" in
a narrow window no value and no header is cut; an axis label never runs off its canvas
into the caption; the ΔAP axis stays within the ±1 a difference of APs can reach; the
changed cells' tints are explained."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from PySide6.QtCore import Qt

from judgeapp.services.judging import JudgingService
from judgeapp.store import Changes
from tests.ui.test_dashboard import ASSESSOR, TIMEOUT, opened  # noqa: F401 (a fixture)
from tests.ui.waiting import settled


def _cut_columns(table) -> list[str]:
    """The headers of the columns narrower than their header or a value on screen needs."""
    header = table.horizontalHeader()
    cut = []
    for c in range(header.count()):
        need = max(table.sizeHintForColumn(c), header.sectionSizeHint(c))
        if header.sectionSize(c) < need:
            cut.append(table.model().headerData(c, Qt.Orientation.Horizontal))
    return cut


def test_intervals_and_changes_fit_a_narrow_window_and_the_tints_are_explained(
    qtbot,
    opened,  # noqa: F811
):
    project, _window, controller, dashboard = opened()
    view, model = dashboard.view, dashboard.view.model
    wide = view.table.viewport().width()
    dashboard.own_window.resize(1024, 700)  # the narrowest usable window
    qtbot.waitUntil(lambda: view.table.viewport().width() < wide - 150, timeout=TIMEOUT)
    view.show_intervals.click()  # as the user ticks it
    settled()
    qtbot.waitUntil(lambda: not _cut_columns(view.table), timeout=TIMEOUT)
    run = next(iter(project.runs))
    text = model.index(model.row_of(run), 1).data()
    value, interval = text.split("\n")  # the interval on a line of its own
    assert interval.startswith("±.") and value.startswith("0.")
    rows = view.table.verticalHeader()
    two_lines = 2 * view.table.fontMetrics().lineSpacing()
    qtbot.waitUntil(lambda: rows.defaultSectionSize() >= two_lines, timeout=TIMEOUT)
    # a judgment that changes the means: the changed cells carry their change, and still fit
    store = controller.workbench.store
    pooled = store.pools.doc_ids("pool")["1"].tolist()
    judged = {j.doc_id for j in store.judgments.all("1")}
    doc = next(d for d in pooled if d not in judged)
    JudgingService(store, ASSESSOR).record("1", doc, 2)
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        controller.apply_changes(Changes(topics=frozenset({"1"})))
        settled()
    changed = dashboard.display.changed_cells
    assert changed
    r, c = changed[0]
    cell = model.index(r, c + 1)
    assert cell.data().split("\n")[0].count(" ") >= 2  # the value, then its change
    qtbot.waitUntil(lambda: not _cut_columns(view.table), timeout=TIMEOUT)
    # the tint of a changed cell is the one the legend shows, named
    tint = cell.data(Qt.ItemDataRole.BackgroundRole).color().name()
    legend = view.change_legend.text()
    assert tint in legend and "rose" in legend and "fell at the last judgment" in legend
    assert view.change_legend.isVisible()


def test_an_axis_label_that_sticks_out_gets_room(qtbot):
    """A label bigger than the fixed margins allow (a large font, a 2x screen): after the
    next draw the axes' labels lie inside the canvas, above the caption."""
    plot = _shown_plot_with_labels(qtbot, (360, 300), fontsize=26)
    before = plot.full_draws
    plot.refresh(full=True)
    qtbot.waitUntil(lambda: plot.full_draws >= before + 2, timeout=TIMEOUT)  # drawn again
    box = plot.ax.get_tightbbox(plot.canvas.get_renderer())
    figure = plot.figure.bbox
    assert box.y0 >= figure.y0 - 0.5 and box.x0 >= figure.x0 - 0.5
    assert plot.canvas.geometry().bottom() < plot.caption.geometry().top()


def test_a_canvas_too_small_for_its_labels_stops_redrawing(qtbot):
    """Where the labels cannot fit (a canvas smaller than they are: the axes already at
    their limits), the margins' fit gives up instead of redrawing for ever: such a plot,
    left in a window, drew continuously and held the GUI thread 270-670 ms at a time."""
    plot = _shown_plot_with_labels(qtbot, (170, 130), fontsize=40)
    plot.refresh(full=True)
    qtbot.waitUntil(lambda: not plot.pending, timeout=TIMEOUT)  # drawn (in the child)
    qtbot.wait(600)
    settled_at = plot.full_draws
    qtbot.wait(600)  # nothing asked for: nothing drawn
    assert plot.full_draws == settled_at


def test_the_ap_difference_axis_stays_within_one():
    from judgeapp.ui.dashboard.topic_plots import ApDifferencePlot

    plot = ApDifferencePlot()
    plot.configure("a", "b", 3)
    ap = np.array([[1.0, 0.5, 0.2], [0.05, 0.5, 0.2]])  # a - b reaches 0.95
    snapshot = SimpleNamespace(num_topics=3, run_names=("a", "b"), ap=ap)
    plot.update(snapshot, "a", "b")  # type: ignore[arg-type]
    low, high = plot.ax.get_ylim()
    assert (low, high) == (-1.05, 1.05)
    ap = np.array([[0.3, 0.5, 0.2], [0.1, 0.5, 0.2]])  # 0.2: a tighter axis again
    plot.update(SimpleNamespace(num_topics=3, run_names=("a", "b"), ap=ap), "a", "b")  # type: ignore[arg-type]
    assert plot.ax.get_ylim() == (-0.25, 0.25)


def _shown_plot_with_labels(qtbot, size: tuple[int, int], fontsize: int):
    """An nDCG@k plot shown at `size`, its axis labels set in `fontsize` points."""
    from judgeapp.ui.dashboard.curve_plots import NdcgCutoffPlot

    plot = NdcgCutoffPlot()
    qtbot.addWidget(plot.widget)
    plot.widget.resize(*size)
    plot.widget.show()
    qtbot.waitExposed(plot.widget)
    plot.ax.set_xlabel("Cutoff k", fontsize=fontsize)
    plot.ax.set_ylabel("nDCG@k", fontsize=fontsize)
    return plot
