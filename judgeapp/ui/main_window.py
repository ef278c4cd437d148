"""The main window's layout: menus, the topic list, the judging view, the status bar.

Views are added as tabs; `add_view` is where later views (the evaluation dashboard) go.
Layout only: `MainController` connects the actions.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QPushButton,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from judgeapp.ui.delegates import ProgressPictures
from judgeapp.ui.item_style import paint_items_in_cpp
from judgeapp.ui.judging_view import JudgingView
from judgeapp.ui.menu_keys import MenuKeysFirst
from judgeapp.ui.models import TopicFilterProxyModel, TopicTableModel
from judgeapp.ui.plain import plain
from judgeapp.ui.search_view import SearchView

# the steps from an empty project to judging: (action name, button, what it does)
FIRST_STEPS = (
    ("import_topics", "Import &topics…", "the queries to judge for: TREC, TSV, JSON Lines, SMART"),
    (
        "import_documents",
        "Import &documents…",
        "the texts assessors read (without them a document is judged by its id)",
    ),
    (
        "import_runs",
        "Import &runs…",
        "the systems' result lists (TREC run files), to pool and to evaluate",
    ),
    ("build_pool", "&Build a pool…", "which documents of the runs are judged, in which order"),
)


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


class EmptyProjectPanel(QWidget):
    """What a project without topics shows instead of an empty topic list: the steps to
    judging, each with the button (the same action as its menu item) that takes it."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setAccessibleName("An empty project: what to do next")
        title = QLabel("This project is empty")
        title.setObjectName("topicTitle")
        intro = QLabel(
            "A test collection is built in a few steps. Each is a button here and an item of "
            "the Project or Judging menu; the topic list appears once there are topics."
        )
        intro.setWordWrap(True)
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(10)
        self.buttons: dict[str, QPushButton] = {}
        for row, (name, text, detail) in enumerate(FIRST_STEPS):
            number = QLabel(f"{row + 1}.")
            number.setObjectName("muted")
            button = QPushButton(text)
            button.setAccessibleName(text.replace("&", "").rstrip("…"))
            button.setMinimumWidth(170)
            about = QLabel(detail)
            about.setWordWrap(True)
            about.setObjectName("muted")
            grid.addWidget(number, row, 0)
            grid.addWidget(button, row, 1)
            grid.addWidget(about, row, 2)
            self.buttons[name] = button
        last = len(FIRST_STEPS)
        number = QLabel(f"{last + 1}.")
        number.setObjectName("muted")
        grid.addWidget(number, last, 0)
        judge = QLabel(
            "Judge: Enter on a topic opens its pool; a grade key (0, 1, …) records the "
            "judgment and shows the next document (F1 lists every key)."
        )
        judge.setWordWrap(True)
        grid.addWidget(judge, last, 1, 1, 2)
        grid.setColumnStretch(2, 1)
        self.demo_button = QPushButton("Open the d&emo project")
        self.demo_button.setAccessibleName("Open the demo project")
        demo = QLabel("a finished example: the Cranfield collection with 7 runs and a pool")
        demo.setObjectName("muted")
        demo_row = QHBoxLayout()
        demo_row.addWidget(self.demo_button)
        demo_row.addWidget(demo, 1)
        self.note = QLabel()  # what cannot be done here (a read-only project, a member's role)
        self.note.setObjectName("notice")
        self.note.setWordWrap(True)
        self.note.hide()
        box = QVBoxLayout()
        box.setSpacing(12)
        box.addWidget(title)
        box.addWidget(intro)
        box.addLayout(grid)
        box.addSpacing(8)
        box.addLayout(demo_row)
        box.addWidget(self.note)
        box.addStretch(1)
        inner = QWidget()
        inner.setLayout(box)
        inner.setMaximumWidth(780)
        # centred, the full height (wrapped lines get the height they need)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        layout.addStretch(1)
        layout.addWidget(inner, 100)
        layout.addStretch(1)


