"""The document viewer: docno and title above, the text below with terms highlighted.

QPlainTextEdit lays text out lazily (only what is on screen), so long documents open
quickly; highlights are spans from `Highlighter.spans` (which caps its work) painted per
paragraph by a QSyntaxHighlighter; a
paragraph of megabytes is split at spaces first (`break_long_lines`, offsets unchanged).
Hard-wrapped text (Cranfield's 60-column lines) is reflowed to the viewer's width
(`reflow`, offsets unchanged). Scroll position: a document seen for the first time opens at its top; one seen before in
this session opens where the assessor left it.
"""

from __future__ import annotations

import bisect

from PySide6.QtCore import QPoint
from PySide6.QtGui import QSyntaxHighlighter, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QFrame,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from judgeapp.records import DocumentRecord
from judgeapp.services.highlight import Highlighter, break_long_lines, reflow
from judgeapp.ui import theme
from judgeapp.ui.plain import tooltip
from judgeapp.ui.text_line import TextLine


class DocumentViewer(QWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        # Header and byline keep a fixed height (two lines, one line; longer text is elided,
        # the whole of it in the tooltip) and never relayout the window (see TextLine).
        self.header = TextLine(lines=2)
        self.header.setObjectName("docHeader")
        self.meta = TextLine(lines=1)
        self.meta.setObjectName("muted")
        self.text = QPlainTextEdit()
        self.text.setObjectName("documentText")
        self.text.setReadOnly(True)
        self.text.setFont(theme.reading_font())
        self.text.setFrameShape(QFrame.Shape.NoFrame)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        # opaque, as the text is: a new document's scroll bar repaints it alone (see TextLine)
        self.text.verticalScrollBar().setAutoFillBackground(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.header)
        layout.addWidget(self.meta)
        layout.addWidget(self.text, 1)
        self.text.setAccessibleName("Document text")
        self.header.setAccessibleName("Document")
        self.meta.setAccessibleName("Document details")
        self.doc_id: int | None = None
        self.has_text = False  # the document on screen has its text in the project
        self.loading = False  # its text is being read (show_loading)
        self.highlighter = Highlighter(None, None)
        self.search_highlighter = Highlighter(None, None)  # the words searched for (/)
        self.truncated_highlights = False
        self.n_highlights = 0
        self.n_search_highlights = 0
        self._scroll: dict[int, int] = {}
        self._topic_format = QTextCharFormat()
        self._topic_format.setBackground(theme.TOPIC_TERM)
        self._topic_format.setForeground(theme.HIGHLIGHT_TEXT)  # also on a dark palette
        self._user_format = QTextCharFormat()
        self._user_format.setBackground(theme.USER_TERM)
        self._user_format.setForeground(theme.HIGHLIGHT_TEXT)
        self._user_format.setFontUnderline(True)
        self._search_format = QTextCharFormat()
        self._search_format.setBackground(theme.SEARCH_TERM)
        self._search_format.setForeground(theme.HIGHLIGHT_TEXT)
        self._search_format.setFontWeight(700)
        self._painter = SpanHighlighter(
            self.text.document(), (self._topic_format, self._user_format, self._search_format)
        )

    def set_highlighter(self, highlighter: Highlighter) -> None:
        self.highlighter = highlighter
        if self.doc_id is not None:
            self._apply_highlights()

    def set_search_terms(self, words: list[str]) -> None:
        """Mark these words (the pool search's) in the document, beside the topic's terms."""
        terms = [w.lower() for w in words if w.strip()]
        self.search_highlighter = Highlighter.build([], terms)
        if self.doc_id is not None:
            self._apply_highlights()

    def forget_positions(self) -> None:
        """A new topic: documents seen before are seen afresh."""
        self._scroll.clear()

    def show_loading(self, doc_id: int, docno: str) -> None:
        """A document whose text is being read (a moment; `show_document` follows)."""
        if self.doc_id is not None:
            self._scroll[self.doc_id] = self.top_position()
        self.doc_id = doc_id
        self.has_text = False
        self.loading = True
        self.set_header(docno, "")
        self._painter.set_spans([], [], [])
        self.text.setPlainText("")

    def show_document(self, doc_id: int, docno: str, record: DocumentRecord | None) -> None:
        if self.doc_id is not None and not self.loading:
            self._scroll[self.doc_id] = self.top_position()
        self.doc_id = doc_id
        self.loading = False
        self.has_text = record is not None
        if record is None:
            self.set_header(
                f"{docno}  ·  no text in the project",
                "Its text was not imported: a grade key asks to be pressed twice.",
            )
            body = (
                f"The text of {docno} is not in the project.\n\n"
                "Judge it only if you know it from elsewhere: press a grade key, then press "
                "one again to record it. Or import the collection's documents first "
                "(Project ▸ Import documents…)."
            )
        else:
            title = " ".join(record.title.split())
            authors = record.fields.get("authors") if isinstance(record.fields, dict) else None
            self.set_header(f"{docno}  ·  {title}" if title else docno, str(authors or ""))
            body = record.text
        text = break_long_lines(reflow(body))
        self._compute_spans(text)  # before the text goes in: its layout applies them
        self.text.setPlainText(text)
        self._scroll_to(self._scroll.get(doc_id, 0))

    def set_header(self, header: str, meta: str = "") -> None:
        self.header.setText(header)
        self.header.setToolTip(tooltip(header) or "")  # titles and authors come from files
        self.meta.setText(meta)
        self.meta.setToolTip(tooltip(meta) or "")

    def clear(self) -> None:
        if self.doc_id is not None and not self.loading:
            self._scroll[self.doc_id] = self.top_position()
        self.doc_id = None
        self.has_text = False
        self.loading = False
        self.header.setText("")
        self.meta.setText("")
        self._painter.set_spans([], [], [])
        self.text.setPlainText("")

    def top_position(self) -> int:
        """Where the text on screen starts (a document position): what is remembered, as
        the scroll bar's range changes while Qt lays out a long document lazily."""
        if self.text.verticalScrollBar().value() == 0:
            return 0  # at the top (the usual case, asked at every grade key): no hit test
        return self.text.cursorForPosition(QPoint(0, 0)).position()

    def _scroll_to(self, position: int) -> None:
        cursor = QTextCursor(self.text.document())
        if position <= 0:
            self.text.setTextCursor(cursor)
            self.text.verticalScrollBar().setValue(0)
            return
        # from the end, making the position visible scrolls it to the top of the view
        self.text.moveCursor(QTextCursor.MoveOperation.End)
        self.text.ensureCursorVisible()
        position = min(position, self.text.document().characterCount() - 1)
        cursor.setPosition(position)
        self.text.setTextCursor(cursor)
        self.text.ensureCursorVisible()
        # then line by line until the remembered line is the top one
        bar = self.text.verticalScrollBar()
        line = self.text.fontMetrics().lineSpacing()
        for _ in range(100):
            top = self.top_position()
            below = self.text.cursorForPosition(QPoint(0, line + 1)).position()
            if top > position and bar.value() > bar.minimum():
                bar.setValue(bar.value() - 1)
            elif below <= position and below > top and bar.value() < bar.maximum():
                bar.setValue(bar.value() + 1)
            else:
                break

    def _apply_highlights(self) -> None:
        """New terms for the document on screen."""
        self._compute_spans(self.text.toPlainText())
        self._painter.rehighlight()

    def _compute_spans(self, text: str) -> None:
        if not self.has_text:
            self.truncated_highlights = False
            self.n_highlights = 0
            self._painter.set_spans([], [], [])
            return
        topic_spans, user_spans, truncated = self.highlighter.spans(text)
        _none, search_spans, cut = self.search_highlighter.spans(text)
        truncated = truncated or cut
        if not text.isascii() and len(text.encode("utf-16-le")) != 2 * len(text):
            # characters beyond the BMP take two positions in Qt's text, one in Python's
            topic_spans, user_spans, search_spans = _utf16_spans(
                text, topic_spans, user_spans, search_spans
            )
        self.truncated_highlights = truncated
        self.n_highlights = len(topic_spans) + len(user_spans)
        self.n_search_highlights = len(search_spans)
        self._painter.set_spans(topic_spans, user_spans, search_spans)


class SpanHighlighter(QSyntaxHighlighter):
    """Paints precomputed spans (document positions) block by block. Qt keeps the formats
    in each block's layout, so the document itself is not edited."""

    def __init__(self, document, formats: tuple[QTextCharFormat, ...]) -> None:
        super().__init__(document)
        self.formats = formats
        self._spans: list[list[tuple[int, int]]] = [[] for _ in formats]
        self._ends: list[list[int]] = [[] for _ in formats]

    def set_spans(self, *span_lists: list[tuple[int, int]]) -> None:
        """Spans per format (topic terms, user terms, search words), each list sorted and
        non-overlapping (regex matches); later formats paint over earlier ones."""
        self._spans = [list(spans) for spans in span_lists]
        self._ends = [[end for _, end in spans] for spans in span_lists]

    def highlightBlock(self, text: str) -> None:
        block = self.currentBlock()
        start, stop = block.position(), block.position() + block.length()
        for spans, ends, fmt in zip(self._spans, self._ends, self.formats, strict=True):
            i = bisect.bisect_right(ends, start)
            while i < len(spans) and spans[i][0] < stop:
                a, b = spans[i]
                a, b = max(a, start), min(b, stop)
                self.setFormat(a - start, b - a, fmt)
                i += 1


def _utf16_spans(text: str, *span_lists: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    wide = [i for i, ch in enumerate(text) if ord(ch) > 0xFFFF]

    def shift(pos: int) -> int:
        return pos + bisect.bisect_left(wide, pos)

    return [[(shift(a), shift(b)) for a, b in spans] for spans in span_lists]
