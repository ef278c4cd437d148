"""Searching the whole collection for documents the pool missed, and judging them (issue 28).

Pools miss relevant documents; TREC's assessors and HiCAL's users find them by searching the
collection and judging what they find. The panel searches every document of the project
for the topic open in the judging view, ranked by BM25 (SQLite's FTS5; ts_rank on
PostgreSQL), and marks each result as pooled (the topic's pool holds it) and judged (the
assessor's grade, and how many others judged it). The grade keys judge the result shown and
move on to the next one not judged yet; such a judgment is recorded as found by that search
(`JudgingService.record(query=...)`), counts everywhere a judgment counts, undoes with
Ctrl+Z, and every search is kept in the project's search log.

`SearchView` holds the layout; `SearchController` connects it to the workbench through the
window's ops (judgeapp.ui.ops): a search of 500,000 documents never holds up the window.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from judgeapp.records import DocumentRecord, GradeInfo, JudgmentChange, TopicRecord
from judgeapp.services.highlight import Highlighter, parse_user_terms, topic_terms
from judgeapp.services.judging import JudgingError, ProjectBusy
from judgeapp.services.search import CollectionHit, CollectionResults, parse_query
from judgeapp.services.workbench import Workbench
from judgeapp.ui.document_viewer import DocumentViewer
from judgeapp.ui.judging_view import (
    GradeBar,
    TopicPanel,
    replace_grade_actions,
    topic_over_split,
)
from judgeapp.ui.models import FixedColumnsTableModel
from judgeapp.ui.ops import Ops
from judgeapp.ui.text_line import TextLine
from judgeapp.ui.undo import JudgmentCommand

Index = QModelIndex | QPersistentModelIndex
PREFETCH = 12  # results whose text comes with the results (the first one shows at once)

ACTIONS = (
    ("query", "Search the collection: type, Enter searches", ("/", "Ctrl+F")),
    ("next", "The next result", ("J", "Alt+Down")),
    ("previous", "The previous result", ("K", "Alt+Up")),
    ("next_unjudged", "The next result you have not judged", ("U",)),
    ("back", "Leave the search box, back to the document", ("Esc",)),
)


class SearchResultsTableModel(FixedColumnsTableModel):
    """The results of a search: rank, docno, title, whether the pool holds it, the
    assessor's grade (and how many others judged it)."""

    HEADERS = ("#", "Document", "Title", "Pool", "Your grade")
    RANK, DOCNO, TITLE, POOL, GRADE = range(5)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.labels: dict[int, str] = {}
        self.hide_others = False  # a blind assessor's view

    def set_scale(self, scale: list[GradeInfo]) -> None:
        self.labels = {g.grade: g.label for g in scale}
        if self.items:
            self.dataChanged.emit(self.index(0, self.GRADE), self.index(len(self.items) - 1, 4))

    def cell(self, item: CollectionHit, column: int) -> Any:
        if column == self.RANK:
            return item.rank
        if column == self.DOCNO:
            return item.docno
        if column == self.TITLE:
            return " ".join(item.title.split())
        if column == self.POOL:
            return "pooled" if item.pooled else "outside"
        if item.grade is None:
            mine = "—"
        else:
            mine = f"{item.grade} {self.labels.get(item.grade, '')}".strip()
        if not item.others or self.hide_others:
            return mine
        return f"{mine}  +{item.others}"

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item = self.items[index.row()]
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == self.POOL:
            return (
                "The topic's pool holds it"
                if item.pooled
                else "Outside the topic's pool: found by searching alone"
            )
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == self.GRADE and item.others:
            if not self.hide_others:
                return f"Judged by {item.others} other assessor{'s' * (item.others != 1)} too"
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == self.TITLE:
            return " ".join(item.title.split())
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == self.RANK:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return super().data(index, role)

    def row_of(self, doc_id: int) -> int | None:
        for row, item in enumerate(self.items):
            if item.doc_id == doc_id:
                return row
        return None


