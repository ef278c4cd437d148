"""The judging view's layout: topic statement on top (always visible), the judging list on
the left, the document in the middle, grade buttons, flag, skip and note at the bottom.

Layout only; `JudgingController` wires it to the queue and the judging service.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from judgeapp.records import GradeInfo, TopicRecord
from judgeapp.ui.document_viewer import DocumentViewer
from judgeapp.ui.models import PoolTableModel
from judgeapp.ui.text_line import TextLine

ACTIVITY_EVENTS = frozenset(
    {
        QEvent.Type.KeyPress,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseMove,
        QEvent.Type.Wheel,
    }
)


# name, text, keys: the judging view's own keys (grade keys come from the project's scale)
ACTIONS = (
    ("flag", "Flag as unsure (toggle)", ("F",)),
    ("skip", "Skip for now", ("S",)),
    ("next_unjudged", "Jump to the next unjudged document", ("U",)),
    ("next", "Next document in the list", ("J", "Alt+Down")),
    ("previous", "Previous document in the list", ("K", "Alt+Up")),
    ("note", "Write a note (Enter saves it)", ("N",)),
    ("terms", "Add terms to highlight", ("T",)),
    ("search", "Search the pool", ("/", "Ctrl+F")),
    ("page_down", "Scroll the document down", ("Space",)),
    ("page_up", "Scroll the document up", ("Shift+Space",)),
    ("back_to_document", "Leave a text field, back to the document", ("Esc",)),
    ("help", "Show this sheet", ("F1", "?")),
)


class TopicPanel(QFrame):
    """Title, description and narrative of the topic being judged."""

    MAX_BODY = 140

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("topicPanel")
        self.title = QLabel()
        self.title.setObjectName("topicTitle")
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        scroll = QScrollArea()
        scroll.setWidget(self.body)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setStyleSheet(
            "QScrollArea, QScrollArea > QWidget > QWidget { background: transparent; }"
        )
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.scroll = scroll
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(scroll)

    def show_topic(self, topic: TopicRecord | None) -> None:
        if topic is None:
            self.title.setText("No topic chosen")
            self.body.setText("")
            return
        self.title.setText(f"Topic {topic.qid}: {' '.join(topic.title.split())}")
        parts = []
        for label, text in (("Description", topic.description), ("Narrative", topic.narrative)):
            text = " ".join((text or "").split())
            if text:
                parts.append(f"<p style='margin:0 0 4px 0'><b>{label}.</b> {_escape(text)}</p>")
        self.body.setText("".join(parts))
        self.scroll.setVisible(bool(parts))
        self._fit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        """As tall as the statement needs, up to MAX_BODY; longer ones scroll."""
        width = max(self.scroll.viewport().width(), 200)
        needed = self.body.heightForWidth(width) if self.body.text() else 0
        self.scroll.setFixedHeight(max(0, min(needed + 4, self.MAX_BODY)))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class GradeBar(QWidget):
    """One button per grade of the scale ("key  label"); the flag, skip and next buttons
    live here too but are laid out by the view, on the row of the note."""

    grade_clicked = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.layout_ = QHBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.layout_.setSpacing(6)
        self.buttons: dict[int, QPushButton] = {}
        self.flag_button = QPushButton("F  Unsure")
        self.flag_button.setCheckable(True)
        self.skip_button = QPushButton("S  Skip")
        self.next_button = QPushButton("U  Next unjudged")
        for button in (self.flag_button, self.skip_button, self.next_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)

    def set_scale(self, scale: Sequence[GradeInfo]) -> None:
        while self.layout_.count():
            item = self.layout_.takeAt(0)
            widget = item.widget()
            if widget is not None:
                widget.deleteLater()
        self.buttons = {}
        for g in scale:
            button = QPushButton(f"{g.key}   {g.label}")
            button.setProperty("grade", True)
            button.setCheckable(True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setToolTip(f"Judge as {g.label} (grade {g.grade}) and move on: key {g.key}")
            button.clicked.connect(lambda _=False, grade=g.grade: self.grade_clicked.emit(grade))
            self.buttons[g.grade] = button
            self.layout_.addWidget(button)
        self.layout_.addStretch(1)

    def show_state(self, grade: int | None, flagged: bool) -> None:
        for value, button in self.buttons.items():
            # the checked state marks the current grade: no re-polish, no relayout
            button.setChecked(value == grade)
        self.flag_button.setChecked(flagged)


class JudgingView(QWidget):
    """Emits `activity_seen` for every input event inside it (the timer's notion of active)."""

    activity_seen = Signal()
    grade_requested = Signal(int)  # a grade key or button

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.topic_panel = TopicPanel()
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search the pool  ( / )")
        self.search.setClearButtonEnabled(True)
        self.list_model = PoolTableModel(self)
        self.list = QTableView()
        self.list.setModel(self.list_model)
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.verticalHeader().setVisible(False)
        self.list.verticalHeader().setDefaultSectionSize(24)
        self.list.setAlternatingRowColors(True)
        self.list.setShowGrid(False)
        self.list.setWordWrap(False)
        self.list.horizontalHeader().setHighlightSections(False)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # lines that change with every judgment must not relayout the view (see TextLine)
        self.progress_label = TextLine()
        self.progress_label.setObjectName("muted")
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.setSpacing(4)
        left_layout.addWidget(self.search)
        left_layout.addWidget(self.list, 1)
        left_layout.addWidget(self.progress_label)

        self.viewer = DocumentViewer()
        self.position_label = TextLine()
        self.position_label.setObjectName("muted")
        self.grade_bar = GradeBar()
        # why a key recorded nothing yet (another writer has the project, ...); hidden else
        self.notice = QLabel()
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.notice.hide()
        self.note = QLineEdit()
        self.note.setPlaceholderText("Note  ( N, Enter saves )")
        self.terms = QLineEdit()
        self.terms.setPlaceholderText("Terms to highlight, a, b  ( T )")
        fields = QHBoxLayout()
        fields.setSpacing(8)
        for button in (
            self.grade_bar.flag_button,
            self.grade_bar.skip_button,
            self.grade_bar.next_button,
        ):
            fields.addWidget(button)
        fields.addWidget(self.note, 3)
        fields.addWidget(self.terms, 2)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(6)
        right_layout.addWidget(self.viewer, 1)
        right_layout.addWidget(self.position_label)
        right_layout.addWidget(self.notice)
        right_layout.addWidget(self.grade_bar)
        right_layout.addLayout(fields)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([370, 900])
        self.splitter.setChildrenCollapsible(False)
        left.setMinimumWidth(260)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(8)
        layout.addWidget(self.topic_panel)
        layout.addWidget(self.splitter, 1)
        self.topic_panel.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.actions_by_name: dict[str, QAction] = {}
        for name, text, keys in ACTIONS:
            action = QAction(text, self)
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.addAction(action)
            self.actions_by_name[name] = action
        self.grade_actions: dict[int, QAction] = {}
        self.grade_bar.grade_clicked.connect(self.grade_requested)

    def show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.show()

    def clear_notice(self) -> None:
        if self.notice.isVisible():
            self.notice.hide()
            self.notice.clear()

    def set_scale(self, scale: Sequence[GradeInfo]) -> None:
        """Grade buttons and grade keys for the project's scale."""
        for action in self.grade_actions.values():
            self.removeAction(action)
            action.deleteLater()
        self.grade_actions = {}
        for g in scale:
            action = QAction(f"Judge: {g.label} ({g.grade})", self)
            action.setShortcut(QKeySequence(g.key))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(
                lambda _=False, grade=g.grade: self.grade_requested.emit(grade)
            )
            self.addAction(action)
            self.grade_actions[g.grade] = action
        self.grade_bar.set_scale(scale)
        self.list_model.set_scale(scale)

    def shortcut_rows(self) -> list[tuple[str, str]]:
        rows = [
            (
                a.shortcut().toString(QKeySequence.SequenceFormat.NativeText),
                a.text().removeprefix("Judge: ") + ", save, go to the next unjudged",
            )
            for a in self.grade_actions.values()
        ]
        rows.append(("Ctrl+Z", "Undo the last change (many levels)"))
        rows.append(("Ctrl+Shift+Z", "Redo"))
        for _name, text, keys in ACTIONS:
            rows.append((" or ".join(keys), text))
        return rows

    def configure_list(self) -> None:
        """Column widths from the font and the longest docno, set once per topic: sizing
        to contents would read every row of a 4000-document pool on each judgment."""
        header = self.list.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        metrics = self.list.fontMetrics()
        model = self.list_model
        longest = max((len(model.item(r).docno) for r in range(model.rowCount())), default=8)
        widths = {
            PoolTableModel.POSITION: metrics.horizontalAdvance(str(model.rowCount())) + 16,
            PoolTableModel.DOCNO: max(
                metrics.horizontalAdvance("M" * min(longest, 24)) * 3 // 4,
                metrics.horizontalAdvance("Document") + 8,
            )
            + 16,
            PoolTableModel.STATE: metrics.horizontalAdvance("3 Perfectly relevant  ⚑") + 12,
            PoolTableModel.RANK: metrics.horizontalAdvance("Best rank") + 16,
        }
        for col, width in widths.items():
            if col < model.columnCount():
                header.resizeSection(col, width)
        last = model.columnCount() - 1
        header.setSectionResizeMode(last, QHeaderView.ResizeMode.Stretch)

    def select_row(self, row: int | None) -> None:
        if row is None:
            self.list.clearSelection()
            return
        self.list.selectRow(row)
        index = self.list_model.index(row, 0)
        if not self.list.viewport().rect().contains(self.list.visualRect(index)):
            # out of view: bring it to the middle, so the next few documents need no
            # scrolling (a list that scrolls by one row per judgment repaints on each)
            self.list.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)

    # -- activity: every input event in the view or its children ---------------------------
    def watch_activity(self, app: QObject) -> None:
        app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in ACTIVITY_EVENTS and isinstance(watched, QWidget):
            if watched is self or self.isAncestorOf(watched):
                self.activity_seen.emit()
        return False
