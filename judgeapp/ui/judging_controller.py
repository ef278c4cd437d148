"""Wires the judging view to a judging queue: keys, undo, notes, flags, time.

Nothing here waits for the database (`judgeapp.ui.ops`): a topic's queue is built in a
worker, and the texts of its pooled documents are read there with a full-text index of them
for the search box, so the next document and every search come from memory. A grade goes
to the writing lane through `JudgingService`, and the next document appears when the
judgment is committed, not before. Changes are pushed on the shared `QUndoStack` and
re-broadcast as `changed(Changes)` for the other views.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QMessageBox

from judgeapp.lasting import import_for_good
from judgeapp.pooling.estimate import STOP_TAIL, Estimate
from judgeapp.records import DocumentRecord, GradeInfo, JudgmentChange, TopicRecord
from judgeapp.services.highlight import Highlighter, parse_user_terms, topic_terms
from judgeapp.services.judging import JudgingError, ProjectBusy
from judgeapp.services.queue import JudgingQueue
from judgeapp.services.search import PoolIndex
from judgeapp.services.timing import ActiveTimer
from judgeapp.services.workbench import Workbench
from judgeapp.ui.dialogs import InstructionsDialog, ShortcutSheet
from judgeapp.ui.judging_view import JudgingView
from judgeapp.ui.ops import Ops
from judgeapp.ui.plain import plain
from judgeapp.ui.undo import JudgmentCommand

WRITE_TRY_S = 0.2  # how long one try of a grade key waits for another writer
RETRY_MS = 150  # then it is tried again this soon, the window staying live meanwhile
TELL_AFTER_S = 1.0  # when the view says that the judgment waits
BUSY_TEXT = (
    "Another process is writing to the project (an import, or another assessor's long "
    "change). Nothing was changed; try again in a moment."
)


@dataclass(slots=True)
class TopicLoad:
    """A topic read in a worker: its queue (None without pooled documents), statement,
    the assessor's own highlight terms, and the document to show first with its text."""

    qid: str
    queue: JudgingQueue | None
    topic: TopicRecord | None
    terms: str
    first: int | None
    record: DocumentRecord | None
    instruct: bool = False  # the assessor's first document: the instructions come first


@dataclass(slots=True)
class PendingGrade:
    """A grade key that waits for another writer to finish before it can be recorded."""

    doc: int
    grade: int
    note: str | None
    flagged: bool | None
    spent: float
    since: float


def estimate_text(estimate: Estimate) -> tuple[str, str]:
    """The judging view's estimate line and its tooltip: the relevant documents left with
    their interval, whether the interval is calibrated, and the stopping advice."""
    low, high = estimate.missing_interval
    left = (
        f"After {estimate.judged:,} judged: about {estimate.missing:.0f} relevant left, "
        f"{estimate.level:.0%} interval {low:.0f}-{high:.0f}"
        + ("" if estimate.calibrated else " (uncalibrated, conservative)")
        + "."
    )
    lines, detail = [left], [left]
    if estimate.note:
        detail.append(estimate.note[0].upper() + estimate.note[1:] + ".")
    a = estimate.advice
    if a is not None:
        lines.append(a.text())
        detail.append(
            f"Stopping rule: stop once found / (found + U) >= {a.target:.0%}, U the relevant "
            f"left at one-sided confidence {1 - (1 - a.confidence) * STOP_TAIL:.1%} (now "
            f"{a.found} found and U = {a.bound}: recall at least {a.recall_low:.0%}), checked "
            "after every fiftieth of the pool. On topics whose truth was known it stopped at "
            f"{a.target:.0%} recall or more in at least {a.confidence:.0%} of them "
            "(docs/estimators.md)." + ("" if a.calibrated else f" Conservative bound: {a.reason}.")
        )
    return " ".join(lines), "\n".join(detail)


