"""The dashboard's layout: controls, the runs x measures table and its drill-down, the
coverage warnings and four plots. Layout only: `DashboardController` and its parts (one per
job) connect everything.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFontMetrics, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStyle,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from judgeapp.measures import DEFAULT_GUI_MEASURES
from judgeapp.services.live_eval import validate_measures
from judgeapp.services.policy import POLICIES
from judgeapp.ui import theme
from judgeapp.ui.dashboard.comparison import ComparisonTableModel
from judgeapp.ui.dashboard.curve_plots import NdcgCutoffPlot, PrecisionRecallPlot
from judgeapp.ui.dashboard.models import (
    DrillDownTableModel,
    MatrixTableModel,
    RunMeasureTableModel,
)
from judgeapp.ui.dashboard.topic_plots import ApDifferencePlot, ProgressPlot
from judgeapp.ui.flow_layout import FlowLayout
from judgeapp.ui.item_style import paint_items_in_cpp


def _compact(combo: QComboBox) -> None:
    """A combo box as wide as its items, but allowed to shrink to a few characters: the
    dashboard must fit a 1000 pixel wide window."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    combo.setMinimumContentsLength(4)


class ColumnFitter(QObject):
    """Keeps a matrix table's columns as wide as their header and their widest text need
    (never elided: at 2x "nDCG@10" read "DCG@1"), sharing any room left over evenly; when
    they need more than there is, the table scrolls sideways instead. Rows are as tall as
    the model's lines (a second line holds the intervals and bounds). The widths come from
    the model's formats and each column's extremes (`widest_texts`), measured once per
    change of shape, never per judgment: asking the view for every cell's size went through
    Python for each and stalled the window 100 ms at TREC scale."""

    def __init__(self, table: QTableView, model: MatrixTableModel) -> None:
        super().__init__(table)
        self.table, self.model = table, model
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.fit)
        for signal in (model.modelReset, model.headerDataChanged):
            signal.connect(self.timer.start)
        # rows that change values or move (the model keeps them sorted) keep their widths
        model.dataChanged.connect(self._on_data_changed)
        table.viewport().installEventFilter(self)
        self.widths: list[int] = []
        self.shape: tuple = ()

    def _on_data_changed(self, *_args) -> None:
        # new values keep their widths (fixed formats); only another shape refits
        if self.model.shape_key() != self.shape:
            self.timer.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.timer.start()
        return False

    def fit(self) -> None:
        table, header = self.table, self.table.horizontalHeader()
        if not table.isVisible():
            return  # fitted when shown (a resize of its viewport)
        self.shape = self.model.shape_key()
        rows = table.verticalHeader()
        line = table.fontMetrics().lineSpacing()
        height = max(24, self.model.lines() * line + 8)
        if rows.defaultSectionSize() != height:
            rows.setDefaultSectionSize(height)
        bold = table.font()
        bold.setBold(True)  # the baseline's row
        metrics = QFontMetrics(bold)
        pad = 2 * table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 4
        n = header.count()
        needs = [
            max(
                max((metrics.horizontalAdvance(t) for t in self.model.widest_texts(c)), default=0)
                + pad,
                header.sectionSizeHint(c),
            )
            for c in range(n)
        ]
        spare = table.viewport().width() - sum(needs)
        extra = spare // n if n and spare > 0 else 0
        widths = [need + extra for need in needs]
        if widths != self.widths:
            self.widths = widths
            for c, width in enumerate(widths):
                header.resizeSection(c, width)


def change_legend_text() -> str:
    """The legend of the changed cells' tints, in the colours of the theme in use."""

    def swatch(colour: str) -> str:
        return (
            f'<span style="background-color: {colour}; color: {colour};">'
            "&nbsp;&nbsp;&nbsp;&nbsp;</span>"
        )

    c = theme.COLOURS
    return f"{swatch(c['up_tint'])} rose {swatch(c['down_tint'])} fell at the last judgment"


def _table(model) -> QTableView:
    """A table of one of the dashboard's models, which keep their rows sorted themselves
    (judgeapp.ui.dashboard.sorting): the header's clicks sort the model, no proxy."""
    table = QTableView()
    table.setModel(model)
    table.setSortingEnabled(True)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(True)
    table.setShowGrid(False)
    table.setWordWrap(False)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(24)
    font = table.font()  # a dense numeric table: a point smaller than the rest
    font.setPointSizeF(max(font.pointSizeF() - 1, 7.0))
    table.setFont(font)
    header = table.horizontalHeader()
    header.setHighlightSections(False)
    header.setMinimumSectionSize(60)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    if isinstance(model, MatrixTableModel):
        table.fitter = ColumnFitter(table, model)  # type: ignore[attr-defined]
    paint_items_in_cpp(table)  # repainted after every judgment: no Python per cell
    return table


