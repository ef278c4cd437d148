"""The main window's layout: menus, the topic list, the judging view, the status bar.

Views are added as tabs; `add_view` is where later views (the evaluation dashboard) go.
Layout only: `MainController` connects the actions.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from judgeapp.ui.delegates import ProgressDelegate
from judgeapp.ui.judging_view import JudgingView
from judgeapp.ui.models import TopicFilterProxyModel, TopicTableModel
from judgeapp.ui.plain import plain


class TopicsView(QWidget):
    """Filter box and the sortable topic table."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter topics by id or title")
        self.filter.setClearButtonEnabled(True)
        self.filter.setAccessibleName("Filter topics")
        self.pooled_only = QCheckBox("Pooled topics only")
        self.pooled_only.setAccessibleName("Pooled topics only")
        self.pooled_only.setToolTip("Hide the topics the pool being judged has no documents for")
        self.summary = QLabel()
        self.summary.setAccessibleName("Topic totals")
        self.summary.setObjectName("muted")
        self.judge_button = QPushButton("Judge topic  ⏎")
        self.judge_button.setAccessibleName("Judge the chosen topic")
        self.model = TopicTableModel(self)
        self.proxy = TopicFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setAccessibleName("Topics")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(TopicTableModel.ID, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(26)
        self.progress_delegate = ProgressDelegate(TopicTableModel.ProgressRole, self.table)
        self.table.setItemDelegateForColumn(TopicTableModel.PROGRESS, self.progress_delegate)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(TopicTableModel.TITLE, QHeaderView.ResizeMode.Stretch)
        for col, width in (
            (TopicTableModel.ID, 70),
            (TopicTableModel.POOL, 70),
            (TopicTableModel.JUDGED, 70),
            (TopicTableModel.RELEVANT, 80),
            (TopicTableModel.PROGRESS, 170),
            (TopicTableModel.MISSING, 100),
            (TopicTableModel.ASSIGNED, 100),
        ):
            header.resizeSection(col, width)
        self.show_assignments(False)
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.pooled_only)
        top.addWidget(self.judge_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 8)
        layout.setSpacing(8)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary)

    def show_estimates(self, shown: bool) -> None:
        self.table.setColumnHidden(TopicTableModel.MISSING, not shown)

    def show_assignments(self, shown: bool) -> None:
        self.table.setColumnHidden(TopicTableModel.ASSIGNED, not shown)

    def current_qid(self) -> str | None:
        index = self.table.currentIndex()
        if not index.isValid():
            return None
        return index.data(TopicTableModel.QidRole)

    def select_qid(self, qid: str) -> None:
        row = self.model.row_of(qid)
        if row is None:
            return
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if index.isValid():
            self.table.setCurrentIndex(index)
            self.table.scrollTo(index)


class MainWindow(QMainWindow):
    closing = Signal()  # before the window closes (state is saved then)

    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("judgeapp")
        self.resize(1280, 800)
        self.topics_view = TopicsView()
        self.judging_view = JudgingView()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.topics_view, "Topics")
        self.tabs.addTab(self.judging_view, "Judging")
        self.setCentralWidget(self.tabs)
        self.project_label = plain(QLabel())  # names chosen by users
        self.assessor_label = plain(QLabel())
        self.pool_label = plain(QLabel())
        for label in (self.project_label, self.assessor_label, self.pool_label):
            label.setContentsMargins(6, 0, 6, 0)
            self.statusBar().addPermanentWidget(label)
        self.statusBar().setSizeGripEnabled(False)
        self.actions_by_name: dict[str, QAction] = {}
        self._build_menus()

    def _action(self, name: str, text: str, shortcut: QKeySequence | str | None = None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        self.actions_by_name[name] = action
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        project = bar.addMenu("&Project")
        project.addAction(
            self._action("new_project", "&New project…", QKeySequence.StandardKey.New)
        )
        project.addAction(
            self._action("open_project", "&Open project…", QKeySequence.StandardKey.Open)
        )
        self.recent_menu = QMenu("Open &recent", self)
        project.addMenu(self.recent_menu)
        project.addAction(self._action("open_demo", "Open the demo pro&ject"))
        project.addSeparator()
        for kind, text in (
            ("topics", "Import &topics…"),
            ("documents", "Import &documents…"),
            ("runs", "Import r&uns…"),
            ("qrels", "Import qre&ls…"),
        ):
            project.addAction(self._action(f"import_{kind}", text))
        project.addSeparator()
        project.addAction(
            self._action("export_qrels", "&Export qrels (all judgments)…", QKeySequence("Ctrl+E"))
        )
        project.addAction(self._action("export_mine", "Export &my judgments as qrels…"))
        project.addSeparator()
        project.addAction(self._action("quit", "&Quit", QKeySequence.StandardKey.Quit))
        judging = bar.addMenu("&Judging")
        judging.addAction(self._action("choose_assessor", "&Assessor…"))
        judging.addAction(self._action("build_pool", "&Build pool…", QKeySequence("Ctrl+B")))
        judging.addAction(self._action("scale", "Relevance &scale and guidelines…"))
        judging.addAction(self._action("stop_target", "Stopping ad&vice…"))
        judging.addAction(
            self._action("adjudicate", "A&djudicate disagreements…", QKeySequence("Ctrl+Shift+D"))
        )
        judging.addAction(
            self._action("team", "T&eam: progress and agreement…", QKeySequence("Ctrl+Shift+T"))
        )
        self.pool_menu = QMenu("Judge &pool", self)
        judging.addMenu(self.pool_menu)
        judging.addSeparator()
        self.undo_separator = judging.addSeparator()
        self.judging_menu = judging
        judging.addAction(self._action("show_topics", "&Topic list", QKeySequence("Ctrl+1")))
        judging.addAction(self._action("show_judging", "&Judging view", QKeySequence("Ctrl+2")))
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self._action("shortcuts", "&Keyboard shortcuts"))

    def add_undo_actions(self, undo: QAction, redo: QAction) -> None:
        undo.setShortcut(QKeySequence("Ctrl+Z"))
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.judging_menu.insertAction(self.undo_separator, undo)
        self.judging_menu.insertAction(self.undo_separator, redo)
        self.addAction(undo)
        self.addAction(redo)

    def add_view(self, title: str, widget: QWidget) -> int:
        """Add a view as a tab (the evaluation dashboard goes here)."""
        return self.tabs.addTab(widget, title)

    def remove_view(self, widget: QWidget) -> None:
        """Take a view out of the window altogether (not only hidden): a blind assessor's
        window holds no dashboard."""
        index = self.tabs.indexOf(widget)
        if index >= 0:
            self.tabs.removeTab(index)
        widget.hide()
        widget.setParent(None)

    def show_view(self, widget: QWidget) -> None:
        self.tabs.setCurrentWidget(widget)

    def sizeHint(self) -> QSize:
        return QSize(1280, 800)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.closing.emit()
        super().closeEvent(event)
