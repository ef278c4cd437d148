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
painted by an event filter through the application's style, as the view would. Its scroll
bars and header are widgets of their own and keep the window's style. What is drawn is the
same, pixel for pixel (tests/ui/test_dashboard_in_place.py compares the grabs).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QStyle,
    QStyleFactory,
    QStyleOptionFrame,
)

from judgeapp.ui.style import Style, dress


class _FramePainter(QObject):
    """Paints the view's frame with the application's style (the window's focus frame)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Paint or not isinstance(watched, QAbstractItemView):
            return False
        option = QStyleOptionFrame()
        watched.initStyleOption(option)
        painter = QPainter(watched)
        try:
            QApplication.style().drawControl(
                QStyle.ControlElement.CE_ShapedFrame, option, painter, watched
            )
        finally:
            painter.end()
        return True


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
