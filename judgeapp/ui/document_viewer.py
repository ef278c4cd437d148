"""The document viewer: docno and title above, the text below with terms highlighted.

QPlainTextEdit lays text out lazily (only what is on screen), so long documents open
quickly. Highlights are spans of the topic's terms, the assessor's and the pool search's
words (`SpanScan`, which caps its work), set as formats on the paragraphs that hold them
(`SpanMarks`): those in the first screens before the document is first painted, the rest in
steps of a few milliseconds after, so that the time from a key to the next document does not
grow with its length (a QSyntaxHighlighter called Python for every paragraph of the text
before the first paint: 80 ms for a document of 1 MB). The text is given to the editor a
piece at a time too (`TextFeed`, `shown_pieces`): a paragraph of megabytes split at spaces
(`break_long_lines`), hard-wrapped text (Cranfield's 60-column lines) reflowed to the
viewer's width (`reflow`), every offset unchanged. Scroll
position: a document seen for the first time opens at its top; one seen before in this
session opens where the assessor left it.
"""

from __future__ import annotations

import bisect
import re
import time
from collections.abc import Iterator

from PySide6.QtCore import QObject, QPoint, QTimer
from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument, QTextLayout
from PySide6.QtWidgets import (
    QFrame,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from judgeapp.records import DocumentRecord
from judgeapp.services.highlight import Highlighter, SpanScan, shown_pieces
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
        self._marks = SpanMarks(
            self.text, (self._topic_format, self._user_format, self._search_format)
        )
        self.text.document().setUndoRedoEnabled(False)  # read only: nothing to undo
        self._feed = TextFeed(self.text, self._marks)

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
        self._feed.begin("")

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
        position = self._scroll.get(doc_id, 0)
        held = self._feed.begin(body, position)
        # the first screens' marks, before the paint (the spans in the stored text are those
        # in the shown one: lines are joined and broken only at white space)
        self._marks.start(self._scan(body), held)
        self._scroll_to(position)

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
        self._feed.begin("")

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

    @property
    def n_highlights(self) -> int:
        """The topic's and the assessor's terms marked so far."""
        return self._marks.counts[0] + self._marks.counts[1]

    @property
    def n_search_highlights(self) -> int:
        return self._marks.counts[2]

    @property
    def truncated_highlights(self) -> bool:
        """The caps stopped the marking before the end of the text."""
        return self._marks.truncated

    @property
    def marking(self) -> bool:
        """The text further down is still being given to the editor, or marked."""
        return self._feed.busy or self._marks.busy

    def hold_all(self) -> None:
        """Give the editor the rest of a long text now (before going to its end)."""
        self._feed.finish()

    def _apply_highlights(self) -> None:
        """New terms for the document on screen."""
        self._marks.clear()
        self._marks.start(self._scan(self._feed.text), self._feed.held)

    def _scan(self, text: str) -> SpanScan | None:
        if not self.has_text:
            return None
        patterns = (
            self.highlighter.pattern,
            self.highlighter.user_pattern,
            self.search_highlighter.user_pattern,
        )
        if all(pattern is None for pattern in patterns):
            return None
        return SpanScan(text, patterns)


class TextFeed(QObject):
    """Gives an editor a document's text as the viewer shows it (`shown_pieces`: hard-wrapped
    lines joined, over-long lines broken): a text of up to 1.5 x FIRST characters at once; a
    longer one's first FIRST characters (or as far as a remembered scroll position needs) at
    once and the rest about STEP characters at a time from a zero timer, so that the key
    that shows a document of megabytes does not wait for all of it to be prepared and taken
    in by Qt (6 MB: 60-110 ms)."""

    FIRST = 100_000
    STEP = 100_000

    def __init__(self, editor, marks: SpanMarks) -> None:
        super().__init__(editor)
        self.editor, self.marks = editor, marks
        self.text = ""  # the document's text as stored (the shown one's length and offsets)
        self.held = 0  # characters of it the editor holds
        self._pieces: Iterator[str] = iter(())
        self._timer = _step_timer(self, self._step)

    @property
    def busy(self) -> bool:
        return self.held < len(self.text)

    def begin(self, text: str, position: int = 0) -> int:
        """Show `text` (its start, and up to `position` past it); returns the characters
        the editor holds. Any marking of the text before is stopped."""
        self._timer.stop()
        self.marks.stop()
        self.text, self.held = text, 0
        self._pieces = shown_pieces(text, self.STEP)
        needed = len(text)
        if needed > self.FIRST * 3 // 2:
            needed = max(self.FIRST, position + self.FIRST)
        first = []
        while self.held < needed:
            first.append(next(self._pieces))
            self.held += len(first[-1])
        self.editor.setPlainText("".join(first))
        if self.busy:
            self._timer.start()
        return self.held

    def finish(self) -> None:
        while self.busy:
            self._step()

    def _step(self) -> None:
        if not self.busy:
            return
        piece = next(self._pieces)
        cursor = QTextCursor(self.editor.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(piece)
        self.held += len(piece)
        self.marks.more_held(self.held)
        if self.busy:
            self._timer.start()


class SpanMarks(QObject):
    """Sets the spans a `SpanScan` finds as formats on the paragraphs (blocks) of an
    editor's document that hold them: the first HEAD characters' at `start`, the rest in
    steps of STEP_S seconds from a zero timer. The formats go into each block's layout, as a
    QSyntaxHighlighter's do, so the document itself is not edited; unlike one, nothing runs
    for a paragraph without a mark. Later formats paint over earlier ones."""

    HEAD = 20_000  # characters: more than a maximised window shows of a document's top
    SLICE = 20_000  # characters scanned at a time after it
    STEP_S = 0.004

    def __init__(self, editor, formats: tuple[QTextCharFormat, ...]) -> None:
        super().__init__(editor)
        self.editor = editor
        self.formats = formats
        self.counts = [0] * len(formats)
        self.truncated = False
        self._scan: SpanScan | None = None
        self._wide: list[int] = []  # positions of characters beyond the BMP (two in Qt)
        # by block number: (the format's rank, the mark)
        self._marked: dict[int, list[tuple[int, QTextLayout.FormatRange]]] = {}
        self.held = 0  # characters of the scan's text the editor holds (see TextFeed)
        self._timer = _step_timer(self, self._step)

    @property
    def busy(self) -> bool:
        return self._scan is not None and not self._scan.done

    def stop(self) -> None:
        """Forget the marking in progress (the document's text is about to be replaced, and
        its blocks with it)."""
        self._timer.stop()
        self._scan = None
        self._marked = {}
        self.counts = [0] * len(self.formats)
        self.truncated = False

    def start(self, scan: SpanScan | None, held: int | None = None) -> None:
        """Mark what `scan` finds in the editor's text, which it was made from and of which
        the editor holds the first `held` characters (all by default): the head now, the
        rest in later steps."""
        self.stop()
        self._scan = scan
        if scan is None:
            return
        self.held = len(scan.text) if held is None else held
        text = scan.text
        self._wide = []
        if not text.isascii() and len(text.encode("utf-16-le")) != 2 * len(text):
            self._wide = [m.start() for m in _BEYOND_BMP.finditer(text)]
        self._mark(scan.advance(min(self.HEAD, self._markable())))
        self.more_held(self.held)

    def more_held(self, held: int) -> None:
        """The editor now holds `held` characters of the text: mark on."""
        self.held = held
        if self._scan is not None and not self._scan.done:
            self._timer.start()

    def _markable(self) -> int:
        """Where marking may go up to: the text's end once the editor holds it all, else
        short of what it holds by as much as a match may reach past its start."""
        assert self._scan is not None
        if self.held >= len(self._scan.text):
            return len(self._scan.text)
        return self.held - SpanScan.OVERLAP

    def clear(self) -> None:
        """Take every mark off the editor's document (new terms for the same text)."""
        document: QTextDocument = self.editor.document()
        numbers = sorted(self._marked)
        for number in numbers:
            block = document.findBlockByNumber(number)
            if block.isValid():
                block.layout().clearFormats()
        self.stop()
        if numbers:
            self._dirty(document, numbers[0], numbers[-1])

    def _step(self) -> None:
        scan = self._scan
        if scan is None:
            return
        began = time.perf_counter()
        while not scan.done and time.perf_counter() - began < self.STEP_S:
            upto = min(scan.position + self.SLICE, self._markable())
            if upto <= scan.position:
                return  # until the editor holds more (more_held)
            self._mark(scan.advance(upto))
        if not scan.done:
            self._timer.start()

    def _mark(self, found: list[list[tuple[int, int]]]) -> None:
        scan = self._scan
        assert scan is not None
        self.counts = list(scan.counts)
        self.truncated = scan.truncated
        if not any(found):
            return
        document: QTextDocument = self.editor.document()
        touched: set[int] = set()
        for rank, (fmt, spans) in enumerate(zip(self.formats, found, strict=True)):
            for a, b in spans:
                if self._wide:
                    a += bisect.bisect_left(self._wide, a)
                    b += bisect.bisect_left(self._wide, b)
                block = document.findBlock(a)
                while block.isValid() and a < b:  # a phrase may run over a line's end
                    start, length = block.position(), block.length()
                    end = min(b, start + length)
                    if end > a:
                        mark = QTextLayout.FormatRange()
                        mark.start, mark.length, mark.format = a - start, end - a, fmt
                        self._marked.setdefault(block.blockNumber(), []).append((rank, mark))
                        touched.add(block.blockNumber())
                    a = end
                    block = block.next()
        for number in touched:
            marks = self._marked[number]
            marks.sort(key=lambda ranked: ranked[0])  # stable: in order within a format
            document.findBlockByNumber(number).layout().setFormats([m for _, m in marks])
        self._dirty(document, min(touched), max(touched))

    @staticmethod
    def _dirty(document: QTextDocument, first: int, last: int) -> None:
        """Lay out again the blocks from number `first` to `last` (their formats changed)."""
        start = document.findBlockByNumber(first).position()
        end_block = document.findBlockByNumber(last)
        document.markContentsDirty(start, end_block.position() + end_block.length() - start)


def _step_timer(owner: QObject, step) -> QTimer:
    """A single-shot zero timer calling `step`: the next step after the events waiting."""
    timer = QTimer(owner)
    timer.setSingleShot(True)
    timer.setInterval(0)
    timer.timeout.connect(step)
    return timer


_BEYOND_BMP = re.compile("[\U00010000-\U0010ffff]")
