"""The judging view's layout: topic statement on top (always visible), the judging list on
the left, the document in the middle, grade buttons, flag, skip and note at the bottom.

Layout only; `JudgingController` wires it to the queue and the judging service.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QBoxLayout,
    QComboBox,
    QFrame,
    QGridLayout,
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
from judgeapp.ui.style import see_through
from judgeapp.ui.text_line import TextLine

QWIDGETSIZE_MAX = (1 << 24) - 1  # Qt's largest widget size (no limit)

ACTIVITY_EVENTS = frozenset(
    {
        QEvent.Type.KeyPress,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseMove,
        QEvent.Type.Wheel,
    }
)


# name, text, keys: the judging view's own keys (grade keys come from the project's scale;
# judgeapp.services.scale.RESERVED_KEYS names the single keys, which a scale cannot take)
ACTIONS = (
    ("flag", "Flag as unsure (toggle; on an unjudged document it waits for the grade)", ("F",)),
    ("skip", "Skip for now", ("S",)),
    ("next_unjudged", "Jump to the next unjudged document", ("U",)),
    ("next", "Next document in the list (of those shown)", ("J", "Alt+Down")),
    ("previous", "Previous document in the list (of those shown)", ("K", "Alt+Up")),
    ("note", "Write a note (Enter saves it, Esc leaves it)", ("N",)),
    ("terms", "Add terms to highlight (Enter applies them)", ("T",)),
    ("search", "Search the pool (Enter: the first unjudged match)", ("/", "Ctrl+F")),
    ("filter_next", "List only: unjudged, skipped, flagged, judged, one grade, all", ("L",)),
    ("filter_previous", "The list filter, backwards", ("Shift+L",)),
    ("page_down", "Scroll the document down", ("Space",)),
    ("page_up", "Scroll the document up", ("Shift+Space",)),
    ("document_end", "The end of the document", ("Ctrl+End",)),
    ("document_start", "The start of the document", ("Ctrl+Home",)),
    ("next_topic", "When the topic is finished: the next topic with work left", ("Return",)),
    ("back_to_document", "Leave a text field, back to the document", ("Esc",)),
    ("help", "Show this sheet: keys, grades and guidelines", ("F1", "?")),
    ("instructions", "The judging instructions: guidelines and what each grade means", ("I",)),
)

# the list filter: (data, label); one per grade follows
FILTERS = (
    ("all", "All documents"),
    ("unjudged", "Unjudged"),
    ("skipped", "Skipped"),
    ("flagged", "Flagged"),
    ("judged", "Judged"),
)


def topic_over_split(
    view: QWidget,
    topic_panel: QWidget,
    left: QWidget,
    right: QWidget,
    sizes: tuple[int, int],
    left_min: int,
) -> QSplitter:
    """Lay `view` out as the judging and search views are: the topic's panel above a
    list (`left`, at least `left_min` pixels wide) beside the document (`right`, which
    takes the extra width); returns the splitter between them."""
    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.addWidget(left)
    splitter.addWidget(right)
    splitter.setStretchFactor(0, 0)
    splitter.setStretchFactor(1, 1)
    splitter.setSizes(list(sizes))
    splitter.setChildrenCollapsible(False)
    left.setMinimumWidth(left_min)
    layout = QVBoxLayout(view)
    layout.setContentsMargins(8, 8, 8, 8)
    layout.setSpacing(8)
    layout.addWidget(topic_panel)
    layout.addWidget(splitter, 1)
    return splitter


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
        see_through(scroll)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.statement_scroll = scroll
        # the project's judging guidelines, beside the statement (hidden when there are none)
        self.guidelines = QLabel()
        self.guidelines.setObjectName("guidelines")
        self.guidelines.setWordWrap(True)
        self.guidelines.setTextFormat(Qt.TextFormat.PlainText)
        self.guidelines.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.guidelines.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.guidelines.setAccessibleName("Judging guidelines")
        guide_scroll = QScrollArea()
        guide_scroll.setWidget(self.guidelines)
        guide_scroll.setWidgetResizable(True)
        guide_scroll.setFrameShape(QFrame.Shape.NoFrame)
        guide_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        see_through(guide_scroll)
        guide_scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        guide_scroll.setVisible(False)
        self.guide_scroll = guide_scroll
        statement = QVBoxLayout()
        statement.setContentsMargins(0, 0, 0, 0)
        statement.setSpacing(4)
        statement.addWidget(self.title)
        statement.addWidget(scroll)
        # above the document: statement and guidelines side by side; beside it
        # (`set_beside`): one above the other, as tall as the view
        layout = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(12)
        layout.addLayout(statement, 3)
        layout.addWidget(guide_scroll, 2)
        self.box = layout
        self.beside = False
        self.title.setAccessibleName("Topic title")
        self.body.setAccessibleName("Topic description and narrative")

    def show_guidelines(self, text: str) -> None:
        """The judging guidelines beside the statement (none: the statement alone)."""
        text = text.strip()
        self.guidelines.setText(f"Guidelines. {text}" if text else "")
        self.guidelines.setToolTip(text)
        self.guide_scroll.setVisible(bool(text))
        self._fit()

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
        self.statement_scroll.setVisible(bool(parts))
        self._fit()

    def set_beside(self, beside: bool) -> None:
        """Laid out for a place beside the document (statement over guidelines, the full
        height of the view) or above it (side by side, as low as the statement allows)."""
        self.beside = beside
        self.box.setDirection(
            QBoxLayout.Direction.TopToBottom if beside else QBoxLayout.Direction.LeftToRight
        )
        # beside, the title heads the column (not centred in its height)
        self.title.setAlignment(
            Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft
            if beside
            else Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
        )
        if beside:
            for scroll in (self.statement_scroll, self.guide_scroll):
                scroll.setMinimumHeight(0)
                scroll.setMaximumHeight(QWIDGETSIZE_MAX)
        self._fit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        """As tall as the statement needs, up to MAX_BODY (less in a low window); longer
        ones scroll. The guidelines beside it scroll within the same height. Beside the
        document the layout shares the panel's height instead."""
        if self.beside:
            return
        width = max(self.statement_scroll.viewport().width(), 200)
        needed = self.body.heightForWidth(width) if self.body.text() else 0
        window = self.window().height() if self.window() is not None else 800
        cap = max(48, min(self.MAX_BODY, window // 7))
        height = max(0, min(needed + 4, cap))
        if self.guide_scroll.isVisible():
            guide_width = max(self.guide_scroll.viewport().width(), 120)
            guide = self.guidelines.heightForWidth(guide_width) + 4
            title = self.title.sizeHint().height() + 4
            height = max(height, min(guide - title, cap))
        self.statement_scroll.setFixedHeight(height)
        self.guide_scroll.setFixedHeight(height + self.title.sizeHint().height() + 4)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def replace_grade_actions(
    widget: QWidget,
    old: Iterable[QAction],
    scale: Sequence[GradeInfo],
    verb: str,
    context: Qt.ShortcutContext,
    emit: Callable[[int], None],
) -> dict[int, QAction]:
    """The grade keys of `scale` on `widget` ("VERB: label (grade)", each calling `emit`
    with its grade), in place of the actions `old`; grade -> action."""
    for action in old:
        widget.removeAction(action)
        action.deleteLater()
    actions: dict[int, QAction] = {}
    for g in scale:
        action = QAction(f"{verb}: {g.label} ({g.grade})", widget)
        action.setShortcut(QKeySequence(g.key))
        action.setShortcutContext(context)
        action.triggered.connect(lambda _=False, grade=g.grade: emit(grade))
        widget.addAction(action)
        actions[g.grade] = action
    return actions


class FocusedButtonKeys(QObject):
    """Space and Enter press a button that has the keyboard focus (reached by Tab), as in
    any dialog, rather than scrolling the document or going to the next topic (the view's
    Space and Return keys)."""

    KEYS = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            isinstance(watched, QPushButton)
            and isinstance(event, QKeyEvent)
            and event.key() in self.KEYS
            and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        ):
            if event.type() == QEvent.Type.ShortcutOverride:
                event.accept()  # the button's, not the window's shortcut
                return True
            if event.type() == QEvent.Type.KeyPress:
                if not event.isAutoRepeat():
                    watched.click()
                return True
        return False


class GradeBar(QWidget):
    """One button per grade of the scale ("key  label", the grade's definition in its
    tooltip); the flag, skip and next buttons live here too but are laid out by the view,
    on the row of the note. When the row is too narrow for every button (a small window,
    a large scale factor) the buttons go on two rows."""

    grade_clicked = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.layout_ = QGridLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.layout_.setHorizontalSpacing(6)
        self.layout_.setVerticalSpacing(4)
        self.buttons: dict[int, QPushButton] = {}
        self._columns = 0
        self._button_keys = FocusedButtonKeys(self)
        # what each grade means, always in view under the buttons (hidden when the scale
        # defines none: the F1 sheet then says so, and where to add them)
        self.legend = QLabel()
        self.legend.setObjectName("gradeLegend")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setAccessibleName("What the grades mean")
        self.legend.hide()
        self.flag_button = QPushButton("F  Unsure")
        self.flag_button.setCheckable(True)
        self.flag_button.setToolTip("Flag the judgment as unsure (F)")
        self.skip_button = QPushButton("S  Skip")
        self.skip_button.setToolTip("Leave this document for later (S)")
        self.next_button = QPushButton("U  Next unjudged")
        self.next_button.setToolTip("Jump to the next unjudged document (U)")
        for button, name in (
            (self.flag_button, "Flag as unsure"),
            (self.skip_button, "Skip"),
            (self.next_button, "Next unjudged document"),
        ):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setAccessibleName(name)

    def set_scale(self, scale: Sequence[GradeInfo]) -> None:
        for button in self.buttons.values():
            self.layout_.removeWidget(button)
            button.deleteLater()
        self.buttons = {}
        for g in scale:
            button = QPushButton(f"{g.key}   {g.label}")
            button.setProperty("grade", True)
            button.setCheckable(True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            tip = f"{g.label} (grade {g.grade}, key {g.key})"
            if g.definition:
                tip += f": {g.definition}"
            button.setToolTip(tip + "\nJudges, saves and moves on.")
            button.setAccessibleName(f"Judge {g.label}")
            button.setAccessibleDescription(g.definition)
            button.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            button.clicked.connect(lambda _=False, grade=g.grade: self.grade_clicked.emit(grade))
            button.installEventFilter(self._button_keys)
            self.buttons[g.grade] = button
        defined = [g for g in scale if g.definition]
        self.legend.setText(
            " &nbsp;·&nbsp; ".join(
                f"<b>{_escape(g.key)} {_escape(g.label)}</b>: {_escape(g.definition)}"
                for g in defined
            )
        )
        self.legend.setToolTip("\n".join(f"{g.key} {g.label}: {g.definition}" for g in defined))
        self.legend.setVisible(bool(defined))
        self._columns = 0
        self._arrange()

    def _arrange(self) -> None:
        """One row when the buttons fit the width, else two."""
        buttons = list(self.buttons.values())
        if not buttons:
            return
        needed = sum(b.sizeHint().width() for b in buttons) + 6 * (len(buttons) - 1)
        columns = len(buttons) if needed <= max(self.width(), 1) else -(-len(buttons) // 2)
        if columns == self._columns:
            return
        self._columns = columns
        for button in (*buttons, self.legend):
            self.layout_.removeWidget(button)
        for i, button in enumerate(buttons):
            self.layout_.addWidget(button, i // columns, i % columns)
        rows = -(-len(buttons) // columns)
        self.layout_.addWidget(self.legend, rows, 0, 1, columns + 1)
        for c in range(len(buttons) + 1):
            self.layout_.setColumnStretch(c, 0)
        self.layout_.setColumnStretch(columns, 1)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange()

    def minimumSizeHint(self) -> QSize:
        # two rows of the widest buttons: narrow enough for a 2x window on a laptop
        hint = super().minimumSizeHint()
        buttons = list(self.buttons.values())
        if not buttons:
            return hint
        columns = -(-len(buttons) // 2)
        widest = max(b.sizeHint().width() for b in buttons)
        return QSize(columns * widest + 6 * (columns - 1), hint.height())

    def show_state(self, grade: int | None, flagged: bool) -> None:
        for value, button in self.buttons.items():
            # the checked state marks the current grade: no re-polish, no relayout
            button.setChecked(value == grade)
        self.flag_button.setChecked(flagged)


class JudgingView(QWidget):
    """Emits `activity_seen` for every input event inside it (the timer's notion of active)."""

    activity_seen = Signal()
    grade_requested = Signal(int)  # a grade key or button
    unknown_key = Signal(str)  # a character key on the document that no action took

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.topic_panel = TopicPanel()
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search the pool  ( / )")
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName("Search the pool")
        self.filter = QComboBox()
        self.filter.setAccessibleName("List filter")
        self.filter.setToolTip("Which documents the list shows (L: the next choice)")
        self.filter.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.filter.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.filter.setMinimumContentsLength(9)
        for data, label in FILTERS:
            self.filter.addItem(label, data)
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
        header = self.list.horizontalHeader()
        header.setHighlightSections(False)
        # the header shows no selection: with a selection model of its own, a row selected
        # (each grade key's) does not repaint the whole header, as the table's shared with it
        # does (QHeaderView repaints the columns a selection covers: all of them for a row)
        header.setSelectionModel(QItemSelectionModel(self.list_model, header))
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setAccessibleName("Pooled documents in judging order")
        # lines that change with every judgment must not relayout the view (see TextLine)
        self.progress_label = TextLine()
        self.progress_label.setObjectName("muted")
        # the estimate of the relevant documents left and the stopping advice (hidden in
        # blind mode and until the topic has one)
        self.estimate_label = TextLine(4)
        self.estimate_label.setObjectName("estimate")
        self.estimate_label.setAccessibleName("Relevant documents left and when to stop")
        self.estimate_label.hide()
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.setSpacing(4)
        search_row = QHBoxLayout()
        search_row.setSpacing(4)
        search_row.addWidget(self.search, 1)
        search_row.addWidget(self.filter)
        left_layout.addLayout(search_row)
        left_layout.addWidget(self.list, 1)
        left_layout.addWidget(self.progress_label)
        left_layout.addWidget(self.estimate_label)

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
        self.note.setAccessibleName("Note on the judgment")
        self.terms = QLineEdit()
        self.terms.setPlaceholderText("Terms to highlight, a, b  ( T )")
        self.terms.setAccessibleName("Terms to highlight")
        # the fields take the focus only when asked (N, T, /, a click): focus that Qt moves
        # by itself (a window shown again, a tab removed) never lands in them, where the
        # next grade key would be typed instead of judging
        for field in (self.search, self.note, self.terms):
            field.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.progress_label.setAccessibleName("Judging progress of the topic")
        self.position_label.setAccessibleName("Position and state of the document")
        self.notice.setAccessibleName("Why the last key did nothing")
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
        self.note.setMinimumWidth(80)
        self.terms.setMinimumWidth(60)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(6)
        right_layout.addWidget(self.viewer, 1)
        right_layout.addWidget(self.position_label)
        right_layout.addWidget(self.notice)
        right_layout.addWidget(self.grade_bar)
        right_layout.addLayout(fields)

        self.splitter = topic_over_split(self, self.topic_panel, left, right, (370, 900), 230)
        self.topic_panel.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Judging")
        self.actions_by_name: dict[str, QAction] = {}
        for name, text, keys in ACTIONS:
            action = QAction(text, self)
            action.setShortcuts([QKeySequence(k) for k in keys])
            # the window's keys while this view is shown, wherever the focus is (a button,
            # the tab bar, the list): a text field keeps the keys it types (Qt asks it
            # first), and a hidden view (another tab) gets none
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            self.addAction(action)
            self.actions_by_name[name] = action
        # Return goes to the next topic only once the topic is finished (the note's Enter
        # saves the note otherwise)
        self.actions_by_name["next_topic"].setEnabled(False)
        self.grade_actions: dict[int, QAction] = {}
        self.scale: list[GradeInfo] = []
        self.guidelines = ""
        self.grade_bar.grade_clicked.connect(self.grade_requested)
        # Tab and Shift+Tab: through the view's own controls only (see tab_chain)
        self.viewer.text.setTabChangesFocus(True)
        self.list.setTabKeyNavigation(False)
        self._button_keys = FocusedButtonKeys(self)
        for button in (
            self.grade_bar.flag_button,
            self.grade_bar.skip_button,
            self.grade_bar.next_button,
        ):
            button.installEventFilter(self._button_keys)

    def tab_chain(self) -> list[QWidget]:
        """The Tab order, in reading order: search, list filter, document list, document,
        grade buttons, flag, skip, next unjudged, note, terms; then round again. Only
        what is shown and enabled. The focus policies stay as they are (no focus Qt moves
        by itself lands in a field or a button): this order is walked by `setFocus`."""
        chain: list[QWidget] = [self.search, self.filter, self.list, self.viewer.text]
        chain += list(self.grade_bar.buttons.values())
        chain += [
            self.grade_bar.flag_button,
            self.grade_bar.skip_button,
            self.grade_bar.next_button,
            self.note,
            self.terms,
        ]
        return [w for w in chain if w.isVisibleTo(self) and w.isEnabled()]

    def focusNextPrevChild(self, next: bool) -> bool:
        chain = self.tab_chain()
        focused = QApplication.focusWidget()
        if not chain or not self.isVisible():
            return super().focusNextPrevChild(next)
        if focused in chain:
            i = chain.index(focused) + (1 if next else -1)
        else:  # the view itself, or a part of a control (the search's clear button)
            i = chain.index(self.viewer.text) + (1 if next else -1)
            for k, widget in enumerate(chain):
                if focused is not None and widget.isAncestorOf(focused):
                    i = k + (1 if next else -1)
        chain[i % len(chain)].setFocus(
            Qt.FocusReason.TabFocusReason if next else Qt.FocusReason.BacktabFocusReason
        )
        return True

    def focus_document(self) -> None:
        """The keyboard back on the document (the grade keys act, Space scrolls)."""
        self.viewer.text.setFocus(Qt.FocusReason.OtherFocusReason)

    def set_guidelines(self, text: str) -> None:
        self.guidelines = text
        self.topic_panel.show_guidelines(text)

    def set_topic_beside(self, beside: bool) -> None:
        """The topic's panel beside the document, as tall as the view (Relevation!'s
        layout: the description and narrative in view while reading), or above the list
        and the document."""
        panel = self.topic_panel
        if beside == panel.beside:
            return
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        total = sum(self.splitter.sizes())
        if beside:
            layout.removeWidget(panel)
            self.splitter.addWidget(panel)
            self.splitter.setStretchFactor(2, 0)
            panel.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
            panel.setMinimumWidth(200)
            side = max(220, total * 3 // 10)
            first = self.splitter.sizes()[0]
            self.splitter.setSizes([first, max(total - first - side, 300), side])
        else:
            sizes = self.splitter.sizes()
            layout.insertWidget(0, panel)
            panel.setMinimumWidth(0)
            panel.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
            self.splitter.setSizes([sizes[0], max(total - sizes[0], 300)])
        panel.set_beside(beside)
        panel.show()

    def show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.show()

    def clear_notice(self) -> None:
        if self.notice.isVisible():
            self.notice.hide()
            self.notice.clear()

    def show_estimate(self, text: str, detail: str = "") -> None:
        """The estimate line (empty: hidden); `detail` is its tooltip."""
        self.estimate_label.setText(text)
        self.estimate_label.setToolTip(detail)
        self.estimate_label.setVisible(bool(text))

    def set_scale(self, scale: Sequence[GradeInfo]) -> None:
        """Grade buttons and grade keys for the project's scale."""
        self.grade_actions = replace_grade_actions(
            self,
            self.grade_actions.values(),
            scale,
            "Judge",
            Qt.ShortcutContext.WindowShortcut,
            self.grade_requested.emit,
        )
        self.scale = list(scale)
        self.grade_bar.set_scale(scale)
        self.list_model.set_scale(scale)
        chosen = self.filter.currentData()
        self.filter.blockSignals(True)
        while self.filter.count() > len(FILTERS):
            self.filter.removeItem(self.filter.count() - 1)
        for g in scale:
            self.filter.addItem(f"Grade {g.grade} {g.label}", f"grade:{g.grade}")
        self.filter.setCurrentIndex(max(self.filter.findData(chosen), 0))
        self.filter.blockSignals(False)

    def shortcut_rows(self) -> list[tuple[str, str]]:
        rows = []
        for g in self.scale:
            action = self.grade_actions.get(g.grade)
            if action is None:
                continue
            text = f"{g.label} ({g.grade}): judge, save, go to the next unjudged"
            if g.definition:
                text += f". {g.definition}"
            rows.append((action.shortcut().toString(QKeySequence.SequenceFormat.NativeText), text))
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

    # -- activity: the input events of the widgets that take input ----------------------------
    def watch_activity(self) -> None:
        """Watch the widgets that take the reader's input: the document, the list, the
        fields and the topic's statement (keys, clicks, wheel and mouse moves reach them or
        their viewports). Not every widget of the view, nor the whole application: a
        Python filter is a Python call for every event of what it watches (paint, move,
        tooltip and layout events too: about 70 a grade key when it watched the whole
        view), each waiting for the interpreter lock while a worker computes."""
        viewer = self.viewer.text
        for widget in (
            viewer,
            viewer.viewport(),
            self.list,
            self.list.viewport(),
            self.search,
            self.filter,
            self.note,
            self.terms,
            self.topic_panel.statement_scroll.viewport(),
        ):
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in ACTIVITY_EVENTS and isinstance(watched, QWidget):
            self.activity_seen.emit()
            if (
                isinstance(event, QKeyEvent)
                and kind == QEvent.Type.KeyPress
                and watched is self.viewer.text
                and event.text().isalnum()
                and not event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier
            ):
                # no shortcut took it: say so rather than doing nothing
                self.unknown_key.emit(event.text())
        return False
