"""The document viewer: docno and title above, the text below with terms highlighted.

QPlainTextEdit lays text out lazily (only what is on screen), so long documents open
quickly; highlights are extra selections from `Highlighter.spans`, which caps its work; a
paragraph of megabytes is split at spaces first (`break_long_lines`, offsets unchanged).
Hard-wrapped text (Cranfield's 60-column lines) is reflowed to the viewer's width
(`reflow`, offsets unchanged). Scroll position: a document seen for the first time opens at its top; one seen before in
this session opens where the assessor left it.
"""

from __future__ import annotations

import bisect

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QFrame, QLabel, QPlainTextEdit, QTextEdit, QVBoxLayout, QWidget

from judgeapp.services.highlight import Highlighter, break_long_lines, reflow
from judgeapp.store import DocumentRecord
from judgeapp.ui import theme


class DocumentViewer(QWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.header = QLabel()
        self.header.setObjectName("docHeader")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.meta = QLabel()
        self.meta.setObjectName("muted")
        self.text = QPlainTextEdit()
        self.text.setObjectName("documentText")
        self.text.setReadOnly(True)
        self.text.setFont(theme.reading_font())
        self.text.setFrameShape(QFrame.Shape.NoFrame)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.header)
        layout.addWidget(self.meta)
        layout.addWidget(self.text, 1)
        self.doc_id: int | None = None
        self.highlighter = Highlighter(None, None)
        self.truncated_highlights = False
        self.n_highlights = 0
        self._scroll: dict[int, int] = {}
        self._topic_format = QTextCharFormat()
        self._topic_format.setBackground(theme.TOPIC_TERM)
        self._user_format = QTextCharFormat()
        self._user_format.setBackground(theme.USER_TERM)
        self._user_format.setFontUnderline(True)

    def set_highlighter(self, highlighter: Highlighter) -> None:
        self.highlighter = highlighter
        if self.doc_id is not None:
            self._apply_highlights()

    def forget_positions(self) -> None:
        """A new topic: documents seen before are seen afresh."""
        self._scroll.clear()

    def show_document(self, doc_id: int, docno: str, record: DocumentRecord | None) -> None:
        if self.doc_id is not None:
            self._scroll[self.doc_id] = self.text.verticalScrollBar().value()
        self.doc_id = doc_id
        if record is None:
            self.header.setText(docno)
            self.meta.setText("This document's text is not in the project.")
            body = ""
        else:
            title = " ".join(record.title.split())
            self.header.setText(f"{docno}  ·  {title}" if title else docno)
            authors = record.fields.get("authors") if isinstance(record.fields, dict) else None
            self.meta.setText(str(authors) if authors else "")
            body = record.text
        self.meta.setVisible(bool(self.meta.text()))
        self.text.setPlainText(break_long_lines(reflow(body)))
        self._apply_highlights()
        bar = self.text.verticalScrollBar()
        bar.setValue(self._scroll.get(doc_id, 0))

    def clear(self) -> None:
        if self.doc_id is not None:
            self._scroll[self.doc_id] = self.text.verticalScrollBar().value()
        self.doc_id = None
        self.header.setText("")
        self.meta.setText("")
        self.text.setPlainText("")
        self.text.setExtraSelections([])

    def _apply_highlights(self) -> None:
        text = self.text.toPlainText()
        topic_spans, user_spans, truncated = self.highlighter.spans(text)
        if not text.isascii() and len(text.encode("utf-16-le")) != 2 * len(text):
            # characters beyond the BMP take two positions in Qt's text, one in Python's
            topic_spans, user_spans = _utf16_spans(text, topic_spans, user_spans)
        self.truncated_highlights = truncated
        self.n_highlights = len(topic_spans) + len(user_spans)
        document = self.text.document()
        selections = []
        for spans, fmt in ((topic_spans, self._topic_format), (user_spans, self._user_format)):
            for start, end in spans:
                selection = QTextEdit.ExtraSelection()
                cursor = QTextCursor(document)
                cursor.setPosition(start)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                selection.cursor = cursor
                selection.format = fmt
                selections.append(selection)
        self.text.setExtraSelections(selections)


def _utf16_spans(text: str, *span_lists: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    wide = [i for i, ch in enumerate(text) if ord(ch) > 0xFFFF]

    def shift(pos: int) -> int:
        return pos + bisect.bisect_left(wide, pos)

    return [[(shift(a), shift(b)) for a, b in spans] for spans in span_lists]
