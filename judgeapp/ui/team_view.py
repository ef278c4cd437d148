"""The owner's view of a judging campaign: each assessor's progress on their topics, their
pace (judgments per hour, median seconds per document), their grades and flagged documents,
and the agreement on shared topics (`AgreementView`). Every table exports as CSV.

`TeamView` holds the layout; `TeamController` fills it from the workbench through the
window's ops (judgeapp.ui.ops), in a lane of its own: seconds on a large campaign.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from judgeapp.errors import UserError
from judgeapp.outputs import writing
from judgeapp.services.team import AssessorProgress
from judgeapp.services.workbench import Workbench
from judgeapp.ui.agreement_view import AgreementView
from judgeapp.ui.lazy_page import LazyPage
from judgeapp.ui.models import FixedColumnsTableModel
from judgeapp.ui.ops import Ops

Index = QModelIndex | QPersistentModelIndex
REFRESH_DELAY_MS = 1000


class RowsTableModel(FixedColumnsTableModel):
    """Plain rows of text under fixed headers (what is shown is what is exported)."""

    @property
    def rows(self) -> list[list[str]]:
        return self.items

    def set_rows(self, rows: Sequence[Sequence[Any]]) -> None:
        self.set_items([[str(v) for v in r] for r in rows])

    def cell(self, item: list[str], column: int) -> Any:
        return item[column]

    def write_csv(self, path: Path) -> None:
        with writing(path, newline="") as fh:  # whole or not at all
            writer = csv.writer(fh)
            writer.writerow(self.HEADERS)
            writer.writerows(self.rows)


class ProgressTableModel(RowsTableModel):
    HEADERS = ("Assessor", "Topic", "Assigned", "Judged", "Pooled", "Progress")


class AssessorTableModel(RowsTableModel):
    HEADERS = (
        "Assessor",
        "Role",
        "Topics",
        "Judgments",
        "Active hours",
        "Per hour",
        "Median s/doc",
        "Grades",
        "Flagged",
    )


class FlaggedTableModel(RowsTableModel):
    HEADERS = ("Assessor", "Topic", "Document")


def progress_rows(people: Sequence[AssessorProgress]) -> list[list[Any]]:
    rows = []
    for p in people:
        for qid, judged in p.judged.items():
            pooled = p.pool_sizes.get(qid, 0)
            share = f"{judged / pooled:.0%}" if pooled else ""
            rows.append(
                [p.assessor, qid, "yes" if qid in p.assigned else "", judged, pooled, share]
            )
    return rows


def assessor_rows(people: Sequence[AssessorProgress]) -> list[list[Any]]:
    return [
        [
            p.assessor,
            p.role,
            len(p.assigned),
            p.judgments,
            f"{p.hours:.2f}",
            "" if p.per_hour is None else f"{p.per_hour:.0f}",
            "" if p.median_seconds is None else f"{p.median_seconds:.1f}",
            " ".join(f"{g}:{n}" for g, n in p.grades.items()),
            p.flagged,
        ]
        for p in people
    ]


class AssignDialog(QDialog):
    """Who judges which topic: the same choices as `python main.py assign`."""

    def __init__(self, persons: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Assign topics to assessors")
        self.topics = QLineEdit()
        self.topics.setPlaceholderText("every pooled topic, or e.g. 601-625 630")
        self.assessors = QLineEdit(", ".join(persons))
        self.assessors.setPlaceholderText("ann, bob, cid")
        self.per_topic = QSpinBox()
        self.per_topic.setRange(1, 20)
        self.overlap = QDoubleSpinBox()
        self.overlap.setRange(0.0, 1.0)
        self.overlap.setSingleStep(0.05)
        self.overlap.setValue(0.1)
        self.seed = QSpinBox()
        self.seed.setRange(0, 1_000_000)
        self.blind = QCheckBox("Assessors judge blind (no dashboard, runs, ranks or estimates)")
        self.blind.setChecked(True)
        self.message = QLabel()
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        form = QFormLayout()
        form.addRow("&Topics", self.topics)
        form.addRow("&Assessors", self.assessors)
        form.addRow("Assessors &per topic", self.per_topic)
        form.addRow("Shared for agreement (&overlap)", self.overlap)
        form.addRow("&Seed", self.seed)
        form.addRow(self.blind)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Assign")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(buttons)

    def names(self) -> list[str]:
        return [n.strip() for n in self.assessors.text().split(",") if n.strip()]


class TeamView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel("Reading the team's work…")
        self.assign_button = QPushButton("Assign topics…")
        self.export_button = QPushButton("Export CSV…")
        self.progress_model = ProgressTableModel(self)
        self.assessor_model = AssessorTableModel(self)
        self.flagged_model = FlaggedTableModel(self)
        self.agreement = AgreementView()
        self.tabs = QTabWidget()
        self.tabs.addTab(self._table(self.assessor_model), "Assessors")
        # the other pages are built when first chosen (judgeapp.ui.lazy_page)
        self.tabs.addTab(LazyPage(lambda: self._table(self.progress_model)), "Progress by topic")
        self.tabs.addTab(LazyPage(lambda: self._table(self.flagged_model)), "Flagged documents")
        self.tabs.addTab(self.agreement, "Agreement")
        for i in range(3):
            tab = self.tabs.widget(i)
            if tab is not None:
                tab.setAccessibleName(self.tabs.tabText(i))
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.assign_button)
        top.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)

    @staticmethod
    def _table(model: RowsTableModel) -> QTableView:
        view = QTableView()
        view.setModel(model)
        view.verticalHeader().setVisible(False)
        view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        view.horizontalHeader().setStretchLastSection(True)
        view.setAlternatingRowColors(True)
        return view

    def export_csv(self, folder: str | Path) -> list[Path]:
        """Every table of the view (and of its agreement part) as CSV files in `folder`."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for name, model in (
            ("team-assessors.csv", self.assessor_model),
            ("team-progress.csv", self.progress_model),
            ("team-flagged.csv", self.flagged_model),
        ):
            model.write_csv(folder / name)
            written.append(folder / name)
        if self.agreement.report is not None:
            written += self.agreement.export_csv(folder)
        return written


