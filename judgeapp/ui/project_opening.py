"""Opening a project in the main window: from a path or URL (a worker opens it, with the
assessor remembered for it, and reads what the window shows), from the New and Open
dialogs, the recent list, or the demo (built in a worker the first time); nothing at a
path is never silently a new project. After a session that ended without closing the file,
the file is checked in the background before anything is written to it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from judgeapp.errors import NoProject
from judgeapp.services.progress import ProgressFn
from judgeapp.services.workbench import Workbench, WorkbenchState
from judgeapp.ui.dialogs import TaskDialog
from judgeapp.ui.plain import plain
from judgeapp.ui.project_memory import ProjectMemory
from judgeapp.ui.task_runner import TaskRunner
from judgeapp.ui.window_context import WindowContext

Opener = Callable[[str, bool], Workbench]  # (path or URL, create if nothing is there)
# (path or URL, the project opened, what the window shows of it, why its assessor was refused)
Loaded = Callable[[str, Workbench, WorkbenchState, "str | None"], None]


class ProjectOpening:
    def __init__(
        self,
        ctx: WindowContext,
        opener: Opener,
        memory: ProjectMemory,
        tasks: TaskRunner,
        demo: Callable[[ProgressFn], Path] | None,
        loaded: Loaded,
    ) -> None:
        """`loaded(db, workbench, state, refused)`: the project asked for last is open."""
        self.ctx = ctx
        self.opener = opener
        self.memory = memory
        self.tasks = tasks
        self.demo = demo
        self.loaded = loaded
        self.opening: str | None = None  # a project being opened
        self.last_check: list[str] | None = None  # what the last check of the file found

    def open(self, db: str, create: bool = False) -> None:
        """Open `db`, with the assessor remembered for it, in a worker; the window shows it
        once it is read (`project_opened`). Nothing at `db`: a new project is created there
        with `create` (New project…), else the user is asked. Opening reads nothing of the
        project through (a check of the file runs only after a crash, in the background)."""
        self.opening = db
        self.ctx.say(f"Opening {db}…")
        assessor_for = self.memory.assessor_chooser()
        opener = self.opener

        def load() -> tuple[Workbench, WorkbenchState, str | None]:
            workbench = opener(db, create)
            try:
                assessor = assessor_for(workbench)
                refused = None
                try:
                    workbench.set_assessor(assessor)
                except Exception as exc:  # a read-only project that does not know this name, ...
                    if workbench.read_only:
                        refused = (
                            f"{workbench.read_only_reason()}\n\n{assessor!r} has no judgments "
                            "in it, and a new name cannot be added to it. Choose one of its "
                            "assessors to read their judgments, or open another project."
                        )
                    else:
                        refused = (
                            f"Judgments cannot be recorded as {assessor!r}: {exc}\n\nThe "
                            "project is shown; choose a known assessor (Judging ▸ Assessor…) "
                            "to judge."
                        )
                return workbench, workbench.state(), refused
            except BaseException:
                workbench.close()
                raise

        self.ctx.ops.write(
            load,
            lambda opened: self._on_loaded(db, *opened),
            failed=lambda exc: self._on_open_failed(db, exc),
            what="opening the project",
        )

    def _on_loaded(
        self, db: str, workbench: Workbench, state: WorkbenchState, refused: str | None
    ) -> None:
        if self.opening != db:  # another project was asked for meanwhile
            self.ctx.ops.write(workbench.close, what="closing a project")
            return
        self.opening = None
        self.ctx.window.statusBar().clearMessage()
        self.loaded(db, workbench, state, refused)

    def _on_open_failed(self, db: str, exc: BaseException) -> None:
        if self.opening == db:
            self.opening = None
            self.ctx.window.statusBar().clearMessage()
        if isinstance(exc, NoProject):  # a mistyped path, a moved file: never a silent new one
            self._ask_create(db)
            return
        # not a project, a newer schema, ...: the message names the file (once)
        text = str(exc)
        self.ctx.error("Cannot open project", text if db in text else f"{db}: {text}")

    def _ask_create(self, db: str) -> QMessageBox:
        """Nothing at `db`: create a new, empty project there, or not."""
        box = plain(
            QMessageBox(
                QMessageBox.Icon.Question,
                "No project there",
                f"There is no project at {db}.\n\nCreate a new, empty project there?",
                parent=self.ctx.window,
            )
        )
        create = box.addButton("Create project", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

        def clicked(button) -> None:
            if button is create:
                self.open(db, create=True)
            else:
                self.ctx.say(f"Nothing was created at {db}.", 8000)

        box.buttonClicked.connect(clicked)
        box.open()
        self.ctx.last_warning = f"There is no project at {db}."
        return box

    def check_file(self, workbench: Workbench, *, after_crash: bool) -> None:
        """Check the project file for damage (SQLite's quick_check), in the background."""
        # in the writing lane: a judgment waits for it, and is never written into a
        # damaged file (Store.check_due)
        why = "after a session that ended without closing it" if after_crash else "on request"
        self.ctx.say(f"Checking the project file ({why})…")

        def checked(found: list[str]) -> None:
            self.last_check = found
            if found == ["ok"]:
                self.ctx.say("The project file is sound.", 8000)
            else:
                self.ctx.error("The project file is damaged", "\n".join(found[:10]))

        def failed(exc: BaseException) -> None:
            self.last_check = [str(exc)]
            self.ctx.window.statusBar().clearMessage()
            self.ctx.error("The project file is damaged", str(exc))

        self.ctx.ops.write(workbench.check_file, checked, failed=failed, what="checking the file")

    def reopen_last(self) -> bool:
        """Open the project used last, if it is still there; True when it opened."""
        last = self.memory.last_project()
        if not last:
            return False
        if "://" not in last and not Path(last).is_file():
            return False  # moved or deleted since: the caller opens the demo instead
        self.open(last)
        return True

    def file_dialog(self, title: str, save: bool) -> QFileDialog:
        dialog = QFileDialog(self.ctx.window, title)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setNameFilters(["judgeapp projects (*.db *.judgeapp)", "All files (*)"])
        if save:
            dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
            dialog.setDefaultSuffix("db")
        else:
            dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        # a new project is created where it is asked for; an open one must be there
        dialog.fileSelected.connect(lambda path: self.open(path, create=save))
        self.ctx.file_dialog = dialog
        dialog.open()
        return dialog

    def open_demo(self) -> None:
        """Build the demo project if needed (in a worker, with progress), then open it."""
        if self.demo is None:
            return
        dialog = TaskDialog("Preparing the demo project", "Start", self.ctx.window)
        dialog.message.setText("Building the Cranfield demo project (first launch only)…")
        dialog.start_button.setVisible(False)
        self.ctx.dialog = dialog
        dialog.open()
        demo = self.demo
        self.tasks.run(dialog, demo, lambda path: self.open(str(path)), "demo")
