"""Item views whose cells are painted without a call into Python per cell.

The window's style (judgeapp.ui.style.Style) is a QProxyStyle written in Python: every
`drawControl` and `drawPrimitive` Qt makes goes through Python, each wrapping its option,
painter and widget, though the style draws nothing of a view's cells itself (they are
Fusion's). A table's delegate paints each cell with its view's style, two such calls a cell;
for the dashboard's table, whose cells nearly all change with every judgment, they were
some 40% of the GUI thread's repaint (17.5 ms against 10 ms for 88 cells).

`paint_items_in_cpp(view)` gives the view Fusion itself (a style made by Qt, with no Python
in it) for what the view paints, and keeps the window's style for the view's frame (the
focus frame of judgeapp.ui.style, drawn only while the view has the focus): the frame is
painted by an event filter through the application's style, as the view would (with the
corner between its scroll bars). Its scroll bars and header are widgets of their own and
keep the window's style. What is drawn is the same, pixel for pixel
(tests/ui/test_dashboard_in_place.py and test_item_painting.py compare the grabs). Used by
the dashboard's tables, the topic list and the judging list.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QStyle,
    QStyleFactory,
    QStyleOption,
    QStyleOptionFrame,
)

from judgeapp.ui.style import Style, dress


class _FramePainter(QObject):
    """Paints the view's frame with the application's style (the window's focus frame), and
    the corner between its scroll bars when both show, as the view itself would."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Paint or not isinstance(watched, QAbstractItemView):
            return False
        style = QApplication.style()
        painter = QPainter(watched)
        try:
            corner = _corner(watched)
            if corner is not None:
                option = QStyleOption()
                option.initFrom(watched)
                option.rect = corner
                style.drawPrimitive(
                    QStyle.PrimitiveElement.PE_PanelScrollAreaCorner, option, painter, watched
                )
            frame = QStyleOptionFrame()
            watched.initStyleOption(frame)
            style.drawControl(QStyle.ControlElement.CE_ShapedFrame, frame, painter, watched)
        finally:
            painter.end()
        return True


def _corner(view: QAbstractItemView) -> QRect | None:
    """The square between the two scroll bars, while both show and no widget fills it."""
    bars = view.verticalScrollBar(), view.horizontalScrollBar()
    if view.cornerWidget() is not None or not all(bar.isVisible() for bar in bars):
        return None
    # each bar sits in a container of the view's, laid out beside the viewport
    vertical, horizontal = (bar.parentWidget() or bar for bar in bars)
    return QRect(vertical.x(), horizontal.y(), vertical.width(), horizontal.height())


def paint_items_in_cpp(view: QAbstractItemView) -> None:
    """Paint `view`'s cells with Fusion directly; its frame as the window's style does."""
    style = QStyleFactory.create("Fusion")  # made by Qt's factory: no Python wrapper class
    style.setParent(view)  # the view's own (one shared by views was deleted with the first)
    view.setStyle(style)
    if isinstance(QApplication.style(), Style):
        dress(view)  # what the window's style does when it polishes a view (Fusion does not)
    painter = _FramePainter(view)
    view.installEventFilter(painter)
    view.frame_painter = painter  # type: ignore[attr-defined]
