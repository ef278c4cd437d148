"""The adjudicator's view: the documents assessors judged differently, one at a time, with
the topic, the document, the assessors' grades and notes (unless hidden) and the automatic
judges' suggestions; a grade key records the decision (committed, undoable) and moves on.

`AdjudicationView` holds the layout; `AdjudicationController` connects it to the
workbench's `AdjudicationService` and the shared undo stack; every read and decision goes
through the window's ops (judgeapp.ui.ops), off the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from judgeapp.records import GradeInfo, JudgmentChange
from judgeapp.services.adjudication import AdjudicationService, Disagreement
from judgeapp.services.judging import JudgingError
from judgeapp.services.rows import natural_key
from judgeapp.services.workbench import Workbench
from judgeapp.ui.document_viewer import DocumentViewer
from judgeapp.ui.flow_layout import FlowLayout
from judgeapp.ui.judging_view import GradeBar, TopicPanel, replace_grade_actions
from judgeapp.ui.models import FixedColumnsTableModel
from judgeapp.ui.ops import Ops
from judgeapp.ui.undo import JudgmentCommand

Index = QModelIndex | QPersistentModelIndex


class DisagreementTableModel(FixedColumnsTableModel):
    # the judgments last: the one column whose width varies, it takes what is left
    TOPIC, DOCNO, DECIDED, VOTES = range(4)
    HEADERS = ("Topic", "Document", "Decided", "Judgments")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.items: list[Disagreement] = []
        self.show_votes = True

    def set_show_votes(self, show: bool) -> None:
        self.show_votes = show
        if self.items:
            self.dataChanged.emit(
                self.index(0, self.VOTES), self.index(len(self.items) - 1, self.VOTES)
            )

    def cell(self, item: Disagreement, column: int) -> Any:
        if column == self.TOPIC:
            return item.qid
        if column == self.DOCNO:
            return item.docno
        if column == self.VOTES:
            return item.describe(self.show_votes)
        return "" if item.decided is None else str(item.decided)


# which disagreements the list shows: (label, test of a Disagreement)
FILTERS: tuple[tuple[str, Callable[[Disagreement], bool]], ...] = (
    ("All disagreements", lambda d: True),
    ("Within the team", lambda d: d.within_team),
    ("Against imported qrels", lambda d: d.against_imported),
)


class AdjudicationView(QWidget):
    grade_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel()
        self.show_votes = QCheckBox("Show the assessors' grades, notes and suggestions")
        self.show_votes.setChecked(True)
        self.filter = QComboBox()
        self.filter.setAccessibleName("Which disagreements")
        self.filter.setToolTip(
            "Within the team: the assessors of this project judged the document differently. "
            "Against imported qrels: an imported qrels' grade differs from another judgment."
        )
        for label, _ in FILTERS:
            self.filter.addItem(label)
        filter_label = QLabel("&Show:")
        filter_label.setBuddy(self.filter)
        # the owner's review queue of one assessor (or imported qrels): the disagreements
        # their judgments are part of
        self.voter = QComboBox()
        self.voter.setAccessibleName("Whose judgments")
        self.voter.setToolTip("Only the disagreements in which this assessor's judgment takes part")
        self.voter.addItem("Everyone", None)
        voter_label = QLabel("&Involving:")
        voter_label.setBuddy(self.voter)
        self.model = DisagreementTableModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        for column in (DisagreementTableModel.TOPIC, DisagreementTableModel.DOCNO):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(
            DisagreementTableModel.DECIDED, QHeaderView.ResizeMode.ResizeToContents
        )
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setAccessibleName("Disagreements")
        self.topic_panel = TopicPanel()
        self.viewer = DocumentViewer()
        self.votes = QLabel()
        self.votes.setTextFormat(Qt.TextFormat.PlainText)
        self.votes.setWordWrap(True)
        self.votes.setObjectName("muted")
        self.grade_bar = GradeBar()
        self.grade_bar.grade_clicked.connect(self.grade_requested)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.topic_panel)
        right_layout.addWidget(self.viewer, 1)
        right_layout.addWidget(self.votes)
        right_layout.addWidget(self.grade_bar)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.table)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        self.splitter = splitter
        # one row in a wide window; wrapped (not widening the window) at a scale factor of 2
        top = FlowLayout(spacing=6)
        top.addWidget(self.summary)
        top.add_stretch()
        for caption, widget in ((filter_label, self.filter), (voter_label, self.voter)):
            group = QWidget()
            row = QHBoxLayout(group)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(6)
            row.addWidget(caption)
            row.addWidget(widget)
            top.addWidget(group)
        top.addWidget(self.show_votes)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.grade_actions: dict[int, QAction] = {}
        self.next_action = QAction("Next disagreement", self)
        self.next_action.setShortcuts([QKeySequence("J"), QKeySequence("U")])
        self.previous_action = QAction("Previous disagreement", self)
        self.previous_action.setShortcut(QKeySequence("K"))
        for action in (self.next_action, self.previous_action):
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.addAction(action)

    def fit_list(self) -> None:
        """Give the list the width its columns need (the judgments in full), up to half
        the view, the document the rest; judgments longer than that wrap onto a second
        line rather than being cut."""
        table, header = self.table, self.table.horizontalHeader()
        votes = DisagreementTableModel.VOTES
        need = sum(header.sectionSize(c) for c in range(votes))
        need += max(table.sizeHintForColumn(votes), header.sectionSizeHint(votes))
        need += 2 * table.frameWidth() + table.verticalScrollBar().sizeHint().width() + 4
        total = sum(self.splitter.sizes()) or self.width()
        left = min(need, total // 2)
        self.splitter.setSizes([left, total - left])
        wrap = need > left
        table.setWordWrap(wrap)
        if wrap:
            table.resizeRowsToContents()

    def set_filter_counts(self, counts: Sequence[int]) -> None:
        for k, ((label, _), n) in enumerate(zip(FILTERS, counts, strict=True)):
            self.filter.setItemText(k, f"{label} ({n})")

    def set_voters(self, counts: Sequence[tuple[str, int]]) -> None:
        """The assessors (and imported qrels) to review one by one, with how many
        disagreements each takes part in; the one chosen stays chosen while present."""
        chosen = self.voter.currentData()
        self.voter.blockSignals(True)
        self.voter.clear()
        self.voter.addItem("Everyone", None)
        for name, n in counts:
            self.voter.addItem(f"{name} ({n})", name)
        index = self.voter.findData(chosen) if chosen is not None else 0
        self.voter.setCurrentIndex(max(index, 0))
        self.voter.blockSignals(False)

    def set_scale(self, scale: Sequence[GradeInfo]) -> None:
        self.grade_actions = replace_grade_actions(
            self,
            self.grade_actions.values(),
            scale,
            "Decide",
            Qt.ShortcutContext.WidgetWithChildrenShortcut,
            self.grade_requested.emit,
        )
        self.grade_bar.set_scale(scale)


class AdjudicationController(QObject):
    changed = Signal(object)  # Changes of each decision, undo and redo

    updated = Signal()  # the disagreements are shown (read again)

    def __init__(
        self,
        view: AdjudicationView,
        undo_stack: QUndoStack,
        parent: QObject | None = None,
        ops: Ops | None = None,
    ) -> None:
        super().__init__(parent)
        self.view = view
        self.undo_stack = undo_stack
        self.ops = ops or Ops(self)
        self.workbench: Workbench | None = None
        self.service: AdjudicationService | None = None
        self.current: int | None = None  # row
        self.everything: list[Disagreement] = []  # before the filter
        self._connect()

    def _connect(self) -> None:
        v = self.view
        v.grade_requested.connect(self._on_grade_requested)
        v.next_action.triggered.connect(lambda: self.step(+1))
        v.previous_action.triggered.connect(lambda: self.step(-1))
        v.show_votes.toggled.connect(self._on_show_votes_toggled)
        v.filter.currentIndexChanged.connect(self._on_filter_changed)
        v.voter.currentIndexChanged.connect(self._on_filter_changed)
        v.table.clicked.connect(lambda index: self.show(index.row()))

    def open(self, workbench: Workbench) -> None:
        """The current project's disagreements, decided as the current assessor."""
        self.workbench = workbench

        def read() -> tuple[AdjudicationService, list[GradeInfo], list[Disagreement]]:
            return workbench.adjudicator(), workbench.scale(), workbench.disagreements()

        def opened(found: tuple[AdjudicationService, list[GradeInfo], list[Disagreement]]) -> None:
            self.service, scale, items = found
            self.view.set_scale(scale)
            self._show_items(items)

        self.ops.read(read, opened, key="disagreements")

    def reload(self) -> None:
        wb = self.workbench
        if wb is not None:
            self.ops.read(wb.disagreements, self._show_items, key="disagreements")

    def _show_items(self, items: list[Disagreement]) -> None:
        self.everything = list(items)
        v = self.view
        involved: dict[str, int] = {}
        for d in items:
            for name in {vote.assessor for vote in d.votes}:
                involved[name] = involved.get(name, 0) + 1
        v.set_voters([(name, involved[name]) for name in sorted(involved, key=natural_key)])
        v.set_filter_counts([sum(1 for d in items if test(d)) for _, test in FILTERS])
        self._show_filtered()
        v.fit_list()
        self.updated.emit()

    def _on_filter_changed(self, _index: int) -> None:
        self._show_filtered()

    def _show_filtered(self) -> None:
        _, test = FILTERS[max(0, self.view.filter.currentIndex())]
        voter = self.view.voter.currentData()
        items = [
            d
            for d in self.everything
            if test(d) and (voter is None or any(vote.assessor == voter for vote in d.votes))
        ]
        self.view.model.set_items(items)
        undecided = [i for i, d in enumerate(items) if d.decided is None]
        self.show(undecided[0] if undecided else (0 if items else None))

    def _update_summary(self) -> None:
        items = self.view.model.items
        decided = sum(1 for d in items if d.decided is not None)
        shown = "" if len(items) == len(self.everything) else f" (of {len(self.everything)})"
        self.view.summary.setText(
            f"{len(items)} disagreement{'s' * (len(items) != 1)}{shown} · {decided} decided"
            + (f" · as {self.service.person}" if self.service else "")
        )

    def show(self, row: int | None) -> None:
        self.current = row
        v = self.view
        self._update_summary()
        if row is None or self.workbench is None:
            v.viewer.clear()
            v.viewer.set_header("No disagreement to settle.")
            v.votes.setText("")
            v.grade_bar.show_state(None, False)
            return
        item = v.model.items[row]
        v.table.selectRow(row)
        wb = self.workbench
        v.viewer.show_loading(item.doc_id, item.docno)

        def shown(found: tuple[Any, Any]) -> None:
            topic, record = found
            if self.current == row and v.model.items[row].doc_id == item.doc_id:
                v.topic_panel.show_topic(topic)
                v.viewer.show_document(item.doc_id, item.docno, record)

        self.ops.read(
            lambda: (wb.topic(item.qid), wb.document(item.doc_id)), shown, key="adjudicated"
        )
        v.votes.setText(self._votes_text(item))
        v.grade_bar.show_state(item.decided, False)
        v.viewer.text.setFocus(Qt.FocusReason.OtherFocusReason)

    def _votes_text(self, item: Disagreement) -> str:
        if not self.view.show_votes.isChecked():
            return "The assessors' grades are hidden."
        lines = []
        for vote in item.votes:
            note = f": {vote.note}" if vote.note else ""
            lines.append(f"{vote.assessor} judged {vote.grade}{note}")
        for s in item.suggestions:
            score = f" (score {s.score:.2f})" if s.score is not None else ""
            lines.append(f"suggested by {s.assessor}: {s.grade}{score}")
        return "\n".join(lines)

    def step(self, direction: int) -> None:
        items = self.view.model.items
        if not items:
            return
        start = -1 if self.current is None else self.current
        self.show(max(0, min(len(items) - 1, start + direction)))

    def _on_show_votes_toggled(self, show: bool) -> None:
        self.view.model.set_show_votes(show)
        if self.current is not None:
            self.view.votes.setText(self._votes_text(self.view.model.items[self.current]))

    def _on_grade_requested(self, grade: int) -> None:
        if self.service is None or self.current is None:
            return
        row = self.current
        item = self.view.model.items[row]
        service = self.service

        def decided(change: JudgmentChange) -> None:
            self.undo_stack.push(
                JudgmentCommand(f"decide {item.docno} as {grade}", change, self._restore)
            )
            self._set_decided(row, grade)
            self.changed.emit(change.changes)
            items = self.view.model.items
            later = [i for i in range(row + 1, len(items)) if items[i].decided is None]
            earlier = [i for i in range(row) if items[i].decided is None]
            following = (later or earlier or [row])[0]
            self.show(following)

        def failed(exc: BaseException) -> None:
            reason = str(exc) if isinstance(exc, JudgingError) else f"{type(exc).__name__}: {exc}"
            self.view.votes.setText(f"Not recorded: {reason}")

        self.ops.write(lambda: service.decide(item, grade), decided, failed=failed)

    def _set_decided(self, row: int, grade: int | None) -> None:
        item = self.view.model.items[row]
        now = replace(item, decided=grade)
        self.view.model.update_item(row, now)
        key = (item.qid, item.doc_id)
        self.everything = [now if (d.qid, d.doc_id) == key else d for d in self.everything]

    def _restore(self, change: JudgmentChange, undo: bool) -> None:
        service = self.service
        if service is None:
            return

        def restored(result: JudgmentChange) -> None:
            items = self.view.model.items
            for row, item in enumerate(items):
                if item.qid == change.qid and item.doc_id == change.doc_id:
                    self._set_decided(row, result.after.grade)
                    self.show(row)
                    break
            else:  # not in the filtered list: kept for when the filter changes
                key, grade = (change.qid, change.doc_id), result.after.grade
                self.everything = [
                    replace(d, decided=grade) if (d.qid, d.doc_id) == key else d
                    for d in self.everything
                ]
            self.changed.emit(result.changes)

        self.ops.write(lambda: service.restore(change, undo=undo), restored)