class TeamController(QObject):
    updated = Signal()
    changed = Signal(object)  # Changes: assignments made here

    def __init__(
        self,
        view: TeamView,
        parent: QObject | None = None,
        save_folders: Any = None,
        ops: Ops | None = None,
    ) -> None:
        super().__init__(parent)
        self.view = view
        self.save_folders = save_folders  # where save dialogs open
        self.view.agreement.save_folders = save_folders
        self.ops = ops or Ops(self)
        self.workbench: Workbench | None = None
        self.persons: list[str] = []
        self.busy = False
        self.file_dialog: QFileDialog | None = None
        self.timer = QTimer(self)  # judgments come in bursts: read again after a pause
        self.timer.setSingleShot(True)
        self.timer.setInterval(REFRESH_DELAY_MS)
        self.timer.timeout.connect(self.refresh)
        self.view.export_button.clicked.connect(self._on_export_clicked)
        self.view.assign_button.clicked.connect(self._on_assign_clicked)
        self.assign_dialog: AssignDialog | None = None

    def open(self, workbench: Workbench, persons: Sequence[str] = ()) -> None:
        """Show `workbench`'s campaign; `persons`: the project's assessors (the assign
        dialog's choice), as the window read them."""
        self.workbench = workbench
        self.persons = list(persons)
        self.refresh()

    def schedule(self) -> None:
        """Read again after a pause, if the view is in sight."""
        if self.view.isVisible():
            self.timer.start()

    def refresh(self) -> None:
        """Read the team's work again (in a worker: seconds on a large campaign)."""
        wb = self.workbench
        if wb is None:
            return
        self.busy = True

        def work() -> tuple[list[AssessorProgress], Any, str | None]:
            people = wb.team_progress()
            try:
                return people, wb.agreement_report(), None
            except Exception as exc:  # fewer than two assessors, nothing shared, ...
                return people, None, str(exc)

        self.ops.read(work, self._on_read, failed=self._on_failed, key="team", lane="team")

    def _on_failed(self, exc: BaseException) -> None:
        self.busy = False
        self.view.summary.setText(f"Could not read the team's work: {exc}")

    def _on_read(self, result: tuple[list[AssessorProgress], Any, str | None]) -> None:
        people, report, problem = result
        v = self.view
        v.assessor_model.set_rows(assessor_rows(people))
        v.progress_model.set_rows(progress_rows(people))
        v.flagged_model.set_rows([[p.assessor, q, d] for p in people for q, d in p.flagged_docs])
        judgments = sum(p.judgments for p in people)
        v.summary.setText(
            f"{len(people)} assessor{'s' * (len(people) != 1)}, {judgments} judgments"
            + ("" if problem is None else f" · agreement: {problem}")
        )
        if report is not None:
            v.agreement.set_report(report)
        self.busy = False
        self.updated.emit()

    def _on_assign_clicked(self) -> None:
        self.show_assign_dialog()

    def show_assign_dialog(self) -> AssignDialog | None:
        wb = self.workbench
        if wb is None:
            return None
        dialog = AssignDialog([p for p in self.persons if p != wb.assessor], self.view)
        dialog.accepted.connect(lambda: self._on_assign_accepted(dialog))
        self.assign_dialog = dialog
        dialog.open()
        return dialog

    def _on_assign_accepted(self, dialog: AssignDialog) -> None:
        wb = self.workbench
        if wb is None:
            return
        topics, names = dialog.topics.text(), dialog.names()
        per_topic, overlap, seed = (
            dialog.per_topic.value(),
            dialog.overlap.value(),
            dialog.seed.value(),
        )
        blind = None if dialog.blind.isChecked() else False

        def assigned(changes: Any) -> None:
            self.changed.emit(changes)
            self.refresh()

        def failed(exc: BaseException) -> None:
            # no such topic, too few assessors, ... (or the store failed: said alike)
            text = str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}"
            dialog.message.setText(text)
            dialog.open()

        self.ops.write(
            lambda: wb.assign(
                topics, names, per_topic=per_topic, overlap=overlap, seed=seed, blind=blind
            ),
            assigned,
            failed=failed,
            what="assigning topics",
        )

    def _on_export_clicked(self) -> None:
        dialog = QFileDialog(self.view, "Export the team's tables as CSV")
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        if self.save_folders is not None:
            self.save_folders.prepare(dialog)
        dialog.fileSelected.connect(self.view.export_csv)
        self.file_dialog = dialog
        dialog.open()
