"""A grade key's next document is painted before the rest of the window hears of the
judgment (the dashboard, the topic list, the estimates: judgeapp.ui.ops.after_paint), and
the rest of the window then hears of every judgment, in order."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication

from tests.ui.test_judging_keys import judging, press  # noqa: F401 (the fixture)
from tests.ui.waiting import PaintLog, settled

pytestmark = pytest.mark.usefixtures("paint_comes")  # tests/ui/conftest.py


def test_the_next_document_is_painted_before_the_judgment_is_broadcast(
    qtbot,
    judging,  # noqa: F811
):
    window, controller = judging
    judge = controller.judging
    topics = window.topics_view.model
    log: list = []
    judge.document_shown.connect(lambda doc: log.append(("shown", doc)))
    judge.changed.connect(lambda changes: log.append(("changed", changes.judged)))
    viewport = window.judging_view.viewer.text.viewport()
    painter_log = PaintLog(log)
    viewport.installEventFilter(painter_log)
    judged_before = topics.topic(topics.row_of("1")).judged
    docs = []
    for grade in "102":
        doc = judge.current
        docs.append(doc)
        log.clear()
        press(qtbot, grade)  # waits until the window has settled, news included
        shown = log.index(("shown", judge.current))
        changed = log.index(("changed", (("1", doc),)))
        assert "painted" in log[shown:changed]  # the frame first
        assert judge.queue.item(doc).grade == int(grade)
    # every judgment reached the topic list, once each
    assert topics.topic(topics.row_of("1")).judged == judged_before + 3
    # two keys faster than the frames: both judgments are told, in their order
    log.clear()
    first = judge.current
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_1)
    qtbot.waitUntil(lambda: judge.current != first)
    second = judge.current
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_0)
    settled()
    told = [entry[1] for entry in log if isinstance(entry, tuple) and entry[0] == "changed"]
    assert told == [(("1", first),), (("1", second),)]
    assert topics.topic(topics.row_of("1")).judged == judged_before + 5
    viewport.removeEventFilter(painter_log)


class Painted(QObject):
    """The widgets painted while it listens (one entry a paint event)."""

    def __init__(self) -> None:
        super().__init__()
        self.widgets: list = []
        self.on = False

    def eventFilter(self, watched, event) -> bool:
        if self.on and event.type() == QEvent.Type.Paint:
            self.widgets.append(watched)
        return False


def test_a_grade_keys_frame_repaints_what_changed_not_the_window_beneath(
    qtbot,
    judging,  # noqa: F811
):
    """The frame of a grade key paints the new text, its header lines, scroll bar and list
    rows, and none of the containers beneath them (the main window, its tabs, the judging
    view, the document viewer: each a paint through the Python style). The header lines
    and the scroll bar are opaque for that."""
    window, controller = judging
    judge = controller.judging
    view = window.judging_view
    painted = Painted()
    app = QApplication.instance()
    app.installEventFilter(painted)
    try:
        for grade in "102":
            doc = judge.current
            painted.widgets.clear()
            painted.on = True
            view.grade_requested.emit(int(grade))  # what the grade key does
            assert judge.current != doc
            viewport = view.viewer.text.viewport()
            qtbot.waitUntil(lambda vp=viewport: vp in painted.widgets)
            painted.on = False
            beneath = {window, view, view.viewer, view.viewer.text, window.centralWidget()}
            if grade == "1":  # the first may repaint the whole window (after the test before)
                settled()
                continue
            assert not beneath & set(painted.widgets)
            assert view.viewer.header in painted.widgets  # the new document's title
            settled()
    finally:
        app.removeEventFilter(painted)


class Frames(QObject):
    """The widgets painted in each frame of a window (a frame: the window's UpdateRequest,
    in which Qt paints every widget that changed)."""

    def __init__(self, window) -> None:
        super().__init__()
        self.window = window
        self.frames: list[list] = []

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind == QEvent.Type.UpdateRequest and watched is self.window:
            self.frames.append([])
        elif kind == QEvent.Type.Paint and self.frames:
            self.frames[-1].append(watched)
        return False

    def frame_of(self, widget) -> list | None:
        return next((frame for frame in self.frames if widget in frame), None)


def test_a_grade_keys_frame_shows_the_document_and_the_list_follows_in_the_next(
    qtbot,
    judging,  # noqa: F811
):
    """The frame of a grade key holds the next document (its text, header line and grade
    bar); the list (the row selected, the judged row's mark) and the position and progress
    lines follow in a frame after it, so that their paint does not delay the document's.
    The list's header is not repainted at all: a row selected does not touch it. Then all
    of it shows the document shown, as it did when it came in the same frame."""
    window, controller = judging
    judge = controller.judging
    view = window.judging_view
    frames = Frames(window)
    app = QApplication.instance()
    app.installEventFilter(frames)
    list_viewport = view.list.viewport()
    header_viewport = view.list.horizontalHeader().viewport()
    try:
        for grade in "102":
            settled()
            doc = judge.current
            frames.frames.clear()
            view.grade_requested.emit(int(grade))  # what the grade key does
            shown = judge.current
            assert shown != doc
            viewport = view.viewer.text.viewport()
            qtbot.waitUntil(lambda vp=viewport: frames.frame_of(vp) is not None)
            first = frames.frame_of(viewport)
            assert list_viewport not in first and view.position_label not in first
            settled()
            assert frames.frame_of(list_viewport) not in (None, first)  # the list followed
            assert not any(header_viewport in frame for frame in frames.frames)
            row = judge.queue.row_of(shown)
            assert [i.row() for i in view.list.selectionModel().selectedRows()] == [row]
            pooled = len(judge.queue.items)
            assert view.position_label.text().startswith(f"Document {row + 1} of {pooled}")
            assert view.list_model.state_text(judge.queue.item(doc)).startswith(grade)
    finally:
        app.removeEventFilter(frames)
