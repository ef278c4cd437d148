"""The judging view's help: the shortcut sheet (F1 or ?) and the judging instructions
(the project's guidelines and grade meanings), shown before the first document an
assessor judges in a project with guidelines (once a session), and on request."""

from __future__ import annotations

from judgeapp.ui.dialogs import InstructionsDialog, ShortcutSheet
from judgeapp.ui.judging_view import JudgingView


class JudgingHelp:
    def __init__(self, view: JudgingView) -> None:
        self.view = view
        self.sheet: ShortcutSheet | None = None
        self.instructions: InstructionsDialog | None = None
        self.instructed: set[tuple[str, str]] = set()  # (project, assessor) shown

    def scale_changed(self) -> None:
        """Another scale: the sheet is made again, with the new grades, when next asked."""
        if self.sheet is not None and self.sheet.isVisible():
            self.sheet.close()  # it shows the old grades
        self.sheet = None

    def show_sheet(self) -> None:
        if self.sheet is None:
            self.sheet = ShortcutSheet(
                self.view.shortcut_rows(),
                self.view,
                guidelines=self.view.guidelines,
                defined=any(g.definition for g in self.view.scale),
            )
        self.sheet.open()

    def show_instructions(self, first: bool = False) -> InstructionsDialog:
        """The judging instructions in a dialog over the view; `first`: before the
        assessor's first document."""
        if self.instructions is not None:
            self.instructions.close()
            self.instructions.deleteLater()
        dialog = InstructionsDialog(self.view.guidelines, self.view.scale, self.view, first=first)
        dialog.finished.connect(lambda _result: self.view.focus_document())
        self.instructions = dialog
        dialog.open()
        return dialog
