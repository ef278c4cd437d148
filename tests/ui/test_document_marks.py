"""The document viewer marks the terms of a long document without making the key that
shows it wait: the first screens' marks are set before it is first painted, the rest in
short steps after, and in the end every span one pass of the highlighter finds is marked,
in its format, whatever the length of the text and wherever its lines break."""

from __future__ import annotations

import bisect
import itertools
import random

import pytest

pytest.importorskip("PySide6")


def _viewer(qtbot):
    from judgeapp.services.highlight import Highlighter
    from judgeapp.ui.document_viewer import DocumentViewer

    viewer = DocumentViewer()
    qtbot.addWidget(viewer)
    viewer.resize(700, 500)
    viewer.show()
    viewer.set_highlighter(Highlighter.build(["flow", "pressure"], ["boundary layer"]))
    viewer.set_search_terms(["layer"])
    return viewer


def _text(n_words: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    vocabulary = "flow the boundary layer of a wing pressure and shock wave \U0001f600".split()
    separators = [" "] * 12 + ["\n", "\n\n"]
    return "".join(rng.choice(vocabulary) + rng.choice(separators) for _ in range(n_words))


def _marks(viewer) -> list[tuple[int, int, int]]:
    """(start, end, which format) of every mark in the viewer's document, by position."""
    formats = {
        viewer._topic_format.background().color().name(): 0,
        viewer._user_format.background().color().name(): 1,
        viewer._search_format.background().color().name(): 2,
    }
    found = []
    block = viewer.text.document().begin()
    while block.isValid():
        for mark in block.layout().formats():
            start = block.position() + mark.start
            found.append(
                (start, start + mark.length, formats[mark.format.background().color().name()])
            )
        block = block.next()
    return sorted(found)


def _expected(viewer) -> list[tuple[int, int, int]]:
    """What one pass of the highlighters finds, in Qt's positions (a character beyond the
    BMP takes two), a span over a line's end cut in two as the viewer's paragraphs are, over
    the text as shown (hard-wrapped lines joined)."""
    text = viewer.text.toPlainText()
    topic, user, _ = viewer.highlighter.spans(text)
    _, search, _ = viewer.search_highlighter.spans(text)

    wide = [i for i, ch in enumerate(text) if ord(ch) > 0xFFFF]

    def utf16(i: int) -> int:
        return i + bisect.bisect_left(wide, i)

    breaks = [i for i, ch in enumerate(text) if ch == "\n"]
    expected = []
    for k, spans in enumerate((topic, user, search)):
        for a, b in spans:
            inside = breaks[bisect.bisect_left(breaks, a) : bisect.bisect_left(breaks, b - 1)]
            cuts = [a] + [i + 1 for i in inside] + [b]
            for x, y in itertools.pairwise(cuts):
                expected.append((utf16(x), utf16(y), k))
    return sorted(expected)


def _show(viewer, text: str, doc_id: int = 1) -> None:
    from judgeapp.records import DocumentRecord

    viewer.show_document(
        doc_id, f"D{doc_id}", DocumentRecord(doc_id, f"D{doc_id}", "", text, {}, "")
    )


def test_a_long_document_is_marked_first_on_screen_then_to_its_end(qtbot):
    from judgeapp.ui.document_viewer import SpanMarks

    viewer = _viewer(qtbot)
    text = _text(25_000)  # some 125 KB, thousands of paragraphs, given to the editor whole
    _show(viewer, text)
    first = _marks(viewer)
    shown = viewer.text.toPlainText()
    assert len(shown) == len(text)
    head = len(shown[: SpanMarks.HEAD].encode("utf-16-le")) // 2
    assert viewer.marking  # more to mark: not done before the first paint
    assert first and all(start < head + 4096 for start, _, _ in first)
    assert [m for m in first if m[0] < head - 100] == [
        m for m in _expected(viewer) if m[0] < head - 100
    ]  # the top of the document is marked as it will stay
    qtbot.waitUntil(lambda: not viewer.marking, timeout=10_000)
    assert _marks(viewer) == _expected(viewer)
    assert viewer.n_highlights + viewer.n_search_highlights == sum(
        len(s) for s in viewer.highlighter.spans(shown)[:2]
    ) + len(viewer.search_highlighter.spans(shown)[1])


def test_new_terms_and_a_new_document_replace_the_marks(qtbot):
    from judgeapp.services.highlight import Highlighter

    viewer = _viewer(qtbot)
    text = _text(30_000, seed=2)
    _show(viewer, text)
    viewer.set_search_terms(["wing"])  # while the first marking is still under way
    qtbot.waitUntil(lambda: not viewer.marking, timeout=10_000)
    assert _marks(viewer) == _expected(viewer)
    viewer.set_highlighter(Highlighter.build(["shock"], []))
    qtbot.waitUntil(lambda: not viewer.marking, timeout=10_000)
    assert _marks(viewer) == _expected(viewer)  # the old terms' marks are gone
    short = _text(50, seed=3)
    _show(viewer, short, doc_id=2)
    assert not viewer.marking  # a short document is marked whole before it is painted
    assert _marks(viewer) == _expected(viewer)


def test_a_text_of_megabytes_is_given_to_the_editor_in_pieces(qtbot):
    """The key that shows it waits for the first piece only; the rest follows, marked, and
    in the end the editor holds the text exactly."""
    from judgeapp.services.highlight import break_long_lines, reflow
    from judgeapp.ui.document_viewer import TextFeed

    viewer = _viewer(qtbot)
    text = _text(400_000, seed=4)  # some 2 MB, hard-wrapped
    whole = break_long_lines(reflow(text))
    assert whole != text  # lines are joined for the viewer's width
    _show(viewer, text)
    held = viewer._feed.held
    assert held < len(text) // 4
    assert viewer.text.toPlainText() == whole[:held]
    assert held <= 2 * TextFeed.FIRST
    qtbot.waitUntil(lambda: not viewer.marking, timeout=20_000)
    assert viewer.text.toPlainText() == whole
    assert _marks(viewer) == _expected(viewer)


def test_going_to_the_end_of_a_long_text_goes_to_its_real_end(qtbot):
    viewer = _viewer(qtbot)
    _show(viewer, _text(400_000, seed=5) + "THE END")
    assert viewer.marking
    viewer.hold_all()
    assert viewer.text.toPlainText().endswith("THE END")


def test_a_long_text_seen_before_opens_where_it_was_left(qtbot):
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication

    viewer = _viewer(qtbot)
    long_text = _text(400_000, seed=6)
    _show(viewer, long_text)
    qtbot.waitUntil(lambda: not viewer.marking, timeout=20_000)
    bar = viewer.text.verticalScrollBar()
    bar.setValue(bar.maximum() * 3 // 4)
    QApplication.processEvents()
    where = viewer.top_position()
    assert where > 4 * 100_000  # far beyond the first piece
    _show(viewer, _text(100, seed=7), doc_id=2)
    _show(viewer, long_text)
    top = viewer.top_position()
    below = viewer.text.cursorForPosition(QPoint(0, viewer.text.fontMetrics().lineSpacing() + 1))
    assert top <= where < max(below.position(), top + 1)
