"""The agreement view: the figures of an `AgreementReport` (judgeapp.services.agreement) as
tables: over all topics with bootstrap intervals, per topic, per pair of assessors, the
confusion matrix of a chosen pair, and the ranking comparison. It never reads the project:
whoever shows it hands it a report (`set_report`). Every table can be written as CSV
(`export_csv`, the Export button), with full-precision numbers.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from judgeapp.outputs import write_text
from judgeapp.services.agreement import (
    PAIR_STATISTICS,
    SCOPE_STATISTICS,
    AgreementReport,
    PairAgreement,
)
from judgeapp.ui.lazy_page import LazyPage

Index = QModelIndex | QPersistentModelIndex
ROLE = Qt.ItemDataRole
USER = int(ROLE.UserRole)
Cell = str | int | float | None
COUNTS = ("documents", "fleiss_documents", "topics")

LABELS = {
    "percent_agreement": "Agreement",
    "cohen_kappa": "Cohen κ",
    "cohen_kappa_linear": "κ linear",
    "cohen_kappa_quadratic": "κ quadratic",
    "fleiss_kappa": "Fleiss κ",
    "krippendorff_alpha_nominal": "α nominal",
    "krippendorff_alpha_ordinal": "α ordinal",
    "krippendorff_alpha_interval": "α interval",
    "krippendorff_alpha_ratio": "α ratio",
    "positive_agreement": "Positive agr.",
    "relevant_overlap": "Rel. overlap",
    "documents": "Documents",
    "fleiss_documents": "Fleiss docs",
}


def _text(value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.4f}"
    return str(value)


def _csv_value(value: Cell) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(value) if isinstance(value, float) else str(value)


class FiguresTableModel(QAbstractTableModel):
    """A read-only table of cells (text, counts, figures): figures show four decimals, and
    `ValueRole` and the CSV give them whole. The columns are set with the rows."""

    ValueRole = USER + 1  # the cell's value (float figures unrounded)
    # the first column names the row (a statistic, topic, pair, grade): left-aligned
    label_columns = 1

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._headers: list[str] = []
        self._keys: list[str] = []  # column keys for the CSV header
        self._rows: list[list[Cell]] = []
        self._csv_labels: list[str] | None = None

    def set_rows(
        self,
        headers: Sequence[str],
        keys: Sequence[str],
        rows: Sequence[Sequence[Cell]],
        csv_labels: Sequence[str] | None = None,
    ) -> None:
        """`keys` head the CSV's columns; `csv_labels`, if given, replace the first cell of
        each row in the CSV (machine names where the table shows readable ones)."""
        self.beginResetModel()
        self._headers, self._keys = list(headers), list(keys)
        self._rows = [list(r) for r in rows]
        self._csv_labels = None if csv_labels is None else list(csv_labels)
        self.endResetModel()

    def value(self, row: int, column: int) -> Cell:
        return self._rows[row][column]

    def csv_text(self) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(self._keys)
        for i, row in enumerate(self._rows):
            cells = [_csv_value(v) for v in row]
            if self._csv_labels is not None:
                cells[0] = self._csv_labels[i]
            writer.writerow(cells)
        return buf.getvalue()

    # -- Qt -----------------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._headers)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = ROLE.DisplayRole):
        if role != ROLE.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self._headers):
            return self._headers[section]
        return None

    def data(self, index: Index, role: int = ROLE.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        if not 0 <= index.column() < len(self._headers):
            return None
        value = self._rows[index.row()][index.column()]
        if role == ROLE.DisplayRole:
            return _text(value)
        if role == self.ValueRole:
            return value
        if role == ROLE.TextAlignmentRole and index.column() >= self.label_columns:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == ROLE.ToolTipRole and isinstance(value, float) and not math.isnan(value):
            return repr(value)
        return None


class OverallTableModel(FiguresTableModel):
    """Every figure over all topics, with its 95% bootstrap interval."""

    def set_report(self, report: AgreementReport) -> None:
        rows: list[list[Cell]] = []
        for stat, value in report.overall.items():
            low, high = report.intervals.get(stat, (None, None))
            rows.append([LABELS.get(stat, stat), _count(stat, value), low, high])
        self.set_rows(
            ["Statistic", "Value", "95% low", "95% high"],
            ["statistic", "value", "low", "high"],
            rows,
            csv_labels=list(report.overall),  # the names the command line uses
        )


def _count(stat: str, value: float) -> Cell:
    return int(value) if stat in COUNTS and not math.isnan(value) else value


def _columns(statistics: Sequence[str], present: Sequence[dict[str, float]]) -> list[str]:
    return [s for s in statistics if any(s in f for f in present)]


class TopicAgreementTableModel(FiguresTableModel):
    """Topics x figures."""

    def set_report(self, report: AgreementReport) -> None:
        figures = [report.per_topic[q] for q in report.topics]
        stats = _columns(SCOPE_STATISTICS, figures)
        rows = [
            [q, *(_count(s, f[s]) for s in stats)]
            for q, f in zip(report.topics, figures, strict=True)
        ]
        self.set_rows(["Topic", *(LABELS[s] for s in stats)], ["topic", *stats], rows)


class PairTableModel(FiguresTableModel):
    """Pairs of assessors x figures, with the interval of Cohen's kappa."""

    label_columns = 2

    def set_report(self, report: AgreementReport) -> None:
        stats = _columns(PAIR_STATISTICS, [p.figures for p in report.pairs])
        rows = []
        for p in report.pairs:
            low, high = p.intervals.get("cohen_kappa", (None, None))
            rows.append([p.first, p.second, *(_count(s, p.figures[s]) for s in stats), low, high])
        self.set_rows(
            ["Assessor", "Other", *(LABELS[s] for s in stats), "κ 95% low", "κ 95% high"],
            ["first", "second", *stats, "cohen_kappa_low", "cohen_kappa_high"],
            rows,
        )


