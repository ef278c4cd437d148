"""A label for text that changes with every judgment (a document's title, the counts).

`QLabel.setText` asks its layout for a new size on every call, even when nothing would
move; the layout pass that follows repaints the whole main window, twice per judgment.
`TextLine` keeps the height of `lines` lines of its font and never asks again, and it
fills its own background: a new text repaints only the line itself. Text that does not fit is wrapped at word boundaries (more
than one line) and elided at the end; the whole of it goes in the tooltip by the caller.
Named looks (judgeapp.ui.style) apply to it by object name, as to a QLabel.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QSize, Qt
from PySide6.QtGui import QPainter, QPalette, QTextLayout, QTextOption
from PySide6.QtWidgets import QSizePolicy, QWidget


class TextLine(QWidget):
    def __init__(self, lines: int = 1, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = ""
        self._lines = max(1, lines)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        # opaque: a new text repaints this line alone, not every widget beneath it (the
        # document viewer, the judging view, the splitter, the tabs, the main window, each
        # through the Python style: ten paint events of every grade key)
        self.setAutoFillBackground(True)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self.update()  # a repaint of this line only: its size stays

    def lines(self) -> int:
        return self._lines

    # -- size: fixed by the font, so a text never relayouts anything ---------------------------
    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        return QSize(metrics.averageCharWidth() * 24, self._lines * metrics.lineSpacing() + 2)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.sizeHint().height())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.updateGeometry()  # a named look's font arrives when the widget is polished

    # -- painting ---------------------------------------------------------------------------------
    def visible_lines(self) -> list[str]:
        """The text as painted at the current width: at most `lines` lines, the last one
        elided when the text goes on."""
        width = max(self.contentsRect().width(), 1)
        metrics = self.fontMetrics()
        text = " ".join(self._text.split()) if self._lines > 1 else self._text
        if self._lines == 1 or metrics.horizontalAdvance(text) <= width:
            return [metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)] if text else []
        layout = QTextLayout(text, self.font())
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WordWrap)
        layout.setTextOption(option)
        out: list[str] = []
        layout.beginLayout()
        try:
            while len(out) < self._lines:
                line = layout.createLine()
                if not line.isValid():
                    break
                line.setLineWidth(width)
                start = line.textStart()
                if len(out) == self._lines - 1:  # the last line takes the rest, elided
                    out.append(metrics.elidedText(text[start:], Qt.TextElideMode.ElideRight, width))
                else:
                    out.append(text[start : start + line.textLength()].rstrip())
        finally:
            layout.endLayout()
        return out

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(QPalette.ColorRole.WindowText))
        painter.setFont(self.font())
        rect = self.contentsRect()
        metrics = self.fontMetrics()
        y = rect.top() + 1 + metrics.ascent()
        for line in self.visible_lines():
            painter.drawText(QPointF(rect.left(), y), line)
            y += metrics.lineSpacing()
        painter.end()
