"""Undo and redo in the main window, over the one undo stack of the session (every
judgment, note and flag, from any view). They stay within the topic being judged, or say
what they undo: in the judging view, a change made in another topic is not undone at once:
the first key says which change and where, a second one does it (and opens that topic).
While a grade just given is still being saved (it reaches the stack once committed), they
do nothing and say so."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QUndoStack

from judgeapp.ui.judging_controller import JudgingController
from judgeapp.ui.main_window import MainWindow


class UndoRedo(QObject):
    def __init__(
        self,
        window: MainWindow,
        stack: QUndoStack,
        judging: JudgingController,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window = window
        self.stack = stack
        self.judging = judging
        self.undo_action = QAction("&Undo", self)
        self.redo_action = QAction("&Redo", self)
        self.asked: tuple[str, int] | None = None  # an undo/redo in another topic, asked once
        # always enabled: a key that undoes nothing says so (in the judging view)
        stack.undoTextChanged.connect(
            lambda text: self.undo_action.setText(f"&Undo {text}".strip())
        )
        stack.redoTextChanged.connect(
            lambda text: self.redo_action.setText(f"&Redo {text}".strip())
        )
        window.add_undo_actions(self.undo_action, self.redo_action)
        self.undo_action.triggered.connect(lambda: self.trigger(undo=True))
        self.redo_action.triggered.connect(lambda: self.trigger(undo=False))

    def trigger(self, undo: bool) -> None:
        """Undo (redo) the last change, or say where it was (see the module)."""
        stack = self.stack
        index = stack.index() - 1 if undo else stack.index()
        verb = "undo" if undo else "redo"
        judging = self.window.judging_view
        on_judging = self.window.tabs.currentWidget() is judging
        saving = self.judging.writer.pending
        if saving is not None:
            # the grade just given is not on the stack until it is committed: undo now
            # would take back the change before it (and redo one its push will drop)
            key = "Ctrl+Z" if undo else "Ctrl+Shift+Z"
            message = (
                f"Nothing was {verb}ne: the grade of {saving.queue.item(saving.doc).docno} "
                f"is still being saved. {key} again in a moment."
            )
            if on_judging:
                judging.show_notice(message)
            else:
                self.window.statusBar().showMessage(message, 8000)
            return
        if not (0 <= index < stack.count()):
            if on_judging:
                judging.show_notice(f"Nothing to {verb}.")
            return
        command = stack.command(index)
        change = getattr(command, "change", None)
        queue = self.judging.queue
        elsewhere = (
            on_judging and change is not None and queue is not None and change.qid != queue.qid
        )
        if elsewhere and change is not None and queue is not None and self.asked != (verb, index):
            self.asked = (verb, index)
            key = "Ctrl+Z" if undo else "Ctrl+Shift+Z"
            judging.show_notice(
                f"Nothing was {verb}ne yet: the last change was in topic {change.qid}, not in "
                f"topic {queue.qid} ({command.text()}). {key} again {verb}es it there."
            )
            return
        self.asked = None
        text = command.text()
        if undo:
            stack.undo()
        else:
            stack.redo()
        where = f" in topic {change.qid}" if change is not None else ""
        message = f"{'Undone' if undo else 'Redone'}: {text}{where}"
        self.window.statusBar().showMessage(message, 8000)
        if elsewhere and on_judging and change is not None:
            # shown once that topic is open (read in a worker after the undo is committed)
            self.judging.notice_after_load = message + f" (topic {change.qid} is open now)."