class SearchView(QWidget):
    """The search panel's layout: the topic on top, the search box and what it found on
    the left, the document in the middle, the grade buttons below."""

    grade_requested = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.topic_panel = TopicPanel()
        self.query = QLineEdit()
        self.query.setPlaceholderText("Search the whole collection  ( / , Enter searches )")
        self.query.setClearButtonEnabled(True)
        self.query.setAccessibleName("Search the collection")
        self.search_button = QPushButton("Search")
        self.search_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.summary = TextLine()
        self.summary.setObjectName("muted")
        self.summary.setAccessibleName("What the search found")
        self.model = SearchResultsTableModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setAccessibleName("Documents the search found, best first")
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        metrics = self.table.fontMetrics()
        for column, sample in (
            (SearchResultsTableModel.RANK, "200"),
            (SearchResultsTableModel.DOCNO, "FT911-10000"),
            (SearchResultsTableModel.POOL, "outside"),
            (SearchResultsTableModel.GRADE, "2 Highly relevant  +2"),
        ):
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 18)
        header.setSectionResizeMode(SearchResultsTableModel.TITLE, QHeaderView.ResizeMode.Stretch)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.setSpacing(4)
        row = QHBoxLayout()
        row.setSpacing(4)
        row.addWidget(self.query, 1)
        row.addWidget(self.search_button)
        left_layout.addLayout(row)
        left_layout.addWidget(self.table, 1)
        left_layout.addWidget(self.summary)

        self.viewer = DocumentViewer()
        self.position_label = TextLine()
        self.position_label.setObjectName("muted")
        self.position_label.setAccessibleName("Position and state of the document")
        self.notice = QLabel()
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.notice.setAccessibleName("Why the last key did nothing")
        self.notice.hide()
        self.grade_bar = GradeBar()
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(6)
        right_layout.addWidget(self.viewer, 1)
        right_layout.addWidget(self.position_label)
        right_layout.addWidget(self.notice)
        right_layout.addWidget(self.grade_bar)
        self.splitter = topic_over_split(self, self.topic_panel, left, right, (640, 720), 300)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Search the collection")
        self.query.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.actions_by_name: dict[str, QAction] = {}
        for name, text, keys in ACTIONS:
            action = QAction(text, self)
            action.setShortcuts([QKeySequence(k) for k in keys])
            # the window's keys while this view is shown (a hidden view gets none); a text
            # field keeps the keys it types
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            self.addAction(action)
            self.actions_by_name[name] = action
        self.grade_actions: dict[int, QAction] = {}
        self.scale: list[GradeInfo] = []
        self.grade_bar.grade_clicked.connect(self.grade_requested)
        for button in (
            self.grade_bar.flag_button,
            self.grade_bar.skip_button,
            self.grade_bar.next_button,
        ):
            button.hide()

    def set_scale(self, scale: list[GradeInfo]) -> None:
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
        self.model.set_scale(scale)

    def focus_document(self) -> None:
        self.viewer.text.setFocus(Qt.FocusReason.OtherFocusReason)

    def show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.show()

    def clear_notice(self) -> None:
        if self.notice.isVisible():
            self.notice.hide()
            self.notice.clear()

    def select_row(self, row: int | None) -> None:
        if row is None:
            self.table.clearSelection()
            return
        self.table.selectRow(row)
        self.table.scrollTo(self.model.index(row, 0))


