"""A layout that places its widgets left to right and starts a new row when the next one
does not fit: a row of controls that stays one row in a wide window and wraps in a narrow
one (1024 pixels, or a laptop screen at a scale factor of 2) instead of widening it."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget


class FlowLayout(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self._stretch_after: set[int] = set()  # rows break no earlier; items after go right

    # -- QLayout --------------------------------------------------------------------------------
    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def add_stretch(self) -> None:
        """What follows goes to the right end of its row (when it shares the row)."""
        self._stretch_after.add(len(self._items))

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, apply=True)

    def sizeHint(self) -> QSize:
        width = sum(i.sizeHint().width() for i in self._visible()) + self._spacing * max(
            len(self._visible()) - 1, 0
        )
        m = self.contentsMargins()
        return QSize(
            width + m.left() + m.right(), self.heightForWidth(width + m.left() + m.right())
        )

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._visible():
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    # -- placing --------------------------------------------------------------------------------
    def _visible(self) -> list[QLayoutItem]:
        return [i for i in self._items if not _hidden(i)]

    def _arrange(self, rect: QRect, apply: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        rows: list[list[tuple[QLayoutItem, QSize, bool]]] = [[]]
        x = 0
        for index, item in enumerate(self._items):
            if _hidden(item):
                continue
            hint = item.sizeHint().boundedTo(QSize(area.width(), 10_000))
            if rows[-1] and x + hint.width() > area.width():
                rows.append([])
                x = 0
            # the first item of a row at or after a stretch goes right (and what follows it)
            after = any(index >= at for at in self._stretch_after)
            first_after = after and not any(flag for _i, _h, flag in rows[-1])
            rows[-1].append((item, hint, first_after))
            x += hint.width() + self._spacing
        y = area.y()
        for row in rows:
            if not row:
                continue
            height = max(h.height() for _, h, _ in row)
            if apply:
                used = sum(h.width() for _, h, _ in row) + self._spacing * (len(row) - 1)
                spare = max(area.width() - used, 0)
                px = area.x()
                for item, hint, stretch in row:
                    if stretch:
                        px += spare
                        spare = 0
                    top = y + (height - hint.height()) // 2
                    item.setGeometry(QRect(QPoint(px, top), hint))
                    px += hint.width() + self._spacing
            y += height + self._spacing
        return y - self._spacing - rect.y() + m.bottom() if rows[0] else m.top() + m.bottom()


def _hidden(item: QLayoutItem) -> bool:
    widget = item.widget()
    return widget is not None and widget.isHidden()
