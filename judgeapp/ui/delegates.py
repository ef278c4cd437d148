"""The topic list's progress bars: a slim rounded bar with the percentage beside it, drawn
once per fraction and cell size into a picture the view paints as the cell's decoration.

A delegate of our own painted each bar, a call into Python for every progress cell of
every paint (and one through the window's Python style for each of the table's other
cells: see judgeapp.ui.item_style). The picture is what that delegate drew, on a
transparent ground, placed where it drew it: the view paints it with no Python in the
paint (`ProgressPictures.picture`, the model's DecorationRole), over the row's own
background (the alternating colour, or the selection's).
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QStyle, QTableView

from judgeapp.ui import theme

DONE, UNDER_WAY = "#2f9e6e", "#5b8def"  # the bar's fill: the pool judged through, or not
SIDE = 6  # the bar starts, and the percentage ends, this far inside the cell
_CACHED = 512  # pictures kept (a few per topic: fractions x widths x colour schemes)


def draw_progress(painter: QPainter, rect: QRect, fraction: float, text: QColor) -> None:
    """The bar and its percentage for `fraction` (0..1) across `rect` (a cell's)."""
    inner = rect.adjusted(SIDE, 0, -SIDE, 0)
    text_width = painter.fontMetrics().horizontalAdvance("100%") + 8
    bar = QRectF(inner.left(), inner.center().y() - 4, max(inner.width() - text_width, 10), 8)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(theme.colour("track"))
    painter.drawRoundedRect(bar, 4, 4)
    done = max(0.0, min(float(fraction), 1.0))
    if done > 0:
        filled = QRectF(bar)
        filled.setWidth(max(bar.width() * done, 8))
        painter.setBrush(QColor(DONE if done >= 1.0 else UNDER_WAY))
        painter.drawRoundedRect(filled, 4, 4)
    painter.setPen(text)
    text_rect = inner.adjusted(inner.width() - text_width + 4, 0, 0, 0)
    align = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    painter.drawText(text_rect, int(align), f"{done:.0%}")


class ProgressPictures:
    """The progress column of `view` as pictures (`picture(fraction)`), sized to the
    column's width and the rows' height; the view's icon size follows the column's width
    (a decoration is drawn at the icon size)."""

    def __init__(self, view: QTableView, column: int) -> None:
        self.view, self.column = view, column
        self._cache: dict[tuple, QIcon] = {}
        self._size = self.size()
        view.horizontalHeader().sectionResized.connect(self._on_section_resized)

    def margin(self) -> int:
        """Where the view's style puts a decoration: this far inside the cell's left side
        (its layout of an item: the focus frame's margin and a pixel)."""
        style = self.view.style()
        return style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self.view) + 1

    def size(self) -> QSize:
        """A picture's size: the cell less the margins either side of its decoration."""
        width = self.view.columnWidth(self.column) - 2 * self.margin()
        return QSize(max(width, 1), self.view.verticalHeader().defaultSectionSize())

    def follow_column(self) -> None:
        """Decorations drawn at the pictures' size (after the column or the style changed)."""
        self._size = self.size()
        self.view.setIconSize(self._size)

    def _on_section_resized(self, section: int, _old: int, _new: int) -> None:
        if section == self.column:
            self.follow_column()

    def picture(self, fraction: float) -> QIcon:
        view, size = self.view, self._size
        ratio = view.devicePixelRatioF()
        text = view.palette().color(QPalette.ColorRole.Text)
        key = (fraction, size.width(), size.height(), ratio, text.rgba(), theme.COLOURS["track"],
               view.font().key())  # fmt: skip
        icon = self._cache.get(key)
        if icon is None:
            if len(self._cache) >= _CACHED:
                self._cache.clear()
            icon = self._cache[key] = self._draw(fraction, size, ratio, text)
        return icon

    def _draw(self, fraction: float, size: QSize, ratio: float, text: QColor) -> QIcon:
        pixmap = QPixmap(size * ratio)
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setFont(self.view.font())
        margin = self.margin()
        # the cell's rectangle in the picture's coordinates (the picture starts at the margin)
        draw_progress(painter, QRect(-margin, 0, size.width() + 2 * margin, size.height()),
                      fraction, text)  # fmt: skip
        painter.end()
        icon = QIcon()
        # the same picture on a selected row (a style tints the selected one otherwise)
        for mode in (QIcon.Mode.Normal, QIcon.Mode.Selected, QIcon.Mode.Active):
            icon.addPixmap(pixmap, mode)
        return icon
