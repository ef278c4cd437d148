"""The menu's keys reach the menu from a text field.

A line edit asks for some Ctrl keys before any shortcut sees them (a ShortcutOverride it
accepts): under Linux's key bindings Ctrl+E moves to the end of the line, so the menu's
Ctrl+E (Export qrels) never ran from the topic filter or the note. `MenuKeysFirst`, set on
a window's text fields, lets the window's menu shortcuts through and leaves the field the
editing keys it needs (undo, copy, paste, select all, ... as the platform binds them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QLineEdit, QWidget

_KEY = QKeySequence.StandardKey
EDITING = (
    _KEY.Undo,
    _KEY.Redo,
    _KEY.Copy,
    _KEY.Cut,
    _KEY.Paste,
    _KEY.SelectAll,
    _KEY.Delete,
    _KEY.Backspace,
    _KEY.DeleteStartOfWord,
    _KEY.DeleteEndOfWord,
    _KEY.MoveToNextWord,
    _KEY.MoveToPreviousWord,
    _KEY.SelectNextWord,
    _KEY.SelectPreviousWord,
)


class MenuKeysFirst(QObject):
    """An event filter for text fields: a key that is the shortcut of one of `actions()`
    (enabled, with a modifier) goes to its action, not to the field, unless it is one of
    the field's editing keys."""

    def __init__(self, actions: Callable[[], Iterable[QAction]], parent=None) -> None:
        super().__init__(parent)
        self._actions = actions

    def install(self, root: QWidget) -> None:
        """On every line edit in `root` (root itself included)."""
        fields = root.findChildren(QLineEdit)
        if isinstance(root, QLineEdit):
            fields.append(root)
        for field in fields:
            field.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(event, QKeyEvent):
            return False
        plain = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier
        if not event.modifiers() & ~plain or any(event.matches(k) for k in EDITING):
            return False  # typing and editing stay with the field
        pressed = QKeySequence(event.keyCombination())
        for action in self._actions():
            if action.isEnabled() and any(
                key.matches(pressed) == QKeySequence.SequenceMatch.ExactMatch
                for key in action.shortcuts()
            ):
                # not accepted and not delivered: the field does not claim the key, so
                # the shortcut map gives it to the action
                return True
        return False