class JudgingController(QObject):
    changed = Signal(object)  # Changes, after each committed change (judgment, undo, redo)
    judgment_recorded = Signal(object)  # JudgmentChange of a grade given in this view
    document_shown = Signal(int)  # doc id, once it is on screen
    topic_opened = Signal(str)
    said = Signal(str)  # a short confirmation for the status bar ("Note saved on ...")

    def __init__(
        self,
        view: JudgingView,
        undo_stack: QUndoStack,
        clock: Callable[[], float] = time.monotonic,
        parent: QObject | None = None,
        ops: Ops | None = None,
    ) -> None:
        super().__init__(parent)
        self.view = view
        self.undo_stack = undo_stack
        self.clock = clock
        self.ops = ops or Ops(self)
        self.timer = ActiveTimer()
        self.workbench: Workbench | None = None
        self.queue: JudgingQueue | None = None
        self.current: int | None = None
        self.topic: TopicRecord | None = None  # the open topic's statement
        self.loading: str | None = None  # a topic being read in a worker
        self.has_pool = False  # the project has a pool (the main controller says)
        # the open topic's documents with text, read in a worker; complete once
        # `texts_loaded` (a document missing then has no text)
        self.records: dict[int, DocumentRecord] = {}
        self.texts_loaded = False
        self.pool_index: PoolIndex | None = None
        self._matches: set[int] | None = None  # the search box's matches (None: no search)
        self._hidden: set[int] = set()  # the list's rows hidden by the filter or search
        # the document being read when another window judged it: its row stays listed
        # whatever the filter says until the reader moves on
        self._kept_in_list: int | None = None
        self._searching = False  # the index has yet to answer the last key
        self._go_to_match = False  # Enter came before the search's result
        self._show_after_load: int | None = None
        self.notice_after_load: str | None = None  # said once the topic being read is shown
        self.notice_after_show: str | None = None  # said with the next document shown
        self._pending_notes: dict[int, str] = {}
        self._pending_flags: dict[int, bool] = {}
        self._sheet: ShortcutSheet | None = None
        self._instructions: InstructionsDialog | None = None
        self._instructed: set[tuple[str, str]] = set()  # (project, assessor) shown
        self._textless_warned: int | None = None  # a document without text, grade key once
        # the next topic with work left after a qid (set by the main controller)
        self.next_topic_finder: Callable[[str], str | None] | None = None
        self.pending: PendingGrade | None = None
        self.retry_timer = QTimer(self)
        self.retry_timer.setSingleShot(True)
        self.retry_timer.timeout.connect(self._on_retry_timer_timeout)
        # an order that learns from the judgments (cal) refits its model in a lane of its
        # own, one fit at a time, so that a grade key never waits for a fit; the order
        # proposes by the newest model ready
        self.training: object | None = None
        self._training_failed = False  # no retry until the judgments change
        # the main controller's latest estimates ({qid: Estimate}); none in blind mode
        self.estimates: dict[str, Estimate] = {}
        self._connect()

    # -- wiring: every signal of the view is connected here --------------------------------
    def _connect(self) -> None:
        v = self.view
        acts = v.actions_by_name
        acts["flag"].triggered.connect(self._on_flag_triggered)
        acts["skip"].triggered.connect(self._on_skip_triggered)
        acts["next_unjudged"].triggered.connect(self._on_next_unjudged_triggered)
        acts["next"].triggered.connect(lambda: self._on_step_triggered(+1))
        acts["previous"].triggered.connect(lambda: self._on_step_triggered(-1))
        acts["note"].triggered.connect(self._on_note_triggered)
        acts["terms"].triggered.connect(self._on_terms_triggered)
        acts["search"].triggered.connect(self._on_search_triggered)
        acts["page_down"].triggered.connect(lambda: self._on_page_triggered(+1))
        acts["page_up"].triggered.connect(lambda: self._on_page_triggered(-1))
        acts["document_end"].triggered.connect(lambda: self._on_document_edge_triggered(+1))
        acts["document_start"].triggered.connect(lambda: self._on_document_edge_triggered(-1))
        acts["filter_next"].triggered.connect(lambda: self._on_filter_step_triggered(+1))
        acts["filter_previous"].triggered.connect(lambda: self._on_filter_step_triggered(-1))
        acts["next_topic"].triggered.connect(self._on_next_topic_triggered)
        acts["back_to_document"].triggered.connect(self._on_back_to_document_triggered)
        acts["help"].triggered.connect(self._on_help_triggered)
        acts["instructions"].triggered.connect(lambda: self.show_instructions())
        v.grade_requested.connect(self._on_grade_requested)
        v.grade_bar.flag_button.clicked.connect(self._on_flag_triggered)
        v.grade_bar.skip_button.clicked.connect(self._on_skip_triggered)
        v.grade_bar.next_button.clicked.connect(self._on_next_unjudged_triggered)
        v.note.returnPressed.connect(self._on_note_return_pressed)
        v.terms.editingFinished.connect(self._on_terms_edited)
        v.terms.returnPressed.connect(self._on_terms_return_pressed)
        v.filter.currentIndexChanged.connect(self._on_filter_changed)
        v.search.textChanged.connect(self._on_search_text_changed)
        v.search.returnPressed.connect(self._on_search_return_pressed)
        v.list.clicked.connect(self._on_list_clicked)
        v.activity_seen.connect(self._on_activity_seen)
        v.unknown_key.connect(self._on_unknown_key)

    # -- project and topic -----------------------------------------------------------------------
    READS = ("topic", "texts", "document", "pool search", "scale")

    def set_workbench(self, workbench: Workbench | None) -> None:
        self._drop_pending()
        self.ops.invalidate(*self.READS)
        self.estimates = {}
        self.workbench = workbench
        self.undo_stack.clear()
        self._forget_topic()
        self.queue = None
        self.current = None
        self.topic = None
        self.loading = None
        self.view.viewer.clear()
        self._set_items([], blind=True)
        self.view.topic_panel.show_topic(None)
        self._update_labels()

    def _forget_topic(self) -> None:
        self.records = {}
        self.texts_loaded = False
        if self.pool_index is not None:
            index, self.pool_index = self.pool_index, None
            self.ops.read(index.close, what="closing a pool's index")  # after its searches
        self._matches = None
        self._searching = False
        self._go_to_match = False

    def refresh_scale(self) -> None:
        """Read the project's scale, definitions and guidelines again (the owner may
        change them while the window is open)."""
        wb = self.workbench
        if wb is None:
            return
        self.ops.read(
            lambda: (wb.scale(), wb.guidelines(), wb.relevant_from()),
            lambda found: self.apply_scale(*found),
            key="scale",
        )

    def apply_scale(self, scale: list[GradeInfo], guidelines: str, relevant_from: int) -> None:
        """Show the scale, definitions and guidelines read (see `refresh_scale`). The grade
        buttons and keys, and the list's rows, are made again only when the scale (or the
        grade from which a document counts as relevant) changed: rebuilding them when a
        project opens with the scale already shown cost the GUI thread 50-65 ms."""
        new_scale = list(scale) != self.view.scale
        if new_scale:
            self.view.set_scale(scale)
            if self._sheet is not None and self._sheet.isVisible():
                self._sheet.close()  # it shows the old grades
            self._sheet = None  # made again, with the new grades, when next asked for
        self.view.set_guidelines(guidelines)
        queue = self.queue
        if queue is not None and (new_scale or queue.relevant_from != relevant_from):
            queue.relevant_from = relevant_from
            self._set_items(queue.items, blind=queue.blind)
            self._apply_row_filter()
            if self.current is not None:
                self.view.select_row(queue.row_of(self.current))
                self._show_state()
            self._update_labels()

    def open_topic(self, qid: str, show: int | None = None) -> bool:
        """Open topic `qid`: its queue is read in a worker, then its first unjudged
        document (or `show`) appears and `topic_opened` is emitted. False when there is
        nothing to open it with (no project or assessor)."""
        wb = self.workbench
        if wb is None or wb.judging is None:
            return False
        self._drop_pending()
        self.loading = qid
        self._show_after_load = show
        # the instructions before the first document an assessor judges in a project with
        # guidelines: asked once a session (whether they judged anything: in the worker)
        who = (wb.path, wb.judging.assessor.name)
        ask = bool(self.view.guidelines.strip()) and who not in self._instructed

        def load() -> TopicLoad:
            queue = wb.queue(qid, background=True)
            first = record = None
            if queue is not None:
                first = show if show is not None and queue.row_of(show) is not None else None
                if first is None:
                    first = queue.first_unjudged()
                if first is None:
                    first = queue.neighbour(None, 0)
                record = wb.document(first) if first is not None else None
            instruct = ask and queue is not None and not wb.has_judged(who[1])
            return TopicLoad(qid, queue, wb.topic(qid), wb.user_terms(qid), first, record, instruct)

        self.ops.read(load, self._on_topic_loaded, key="topic", failed=self._on_read_failed)
        return True

    def _on_topic_loaded(self, load: TopicLoad) -> None:
        wb = self.workbench
        if wb is None:
            return
        self.loading = None
        self._drop_pending()
        self.ops.invalidate("texts", "document", "pool search")
        self._forget_topic()
        queue, topic, qid = load.queue, load.topic, load.qid
        self.topic = topic
        self.view.topic_panel.show_topic(topic)
        self.view.viewer.forget_positions()
        self.view.search.blockSignals(True)
        self.view.search.clear()
        self.view.search.blockSignals(False)
        self._pending_notes.clear()
        self._pending_flags.clear()
        self.queue = queue
        self.current = None
        self._train(changed=True)
        words = topic_terms(topic.title, topic.description, topic.narrative) if topic else []
        self.view.terms.setText(load.terms)
        self.view.viewer.set_highlighter(
            Highlighter.build(words, parse_user_terms(self.view.terms.text()))
        )
        if queue is None:
            self._set_items([], blind=True)
            self.view.viewer.clear()
            self.view.viewer.set_header(
                "This topic has no pool yet.",
                "Build a pool (Judging ▸ Build pool…) to start judging.",
            )
            self._update_labels()
            self.topic_opened.emit(qid)
            return
        if load.record is not None:
            self.records[load.record.doc_id] = load.record
        self._set_items(queue.items, blind=queue.blind)
        self.view.viewer.set_search_terms([])
        self._apply_row_filter()
        self.view.configure_list()
        if not wb.read_only:
            self.ops.write(lambda: wb.remember_topic(qid), what="remembering the topic")
        self.topic_opened.emit(qid)
        self.show_document(load.first)
        if load.instruct:
            self._instructed.add((wb.path, wb.judging.assessor.name if wb.judging else ""))
            self.show_instructions(first=True)
        if self.notice_after_load:
            self.view.show_notice(self.notice_after_load)
        self.notice_after_load = None
        # every pooled document's text, and an index of them for the search box
        self.ops.read(lambda: wb.pool_texts(queue), self._on_texts_loaded, key="texts")

    def _on_texts_loaded(self, found: tuple[dict[int, DocumentRecord], PoolIndex]) -> None:
        records, index = found
        self.records.update(records)
        self.texts_loaded = True
        self.pool_index = index
        if self.view.search.text().strip():
            self._on_search_text_changed(self.view.search.text())  # typed while it loaded

    def _on_read_failed(self, exc: BaseException) -> None:
        self.loading = None
        self.view.show_notice(f"The topic could not be read: {exc}")

    # -- showing -----------------------------------------------------------------------------------
    def show_document(self, doc_id: int | None) -> None:
        queue, wb = self.queue, self.workbench
        if queue is None or wb is None:
            return
        self.current = doc_id
        self._textless_warned = None
        kept, self._kept_in_list = self._kept_in_list, None
        if kept is not None and kept != doc_id and queue.row_of(kept) is not None:
            self._apply_row_filter(kept)  # the reader moved on: its row as the filter says
        self.view.clear_notice()
        if self.notice_after_show:
            self.view.show_notice(self.notice_after_show)
            self.notice_after_show = None
        if doc_id is None:  # the topic is finished
            self.view.viewer.clear()
            following = self._next_topic(queue.qid)
            self.view.viewer.set_header(
                "Every pooled document of this topic is judged.",
                f"Enter: topic {following}, the next with documents to judge."
                if following is not None
                else "No other topic has documents left for you to judge.",
            )
            self.view.grade_bar.show_state(None, False)
            self.view.note.clear()
            self.view.select_row(None)
        else:
            item = queue.item(doc_id)
            record = self.records.get(doc_id)
            if record is not None or self.texts_loaded:
                self.view.viewer.show_document(doc_id, item.docno, record)
            else:  # not read yet (the topic's texts are on their way): read this one now
                self.view.viewer.show_loading(doc_id, item.docno)
                self.ops.read(
                    lambda: wb.document(doc_id),
                    lambda record: self._on_document_read(doc_id, record),
                    key="document",
                )
            self.view.select_row(queue.row_of(doc_id))
            self._show_state()
        self.view.actions_by_name["next_topic"].setEnabled(doc_id is None)
        self._show_marks()
        self.timer.start(self.clock())
        self._update_labels()
        self.view.focus_document()
        if doc_id is not None:
            self.document_shown.emit(doc_id)

    def _on_document_read(self, doc_id: int, record: DocumentRecord | None) -> None:
        if record is not None:
            self.records[doc_id] = record
        queue = self.queue
        if doc_id == self.current and queue is not None and queue.row_of(doc_id) is not None:
            self.view.viewer.show_document(doc_id, queue.item(doc_id).docno, record)

    def _next_topic(self, qid: str) -> str | None:
        finder = self.next_topic_finder
        return None if finder is None else finder(qid)

    def _show_marks(self) -> None:
        """Skipped documents and flags waiting for their grade, as the list shows them."""
        queue = self.queue
        if queue is None:
            return
        self.view.list_model.set_marks(queue.skipped, set(self._pending_flags))

    def _show_state(self) -> None:
        if self.queue is None or self.current is None:
            return
        item = self.queue.item(self.current)
        flagged = self._pending_flags.get(self.current, item.flagged)
        self.view.grade_bar.show_state(item.grade, flagged)
        self.view.note.setText(self._pending_notes.get(self.current, item.note))

    def show_estimates(self, estimates: dict[str, Estimate]) -> None:
        """New estimates of the relevant documents left (the topic list's, computed after a
        pause in the judging): the open topic's is shown with its stopping advice."""
        self.estimates = dict(estimates)
        self._show_estimate()

    def _show_estimate(self) -> None:
        queue = self.queue
        estimate = self.estimates.get(queue.qid) if queue is not None else None
        if estimate is None:
            self.view.show_estimate("")
            return
        text, detail = estimate_text(estimate)
        self.view.show_estimate(text, detail)

    def _update_labels(self) -> None:
        self._show_estimate()
        queue = self.queue
        if queue is None:
            self.view.progress_label.setText("")
            self.view.position_label.setText("")
            return
        pooled, judged, relevant = queue.counts()
        order = queue.order.name
        self.view.progress_label.setText(
            f"{judged} of {pooled} judged · {relevant} relevant · {order} order"
        )
        if self.current is None:
            self.view.position_label.setText("")
            return
        row = queue.row_of(self.current)
        if row is None:
            self.view.position_label.setText("")
            return
        item = queue.item(self.current)
        state = self.view.list_model.state_text(item)
        if item.grade is None and self._pending_flags.get(self.current):
            state += ": the flag is saved with the grade"
        self.view.position_label.setText(f"Document {row + 1} of {pooled}  ·  {state}")

    # -- judging ---------------------------------------------------------------------------------
    def refused_read_only(self) -> bool:
        """In a project this user may only read: say so under the document (the same
        sentence however often a key asks) and record nothing."""
        wb = self.workbench
        if wb is None or not wb.read_only:
            return False
        self.view.show_notice(f"Nothing was recorded. {wb.read_only_reason()}")
        return True

    def _on_grade_requested(self, grade: int) -> None:
        queue, doc = self.queue, self.current
        if queue is not None and self.refused_read_only():
            return
        if queue is None:
            self.view.show_notice(
                "Nothing was recorded: no topic is open. Choose one in the topic list "
                "(Ctrl+1, then Enter)."
                if self.workbench is None or self.has_pool
                else "Nothing was recorded: the project has no pool yet (Judging ▸ Build pool…)."
            )
            return
        if doc is None:
            following = self._next_topic(queue.qid)
            self.view.show_notice(
                f"Nothing was recorded: every pooled document of topic {queue.qid} is judged. "
                + (
                    f"Enter opens topic {following}, the next with documents to judge."
                    if following is not None
                    else "No other topic has documents left for you to judge."
                )
            )
            return
        if self.view.viewer.loading:
            self.view.show_notice(
                f"Nothing was recorded: {queue.item(doc).docno} is still being read. "
                "Judge it once it is on screen."
            )
            return
        if not self.view.viewer.has_text and self._textless_warned != doc:
            self._textless_warned = doc
            self.view.show_notice(
                f"Nothing was recorded yet: the text of {queue.item(doc).docno} is not in the "
                "project. Press a grade key again to judge it without reading it, or import "
                "the documents (Project ▸ Import documents…)."
            )
            return
        if self.pending is not None:
            self.view.show_notice(
                "Still saving the judgment before: another process is writing to the project. "
                "It is saved as soon as the project is free; then judge this one."
            )
            return
        spent = self.timer.take(self.clock())
        note = self._pending_notes.pop(doc, None)
        flagged = self._pending_flags.pop(doc, None)
        self.pending = PendingGrade(doc, grade, note, flagged, spent, self.clock())
        self._try_pending()

    def _on_retry_timer_timeout(self) -> None:
        self._try_pending()

    def _drop_pending(self) -> None:
        self.retry_timer.stop()
        self.pending = None
        self.view.clear_notice()

    def _try_pending(self) -> None:
        """Record the waiting grade key in the writing lane (trying for a moment if another
        process writes), else try again soon; the view says so once it has waited a second.
        Nothing is dropped silently: a judgment that cannot be recorded is reported, and
        the key can be pressed again."""
        p, queue, wb = self.pending, self.queue, self.workbench
        if p is None or queue is None or wb is None or queue.row_of(p.doc) is None:
            self._drop_pending()
            return
        service, qid = wb.judging, queue.qid
        if service is None:
            self._drop_pending()
            return

        def record() -> JudgmentChange:
            with wb.short_writes(WRITE_TRY_S):
                return service.record(
                    qid, p.doc, p.grade, note=p.note, flagged=p.flagged, time_spent=p.spent
                )

        self.ops.write(
            record,
            lambda change: self._on_recorded(p, queue, change),
            failed=lambda exc: self._on_record_failed(p, queue, exc),
            what="recording a judgment",
        )

    def _on_record_failed(self, p: PendingGrade, queue: JudgingQueue, exc: BaseException) -> None:
        if self.pending is not p:
            return  # another topic was opened meanwhile: its view has nothing to say
        if isinstance(exc, ProjectBusy):
            waited = self.clock() - p.since
            if waited >= TELL_AFTER_S:
                docno = queue.item(p.doc).docno
                self.view.show_notice(
                    f"Waiting for another writer ({waited:.0f} s): the judgment of {docno} "
                    f"(grade {p.grade}) is saved as soon as the project is free."
                )
            self.retry_timer.start(RETRY_MS)
            return
        # refused (JudgingError) or failed (the store): say so
        self._drop_pending()
        self._restore_pending_fields(p)
        reason = str(exc) if isinstance(exc, JudgingError) else f"{type(exc).__name__}: {exc}"
        self._warn(f"{reason}\n\nNothing was recorded; press the grade key again to retry.")

    def _on_recorded(self, p: PendingGrade, queue: JudgingQueue, change: JudgmentChange) -> None:
        """The judgment is committed: now it may be undone, shown and broadcast."""
        if self.pending is p:
            self._drop_pending()
        doc, grade = p.doc, p.grade
        label = self.view.grade_bar.buttons[grade].text().split(None, 1)[-1]
        docno = queue.item(doc).docno
        self.undo_stack.push(JudgmentCommand(f"judge {docno} {label}", change, self._restore))
        if queue is not self.queue:  # another topic is open now: only say it happened
            self.judgment_recorded.emit(change)
            self.changed.emit(change.changes)
            return
        queue.recorded(change)
        self._refresh_item(doc)
        if doc == self.current:  # the next document first, then the rest of the window
            self.show_document(self._next_to_judge(doc))
        self._train(changed=True)
        self.judgment_recorded.emit(change)
        self.changed.emit(change.changes)

    def _restore_pending_fields(self, p: PendingGrade) -> None:
        if p.note is not None:
            self._pending_notes.setdefault(p.doc, p.note)
        if p.flagged is not None:
            self._pending_flags.setdefault(p.doc, p.flagged)

    def reload_topic(self) -> None:
        """Read the open topic again (others judged in it), staying on the same document
        unless this assessor has judged it meanwhile elsewhere."""
        queue, wb = self.queue, self.workbench
        if queue is None or wb is None or self.pending is not None:
            return
        qid = queue.qid
        self.ops.read(
            lambda: wb.queue(qid, background=True),
            lambda fresh: self._on_reloaded(queue, fresh),
            key="topic",
            failed=self._on_read_failed,
        )

    def _on_reloaded(self, queue: JudgingQueue, fresh: JudgingQueue | None) -> None:
        if fresh is None or queue is not self.queue or self.pending is not None:
            return
        current = self.current
        self.queue = fresh
        self._train(changed=True)
        judged_elsewhere = (
            current is not None
            and fresh.row_of(current) is not None
            and queue.item(current).grade != fresh.item(current).grade
        )
        if judged_elsewhere:
            self._kept_in_list = current
        self._set_items(fresh.items, blind=fresh.blind)
        self._apply_row_filter()
        if current is None or fresh.row_of(current) is None:
            self.show_document(fresh.next_unjudged(current))
            return
        # the reader stays on the document: never replaced under them
        self.view.select_row(fresh.row_of(current))
        self._show_state()
        self._show_marks()
        self._update_labels()
        if judged_elsewhere:
            item = fresh.item(current)
            what = (
                "no longer judged"
                if item.grade is None
                else f"judged {self.view.list_model.grade_text(item.grade)}"
            )
            self.view.show_notice(
                f"{item.docno} was {what} in another window. U: the next unjudged document."
            )

    def _annotate(self, doc: int, *, note: str | None = None, flagged: bool | None = None):
        queue = self.queue
        assert queue is not None
        if self.refused_read_only():
            return
        if queue.item(doc).grade is None:
            # a note or flag on an unjudged document waits for its grade
            if note is not None:
                self._pending_notes[doc] = note
            if flagged is not None:
                self._pending_flags[doc] = flagged
            self._show_state()
            self._show_marks()
            self._apply_row_filter(doc)
            self._update_labels()
            return
        wb = self.workbench
        service = wb.judging if wb is not None else None
        if wb is None or service is None:
            return
        qid = queue.qid

        def annotate() -> JudgmentChange:
            with wb.short_writes(WRITE_TRY_S * 5):
                return service.annotate(qid, doc, note=note, flagged=flagged)

        def annotated(change: JudgmentChange) -> None:
            what = "note on" if note is not None else "flag on"
            docno = queue.item(doc).docno
            self.undo_stack.push(JudgmentCommand(f"{what} {docno}", change, self._restore))
            if queue is self.queue:
                queue.apply(change)
                self._refresh_item(doc)
            self.changed.emit(change.changes)
            if note is not None:
                self.said.emit(
                    f"Note saved on {docno}." if note.strip() else f"Note removed from {docno}."
                )
            else:
                self.said.emit(f"Flag {'set on' if flagged else 'taken off'} {docno}.")

        def failed(exc: BaseException) -> None:
            if isinstance(exc, ProjectBusy):
                self._warn(BUSY_TEXT)
            elif isinstance(exc, JudgingError):
                self._warn(str(exc))
            else:
                self._warn(f"{type(exc).__name__}: {exc}\n\nNothing was recorded.")

        self.ops.write(annotate, annotated, failed=failed, what="a note or flag")

    def _restore(self, change: JudgmentChange, undo: bool) -> None:
        """Undo or redo `change` through the judging service (in the writing lane: the undo
        stack has moved already, and this waits for another writer as long as it takes, as
        an undo cannot fail half-way), then show the document, in its topic."""
        wb = self.workbench
        service = wb.judging if wb is not None else None
        if service is None:
            return
        self.ops.write(
            lambda: service.restore(change, undo=undo),
            lambda result: self._on_restored(change, result),
            what="undo" if undo else "redo",
        )

    def _on_restored(self, change: JudgmentChange, result: JudgmentChange) -> None:
        queue = self.queue
        if queue is None or queue.qid != change.qid:
            self.changed.emit(result.changes)
            self.open_topic(change.qid, show=change.doc_id)
            return
        queue.apply(result)
        self._train(changed=True)
        self._refresh_item(change.doc_id)
        self.changed.emit(result.changes)
        if queue.row_of(change.doc_id) is not None:
            self.show_document(change.doc_id)

    def take_change(self, change: JudgmentChange) -> None:
        """A judgment made elsewhere in this window (the search panel) of a document this
        topic's list may hold: the list, the counts and the order follow."""
        queue = self.queue
        if queue is None or change.qid != queue.qid or queue.row_of(change.doc_id) is None:
            return
        queue.apply(change)
        self._train(changed=True)
        self._refresh_item(change.doc_id)

    # -- the judging order's model -----------------------------------------------------------------
    def _train(self, changed: bool = False) -> None:
        """Start the next fit of the open order's model in the worker, if one is due and
        none is running (when it ends, the next due fit starts). `changed`: the judgments
        or the topic changed (a fit that failed is tried again only then)."""
        if changed:
            self._training_failed = False
        queue = self.queue
        if self.training is not None or queue is None or self._training_failed:
            return
        job = queue.order.training()
        if job is None:
            return
        order = queue.order

        def fit():
            # scikit-learn, imported the first time here: frozen (judgeapp.lasting)
            import_for_good("sklearn.linear_model")
            return job.fit()

        worker = self.ops.read(
            fit,
            lambda model: self._on_training_succeeded(order, model),
            failed=self._on_training_failed,
            lane="training",
            what="fitting the judging order's model",
            finished=self._on_training_finished,
        )
        self.training = worker

    def _on_training_succeeded(self, order, model) -> None:
        # a model for a topic no longer open is dropped; the order itself refuses one
        # fitted for judgments since undone or re-graded
        if self.queue is not None and self.queue.order is order:
            order.use_model(model)

    def _on_training_failed(self, exc: BaseException) -> None:
        # the order goes on with the model it has; say why it stopped learning
        self._training_failed = True
        self.view.show_notice(f"The judging order could not learn from the last judgments: {exc}")

    def _on_training_finished(self) -> None:
        self.training = None
        self._train()

    def _refresh_item(self, doc: int) -> None:
        if self.queue is None:
            return
        self.view.list_model.update_item(self.queue.item(doc))
        self._apply_row_filter(doc)
        if doc == self.current:
            self._show_state()
        self._update_labels()

    def _warn(self, text: str) -> None:
        box = plain(QMessageBox(QMessageBox.Icon.Warning, "Not recorded", text, parent=self.view))
        box.open()

    # -- slots -----------------------------------------------------------------------------------
    def _on_flag_triggered(self) -> None:
        if self.queue is None or self.current is None:
            return
        item = self.queue.item(self.current)
        flagged = self._pending_flags.get(self.current, item.flagged)
        self._annotate(self.current, flagged=not flagged)

    def _on_skip_triggered(self) -> None:
        if self.queue is None or self.current is None:
            return
        self.queue.skip(self.current)
        self.show_document(self._next_to_judge(self.current))

    def _on_next_unjudged_triggered(self) -> None:
        if self.queue is not None:
            self.show_document(self._next_to_judge(self.current))

    def _next_to_judge(self, current: int | None) -> int | None:
        """The next document to judge. While a search or a filter narrows the list, it is
        one of the rows shown: the judging order's proposal when the list shows it, else
        the next unjudged row shown after `current` (wrapping round); only when none is
        left does the judging go back to the whole pool's order, and the view says so.
        Otherwise the order's proposal (`JudgingQueue.next_unjudged`)."""
        queue = self.queue
        assert queue is not None
        proposal = queue.next_unjudged(current)
        if not self._hidden or proposal is None:
            return proposal
        row = queue.row_of(proposal)
        if row is not None and not self._row_hidden(row):
            return proposal
        shown = queue.unjudged_after(current, lambda r: not self._row_hidden(r))
        if shown is not None:
            return shown
        what = "search" if self.view.search.text().strip() else "filter"
        self.notice_after_show = (
            f"Every document the {what} shows is judged: back to the judging order of the "
            "whole pool."
        )
        return proposal

    def _on_step_triggered(self, step: int) -> None:
        """The next (previous) document among the rows the list shows."""
        queue = self.queue
        if queue is None or not queue.items:
            return
        n = len(queue.items)
        if self.current is None:
            row = -1 if step > 0 else n
        else:
            found = queue.row_of(self.current)
            row = -1 if found is None else found
        row += step
        while 0 <= row < n and self._row_hidden(row):
            row += step
        if 0 <= row < n:
            self.show_document(queue.items[row].doc_id)
        else:
            self.view.show_notice(
                "No document "
                + ("after" if step > 0 else "before")
                + " this one in the list"
                + (" as filtered." if self._filtered() else ".")
            )

    def _on_note_triggered(self) -> None:
        self.view.note.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.view.note.selectAll()

    def _on_note_return_pressed(self) -> None:
        if self.queue is not None and self.current is not None:
            text = self.view.note.text().strip()
            item = self.queue.item(self.current)
            if text != self._pending_notes.get(self.current, item.note):
                self._annotate(self.current, note=text)
        self.view.focus_document()

    def _on_terms_triggered(self) -> None:
        self.view.terms.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _on_terms_return_pressed(self) -> None:
        self._on_terms_edited()
        self.view.focus_document()

    def _on_terms_edited(self) -> None:
        wb, queue = self.workbench, self.queue
        if wb is None or wb.judging is None:
            return
        qid = queue.qid if queue is not None else None
        topic = self.topic
        if topic is None or qid is None or topic.qid != qid:
            return
        terms = self.view.terms.text()
        if not wb.read_only:  # (highlighted all the same, for this session)
            self.ops.write(lambda: wb.set_user_terms(qid, terms), what="saving the terms")
        words = topic_terms(topic.title, topic.description, topic.narrative)
        self.view.viewer.set_highlighter(
            Highlighter.build(words, parse_user_terms(self.view.terms.text()))
        )

    def _on_search_triggered(self) -> None:
        self.view.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.view.search.selectAll()

    def _on_search_text_changed(self, text: str) -> None:
        """Each key asks the topic's index in a worker; the list follows when it answers
        (an answer to an older text is dropped). Until the index is built, docnos alone."""
        queue, index = self.queue, self.pool_index
        if queue is None or not text.strip():
            self.ops.invalidate("pool search")
            self._searching = False
            self._matches = None
            self._apply_row_filter()
            self.view.viewer.set_search_terms([])
            if self._go_to_match:
                self._go_to_match = False
                self._go_to_first_match()
            return
        if index is None:
            needle = text.strip().lower()
            self._on_matches({i.doc_id for i in queue.items if needle in i.docno.lower()})
            return
        self._searching = True
        self.ops.read(lambda: index.matches(text), self._on_matches, key="pool search")

    def _on_matches(self, matches: set[int]) -> None:
        self._searching = False
        self._matches = matches
        self._apply_row_filter()
        if self._go_to_match:
            self._go_to_match = False
            self._go_to_first_match()

    def _on_search_return_pressed(self) -> None:
        """The first unjudged document among the matches (the first match when all are
        judged), with the words searched for marked in it; the search is logged."""
        queue, wb = self.queue, self.workbench
        if queue is None or wb is None:
            return
        text = self.view.search.text()
        if text.strip() and self._searching:
            # the answer to the last key is on its way: go once it is here
            self._go_to_match = True
        else:
            self._go_to_first_match()
        if text.strip() and wb.judging is not None and not wb.read_only:
            search, qid = wb.search(), queue.qid
            n = len(self._matches or ())
            self.ops.write(lambda: search.log_pool_search(qid, text, n), what="the search log")

    def _go_to_first_match(self) -> None:
        queue = self.queue
        if queue is None:
            return
        text = self.view.search.text()
        found = self._matches if self._matches is not None else set()
        matches = [
            i.doc_id
            for r, i in enumerate(queue.items)
            if i.doc_id in found and not self._row_hidden(r)
        ]
        if matches:
            unjudged = [d for d in matches if queue.item(d).grade is None]
            self.view.viewer.set_search_terms(text.split())
            self.show_document(unjudged[0] if unjudged else matches[0])
            if not unjudged:
                self.view.show_notice(
                    f"Every document matching {text.strip()!r} is judged: showing the first."
                )
        else:
            self.view.show_notice(f"No pooled document matches {text.strip()!r}.")
        self.view.focus_document()

    def _on_back_to_document_triggered(self) -> None:
        if self.view.search.hasFocus() and self.view.search.text():
            self.view.search.clear()
        if self.view.note.hasFocus() and self.current is not None and self.queue is not None:
            # Esc leaves the note as it was saved
            item = self.queue.item(self.current)
            self.view.note.setText(self._pending_notes.get(self.current, item.note))
        self.view.clear_notice()
        self.view.focus_document()

    # -- the list filter -----------------------------------------------------------------------
    def _filtered(self) -> bool:
        return self.view.filter.currentData() != "all" or bool(self.view.search.text().strip())

    def _passes(self, doc: int, kind: str) -> bool:
        queue = self.queue
        assert queue is not None
        item = queue.item(doc)
        if kind == "unjudged":
            return item.grade is None
        if kind == "skipped":
            return doc in queue.skipped and item.grade is None
        if kind == "flagged":
            return item.flagged or bool(self._pending_flags.get(doc))
        if kind == "judged":
            return item.grade is not None
        if kind.startswith("grade:"):
            return item.grade == int(kind.split(":", 1)[1])
        return True

    def _set_items(self, items, blind: bool) -> None:
        """The list's rows (a model reset shows every row again)."""
        self.view.list_model.set_items(items, blind=blind)
        self._hidden = set()

    def _row_hidden(self, row: int) -> bool:
        return row in self._hidden

    def _apply_row_filter(self, doc: int | None = None) -> None:
        """Hide the rows the search and the filter leave out (all of them, or `doc`'s).
        Which rows are hidden is kept here too, so that a pool of thousands of rows asks
        the view only about the rows that change."""
        queue = self.queue
        if queue is None:
            return
        kind = self.view.filter.currentData() or "all"
        matches = self._matches if self.view.search.text().strip() else None
        if doc is None and kind == "all" and matches is None:
            hide: set[int] = set()  # everything shown: no row to test
        else:
            rows = range(len(queue.items)) if doc is None else [queue.row_of(doc)]
            hide = set()
            kept = self._kept_in_list
            for row in rows:
                if row is None:
                    continue
                d = queue.items[row].doc_id
                if d == kept:
                    continue
                if not ((matches is None or d in matches) and self._passes(d, kind)):
                    hide.add(row)
            if doc is not None:
                row = queue.row_of(doc)
                hide = (self._hidden - {row}) | hide
        for row in self._hidden - hide:
            self.view.list.setRowHidden(row, False)
        for row in hide - self._hidden:
            self.view.list.setRowHidden(row, True)
        self._hidden = hide

    def _on_filter_changed(self, _index: int) -> None:
        self._apply_row_filter()
        queue = self.queue
        if queue is None:
            return
        shown = [i.doc_id for r, i in enumerate(queue.items) if not self._row_hidden(r)]
        label = self.view.filter.currentText()
        if not shown:
            self.view.show_notice(f"The list shows nothing: no document is {label.lower()}.")
        else:
            self.view.clear_notice()
            if self.current not in shown:
                self.show_document(shown[0])
        self.view.focus_document()

    def _on_filter_step_triggered(self, step: int) -> None:
        combo = self.view.filter
        combo.setCurrentIndex((combo.currentIndex() + step) % combo.count())

    # -- the document and the topic ---------------------------------------------------------------
    def _on_document_edge_triggered(self, direction: int) -> None:
        bar = self.view.viewer.text.verticalScrollBar()
        bar.setValue(bar.maximum() if direction > 0 else bar.minimum())

    def _on_next_topic_triggered(self) -> None:
        focus = self.view.focusWidget()
        if focus is self.view.note:  # Return in a field keeps its meaning
            self._on_note_return_pressed()
            return
        if focus is self.view.terms:
            self._on_terms_return_pressed()
            return
        if focus is self.view.search:
            self._on_search_return_pressed()
            return
        queue = self.queue
        if queue is None or self.current is not None:
            return
        following = self._next_topic(queue.qid)
        if following is not None:
            self.open_topic(following)

    def _on_page_triggered(self, direction: int) -> None:
        bar = self.view.viewer.text.verticalScrollBar()
        bar.setValue(bar.value() + direction * bar.pageStep())

    def _on_list_clicked(self, index) -> None:
        if self.queue is not None and index.isValid():
            self.show_document(self.queue.items[index.row()].doc_id)

    def _on_help_triggered(self) -> None:
        if self._sheet is None:
            self._sheet = ShortcutSheet(
                self.view.shortcut_rows(),
                self.view,
                guidelines=self.view.guidelines,
                defined=any(g.definition for g in self.view.scale),
            )
        self._sheet.open()

    def show_instructions(self, first: bool = False) -> InstructionsDialog:
        """The judging instructions (guidelines, grade meanings) in a dialog over the view;
        `first`: before the assessor's first document."""
        if self._instructions is not None:
            self._instructions.close()
            self._instructions.deleteLater()
        dialog = InstructionsDialog(self.view.guidelines, self.view.scale, self.view, first=first)
        dialog.finished.connect(lambda _result: self.view.focus_document())
        self._instructions = dialog
        dialog.open()
        return dialog

    def instructions(self) -> InstructionsDialog | None:
        """The instructions dialog last shown (tests)."""
        return self._instructions

    def _on_unknown_key(self, text: str) -> None:
        grades = ", ".join(f"{g.key} {g.label}" for g in self.view.scale)
        self.view.show_notice(
            f"Nothing was recorded: {text!r} is not a key of this project's scale ({grades}). "
            "F1 lists every key."
        )

    def _on_activity_seen(self) -> None:
        self.timer.touch(self.clock())

    def shortcut_sheet(self) -> ShortcutSheet | None:
        """The shortcut sheet, once F1 or ? has opened it."""
        return self._sheet