class DashboardView(QWidget):
    """Everything the evaluator looks at while judging goes on."""

    shown = Signal()  # it became visible (its tab chosen, its own window opened)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        # -- controls --------------------------------------------------------------------------
        self.assessor = QComboBox()
        self.assessor.setToolTip("Whose judgments drive the dashboard")
        _compact(self.assessor)
        self.assessor.setMaximumWidth(200)
        self.policy = QComboBox()
        for name, policy in POLICIES.items():
            self.policy.addItem(name, name)
            self.policy.setItemData(
                self.policy.count() - 1, policy.description, Qt.ItemDataRole.ToolTipRole
            )
        self.policy.setToolTip("Which judgment counts where a document has several")
        _compact(self.policy)
        self.sources = QCheckBox("Imported qrels")
        self.sources.setToolTip("Include the judgments of imported qrels sources")
        self.level = QSpinBox()
        self.level.setRange(1, 99)
        self.level.setPrefix("rel ≥ ")
        self.level.setToolTip("Relevance level (trec_eval -l): lowest grade counted relevant")
        self.baseline = QComboBox()
        self.baseline.setToolTip("Baseline run of the significance marks and of ΔAP")
        _compact(self.baseline)
        self.test = QComboBox()
        self.test.addItem("t-test", "t")
        self.test.addItem("rand. test", "rand")
        _compact(self.test)
        self.test.setToolTip(
            "Paired test against the baseline, Holm-corrected across runs; "
            "▲/▼ mark p < 0.05 (randomization: 10,000 seeded sign flips)"
        )
        self.topic = QComboBox()
        self.topic.setToolTip("Topic of the plots (the mean over topics by default)")
        _compact(self.topic)
        self.measures_button = QPushButton("Measures…")
        self.window_button = QToolButton()
        self.window_button.setText("Own window")
        self.window_button.setCheckable(True)
        self.window_button.setToolTip(
            "Show the dashboard in a window of its own, to watch it while judging "
            "(Ctrl+Shift+3; Ctrl+W closes that window)"
        )
        self.window_button.setShortcut(QKeySequence("Ctrl+Shift+3"))
        self.export_button = QToolButton()
        self.export_button.setText("Export")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_menu = QMenu(self.export_button)
        self.export_button.setMenu(self.export_menu)
        # one row in a wide window; in a narrow one (1024 pixels, a 2x scale factor) the
        # controls wrap onto a second row rather than widening the window
        controls = FlowLayout(spacing=6)
        for label, widgets in (
            ("Judgments", (self.assessor, self.policy, self.sources, self.level)),
            ("Baseline", (self.baseline, self.test)),
            ("Topic", (self.topic,)),
        ):
            group = QWidget()
            row = QHBoxLayout(group)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(6)
            text = QLabel(label)
            text.setObjectName("muted")
            text.setBuddy(widgets[0])
            row.addWidget(text)
            for widget in widgets:
                row.addWidget(widget)
            controls.addWidget(group)
        controls.add_stretch()
        for button in (self.measures_button, self.export_button, self.window_button):
            controls.addWidget(button)
        self.measures_button.setAccessibleName("Choose the measures")
        self.export_button.setAccessibleName("Export")
        self.window_button.setAccessibleName("Dashboard in its own window")
        for combo, name in (
            (self.assessor, "Whose judgments"),
            (self.policy, "Which judgment counts"),
            (self.level, "Lowest relevant grade"),
            (self.baseline, "Baseline run"),
            (self.test, "Significance test"),
            (self.topic, "Topic of the plots"),
        ):
            combo.setAccessibleName(name)
        self.sources.setAccessibleName("Include imported qrels")

        # -- tables -----------------------------------------------------------------------------
        self.model = RunMeasureTableModel(self)
        self.table = _table(self.model)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.sortByColumn(1, Qt.SortOrder.DescendingOrder)  # best first
        self.drill_model = DrillDownTableModel(self)
        self.drill_table = _table(self.drill_model)
        self.drill_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.drill_table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.drill_kind = QComboBox()
        self.drill_kind.addItem("One run: topics × measures", "run")
        self.drill_kind.addItem("One topic: runs × measures", "topic")
        self.drill_key = QComboBox()
        _compact(self.drill_key)
        drill = QWidget()
        drill_top = QHBoxLayout()
        drill_top.addWidget(self.drill_kind)
        drill_top.addWidget(self.drill_key)
        drill_top.addStretch(1)
        drill_layout = QVBoxLayout(drill)
        drill_layout.setContentsMargins(0, 4, 0, 0)
        drill_layout.addLayout(drill_top)
        drill_layout.addWidget(self.drill_table, 1)
        self.drill_kind.setAccessibleName("Per topic of one run or of one topic")
        self.drill_key.setAccessibleName("Which run or topic")
        self.table.setAccessibleName("Runs by measures")
        self.drill_table.setAccessibleName("Per-topic values")
        # under the table: what the marks mean, and the intervals on request
        self.marks_legend = QLabel()
        self.marks_legend.setObjectName("muted")
        self.marks_legend.setWordWrap(True)
        self.marks_legend.setTextFormat(Qt.TextFormat.PlainText)
        self.marks_legend.setAccessibleName("What the marks mean")
        self.show_intervals = QCheckBox("± 95% CI")
        self.show_intervals.setAccessibleName("Show the 95% intervals in the table")
        self.show_intervals.setToolTip(
            "Show each mean's 95% confidence interval (Student's t over the topics) as ± its "
            "half-width; hovering a cell shows the interval too"
        )
        self.show_bounds = QCheckBox("Bounds")
        self.show_bounds.setAccessibleName("Show the bounds of each value in the table")
        self.show_bounds.setToolTip(
            "Show each mean's least and greatest value once every pooled document is judged "
            "(unjudged ones not relevant, or relevant at the lowest relevant grade), as "
            "[low–high]; worked out in the background"
        )
        # what the tinted cells mean: swatches of the tints themselves
        self.change_legend = QLabel(change_legend_text())
        self.change_legend.setTextFormat(Qt.TextFormat.RichText)
        self.change_legend.setObjectName("muted")
        self.change_legend.setAccessibleName("What the tinted cells mean")
        self.change_legend.setToolTip(
            "A cell is tinted for a few seconds after a judgment changed its value, with the "
            "change beside the value"
        )
        runs_page = QWidget()
        runs_layout = QVBoxLayout(runs_page)
        runs_layout.setContentsMargins(0, 0, 0, 0)
        runs_layout.setSpacing(2)
        runs_layout.addWidget(self.table, 1)
        runs_layout.addWidget(self.marks_legend)
        legend_row = QHBoxLayout()
        legend_row.addWidget(self.change_legend, 1)
        legend_row.addWidget(self.show_intervals)
        legend_row.addWidget(self.show_bounds)
        runs_layout.addLayout(legend_row)
        # each run against the baseline: difference, p-value and effect size, per measure
        self.comparison_model = ComparisonTableModel(self)
        self.comparison_table = _table(self.comparison_model)
        self.comparison_table.setAccessibleName("Runs compared with the baseline")
        self.comparison_table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.Interactive
        )
        self.comparison_table.horizontalHeader().setStretchLastSection(True)
        self.tables = QTabWidget()
        self.tables.setDocumentMode(True)
        self.tables.addTab(runs_page, "Runs × measures")
        self.tables.addTab(drill, "Per topic")
        self.tables.addTab(self.comparison_table, "Compared with the baseline")

        self.warnings = QListWidget()
        self.warnings.setWordWrap(True)
        self.warnings.setAlternatingRowColors(True)
        self.warnings.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        coverage = QWidget()
        coverage_layout = QVBoxLayout(coverage)
        coverage_layout.setContentsMargins(0, 0, 0, 0)
        heading = QLabel("Judging coverage")
        heading.setObjectName("heading")
        coverage_layout.addWidget(heading)
        coverage_layout.addWidget(self.warnings, 1)

        # -- plots ---------------------------------------------------------------------------------
        self.pr_plot = PrecisionRecallPlot()
        self.ndcg_plot = NdcgCutoffPlot()
        self.diff_plot = ApDifferencePlot()
        self.progress_plot = ProgressPlot()
        self.plots = (self.pr_plot, self.ndcg_plot, self.diff_plot, self.progress_plot)
        plots = QWidget()
        grid = QGridLayout(plots)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(4)
        for i, plot in enumerate(self.plots):
            grid.addWidget(plot.widget, 0, i)
            plot.canvas.setAccessibleName(f"Plot: {plot.title}")
        # the runs in the curves: a legend outside the plots (it never covers a curve), which
        # runs and why, and how to choose others
        self.plot_legend = QLabel()
        self.plot_legend.setWordWrap(True)
        self.plot_legend.setTextFormat(Qt.TextFormat.RichText)
        self.plot_legend.setAccessibleName("Runs in the plots")
        self.plot_count = QSpinBox()
        self.plot_count.setRange(1, 10)
        self.plot_count.setValue(5)
        self.plot_count.setPrefix("best ")
        self.plot_count.setAccessibleName("How many runs the plots show")
        self.plot_count.setToolTip("How many runs the plots show: the first rows of the table")
        self.plot_auto = QToolButton()
        self.plot_auto.setText("Best by the table")
        self.plot_auto.setAccessibleName("Plot the best runs by the table again")
        self.plot_auto.setToolTip("Plot the first rows of the table again (after choosing rows)")
        legend_bar = QHBoxLayout()
        legend_bar.setSpacing(6)
        legend_bar.addWidget(self.plot_legend, 1)
        legend_bar.addWidget(self.plot_count)
        legend_bar.addWidget(self.plot_auto)
        grid.addLayout(legend_bar, 1, 0, 1, len(self.plots))
        grid.setRowStretch(0, 1)

        self.warnings.setAccessibleName("Judging coverage warnings")
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self.tables)
        top.addWidget(coverage)
        top.setStretchFactor(0, 3)
        top.setStretchFactor(1, 1)
        top.setSizes([900, 340])
        coverage.setMinimumWidth(150)
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(top)
        body.addWidget(plots)
        body.setStretchFactor(0, 1)
        body.setStretchFactor(1, 1)
        body.setSizes([330, 340])
        self.status = QLabel()
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        self.status.setAccessibleName("Dashboard status")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 6)
        layout.setSpacing(6)
        layout.addLayout(controls)
        layout.addWidget(body, 1)
        layout.addWidget(self.status)
        self._ready = None

    # -- helpers the controller uses -------------------------------------------------------------
    def selected_runs(self) -> list[str]:
        model = self.model
        rows = sorted({model.source_row(i.row()) for i in self.table.selectedIndexes()})
        labels = model.labels()
        return [labels[r] for r in rows if 0 <= r < len(labels)]

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.shown.emit()

    def set_ready_check(self, ready) -> None:
        """`ready()` says when the dashboard has shown the project (for screenshots)."""
        self._ready = ready

    def prepare_screenshot(self, timeout_ms: int = 60_000) -> None:
        """Wait until the project is evaluated and every plot drawn (`screenshot`)."""
        from PySide6.QtCore import QDeadlineTimer
        from PySide6.QtWidgets import QApplication

        deadline = QDeadlineTimer(timeout_ms)
        while not deadline.hasExpired():
            QApplication.processEvents()
            if self._ready is None or self._ready():
                break
            QApplication.processEvents()
        # the plots' pictures, as the window shows them (drawn by the child process), or
        # drawn here if they are not in by the deadline
        while not deadline.hasExpired() and any(plot.pending for plot in self.plots):
            QApplication.processEvents()
        for plot in self.plots:
            if plot.pending or plot.canvas.picture is None:
                plot.canvas.draw()
        QApplication.processEvents()


