"""Files in and out of the project open in the main window: the import dialog of each kind
(topics, documents, runs, qrels; run as long work that lands whole or not at all), and the
export of the qrels (every effective judgment, or only the current assessor's)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QFileDialog

from judgeapp.records import Changes
from judgeapp.services.progress import ProgressFn
from judgeapp.ui.dialogs import ImportDialog
from judgeapp.ui.save_folders import SaveFolders
from judgeapp.ui.task_runner import TaskRunner
from judgeapp.ui.window_context import WindowContext


class ImportExport:
    def __init__(
        self,
        ctx: WindowContext,
        tasks: TaskRunner,
        save_folders: SaveFolders,
        imported: Callable[[Changes], None],
        exported: Callable[[int], None],
    ) -> None:
        """`imported(changes)`: what an import changed; `exported(count)`: qrels written."""
        self.ctx = ctx
        self.tasks = tasks
        self.save_folders = save_folders
        self.imported = imported
        self.exported = exported

    # -- imports ------------------------------------------------------------------------------
    def show_import(self, kind: str) -> ImportDialog | None:
        if self.ctx.workbench is None:
            return None
        dialog = ImportDialog(kind, self.ctx.window)
        dialog.submitted.connect(lambda: self._on_import_submitted(dialog))
        self.ctx.dialog = dialog
        dialog.open()
        return dialog

    def _on_import_submitted(self, dialog: ImportDialog) -> None:
        wb = self.ctx.workbench
        if wb is None:
            return
        paths = dialog.paths()

        def work(progress: ProgressFn):
            return wb.import_files(dialog.kind, paths, progress=progress)

        def done(report) -> None:
            self.ctx.say(f"Imported {report.detail}", 8000)
            self.imported(report.changes | Changes(topic_list=True))

        self.tasks.run(dialog, work, done, f"import {dialog.kind}")

    # -- export -------------------------------------------------------------------------------
    def show_export_dialog(self, mine: bool = False) -> QFileDialog | None:
        """Export every effective judgment (newest per topic and document, imported qrels
        included), or only the current assessor's."""
        if self.ctx.workbench is None:
            return None
        title = "Export my judgments" if mine else "Export qrels"
        dialog = QFileDialog(self.ctx.window, title)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setNameFilters(["TREC qrels (*.qrels *.txt)", "All files (*)"])
        state = self.ctx.state
        title = state.title if state is not None else "judgments"
        name = f"{title.replace(' ', '-')}.qrels"
        self.save_folders.prepare(dialog, name)
        dialog.fileSelected.connect(lambda path: self.export_qrels(path, mine=mine))
        self.ctx.file_dialog = dialog
        dialog.open()
        return dialog

    def export_qrels(self, path: str, mine: bool = False) -> None:
        """Write the qrels to `path` in a worker; the status bar says how many
        (`exported(count)` too)."""
        wb = self.ctx.workbench
        if wb is None:
            return
        if self.ctx.blind and not mine:  # (the menu item is disabled: this is its guard)
            self.ctx.error("Export qrels", "An assessor judging blind exports their own judgments.")
            return
        who = [wb.assessor] if mine and wb.assessor else None

        def wrote(count: int) -> None:
            self.ctx.say(f"Wrote {count} judgments to {path}", 8000)
            self.exported(count)

        self.ctx.ops.read(
            lambda: wb.export_qrels(path, who),
            wrote,
            failed=lambda exc: self.ctx.error("Export failed", str(exc)),
            what="exporting qrels",
        )
