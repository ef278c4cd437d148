"""Dialogs: import, build a pool, choose the assessor, the shortcut sheet.

Dialogs are layout plus a few signals; the main controller runs the work they ask for in a
worker and feeds progress back (`set_progress`), so Cancel works while the work runs. They
are opened with `open()` (window-modal, not blocking), so tests drive them like a user.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from judgeapp.ui.plain import plain

IMPORT_TITLES = {
    "topics": "Import topics",
    "documents": "Import documents",
    "runs": "Import runs",
    "qrels": "Import qrels",
}
IMPORT_HELP = {
    "topics": "TREC <top> SGML, Web-track or COVID XML, TSV, JSONL or SMART query files.",
    "documents": "TREC <DOC> SGML, JSONL, TSV or SMART (.I .T .W) files; .gz is fine.",
    "runs": "TREC six-column run files; each run is named after its tag.",
    "qrels": "TREC qrels or classic relevance files; each file becomes a judgment source.",
}


class TaskDialog(QDialog):
    """A form, then a progress bar with a message while the work runs. The primary button
    starts the work (`submitted`); Cancel stops it (`cancel_requested`) or closes the dialog
    when nothing runs."""

    submitted = Signal()
    cancel_requested = Signal()

    def __init__(self, title: str, action: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(520)
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.message = plain(QLabel())  # errors quote the offending line of a file
        self.message.setObjectName("muted")
        self.message.setWordWrap(True)
        self.buttons = QDialogButtonBox()
        self.start_button = self.buttons.addButton(action, QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self._on_start_clicked)
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.progress)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.running = False

    def _on_start_clicked(self) -> None:
        problem = self.validate()
        if problem:
            self.show_error(problem)
            return
        self.submitted.emit()

    def _on_cancel_clicked(self) -> None:
        if self.running:
            self.message.setText("Cancelling…")
            self.cancel_requested.emit()
        else:
            self.reject()

    def reject(self) -> None:  # Esc while running cancels instead of hiding the progress
        if self.running:
            self._on_cancel_clicked()
        else:
            super().reject()

    def validate(self) -> str | None:
        """A problem with the form, or None when the work can start."""
        return None

    def set_running(self, running: bool) -> None:
        self.running = running
        self.start_button.setEnabled(not running)
        for i in range(self.form.count()):
            widget = self.form.itemAt(i).widget()
            if widget is not None:
                widget.setEnabled(not running)
        self.progress.setVisible(running)
        if running:
            self.progress.setRange(0, 0)
            self.message.setText("Starting…")

    def set_progress(self, done: int, total: int, message: str) -> None:
        if total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
        else:
            self.progress.setRange(0, 0)  # busy indicator: the total is not known
        self.message.setText(message)

    def show_error(self, text: str) -> None:
        self.message.setStyleSheet("color: #b3261e;")
        self.message.setText(text)

    def show_message(self, text: str) -> None:
        self.message.setStyleSheet("")
        self.message.setText(text)


class FileListWidget(QWidget):
    """A list of files with Add… and Remove buttons."""

    def __init__(self, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = caption
        self.list = QListWidget()
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setMinimumHeight(110)
        add = QPushButton("Add files…")
        remove = QPushButton("Remove")
        add.clicked.connect(self._on_add_clicked)
        remove.clicked.connect(self._on_remove_clicked)
        buttons = QVBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(remove)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self.file_dialog: QFileDialog | None = None

    def _on_add_clicked(self) -> None:
        dialog = QFileDialog(self, self.caption)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.filesSelected.connect(self.add_paths)
        self.file_dialog = dialog
        dialog.open()

    def _on_remove_clicked(self) -> None:
        for item in self.list.selectedItems():
            self.list.takeItem(self.list.row(item))

    def add_paths(self, paths: Sequence[str]) -> None:
        present = set(self.paths())
        for path in paths:
            if path not in present:
                self.list.addItem(QListWidgetItem(str(path)))
                present.add(path)

    def paths(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]


class ImportDialog(TaskDialog):
    def __init__(self, kind: str, parent: QWidget | None = None) -> None:
        super().__init__(IMPORT_TITLES[kind], "Import", parent)
        self.kind = kind
        self.files = FileListWidget(IMPORT_TITLES[kind])
        hint = QLabel(IMPORT_HELP[kind])
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        self.form.addRow("Files", self.files)
        self.form.addRow("", hint)

    def paths(self) -> list[str]:
        return self.files.paths()

    def validate(self) -> str | None:
        paths = self.paths()
        if not paths:
            return "Add at least one file."
        missing = [p for p in paths if not Path(p).is_file()]
        if missing:
            return f"No such file: {missing[0]}"
        return None


class PoolDialog(TaskDialog):
    """Which runs, which strategy with its size, which judging order and seed."""

    def __init__(
        self,
        runs: Sequence[str],
        strategies: Sequence[str],
        orders: Sequence[str],
        default_name: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__("Build a pool", "Build pool", parent)
        self.name = QLineEdit(default_name)
        self.runs = QListWidget()
        self.runs.setMinimumHeight(140)
        for run in runs:
            item = QListWidgetItem(run)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.runs.addItem(item)
        self.strategy = QComboBox()
        labels = {
            "depth": "Depth-k (TREC)",
            "take": "Take@N by best rank",
            "rbp": "Take@N by RBP weight",
            "rrf": "Take@N by reciprocal-rank fusion",
        }
        for strategy in strategies:
            self.strategy.addItem(labels.get(strategy, strategy), strategy)
        self.depth = QSpinBox()
        self.depth.setRange(1, 100_000)
        self.depth.setValue(10)
        self.budget = QSpinBox()
        self.budget.setRange(1, 1_000_000)
        self.budget.setValue(100)
        self.p = QDoubleSpinBox()
        self.p.setRange(0.01, 0.99)
        self.p.setSingleStep(0.05)
        self.p.setValue(0.8)
        self.order = QComboBox()
        order_labels = {
            "blind": "Blind (shuffled; no runs or ranks shown)",
            "rank": "By rank (round robin across runs)",
            "mtf": "Move-to-Front",
            "hedge": "Hedge",
            "maxmean": "MaxMean bandit",
            "maxmean-ns": "MaxMean bandit, non-stationary",
        }
        for order in orders:
            self.order.addItem(order_labels.get(order, order), order)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2_000_000_000)
        self.form.addRow("Name", self.name)
        self.form.addRow("Runs", self.runs)
        self.form.addRow("Strategy", self.strategy)
        self.form.addRow("Depth", self.depth)
        self.form.addRow("Budget per topic", self.budget)
        self.form.addRow("RBP persistence p", self.p)
        self.form.addRow("Judging order", self.order)
        self.form.addRow("Seed", self.seed)
        self.strategy.currentIndexChanged.connect(self._on_strategy_changed)
        self._on_strategy_changed()

    def _on_strategy_changed(self) -> None:
        strategy = self.strategy.currentData()
        take = strategy != "depth"
        self.form.setRowVisible(self.budget, take)
        self.form.setRowVisible(self.p, strategy == "rbp")
        self.depth.setSpecialValueText("")

    def set_strategy(self, strategy: str) -> None:
        self.strategy.setCurrentIndex(self.strategy.findData(strategy))

    def set_order(self, order: str) -> None:
        self.order.setCurrentIndex(self.order.findData(order))

    def chosen_runs(self) -> list[str]:
        return [
            self.runs.item(i).text()
            for i in range(self.runs.count())
            if self.runs.item(i).checkState() == Qt.CheckState.Checked
        ]

    def set_runs(self, names: Sequence[str]) -> None:
        wanted = set(names)
        for i in range(self.runs.count()):
            item = self.runs.item(i)
            item.setCheckState(
                Qt.CheckState.Checked if item.text() in wanted else Qt.CheckState.Unchecked
            )

    def params(self) -> dict:
        strategy = self.strategy.currentData()
        if strategy == "depth":
            return {"depth": self.depth.value()}
        params: dict = {"budget": self.budget.value(), "depth": self.depth.value()}
        if strategy == "rbp":
            params["p"] = self.p.value()
        return params

    def validate(self) -> str | None:
        if not self.name.text().strip():
            return "Give the pool a name."
        if not self.chosen_runs():
            return "Choose at least one run."
        return None


class AssessorDialog(QDialog):
    """Pick a known assessor or type a new name."""

    chosen = Signal(str)

    def __init__(self, names: Sequence[str], current: str | None, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Assessor")
        self.combo = QComboBox()
        self.combo.setEditable(True)
        self.combo.addItems(list(names))
        if current:
            self.combo.setCurrentText(current)
        self.combo.lineEdit().setPlaceholderText("your name")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        label = QLabel("Judgments are recorded under this name. Type a new name to add one.")
        label.setWordWrap(True)
        label.setObjectName("muted")
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(self.combo)
        layout.addWidget(buttons)

    def accept(self) -> None:
        name = self.combo.currentText().strip()
        if not name:
            return
        super().accept()
        self.chosen.emit(name)


class ShortcutSheet(QDialog):
    """Every key of the judging view (F1 or ?)."""

    def __init__(self, rows: Sequence[tuple[str, str]], parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        table = QTableWidget(len(rows), 2)
        table.setHorizontalHeaderLabels(["Key", "Action"])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        table.setShowGrid(False)
        for r, (key, action) in enumerate(rows):
            key_item = QTableWidgetItem(key)
            font = key_item.font()
            font.setBold(True)
            key_item.setFont(font)
            table.setItem(r, 0, key_item)
            table.setItem(r, 1, QTableWidgetItem(action))
        table.resizeColumnsToContents()
        table.horizontalHeader().setStretchLastSection(True)
        self.table = table
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(table)
        layout.addWidget(buttons)
        self.resize(480, min(80 + 28 * len(rows), 640))
