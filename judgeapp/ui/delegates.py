"""Item delegates: a slim progress bar drawn in the topic list."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from judgeapp.ui import theme


class ProgressDelegate(QStyledItemDelegate):
    """Draws the fraction in `role` (0..1) as a rounded bar with the percentage beside it."""

    def __init__(self, role: int, parent=None) -> None:
        super().__init__(parent)
        self.role = role

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        fraction = index.data(self.role)
        if fraction is None:
            super().paint(painter, option, index)
            return
        painter.save()
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(option.rect, option.palette.highlight())
        rect = option.rect.adjusted(6, 0, -6, 0)
        text_width = option.fontMetrics.horizontalAdvance("100%") + 8
        bar = QRectF(rect.left(), rect.center().y() - 4, max(rect.width() - text_width, 10), 8)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.colour("track"))
        painter.drawRoundedRect(bar, 4, 4)
        done = max(0.0, min(float(fraction), 1.0))
        if done > 0:
            filled = QRectF(bar)
            filled.setWidth(max(bar.width() * done, 8))
            painter.setBrush(QColor("#2f9e6e" if done >= 1.0 else "#5b8def"))
            painter.drawRoundedRect(filled, 4, 4)
        painter.setPen(option.palette.text().color())
        text_rect = rect.adjusted(rect.width() - text_width + 4, 0, 0, 0)
        painter.drawText(
            text_rect,
            int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
            f"{done:.0%}",
        )
        painter.restore()
