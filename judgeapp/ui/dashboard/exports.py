"""The dashboard's Export menu: the runs x measures table as CSV, LaTeX or Markdown (with
the significance marks shown), as trec_eval output on the clipboard, and each plot as an
image (PNG, SVG, PDF), through save dialogs.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QFileDialog

from judgeapp.outputs import OutputError, write_text
from judgeapp.services import dashboard_tables
from judgeapp.ui.dashboard.parts import DashboardParts
from judgeapp.ui.dashboard.plots import LivePlot


class ExportController(QObject):
    def __init__(self, dash: DashboardParts) -> None:
        super().__init__(dash)
        self.dash = dash
        self.file_dialog: QFileDialog | None = None
        self._build_menu()

    def _build_menu(self) -> None:
        view = self.dash.view
        menu = view.export_menu
        for fmt, text in (
            ("csv", "Table as CSV…"),
            ("latex", "Table as LaTeX…"),
            ("markdown", "Table as Markdown…"),
        ):
            menu.addAction(text).triggered.connect(lambda _=False, f=fmt: self.ask_export_table(f))
        menu.addAction("Copy as trec_eval output").triggered.connect(self.copy_trec_eval)
        menu.addSeparator()
        for plot in view.plots:
            menu.addAction(f"Plot: {plot.title} (PNG, SVG, PDF)…").triggered.connect(
                lambda _=False, p=plot: self.ask_save_plot(p)
            )

    # -- the table -----------------------------------------------------------------------------
    def table_text(self, fmt: str) -> str:
        snap = self.dash.snapshot
        if snap is None:
            raise ValueError("nothing evaluated yet")
        return dashboard_tables.FORMATS[fmt](snap, self.dash.sig)

    def export_table(self, path: str | Path, fmt: str) -> Path:
        path = Path(path)
        write_text(path, self.table_text(fmt))  # whole or not at all
        return path

    def copy_trec_eval(self) -> str:
        """Put the table as trec_eval output on the clipboard (and return it)."""
        snap = self.dash.snapshot
        if snap is None:
            return ""
        text = dashboard_tables.to_trec_eval(snap)
        QApplication.clipboard().setText(text)
        return text

    # -- save dialogs --------------------------------------------------------------------------
    def _save_dialog(self, title: str, filters: list[str], name: str, on_file) -> QFileDialog:
        dialog = QFileDialog(self.dash.view, title)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setNameFilters(filters)
        if self.dash.save_folders is not None:
            self.dash.save_folders.prepare(dialog, name)
        else:
            dialog.selectFile(name)
        dialog.fileSelected.connect(on_file)
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def ask_export_table(self, fmt: str) -> QFileDialog:
        suffix = {"csv": "csv", "latex": "tex", "markdown": "md"}[fmt]
        return self._save_dialog(
            "Export table",
            [f"{fmt.upper()} (*.{suffix})", "All files (*)"],
            f"dashboard.{suffix}",
            lambda path: self._export_table_to(path, fmt),
        )

    def ask_save_plot(self, plot: LivePlot) -> QFileDialog:
        return self._save_dialog(
            "Save plot",
            ["PNG image (*.png)", "SVG drawing (*.svg)", "PDF document (*.pdf)"],
            f"{plot.name}.png",
            lambda path: self._save_plot(plot, path),
        )

    def _export_table_to(self, path: str, fmt: str) -> None:
        try:
            self.export_table(path, fmt)
        except (OutputError, ValueError) as exc:
            self.dash.view.status.setText(f"Could not export the table: {exc}")

    def _save_plot(self, plot: LivePlot, path: str) -> None:
        try:
            plot.save(path)
        except (OSError, ValueError) as exc:
            self.dash.view.status.setText(f"Could not save the plot: {exc}")