class NextStepBar(QFrame):
    """One line above the topic list while a project has topics but nothing to judge yet
    (no runs, or no pool): what comes next, with its button."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("topicPanel")
        self.setAccessibleName("What to do next")
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.runs_button = QPushButton("Import &runs…")
        self.runs_button.setAccessibleName("Import runs")
        self.pool_button = QPushButton("&Build a pool…")
        self.pool_button.setAccessibleName("Build a pool")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.runs_button)
        layout.addWidget(self.pool_button)


class TopicsView(QWidget):
    """Filter box and the sortable topic table; for an empty project the steps to judging
    instead (`EmptyProjectPanel`), and while nothing is pooled, the next step above it."""

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
        # painted with no Python per cell: Fusion itself, the progress bars as pictures
        paint_items_in_cpp(self.table)
        self.progress_pictures = ProgressPictures(self.table, TopicTableModel.PROGRESS)
        self.model.progress_pictures = self.progress_pictures.picture
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(TopicTableModel.TITLE, QHeaderView.ResizeMode.Stretch)
        for col, width in (
            (TopicTableModel.ID, 70),
            (TopicTableModel.POOL, 70),
            (TopicTableModel.JUDGED, 70),
            (TopicTableModel.IMPORTED, 80),
            (TopicTableModel.RELEVANT, 80),
            (TopicTableModel.PROGRESS, 170),
            (TopicTableModel.MISSING, 100),
            (TopicTableModel.ASSIGNED, 100),
        ):
            header.resizeSection(col, width)
        self.progress_pictures.follow_column()
        self.show_assignments(False)
        header.moveSection(
            header.visualIndex(TopicTableModel.IMPORTED),
            header.visualIndex(TopicTableModel.JUDGED) + 1,
        )
        self.show_imported(False)
        self.next_step = NextStepBar()
        self.next_step.hide()
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.pooled_only)
        top.addWidget(self.judge_button)
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(10, 10, 10, 8)
        layout.setSpacing(8)
        layout.addWidget(self.next_step)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary)
        self.list_page = page
        self.empty_panel = EmptyProjectPanel()
        self.stack = QStackedWidget()
        self.stack.addWidget(page)
        self.stack.addWidget(self.empty_panel)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.stack)

    def show_progress_hint(self, topics: int, runs: int, pooled: bool, note: str = "") -> None:
        """The steps to judging while they are not all taken: the empty-project panel
        (no topics), else a line naming the next step (no runs, or no pool); nothing once
        a pool exists. `note`: why the steps cannot be taken here, if they cannot."""
        empty = topics == 0
        self.stack.setCurrentWidget(self.empty_panel if empty else self.list_page)
        self.empty_panel.note.setText(note)
        self.empty_panel.note.setVisible(bool(note))
        bar = self.next_step
        if empty or pooled:
            bar.hide()
            return
        if runs == 0:
            text = (
                f"{_count(topics, 'topic')}, no runs yet: import the systems' runs, then build "
                "a pool of their documents to judge."
            )
        else:
            text = f"{_count(runs, 'run')}, no pool yet: build a pool of their documents to judge."
        bar.text.setText(text + (f" {note}" if note else ""))
        bar.runs_button.setVisible(runs == 0)
        bar.show()

    def is_empty_shown(self) -> bool:
        return self.stack.currentWidget() is self.empty_panel

    def show_estimates(self, shown: bool) -> None:
        self.table.setColumnHidden(TopicTableModel.MISSING, not shown)

    def show_imported(self, shown: bool) -> None:
        self.table.setColumnHidden(TopicTableModel.IMPORTED, not shown)

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


PREFERRED_SIZE = QSize(1280, 800)
# room left around a window placed on a screen: the window manager's frame (title bar,
# borders), which Qt's geometry does not include, and a little air
FRAME_ALLOWANCE = QSize(16, 48)


def fitted_geometry(available: QRect, wanted: QSize = PREFERRED_SIZE) -> QRect:
    """Where a window opens on a screen whose free area (without panels and docks, in Qt's
    device-independent pixels: a 1920x1080 screen at 2x is 960x540) is `available`: the
    wanted size or as much of it as fits with its frame, centred."""
    width = max(1, min(wanted.width(), available.width() - FRAME_ALLOWANCE.width()))
    height = max(1, min(wanted.height(), available.height() - FRAME_ALLOWANCE.height()))
    rect = QRect(0, 0, width, height)
    rect.moveCenter(available.center())
    # the title bar, above the geometry, stays on the screen
    rect.moveTop(max(rect.top(), available.top() + FRAME_ALLOWANCE.height() // 2))
    return rect


def fits(geometry: QRect, available: QRect) -> bool:
    """Whether a window's geometry (without its frame) lies on the free area of a screen."""
    return available.contains(geometry)


class MainWindow(QMainWindow):
    closing = Signal()  # before the window closes (state is saved then)

    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("judgeapp")
        self.resize(PREFERRED_SIZE)
        self.topics_view = TopicsView()
        self.judging_view = JudgingView()
        self.search_view = SearchView()  # the whole collection, for the open topic
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.topics_view, "Topics")
        self.tabs.addTab(self.judging_view, "Judging")
        self.tabs.addTab(self.search_view, "Search")
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
        # the menu's Ctrl keys work from the text fields too (Ctrl+E in the topic filter)
        self.menu_keys = MenuKeysFirst(lambda: self.actions_by_name.values(), self)
        self.menu_keys.install(self)

    def _action(
        self,
        name: str,
        text: str,
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
    ) -> QAction:
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
        judging.addAction(
            self._action("show_search", "Searc&h the collection", QKeySequence("Ctrl+Shift+F"))
        )
        beside = self._action(
            "topic_beside", "Topic bes&ide the document", QKeySequence("Ctrl+Shift+B")
        )
        beside.setCheckable(True)
        beside.setToolTip(
            "The topic's description, narrative and guidelines in a column beside the "
            "document, as tall as the view, instead of above the list and the document"
        )
        judging.addAction(beside)
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
        self.menu_keys.install(widget)
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
        return PREFERRED_SIZE

    def fit_to_screen(self) -> None:
        """Open at the preferred size, or as much of it as fits the screen the window is
        on (a 1366x768 laptop, a 1920x1080 screen at 2x), centred on it."""
        screen = self.screen()
        if screen is None:
            return
        self.setGeometry(fitted_geometry(screen.availableGeometry()))

    def closeEvent(self, event: QCloseEvent) -> None:
        self.closing.emit()
        super().closeEvent(event)