class SearchController(QObject):
    """Searches the collection for the topic open in the judging view; judges what it
    finds (see the module doc)."""

    changed = Signal(object)  # Changes of each judgment, undo and redo made here
    judgment_recorded = Signal(object)  # JudgmentChange of each (undo and redo too)
    searched = Signal(object)  # CollectionResults shown
    document_shown = Signal(int)

    def __init__(
        self,
        view: SearchView,
        undo_stack: QUndoStack,
        parent: QObject | None = None,
        ops: Ops | None = None,
    ) -> None:
        super().__init__(parent)
        self.view = view
        self.undo_stack = undo_stack
        self.ops = ops or Ops(self)
        self.workbench: Workbench | None = None
        self.qid: str | None = None
        self.pool: str | None = None
        self.topic: TopicRecord | None = None
        self.results: CollectionResults | None = None
        self.records: dict[int, DocumentRecord] = {}
        self.current: int | None = None  # row
        self.searching = False
        self.saving = False  # a judgment on its way to the project
        self._connect()

    def set_blind(self, blind: bool) -> None:
        """A blind assessor learns nothing of others' work: no count of other judges."""
        self.view.model.hide_others = blind

    def _connect(self) -> None:
        v = self.view
        acts = v.actions_by_name
        acts["query"].triggered.connect(self._on_query_triggered)
        acts["next"].triggered.connect(lambda: self.step(+1))
        acts["previous"].triggered.connect(lambda: self.step(-1))
        acts["next_unjudged"].triggered.connect(self._on_next_unjudged_triggered)
        acts["back"].triggered.connect(self._on_back_triggered)
        v.query.returnPressed.connect(self.search)
        v.search_button.clicked.connect(self.search)
        v.table.clicked.connect(lambda index: self.show(index.row()))
        v.grade_requested.connect(self._on_grade_requested)

    # -- what is searched for ---------------------------------------------------------------
    def set_workbench(self, workbench: Workbench | None) -> None:
        self.ops.invalidate("collection search", "search document")
        self.workbench = workbench
        self.results = None
        self.records = {}
        self.current = None
        self.view.model.set_items([])
        self.view.viewer.clear()
        self.view.summary.setText("")

    def set_topic(
        self, qid: str | None, topic: TopicRecord | None, pool: str | None, terms: str = ""
    ) -> None:
        """Search for topic `qid` (the one open in the judging view), whose pool is `pool`;
        `terms`: the assessor's own highlight terms."""
        if qid == self.qid and pool == self.pool:
            return
        self.qid, self.topic, self.pool = qid, topic, pool
        self.view.topic_panel.show_topic(topic)
        words = topic_terms(topic.title, topic.description, topic.narrative) if topic else []
        self.view.viewer.set_highlighter(Highlighter.build(words, parse_user_terms(terms)))
        if self.results is not None and self.view.query.text().strip():
            self.search()  # the marks (pooled, judged) are the topic's
        elif qid is None:
            self.view.summary.setText("Open a topic to judge what the search finds.")

    def set_scale(self, scale: list[GradeInfo]) -> None:
        self.view.set_scale(scale)

    def search(self) -> None:
        """Search the collection for the text in the search box (in a worker; logged)."""
        wb, text = self.workbench, self.view.query.text()
        if wb is None or not parse_query(text).phrases:
            self.view.summary.setText('Type words to search for ("quoted words": a phrase).')
            return
        if wb.judging is None:
            return
        qid, pool = self.qid, self.pool
        search = wb.search()
        self.searching = True
        self.view.summary.setText(f"Searching the collection for {text.strip()!r}…")

        def work() -> tuple[CollectionResults, dict[int, DocumentRecord]]:
            results = search.search_collection(text, qid, pool)
            first = [h.doc_id for h in results.hits[:PREFETCH]]
            return results, wb.documents(first)

        self.ops.read(work, self._on_results, key="collection search", failed=self._on_failed)

    def _on_failed(self, exc: BaseException) -> None:
        self.searching = False
        self.view.summary.setText(f"The search failed: {exc}")

    def _on_results(self, found: tuple[CollectionResults, dict[int, DocumentRecord]]) -> None:
        results, records = found
        self.searching = False
        self.results = results
        self.records = dict(records)
        self.view.model.set_items(results.hits)
        self.view.viewer.set_search_terms(
            [w for phrase in parse_query(results.text).phrases for w in phrase]
        )
        self._update_summary()
        self.searched.emit(results)
        unjudged = [k for k, h in enumerate(results.hits) if h.grade is None]
        self.show(unjudged[0] if unjudged else (0 if results.hits else None))

    def _update_summary(self) -> None:
        results = self.results
        if results is None:
            return
        hits = results.hits
        pooled = sum(h.pooled for h in hits)
        judged = sum(h.grade is not None for h in hits)
        if not hits:
            text = f"Nothing in the collection matches {results.text.strip()!r}."
        else:
            best = f"The best {len(hits)}" if not results.complete else f"All {len(hits)}"
            text = (
                f"{best} of the collection · {pooled} pooled · {len(hits) - pooled} "
                f"outside the pool · {judged} judged by you"
            )
            if self.qid is None:
                text += " · open a topic to judge them"
        self.view.summary.setText(text)

    # -- showing -----------------------------------------------------------------------------
    def show(self, row: int | None) -> None:
        v = self.view
        self.current = row
        v.clear_notice()
        if row is None:
            v.viewer.clear()
            v.position_label.setText("")
            v.grade_bar.show_state(None, False)
            v.select_row(None)
            return
        hit = v.model.items[row]
        v.select_row(row)
        record = self.records.get(hit.doc_id)
        if record is not None:
            v.viewer.show_document(hit.doc_id, hit.docno, record)
        else:
            wb = self.workbench
            v.viewer.show_loading(hit.doc_id, hit.docno)
            if wb is not None:
                self.ops.read(
                    lambda: wb.document(hit.doc_id),
                    lambda record: self._on_document_read(row, hit.doc_id, record),
                    key="search document",
                )
        v.grade_bar.show_state(hit.grade, False)
        self._update_position()
        v.focus_document()
        self.document_shown.emit(hit.doc_id)

    def _on_document_read(self, row: int, doc_id: int, record: DocumentRecord | None) -> None:
        if record is not None:
            self.records[doc_id] = record
        items = self.view.model.items
        if self.current == row and row < len(items) and items[row].doc_id == doc_id:
            self.view.viewer.show_document(doc_id, items[row].docno, record)

    def _update_position(self) -> None:
        row, items = self.current, self.view.model.items
        if row is None or row >= len(items):
            self.view.position_label.setText("")
            return
        hit = items[row]
        where = "in the topic's pool" if hit.pooled else "outside the topic's pool"
        state = "not judged by you" if hit.grade is None else f"judged {hit.grade} by you"
        self.view.position_label.setText(
            f"Result {row + 1} of {len(items)}  ·  {where}  ·  {state}"
        )

    def step(self, direction: int) -> None:
        items = self.view.model.items
        if not items:
            return
        start = -1 if self.current is None else self.current
        self.show(max(0, min(len(items) - 1, start + direction)))

    def next_unjudged(self, after: int | None) -> int | None:
        items = self.view.model.items
        start = -1 if after is None else after
        order = list(range(start + 1, len(items))) + list(range(0, start + 1))
        return next((r for r in order if items[r].grade is None), None)

    def _on_next_unjudged_triggered(self) -> None:
        following = self.next_unjudged(self.current)
        if following is None:
            self.view.show_notice("You have judged every result of this search.")
        else:
            self.show(following)

    def _on_query_triggered(self) -> None:
        self.view.query.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.view.query.selectAll()

    def _on_back_triggered(self) -> None:
        self.view.clear_notice()
        self.view.focus_document()

    # -- judging -----------------------------------------------------------------------------
    def _on_grade_requested(self, grade: int) -> None:
        wb, row, results = self.workbench, self.current, self.results
        service = wb.judging if wb is not None else None
        if wb is None or service is None or results is None or row is None:
            self.view.show_notice("Nothing was recorded: search first, then judge a result.")
            return
        if self.qid is None:
            self.view.show_notice(
                "Nothing was recorded: no topic is open. Open one in the topic list "
                "(Ctrl+1, then Enter); the search judges for it."
            )
            return
        if wb is not None and wb.read_only:
            self.view.show_notice(f"Nothing was recorded. {wb.read_only_reason()}")
            return
        if self.saving:
            self.view.show_notice("Still saving the judgment before: judge this one then.")
            return
        if self.view.viewer.loading:
            self.view.show_notice("Nothing was recorded: the document is still being read.")
            return
        hit = self.view.model.items[row]
        qid, query = self.qid, results.text.strip()
        self.saving = True

        def record() -> JudgmentChange:
            with wb.short_writes(5.0):
                return service.record(qid, hit.doc_id, grade, query=query)

        def recorded(change: JudgmentChange) -> None:
            self.saving = False
            label = next((g.label for g in self.view.scale if g.grade == grade), str(grade))
            self.undo_stack.push(
                JudgmentCommand(
                    f"judge {hit.docno} {label} (found by search)", change, self._restore
                )
            )
            self._set_grade(change.doc_id, change.after.grade)
            self.judgment_recorded.emit(change)
            self.changed.emit(change.changes)
            if self.current == row:
                following = self.next_unjudged(row)
                self.show(following if following is not None else row)

        def failed(exc: BaseException) -> None:
            self.saving = False
            if isinstance(exc, ProjectBusy | JudgingError):
                reason = str(exc)
            else:
                reason = f"{type(exc).__name__}: {exc}"
            self.view.show_notice(f"Nothing was recorded: {reason}")

        self.ops.write(record, recorded, failed=failed, what="recording a judgment")

    def _set_grade(self, doc_id: int, grade: int | None) -> None:
        model = self.view.model
        row = model.row_of(doc_id)
        if row is None:
            return
        model.update_item(row, replace(model.items[row], grade=grade))
        if self.results is not None:
            self.results = replace(self.results, hits=list(model.items))
        self._update_summary()
        if row == self.current:
            self.view.grade_bar.show_state(grade, False)
            self._update_position()

    def _restore(self, change: JudgmentChange, undo: bool) -> None:
        wb = self.workbench
        service = wb.judging if wb is not None else None
        if service is None:
            return

        def restored(result: JudgmentChange) -> None:
            if result.qid == self.qid:
                self._set_grade(result.doc_id, result.after.grade)
                row = self.view.model.row_of(result.doc_id)
                if row is not None:
                    self.show(row)
            self.judgment_recorded.emit(result)
            self.changed.emit(result.changes)

        self.ops.write(lambda: service.restore(change, undo=undo), restored, what="undo")

    def follow(self, change: JudgmentChange) -> None:
        """A judgment made elsewhere (the judging view) of a document listed here."""
        if change.qid == self.qid and self.workbench is not None:
            assessor = self.workbench.judging
            if assessor is not None and change.assessor_id == assessor.assessor.id:
                self._set_grade(change.doc_id, change.after.grade)