class ConfusionTableModel(FiguresTableModel):
    """One pair's confusion matrix: rows the first assessor's grades, columns the other's."""

    def set_pair(self, pair: PairAgreement | None, grades: Sequence[int]) -> None:
        if pair is None:
            self.set_rows([], [], [])
            return
        headers = [f"{pair.first} \\ {pair.second}", *(f"{pair.second}: {g}" for g in grades)]
        keys = [f"{pair.first}\\{pair.second}", *map(str, grades)]
        rows: list[list[Cell]] = [
            [f"{pair.first}: {g}", *map(int, counts)]
            for g, counts in zip(grades, pair.confusion.tolist(), strict=True)
        ]
        self.set_rows(headers, keys, rows)


class RankingTableModel(FiguresTableModel):
    """Every two judgment sets: topics both judged, Kendall's tau, tau_AP of the other
    against the reference."""

    label_columns = 2

    def set_report(self, report: AgreementReport) -> None:
        rk = report.rankings
        rows: list[list[Cell]] = []
        if rk is not None:
            rows = [
                [r.reference, r.other, len(r.topics), r.kendall_tau, r.tau_ap] for r in rk.pairs
            ]
        self.set_rows(
            ["Reference", "Other", "Topics", "Kendall τ", "τ_AP"],
            ["reference", "other", "topics", "kendall_tau", "tau_ap"],
            rows,
        )