class DashboardWindow(QWidget):
    """A top-level window holding the dashboard while it is out of the main window."""

    closed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("Dashboard — judgeapp")
        self.body = QVBoxLayout(self)  # holds the dashboard's view
        self.body.setContentsMargins(0, 0, 0, 0)
        self.resize(1280, 760)
        close = QAction("Close", self)
        close.setShortcut(QKeySequence("Ctrl+W"))
        close.triggered.connect(self.close)
        self.addAction(close)

    def closeEvent(self, event) -> None:
        self.closed.emit()
        super().closeEvent(event)


class MeasuresDialog(QDialog):
    """An editable list of measures, one per line, checked as they are typed."""

    chosen = Signal(list)  # the accepted lines, as text

    def __init__(self, lines: list[str], parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Dashboard measures")
        self.resize(460, 420)
        intro = QLabel(
            "One measure per line, in ir_measures syntax (<code>nDCG@10</code>, "
            "<code>P(rel=2)@5</code>, <code>AP</code>) or trec_eval syntax "
            "(<code>map</code>, <code>P.5,10</code>, <code>ndcg_cut.20</code>)."
        )
        intro.setWordWrap(True)
        self.editor = QPlainTextEdit("\n".join(lines))
        self.editor.setAccessibleName("Measures, one per line")
        self.problems = QLabel()
        self.problems.setWordWrap(True)
        self.problems.setObjectName("errorText")
        self.parsed = QLabel()
        self.parsed.setObjectName("muted")
        self.parsed.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults
        )
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.problems)
        layout.addWidget(self.parsed)
        layout.addWidget(self.buttons)
        self.editor.textChanged.connect(self._on_editor_text_changed)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        restore = self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults)
        restore.clicked.connect(self._on_restore_clicked)
        self._on_editor_text_changed()

    def lines(self) -> list[str]:
        return [line.strip() for line in self.editor.toPlainText().splitlines() if line.strip()]

    def _on_editor_text_changed(self) -> None:
        measures, problems = validate_measures(self.editor.toPlainText().splitlines())
        self.problems.setText("\n".join(str(p) for p in problems))
        self.problems.setVisible(bool(problems))
        self.parsed.setText(
            "Columns: " + ", ".join(str(m) for m in measures) if measures else "No measure yet."
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(measures) and not problems)

    def _on_restore_clicked(self) -> None:
        self.editor.setPlainText("\n".join(DEFAULT_GUI_MEASURES))

    def _on_buttons_accepted(self) -> None:
        measures, problems = validate_measures(self.lines())
        if measures and not problems:
            self.chosen.emit(self.lines())
            self.accept()
