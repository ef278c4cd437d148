"""Keys that always work (issue 30, item 9): the menu's Ctrl+E from a text field, a
visible focus indicator in both themes, and a complete, cyclic Tab order through the
judging view, in the real main window with keys sent where the user's focus is."""

from __future__ import annotations

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
