"""Keys that always work (issue 30, item 9): the menu's Ctrl+E from a text field, a
visible focus indicator in both themes, and a complete, cyclic Tab order through the
judging view, in the real main window with keys sent where the user's focus is."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit

from tests.ui.test_judging_keys import judging, press  # noqa: F401  (the fixture)
from tests.ui.waiting import settled


class LinuxLineEditKeys(QObject):
    """What a QLineEdit does with Ctrl+E under Linux's (X11) key bindings, which the
    offscreen platform of the tests does not use: it claims the key (accepts the
    ShortcutOverride, so no shortcut sees it) and moves the cursor to the end of the line.
    Installed on a field before the window's own filter, it stands where the field's own
    handling stands: after that filter."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            isinstance(event, QKeyEvent)
            and isinstance(watched, QLineEdit)
            and event.key() == Qt.Key.Key_E
            and event.modifiers() == Qt.KeyboardModifier.ControlModifier
        ):
            if event.type() == QEvent.Type.ShortcutOverride:
                event.accept()
                return True
            if event.type() == QEvent.Type.KeyPress:
                watched.end(False)
                return True
        return False


def with_linux_keys(window, field: QLineEdit, fixed: bool = True) -> LinuxLineEditKeys:
    linux = LinuxLineEditKeys(field)
    field.removeEventFilter(window.menu_keys)
    field.installEventFilter(linux)
    if fixed:
        field.installEventFilter(window.menu_keys)  # called first, as when built
    return linux


def test_ctrl_e_in_the_topic_filter_exports_the_qrels(qtbot, judging):  # noqa: F811
    window, controller = judging
    topics = window.topics_view
    press(qtbot, "Ctrl+1")
    topics.filter.setFocus()
    qtbot.keyClicks(topics.filter, "number")
    settled()
    assert QApplication.focusWidget() is topics.filter
    assert window.actions_by_name["export_qrels"].isEnabled()
    # the fault as it was: the field takes Ctrl+E, nothing is exported
    with_linux_keys(window, topics.filter, fixed=False)
    topics.filter.setCursorPosition(0)
    press(qtbot, "Ctrl+E")
    assert controller.file_dialog is None and topics.filter.cursorPosition() == 6
    # with the window's filter: the menu's Ctrl+E
    with_linux_keys(window, topics.filter)
    topics.filter.setCursorPosition(0)
    press(qtbot, "Ctrl+E")
    dialog = controller.file_dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    assert dialog.windowTitle() == "Export qrels"
    assert topics.filter.text() == "number" and topics.filter.cursorPosition() == 0
    dialog.reject()
    settled()
    # the field keeps its own editing keys: Ctrl+A selects its text, Ctrl+Z undoes typing
    topics.filter.setFocus()
    press(qtbot, "Ctrl+A")
    assert topics.filter.selectedText() == "number"
    qtbot.keyClicks(topics.filter, "x")
    press(qtbot, "Ctrl+Z")
    assert topics.filter.text() == "number"


def test_ctrl_e_in_the_judging_note_exports_too(qtbot, judging):  # noqa: F811
    window, controller = judging
    view = window.judging_view
    with_linux_keys(window, view.note)
    press(qtbot, "N")
    assert QApplication.focusWidget() is view.note
    qtbot.keyClicks(view.note, "draft")
    press(qtbot, "Ctrl+E")
    dialog = controller.file_dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    assert view.note.text() == "draft"
    dialog.reject()
    settled()


# -- Tab order -------------------------------------------------------------------------------
def expected_chain(view) -> list:
    """Reading order: the list's search and filter, the list, the document, the grade
    buttons in scale order, flag, skip, next unjudged, the note, the terms."""
    bar = view.grade_bar
    return [
        view.search,
        view.filter,
        view.list,
        view.viewer.text,
        *[bar.buttons[g.grade] for g in view.scale],
        bar.flag_button,
        bar.skip_button,
        bar.next_button,
        view.note,
        view.terms,
    ]