def confusion_csv(report: AgreementReport) -> str:
    """Every pair's confusion matrix in one CSV: first, second, first's grade, then the
    count for each of the other's grades."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["first", "second", "grade", *map(str, report.grades)])
    for p in report.pairs:
        for g, counts in zip(report.grades, p.confusion.tolist(), strict=True):
            writer.writerow([p.first, p.second, g, *counts])
    return buf.getvalue()


class AgreementView(QWidget):
    """Agreement figures of one report, in tabs, with a CSV export of every table."""

    csv_exported = Signal(list)  # the paths written

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: AgreementReport | None = None
        self.summary = QLabel("No agreement computed yet.")
        self.summary.setWordWrap(True)
        self.status = QLabel()
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self.ask_export)
        self.file_dialog: QFileDialog | None = None
        self.save_folders: Any = None  # where save dialogs open (the window's SaveFolders)

        self.overall_model = OverallTableModel(self)
        self.topic_model = TopicAgreementTableModel(self)
        self.pair_model = PairTableModel(self)
        self.confusion_model = ConfusionTableModel(self)
        self.ranking_model = RankingTableModel(self)
        self.pair_choice = QComboBox()
        self.pair_choice.currentIndexChanged.connect(self._on_pair_chosen)
        self.pair_choice.setAccessibleName("Pair of assessors")
        self.ranking_note = QLabel()
        self.ranking_note.setWordWrap(True)

        def confusion() -> QWidget:
            page = QWidget()
            box = QVBoxLayout(page)
            row = QHBoxLayout()
            row.addWidget(QLabel("Pair:"))
            row.addWidget(self.pair_choice, 1)
            box.addLayout(row)
            box.addWidget(self._table(self.confusion_model, "Confusion matrix of the pair"))
            return page

        def rankings() -> QWidget:
            page = QWidget()
            box = QVBoxLayout(page)
            box.addWidget(self.ranking_note)
            box.addWidget(self._table(self.ranking_model, "System rankings compared"))
            return page

        # the first page now, the others when first chosen (judgeapp.ui.lazy_page)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._table(self.overall_model, "Agreement over all topics"), "All topics")
        self.tabs.addTab(
            LazyPage(lambda: self._table(self.topic_model, "Agreement per topic")), "Per topic"
        )
        self.tabs.addTab(
            LazyPage(lambda: self._table(self.pair_model, "Agreement per pair of assessors")),
            "Pairs",
        )
        self.tabs.addTab(LazyPage(confusion), "Confusion")
        self.rankings_tab = self.tabs.addTab(LazyPage(rankings), "Rankings")

        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.export_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.status)

    @staticmethod
    def _table(model: FiguresTableModel, name: str) -> QTableView:
        view = QTableView()
        view.setAccessibleName(name)
        view.setModel(model)
        view.setSortingEnabled(False)
        view.verticalHeader().setVisible(False)
        view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        view.setAlternatingRowColors(True)
        return view

    # -- filling ------------------------------------------------------------------------------------
    def set_report(self, report: AgreementReport) -> None:
        self.report = report
        docs = int(report.overall["documents"])
        who = ", ".join(f"{a} ({report.kinds[a]})" for a in report.assessors)
        self.summary.setText(
            f"{who}: {docs} documents judged by two or more, in {len(report.topics)} topics. "
            f"Grades {' '.join(map(str, report.grades))}, relevant from grade "
            f"{report.relevant_from}. Intervals: {report.intervals_note()}."
        )
        self.overall_model.set_report(report)
        self.topic_model.set_report(report)
        self.pair_model.set_report(report)
        self.ranking_model.set_report(report)
        rk = report.rankings
        self.tabs.setTabEnabled(self.rankings_tab, rk is not None)
        if rk is not None:
            self.ranking_note.setText(
                f"{len(rk.runs)} runs ranked by {rk.measure} under each judgment set "
                f"(combined: {rk.policy}); τ_AP reads the other ranking against the reference."
            )
        self.pair_choice.blockSignals(True)
        self.pair_choice.clear()
        self.pair_choice.addItems([f"{p.first} × {p.second}" for p in report.pairs])
        self.pair_choice.blockSignals(False)
        self._on_pair_chosen(0)
        self.export_button.setEnabled(True)

    def _on_pair_chosen(self, index: int) -> None:
        report = self.report
        pair = (
            report.pairs[index] if report is not None and 0 <= index < len(report.pairs) else None
        )
        self.confusion_model.set_pair(pair, report.grades if report is not None else ())

    # -- CSV ---------------------------------------------------------------------------------------
    def tables_csv(self) -> dict[str, str]:
        """Every table as CSV text, by file stem (rankings only when compared)."""
        if self.report is None:
            return {}
        out = {
            "agreement-all": self.overall_model.csv_text(),
            "agreement-topics": self.topic_model.csv_text(),
            "agreement-pairs": self.pair_model.csv_text(),
            "agreement-confusion": confusion_csv(self.report),
        }
        if self.report.rankings is not None:
            out["agreement-rankings"] = self.ranking_model.csv_text()
        return out

    def export_csv(self, folder: str | Path) -> list[Path]:
        """Write every table as `<stem>.csv` into `folder`; returns the paths."""
        folder = Path(folder)
        paths = []
        for stem, text in self.tables_csv().items():
            path = folder / f"{stem}.csv"
            write_text(path, text)  # whole or not at all
            paths.append(path)
        self.csv_exported.emit(paths)
        return paths

    def ask_export(self) -> QFileDialog:
        dialog = QFileDialog(self, "Export the agreement tables as CSV into a folder")
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        if self.save_folders is not None:
            self.save_folders.prepare(dialog)
        dialog.fileSelected.connect(self._on_folder_chosen)
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def _on_folder_chosen(self, folder: str) -> None:
        try:
            paths = self.export_csv(folder)
        except OSError as exc:
            self.status.setText(f"Could not export: {exc}")
            return
        self.status.setText(f"Exported {len(paths)} tables to {folder}.")
