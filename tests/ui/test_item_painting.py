"""The topic list and the judging list are painted with no call into Python per cell (issue
28: the topic list's first paint when a project opens, the judging list's rows at every
grade key): Fusion itself draws their cells (judgeapp.ui.item_style), the topic list's
progress bars are pictures drawn once per fraction (judgeapp.ui.delegates), and the topic
list sorts by places Qt compares (no Python lessThan). What they show is what the
window's style, and the progress delegate that painted each bar, drew."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate

from judgeapp.services.rows import QueueItem, TopicRow, natural_key
from judgeapp.ui.delegates import draw_progress
from judgeapp.ui.main_window import TopicsView
from judgeapp.ui.models import TopicTableModel
from tests.ui.themed import show_themed

UI = Path(__file__).resolve().parents[2] / "judgeapp" / "ui"
JUDGED = [0, 1, 3, 37, 50, 120, 199, 200, 7, 0, 150, 64]


def _rows() -> list[TopicRow]:
    """Topics with every kind of bar (empty, a sliver, partial, 99.5%, full, no pool) and
    ties in every column (ids "2" before "10", as numbers)."""
    return [
        TopicRow(
            qid=f"{i}" if i % 4 else f"q{i}",
            title=f"topic {i % 7} about things",
            pool_size=0 if i == 9 else 200,
            judged=JUDGED[i % len(JUDGED)] if i != 9 else 0,
            relevant=i % 4,
            missing=None if i % 3 else 1.5 * (i % 5),
            missing_low=0.5,
            missing_high=9.0,
            assigned=i % 5 == 0,
            imported=i % 2,
        )
        for i in range(30)
    ]


@pytest.fixture
def topics(qtbot):
    view = show_themed(qtbot, TopicsView(), 1200, 600)
    view.model.set_rows(_rows())
    for shown in (view.show_estimates, view.show_imported, view.show_assignments):
        shown(True)
    qtbot.wait(20)
    return view


@contextmanager
def python_calls():
    """The Python functions of judgeapp.ui called meanwhile (by Qt too): file, name, and
    what a style's function was asked to draw and for which widget (None for others)."""
    seen: list[tuple[str, str, object, object]] = []

    def profile(frame, event, _arg) -> None:
        if event == "call" and frame.f_code.co_filename.startswith(str(UI)):
            file, local = Path(frame.f_code.co_filename).name, frame.f_locals
            seen.append((file, frame.f_code.co_name, local.get("element"), local.get("widget")))

    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(None)


CELLS = (
    QStyle.ControlElement.CE_ItemViewItem,
    QStyle.PrimitiveElement.PE_PanelItemViewRow,
    QStyle.PrimitiveElement.PE_PanelItemViewItem,
    QStyle.PrimitiveElement.PE_FrameFocusRect,
)


def _cells_drawn_in_python(calls) -> list[tuple[str, str]]:
    """The calls that drew cells: the window's style asked for a cell's parts (the view's
    frame and the corner between its scroll bars are drawn by it once a paint of the view,
    by design), a delegate's paint."""
    return [
        (file, name)
        for file, name, element, _widget in calls
        if (file == "style.py" and element in CELLS) or name == "paint"
    ]


def test_the_topic_list_paints_no_cell_through_python(topics):
    topics.table.selectRow(2)
    with python_calls() as calls:
        topics.table.viewport().repaint()
    cells = (topics.table.rowAt(topics.table.viewport().height() - 1) + 1) * 9
    # each cell's roles come in one call (multiData), and nothing of the drawing is Python's
    assert 0 < sum(name == "multiData" for _, name, *_ in calls) <= cells
    assert _cells_drawn_in_python(calls) == []


class _ProgressDelegate(QStyledItemDelegate):
    """How each bar was painted before: a delegate drawing it per cell, over the selection."""

    def paint(self, painter, option, index) -> None:
        painter.save()
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(option.rect, option.palette.highlight())
        painter.setFont(option.font)
        fraction = index.data(TopicTableModel.ProgressRole)
        draw_progress(painter, option.rect, fraction, option.palette.text().color())
        painter.restore()


def _grab(view) -> np.ndarray:
    image = view.table.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    return np.frombuffer(bytes(image.constBits()), np.uint8).reshape(
        image.height(), image.width(), 4
    )


def _grabs(qtbot, view) -> list[np.ndarray]:
    """The table focused with a row chosen, then without the focus."""
    view.table.setFocus()
    view.select_qid("q8")
    qtbot.wait(100)
    grabs = [_grab(view)]
    view.table.clearFocus()
    qtbot.wait(100)
    return [*grabs, _grab(view)]