def test_tab_walks_the_judging_view_in_reading_order_round_and_back(qtbot, judging):  # noqa: F811
    window, _controller = judging
    view = window.judging_view
    chain = expected_chain(view)
    assert len(view.scale) == 4 and len(chain) == 13
    view.focus_document()
    start = chain.index(view.viewer.text)
    seen = []
    for _ in range(len(chain)):
        press(qtbot, "Tab")
        seen.append(QApplication.focusWidget())
    # from the document: every control once, then the document again (the view's cycle:
    # Tab never leaves for the tab bar or a hidden view)
    assert seen == chain[start + 1 :] + chain[: start + 1], [
        w.accessibleName() for w in seen if w is not None
    ]
    back = []
    for _ in range(len(chain)):
        press(qtbot, "Shift+Tab")
        back.append(QApplication.focusWidget())
    assert back == list(reversed(chain[:start])) + list(reversed(chain[start:]))
    assert QApplication.focusWidget() is view.viewer.text
    # typing in the note does not eat Tab: it moves on to the terms
    press(qtbot, "N")
    qtbot.keyClicks(view.note, "why")
    press(qtbot, "Tab")
    assert QApplication.focusWidget() is view.terms and view.note.text() == "why"


def test_a_control_reached_by_tab_works_from_the_keyboard(qtbot, judging):  # noqa: F811
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    view.focus_document()
    for _ in range(3):  # document -> grade 0 -> grade 1 -> grade 2
        press(qtbot, "Tab")
    assert QApplication.focusWidget() is view.grade_bar.buttons[2]
    doc = judge.current
    press(qtbot, "Space")  # the focused button, not the document's page down
    assert judge.queue.item(doc).grade == 2
    # the list, reached by Shift+Tab from the document: arrow keys move its current row
    view.focus_document()
    press(qtbot, "Shift+Tab")
    assert QApplication.focusWidget() is view.list
    row = view.list.currentIndex().row()
    press(qtbot, "Down")
    assert view.list.currentIndex().row() == row + 1


# -- the focus indicator ---------------------------------------------------------------------
def focus_pixels(widget, colour) -> int:
    """How many pixels of `widget` as drawn now are (nearly) the focus colour."""
    image = widget.grab().toImage()
    count = 0
    r0, g0, b0 = colour.red(), colour.green(), colour.blue()
    for y in range(0, image.height()):
        for x in (
            *range(0, min(6, image.width())),
            *range(max(0, image.width() - 6), image.width()),
        ):
            c = image.pixelColor(x, y)
            if abs(c.red() - r0) + abs(c.green() - g0) + abs(c.blue() - b0) <= 30:
                count += 1
    return count


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_focused_control_shows_a_focus_frame(qtbot, judging, monkeypatch, scheme):  # noqa: F811
    from judgeapp.ui import theme

    window, _controller = judging
    view = window.judging_view
    app = QApplication.instance()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    monkeypatch.setenv("JUDGEAPP_THEME", scheme)
    theme.apply_theme(app)
    try:
        settled()
        frame = theme.colour("focus")
        missing = {}
        topics = window.topics_view
        controls = [(view, w) for w in expected_chain(view)]
        controls += [
            (topics, w)
            for w in (topics.filter, topics.pooled_only, topics.judge_button, topics.table)
        ]
        for page, widget in controls:
            window.show_view(page)
            # focused elsewhere first: another control of the same view
            other = view.note if widget is view.terms else view.terms
            if page is topics:
                other = topics.table if widget is topics.filter else topics.filter
            other.setFocus()
            settled()
            before = focus_pixels(widget, frame)
            image_before = widget.grab().toImage()
            widget.setFocus(Qt.FocusReason.TabFocusReason)
            settled()
            assert QApplication.focusWidget() is widget
            after = focus_pixels(widget, frame)
            if widget.grab().toImage() == image_before or after < before + 2 * widget.height():
                missing[widget.accessibleName()] = (before, after)
        assert not missing, missing
    finally:
        monkeypatch.undo()
        theme.apply_theme(app)


def test_leaving_the_view_from_a_field_does_not_tab_into_the_next_field(qtbot, judging):  # noqa: F811
    """Qt moves the focus on when the focused widget's view is hidden (another tab); that
    move must not land in the next field of the Tab order, where the next grade key would
    be typed."""
    window, controller = judging
    view, judge = window.judging_view, controller.judging
    for field_key in ("N", "T", "/"):
        press(qtbot, field_key)
        assert QApplication.focusWidget() in (view.note, view.terms, view.search)
        press(qtbot, "Ctrl+1")
        press(qtbot, "Ctrl+2")
        assert QApplication.focusWidget() not in (view.note, view.terms, view.search)
        doc = judge.current
        press(qtbot, "1")
        assert judge.queue.item(doc).grade == 1
        assert view.note.text() == view.terms.text() == view.search.text() == ""
