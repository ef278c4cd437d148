"""Dialogs: import, build a pool, choose the assessor, the stopping advice's target, the
shortcut sheet.

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
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from judgeapp.ui.plain import plain
from judgeapp.ui.style import set_look

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
            item = self.form.itemAt(i)
            widget = item.widget() if item is not None else None
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
        set_look(self.message, "errorText")
        self.message.setText(text)

    def show_message(self, text: str) -> None:
        set_look(self.message, "muted")
        self.message.setText(text)


class FileListWidget(QWidget):
    """A list of files with Add… and Remove buttons."""

    def __init__(self, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = caption
        self.list = QListWidget()
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setMinimumHeight(110)
        add = QPushButton("&Add files…")
        remove = QPushButton("Re&move")
        # Enter in the dialog starts the work (its default button), never the file chooser
        for button in (add, remove):
            button.setAutoDefault(False)
        self.list.setAccessibleName(caption)
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
        topics: Sequence[str] = (),
        run_topics: Sequence[str] = (),
    ) -> None:
        super().__init__("Build a pool", "Build pool", parent)
        self.name = QLineEdit(default_name)
        self.name.setAccessibleName("Pool name")
        # the topics to pool: the ones the runs retrieved for unless narrowed
        self.all_topics = list(topics)
        self.run_topics = list(run_topics)
        self.topics = QLineEdit()
        self.topics.setAccessibleName("Topics to pool")
        self.topics.setPlaceholderText("every topic the runs retrieved for; or e.g. 601-650, 7")
        covered = len(set(run_topics) & set(topics)) if topics else len(run_topics)
        self.topics_hint = QLabel(
            f"The runs retrieved documents for {covered} of the project's {len(topics)} topics"
            + (
                f"; the other {len(topics) - covered} get no pool."
                if topics and covered < len(topics)
                else "."
            )
        )
        self.topics_hint.setObjectName("muted")
        self.topics_hint.setWordWrap(True)
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
        self.pool_depth = QSpinBox()
        self.pool_depth.setRange(1, 100_000)
        self.pool_depth.setValue(10)
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
            "maxmean-shared": "MaxMean bandit, evidence shared across runs",
            "ridge-fusion": "Rank fusion, run weights learned from the judgments",
            "cal": "Learns from the judged documents' text (CAL)",
        }
        for order in orders:
            self.order.addItem(order_labels.get(order, order), order)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2_000_000_000)
        self.form.addRow("Name", self.name)
        self.form.addRow("Topics", self.topics)
        self.form.addRow("", self.topics_hint)
        self.form.addRow("Runs", self.runs)
        self.form.addRow("Strategy", self.strategy)
        self.form.addRow("Depth", self.pool_depth)
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
        self.pool_depth.setSpecialValueText("")

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
            return {"depth": self.pool_depth.value()}
        params: dict = {"budget": self.budget.value(), "depth": self.pool_depth.value()}
        if strategy == "rbp":
            params["p"] = self.p.value()
        return params

    def chosen_topics(self) -> list[str] | None:
        """The topics to pool (None: every topic the runs retrieved for); ValueError for
        a part that matches no topic."""
        from judgeapp.services.selection import select_topics

        text = self.topics.text().strip()
        return select_topics([text] if text else None, self.run_topics or self.all_topics)

    def validate(self) -> str | None:
        if not self.name.text().strip():
            return "Give the pool a name."
        if not self.chosen_runs():
            return "Choose at least one run."
        try:
            chosen = self.chosen_topics()
        except ValueError as exc:
            return f"Topics: {exc} among the topics the runs retrieved for."
        if chosen is not None and not chosen:
            return "Choose at least one topic."
        return None


class AssessorDialog(QDialog):
    """Pick a known assessor or type a new name."""

    chosen = Signal(str)

    def __init__(
        self, names: Sequence[str], current: str | None, parent=None, *, fixed: bool = False
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Assessor")
        self.combo = QComboBox()
        self.combo.setEditable(not fixed)
        self.combo.addItems(list(names))
        if current:
            self.combo.setCurrentText(current)
        line = self.combo.lineEdit()
        if not fixed and line is not None:
            line.setPlaceholderText("your name")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        label = QLabel(
            "This connection judges as its own assessor only (the server's rule)."
            if fixed
            else "Judgments are recorded under this name. Type a new name to add one."
        )
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


class StopTargetDialog(QDialog):
    """The stopping advice's target: the recall a topic must reach and the confidence the
    advice must have that it did (the project's settings; every assessor's advice follows
    them)."""

    chosen = Signal(float, float)  # target recall, confidence (fractions)

    def __init__(self, target: float, confidence: float, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Stopping advice")
        self.setMinimumWidth(440)
        self.target = QDoubleSpinBox()
        self.target.setRange(10.0, 100.0)
        self.target.setDecimals(0)
        self.target.setSingleStep(5.0)
        self.target.setSuffix(" %")
        self.confidence = QDoubleSpinBox()
        self.confidence.setRange(50.0, 99.9)
        self.confidence.setDecimals(1)
        self.confidence.setSingleStep(1.0)
        self.confidence.setSuffix(" %")
        self.set_target(target, confidence)
        form = QFormLayout()
        form.addRow("Target &recall", self.target)
        form.addRow("&Confidence", self.confidence)
        label = QLabel(
            "A topic may stop once the estimator is this confident that this share of its "
            "pool's relevant documents is found. Checked at 80% recall and 95% confidence "
            "(docs/estimators.md); other targets use the same calibrated bound."
        )
        label.setWordWrap(True)
        label.setObjectName("muted")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def set_target(self, target: float, confidence: float) -> None:
        """Show a target recall and confidence (fractions)."""
        self.target.setValue(round(target * 100.0))
        self.confidence.setValue(round(confidence * 100.0, 1))

    def accept(self) -> None:
        super().accept()
        self.chosen.emit(self.target.value() / 100.0, self.confidence.value() / 100.0)


class ShortcutSheet(QDialog):
    """Every key of the judging view (F1 or ?), the grades with their definitions, and the
    project's judging guidelines. The actions wrap in their column and the sheet fits the
    window it belongs to, so nothing is cut off at any size."""

    # what the sheet says when the scale's grades have no definitions
    NO_DEFINITIONS = (
        "This project's scale gives its grades no definitions: what each grade means is "
        "up to each assessor. The project's owner adds them (and judging guidelines) under "
        "Judging ▸ Relevance scale and guidelines…, or with `judgeapp scale DB --define "
        'G "TEXT"`.'
    )

    def __init__(
        self,
        rows: Sequence[tuple[str, str]],
        parent=None,
        *,
        guidelines: str = "",
        defined: bool = True,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts and guidelines")
        self.undefined = QLabel(self.NO_DEFINITIONS)
        self.undefined.setObjectName("notice")
        self.undefined.setWordWrap(True)
        self.undefined.setTextFormat(Qt.TextFormat.PlainText)
        self.undefined.setAccessibleName("The grades have no definitions")
        self.undefined.setVisible(not defined)
        table = QTableWidget(len(rows), 2)
        table.setAccessibleName("Keys and what they do")
        table.setHorizontalHeaderLabels(["Key", "Action"])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        table.setShowGrid(False)
        table.setWordWrap(True)
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for r, (key, action) in enumerate(rows):
            key_item = QTableWidgetItem(key)
            font = key_item.font()
            font.setBold(True)
            key_item.setFont(font)
            table.setItem(r, 0, key_item)
            table.setItem(r, 1, QTableWidgetItem(action))
        table.resizeColumnToContents(0)
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table = table
        self.guidelines = QPlainTextEdit(guidelines.strip())
        self.guidelines.setReadOnly(True)
        self.guidelines.setAccessibleName("Judging guidelines")
        self.guidelines.setVisible(bool(guidelines.strip()))
        lines = min(len(guidelines.strip().splitlines()) + 1, 8)
        self.guidelines.setMaximumHeight(self.fontMetrics().lineSpacing() * lines + 16)
        # the keyboard scrolls the table (arrows, Page Up/Down, Home/End): it has the focus
        table.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        table.setCurrentCell(0, 1)
        guide_label = QLabel("Judging guidelines")
        guide_label.setObjectName("heading")
        guide_label.setVisible(bool(guidelines.strip()))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.undefined)
        layout.addWidget(table, 1)
        layout.addWidget(guide_label)
        layout.addWidget(self.guidelines)
        layout.addWidget(buttons)
        self._fit(parent)
        table.setFocus(Qt.FocusReason.OtherFocusReason)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.table.setFocus(Qt.FocusReason.PopupFocusReason)

    def _fit(self, parent) -> None:
        """As large as the rows need, within the window the sheet belongs to."""
        window = parent.window() if parent is not None else None
        available = window.size() if window is not None else None
        screen = self.screen().availableGeometry().size() if self.screen() else None
        limits = [s for s in (available, screen) if s is not None and s.width() > 0]
        max_w = min([s.width() for s in limits] + [760]) - 20
        max_h = min([s.height() for s in limits] + [900]) - 40
        width = max(min(max_w, 640), 320)
        self.resize(width, max(min(max_h, 120 + 30 * self.table.rowCount()), 240))


class InstructionsDialog(QDialog):
    """The campaign's instructions: the project's judging guidelines and what each grade
    means, shown before an assessor's first document (`first`) and on the I key after."""

    def __init__(
        self, guidelines: str, scale: Sequence, parent=None, *, first: bool = False
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Judging instructions")
        intro = QLabel(
            "Before your first document: how this project is judged. "
            "I (or F1) shows this again at any time."
            if first
            else "How this project is judged. F1 lists every key."
        )
        intro.setWordWrap(True)
        text = guidelines.strip() or (
            "This project has no judging guidelines yet. Its owner adds them under "
            "Judging ▸ Relevance scale and guidelines…, or with "
            '`judgeapp scale DB --guidelines-text "TEXT"`.'
        )
        grades = "\n".join(
            f"{g.key}  {g.label}" + (f": {g.definition}" if g.definition else "") for g in scale
        )
        self.text = QPlainTextEdit(f"{text}\n\nGrades\n{grades}")
        self.text.setReadOnly(True)
        self.text.setAccessibleName("Judging guidelines and grades")
        self.text.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the arrows scroll it
        buttons = QDialogButtonBox()
        self.start = buttons.addButton(
            "Start judging" if first else "Back to judging",
            QDialogButtonBox.ButtonRole.AcceptRole,
        )
        self.start.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        window = parent.window() if parent is not None else None
        size = window.size() if window is not None else None
        width = 560 if size is None else max(320, min(560, size.width() - 40))
        height = 420 if size is None else max(240, min(420, size.height() - 60))
        self.resize(width, height)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.text.setFocus(Qt.FocusReason.PopupFocusReason)


class ScaleDialog(QDialog):
    """The project's relevance scale, defined by its owner: a preset to start from, each
    grade's number, label, key and definition, the lowest relevant grade, and guidelines
    (typed, or read from a file). `chosen(ScaleSpec)` once OK passes the checks."""

    chosen = Signal(object)

    def __init__(self, spec, presets: dict, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Relevance scale and guidelines")
        self.presets = presets
        self.preset = QComboBox()
        self.preset.setAccessibleName("Start from a preset")
        self.preset.addItem("The project's scale", None)
        for name, preset in presets.items():
            self.preset.addItem(f"{name}: {preset.description}", name)
        self.table = QTableWidget(0, 4)
        self.table.setAccessibleName("Grades")
        self.table.setHorizontalHeaderLabels(["Grade", "Label", "Key", "Definition"])
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        for col in (0, 2):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(1, 150)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        add = QPushButton("Add grade")
        add.setAutoDefault(False)
        remove = QPushButton("Remove grade")
        remove.setAutoDefault(False)
        add.clicked.connect(self._on_add_clicked)
        remove.clicked.connect(self._on_remove_clicked)
        self.relevant_from = QComboBox()
        self.relevant_from.setAccessibleName("Lowest relevant grade")
        self.guidelines = QPlainTextEdit()
        self.guidelines.setAccessibleName("Judging guidelines")
        self.guidelines.setPlaceholderText(
            "Judging guidelines, shown beside the topic and on F1 (optional)"
        )
        load = QPushButton("Load from file…")
        load.setAutoDefault(False)
        load.clicked.connect(self._on_load_clicked)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setObjectName("error")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self._on_accepted)
        self.buttons.rejected.connect(self.reject)
        rows = QHBoxLayout()
        rows.addWidget(add)
        rows.addWidget(remove)
        rows.addStretch(1)
        rows.addWidget(QLabel("Relevant from grade"))
        rows.addWidget(self.relevant_from)
        guide_row = QHBoxLayout()
        guide_row.addWidget(QLabel("Guidelines"))
        guide_row.addStretch(1)
        guide_row.addWidget(load)
        layout = QVBoxLayout(self)
        layout.addWidget(self.preset)
        layout.addWidget(self.table, 2)
        layout.addLayout(rows)
        layout.addLayout(guide_row)
        layout.addWidget(self.guidelines, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.resize(720, 520)
        self.file_dialog: QFileDialog | None = None
        self._fill(spec)
        self.preset.currentIndexChanged.connect(self._on_preset_changed)
        self.table.itemChanged.connect(self._on_table_changed)

    def _fill(self, spec, *, guidelines: bool = True) -> None:
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for g in spec.grades:
            self._add_row(str(g.grade), g.label, g.key, g.definition)
        self.table.blockSignals(False)
        self._fill_relevant(spec.relevant_from)
        if guidelines:
            self.guidelines.setPlainText(spec.guidelines)

    def _add_row(self, grade: str, label: str, key: str, definition: str) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        for col, text in enumerate((grade, label, key, definition)):
            self.table.setItem(row, col, QTableWidgetItem(text))

    def _fill_relevant(self, chosen: int | None) -> None:
        grades = []
        for r in range(self.table.rowCount()):
            try:
                grades.append(int(_cell_text(self.table, r)))
            except (AttributeError, ValueError):
                continue
        current = chosen if chosen is not None else self.relevant_from.currentData()
        self.relevant_from.clear()
        for g in sorted(set(grades)):
            self.relevant_from.addItem(str(g), g)
        index = self.relevant_from.findData(current)
        self.relevant_from.setCurrentIndex(index if index >= 0 else min(1, len(grades) - 1))

    def _on_preset_changed(self, _index: int) -> None:
        name = self.preset.currentData()
        if name is not None:
            self._fill(self.presets[name], guidelines=False)

    def _on_table_changed(self, _item) -> None:
        self._fill_relevant(None)

    def _on_add_clicked(self) -> None:
        numbers = []
        for r in range(self.table.rowCount()):
            try:
                numbers.append(int(_cell_text(self.table, r)))
            except (AttributeError, ValueError):
                continue
        new = max(numbers, default=-1) + 1
        self._add_row(str(new), "", str(new)[-1], "")

    def _on_remove_clicked(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True)
        for row in rows or [self.table.rowCount() - 1]:
            if row >= 0:
                self.table.removeRow(row)
        self._fill_relevant(None)

    def _on_load_clicked(self) -> None:
        dialog = QFileDialog(self, "Judging guidelines")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setNameFilters(["Text (*.txt *.md)", "All files (*)"])
        dialog.fileSelected.connect(self.load_guidelines)
        self.file_dialog = dialog
        dialog.open()

    def load_guidelines(self, path: str) -> None:
        try:
            self.guidelines.setPlainText(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            self.message.setText(f"Cannot read {path}: {exc}")

    def spec(self):
        """The scale as the form has it (ScaleError when a number is not one)."""
        from judgeapp.records import GradeInfo
        from judgeapp.services.scale import ScaleError, ScaleSpec

        grades = []
        for r in range(self.table.rowCount()):
            cells = [self.table.item(r, c) for c in range(4)]
            texts = [c.text().strip() if c is not None else "" for c in cells]
            try:
                number = int(texts[0])
            except ValueError:
                raise ScaleError(f"row {r + 1}: the grade must be a whole number") from None
            grades.append(GradeInfo(number, texts[1], texts[2], texts[3]))
        relevant = self.relevant_from.currentData()
        return ScaleSpec(
            tuple(grades),
            relevant if relevant is not None else 1,
            self.guidelines.toPlainText(),
        )

    def _on_accepted(self) -> None:
        from judgeapp.services.scale import ScaleError, check

        try:
            spec = self.spec()
            check(spec.grades, spec.relevant_from)
        except ScaleError as exc:
            self.message.setText(str(exc))
            return
        self.chosen.emit(spec)

    def show_error(self, text: str) -> None:
        self.message.setText(text)


def _cell_text(table: QTableWidget, row: int) -> str:
    """The text of a row's first cell ("" for an empty one)."""
    item = table.item(row, 0)
    return "" if item is None else item.text()