@pytest.mark.parametrize("sort", [TopicTableModel.ID, TopicTableModel.PROGRESS])
def test_the_topic_list_looks_as_the_window_style_and_the_delegate_drew_it(qtbot, topics, sort):
    table = topics.table
    table.sortByColumn(sort, Qt.SortOrder.DescendingOrder)
    ours = _grabs(qtbot, topics)
    # as it was painted before: the window's style for every cell, a delegate for the bars
    table.removeEventFilter(table.frame_painter)
    table.setStyle(QApplication.style())
    topics.model.progress_pictures = None
    delegate = _ProgressDelegate(table)
    table.setItemDelegateForColumn(TopicTableModel.PROGRESS, delegate)
    theirs = _grabs(qtbot, topics)
    assert not np.array_equal(ours[0], ours[1])  # the focus frame shows
    header = table.horizontalHeader()
    left = table.viewport().x() + header.sectionViewportPosition(TopicTableModel.PROGRESS)
    right = left + header.sectionSize(TopicTableModel.PROGRESS)
    for a, b in zip(ours, theirs, strict=True):
        diff = np.abs(a.astype(int) - b.astype(int)).max(axis=2)
        # the same pixels, but where a bar's antialiased end lies over the track's: the
        # picture blends them on a transparent ground first (1 or 2 levels of 255)
        assert diff[:, :left].max() == 0 and diff[:, right:].max() == 0
        assert diff[:, left:right].max() <= 2
        assert (diff > 0).sum() < 0.01 * diff[:, left:right].size


def test_the_bar_follows_the_column_width(qtbot, topics):
    table, proxy = topics.table, topics.proxy
    full = next(
        r
        for r in range(proxy.rowCount())
        if proxy.index(r, 0).data(TopicTableModel.ProgressRole) == 1
    )
    index = proxy.index(full, TopicTableModel.PROGRESS)
    done = np.array([0x6E, 0x9E, 0x2F])  # the full bar's green (#2f9e6e), as BGR

    def green_reach() -> int:
        """How far the full bar's green reaches into its cell, in pixels."""
        qtbot.wait(20)
        rect = table.visualRect(index).translated(table.viewport().pos())
        row = _grab(topics)[rect.center().y(), :, :3]
        return int(np.nonzero((row == done).all(axis=1))[0].max()) - rect.left()

    before = green_reach()
    width = table.columnWidth(TopicTableModel.PROGRESS)
    table.horizontalHeader().resizeSection(TopicTableModel.PROGRESS, width + 130)
    assert table.iconSize().width() == width + 130 - 2 * topics.progress_pictures.margin()
    assert table.iconSize().height() == table.verticalHeader().defaultSectionSize()
    assert green_reach() == before + 130  # the bar is as much longer as its column


def _shown(view, col: int) -> list:
    proxy = view.proxy
    return [proxy.index(r, col).data(TopicTableModel.QidRole) for r in range(proxy.rowCount())]


def _expected(rows: list[TopicRow], col: int, descending: bool) -> list[str]:
    def key(row: TopicRow):
        value = {
            TopicTableModel.ID: (not row.assigned, natural_key(row.qid)),
            TopicTableModel.ASSIGNED: (not row.assigned, natural_key(row.qid)),
            TopicTableModel.TITLE: row.title.lower(),
            TopicTableModel.POOL: row.pool_size,
            TopicTableModel.JUDGED: row.judged,
            TopicTableModel.RELEVANT: row.relevant,
            TopicTableModel.PROGRESS: row.progress,
            TopicTableModel.MISSING: -1.0 if row.missing is None else row.missing,
            TopicTableModel.IMPORTED: row.imported,
        }[col]
        return value, natural_key(row.qid)  # ties by topic id, numbers as numbers

    return [r.qid for r in sorted(rows, key=key, reverse=descending)]


@pytest.mark.parametrize("order", [Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder])
def test_every_column_sorts_in_its_order_through_judgments(topics, order):
    rows = _rows()
    descending = order == Qt.SortOrder.DescendingOrder
    for col in range(len(TopicTableModel.HEADERS)):
        topics.table.sortByColumn(col, order)
        assert _shown(topics, col) == _expected(rows, col, descending), col
    # judgments change a topic's counts: its row moves to its place, the others keep theirs
    topics.table.sortByColumn(TopicTableModel.JUDGED, order)
    for i, judged in ((3, 200), (0, 50), (17, 0), (3, 1)):
        rows[i] = replace(rows[i], judged=judged)
        topics.model.update_row(rows[i])
        assert _shown(topics, 0) == _expected(rows, TopicTableModel.JUDGED, descending)


def test_the_judging_list_paints_no_cell_through_python_and_looks_the_same(qtbot, make_window):
    window, _controller = make_window()
    view = window.judging_view
    window.show_view(view)
    runs = tuple(f"a-run-with-a-long-name-{k}" for k in range(6))
    items = [
        QueueItem(
            i,
            f"DOC-{i:06d}",
            grade=None if i % 3 == 0 else i % 3,
            flagged=i % 7 == 0,
            note="a note" if i % 5 == 0 else "",
            best_rank=i + 1,
            runs=runs,
        )
        for i in range(80)
    ]
    view.list_model.set_items(items, blind=False)
    view.list_model.set_marks({3, 6}, {9}, {1})
    view.configure_list()
    view.select_row(4)
    qtbot.wait(50)
    table = view.list
    assert table.horizontalScrollBar().isVisible() and table.verticalScrollBar().isVisible()
    with python_calls() as calls:
        table.viewport().repaint()
    assert sum(name == "multiData" for _, name, *_ in calls) > 0
    assert _cells_drawn_in_python(calls) == []

    def grab() -> bytes:
        qtbot.wait(50)
        # the image held while its bits are copied (a temporary's memory is freed at once)
        image = table.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
        return bytes(image.constBits())

    ours = grab()
    table.removeEventFilter(table.frame_painter)
    table.setStyle(QApplication.style())
    assert grab() == ours  # the cells, the scroll bars and the corner between them
