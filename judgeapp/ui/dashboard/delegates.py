"""The value cells of the dashboard tables: the value (right) and, while a change is
highlighted, the coloured change since the last judgment (left, smaller)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from judgeapp.ui.dashboard.models import DOWN_COLOUR, UP_COLOUR


class DeltaDelegate(QStyledItemDelegate):
    def __init__(self, delta_role: int, parent=None) -> None:
        super().__init__(parent)
        self.delta_role = delta_role

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        super().paint(painter, option, index)
        delta = index.data(self.delta_role)
        if delta is None or delta == 0:
            return
        painter.save()
        font = painter.font()
        font.setPointSizeF(max(font.pointSizeF() * 0.8, 6.0))
        painter.setFont(font)
        painter.setPen(UP_COLOUR if delta > 0 else DOWN_COLOUR)
        rect = option.rect.adjusted(4, 0, -4, 0)
        painter.drawText(
            rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), f"{delta:+.3f}"
        )
        painter.restore()
