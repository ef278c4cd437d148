"""Undoable judgment changes for `QUndoStack`.

The controller records the change first (a grade, a note, a flag; committed when the call
returns, and any error reported before anything reaches the stack), then pushes a command
holding the `JudgmentChange` the store returned. Undo and redo go through
`JudgingService.restore` with it, the same committed path as a judgment, so the history
records them and every view hears of them.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from judgeapp.records import JudgmentChange


class JudgmentCommand(QUndoCommand):
    def __init__(
        self,
        text: str,
        change: JudgmentChange,
        restore: Callable[[JudgmentChange, bool], None],
    ) -> None:
        super().__init__(text)
        self.change = change
        self._restore = restore
        self._done = True  # pushing calls redo(): the change is already recorded

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self._restore(self.change, False)

    def undo(self) -> None:
        self._restore(self.change, True)
