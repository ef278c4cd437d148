"""Wires the judging view to a judging queue: keys, undo, notes, flags, time.

Nothing here waits for the database (`judgeapp.ui.ops`): a topic's queue is built in a
worker, and the texts of its pooled documents are read there with a full-text index of them
for the search box, so the next document and every search come from memory. A grade goes
to the writing lane through `JudgingService`, and the next document appears at once: the
judged document's row says "saving" until the judgment is committed; only then is it pushed
on the shared `QUndoStack` and re-broadcast as `changed(Changes)` for the other views. A
judgment whose write fails is taken back and its document shown again, with the reason.

Its parts, each in a module of its own: the writes of grades, notes and flags
(`judgment_writer`), which rows the list shows under the filter and the search box
(`judging_list`), the judging order's model (`order_training`), the shortcut sheet and the
instructions (`judging_help`), the lines, grade bar and marks beside the document
(`judging_status`, with the estimate line's words from `stopping_advice`), and the reading
of a topic in a worker (`topic_loading`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QUndoStack

from judgeapp.pooling.estimate import Estimate
from judgeapp.records import DocumentRecord, GradeInfo, JudgmentChange, TopicRecord
from judgeapp.services.highlight import Highlighter, parse_user_terms, topic_terms
from judgeapp.services.queue import JudgingQueue
from judgeapp.services.search import PoolIndex
from judgeapp.services.timing import ActiveTimer
from judgeapp.services.workbench import Workbench
from judgeapp.ui.dialogs import InstructionsDialog, ShortcutSheet
from judgeapp.ui.judging_help import JudgingHelp
from judgeapp.ui.judging_list import DocumentList
from judgeapp.ui.judging_status import JudgingStatus
from judgeapp.ui.judging_view import JudgingView
from judgeapp.ui.judgment_writer import JudgmentWriter, PendingGrade
from judgeapp.ui.ops import Ops
from judgeapp.ui.order_training import OrderTraining
from judgeapp.ui.topic_loading import TopicLoad, read_topic
from judgeapp.ui.worker import Worker


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
        # judgments recorded here whose news waits for the next document's paint (`follow`)
        self._following: list[JudgmentChange] = []
        self._frame_due = False  # a grade key's next document is not painted yet
        # what a grade key leaves to the frame after the one showing the next document: the
        # list's selection and the lines around the document (`_show_in_list`), and the
        # rows of the documents judged (their "saving" marks)
        self._list_due = False
        self._rows_due: set[int] = set()
        self._show_after_load: int | None = None
        self.notice_after_load: str | None = None  # said once the topic being read is shown
        self.notice_after_show: str | None = None  # said with the next document shown
        self.help = JudgingHelp(view)  # the shortcut sheet and the instructions
        self._textless_warned: int | None = None  # a document without text, grade key once
        # the next topic with work left after a qid (set by the main controller)
        self.next_topic_finder: Callable[[str], str | None] | None = None
        # an order that learns from the judgments (cal) refits its model in a lane of its
        # own (judgeapp.ui.order_training)
        self.trainer = OrderTraining(self.ops, lambda: self.queue, view.show_notice)
        # grades, notes and flags in the writing lane (judgeapp.ui.judgment_writer)
        self.writer = JudgmentWriter(
            view,
            self.ops,
            undo_stack,
            workbench=lambda: self.workbench,
            queue=lambda: self.queue,
            clock=lambda: self.clock(),
            recorded=self._on_recorded,
            annotated=self._on_annotated,
            restored=self._on_restored,
            refused=self._on_not_recorded,
            said=self.said.emit,
            parent=self,
        )
        # which rows the list shows: the filter and the search box (judgeapp.ui.judging_list)
        self.list = DocumentList(
            view,
            self.ops,
            queue=lambda: self.queue,
            current=lambda: self.current,
            index=lambda: self.pool_index,
            workbench=lambda: self.workbench,
            show=self.show_document,
            flags=self.writer.flags,
        )
        # the progress, position and estimate lines, the grade bar and the list's marks
        # (judgeapp.ui.judging_status)
        self.status = JudgingStatus(
            view, self.writer, queue=lambda: self.queue, current=lambda: self.current
        )
        self._connect()

    # -- wiring: every signal of the view is connected here --------------------------------
    def _connect(self) -> None:
        v = self.view
        acts = v.actions_by_name
        acts["flag"].triggered.connect(self._on_flag_triggered)
        acts["skip"].triggered.connect(self._on_skip_triggered)
        acts["next_unjudged"].triggered.connect(self._on_next_unjudged_triggered)
        acts["next"].triggered.connect(lambda: self.list.step(+1))
        acts["previous"].triggered.connect(lambda: self.list.step(-1))
        acts["note"].triggered.connect(self._on_note_triggered)
        acts["terms"].triggered.connect(self._on_terms_triggered)
        acts["search"].triggered.connect(self.list.on_search_triggered)
        acts["page_down"].triggered.connect(lambda: self._on_page_triggered(+1))
        acts["page_up"].triggered.connect(lambda: self._on_page_triggered(-1))
        acts["document_end"].triggered.connect(lambda: self._on_document_edge_triggered(+1))
        acts["document_start"].triggered.connect(lambda: self._on_document_edge_triggered(-1))
        acts["filter_next"].triggered.connect(lambda: self.list.on_filter_step_triggered(+1))
        acts["filter_previous"].triggered.connect(lambda: self.list.on_filter_step_triggered(-1))
        acts["next_topic"].triggered.connect(self._on_next_topic_triggered)
        acts["back_to_document"].triggered.connect(self._on_back_to_document_triggered)
        acts["help"].triggered.connect(self._on_help_triggered)
        acts["instructions"].triggered.connect(lambda: self.help.show_instructions())
        v.grade_requested.connect(self._on_grade_requested)
        v.grade_bar.flag_button.clicked.connect(self._on_flag_triggered)
        v.grade_bar.skip_button.clicked.connect(self._on_skip_triggered)
        v.grade_bar.next_button.clicked.connect(self._on_next_unjudged_triggered)
        v.note.returnPressed.connect(self._on_note_return_pressed)
        v.terms.editingFinished.connect(self._on_terms_edited)
        v.terms.returnPressed.connect(self._on_terms_return_pressed)
        v.filter.currentIndexChanged.connect(self.list.on_filter_changed)
        v.search.textChanged.connect(self.list.on_search_text_changed)
        v.search.returnPressed.connect(self.list.on_search_return_pressed)
        v.list.clicked.connect(self._on_list_clicked)
        v.activity_seen.connect(self._on_activity_seen)
        v.unknown_key.connect(self._on_unknown_key)

    # -- project and topic -----------------------------------------------------------------------
    READS = ("topic", "texts", "document", "pool search", "scale")

    def set_workbench(self, workbench: Workbench | None) -> None:
        self._following = []  # (told already: the main controller calls `follow` first)
        self.writer.flush()  # (the main controller flushes first when the project closes)
        self.ops.invalidate(*self.READS)
        self.status.estimates = {}
        self.workbench = workbench
        self.undo_stack.clear()
        self._forget_topic()
        self.queue = None
        self.current = None
        self.topic = None
        self.loading = None
        self.view.viewer.clear()
        self.list.set_items([], blind=True)
        self.view.topic_panel.show_topic(None)
        self.status.update_labels()

    def _forget_topic(self) -> None:
        self._list_due = False
        self._rows_due = set()
        self.records = {}
        self.texts_loaded = False
        if self.pool_index is not None:
            index, self.pool_index = self.pool_index, None
            self.ops.read(index.close, what="closing a pool's index")  # after its searches
        self.list.forget_search()

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
            self.help.scale_changed()
        self.view.set_guidelines(guidelines)
        queue = self.queue
        if queue is not None and (new_scale or queue.relevant_from != relevant_from):
            queue.relevant_from = relevant_from
            self.list.set_items(queue.items, blind=queue.blind)
            self.list.apply()
            if self.current is not None:
                self.view.select_row(queue.row_of(self.current))
                self.status.show_state()
            self.status.update_labels()

    def open_topic(self, qid: str, show: int | None = None) -> bool:
        """Open topic `qid`: its queue is read in a worker, then its first unjudged
        document (or `show`) appears and `topic_opened` is emitted. False when there is
        nothing to open it with (no project or assessor)."""
        wb = self.workbench
        if wb is None or wb.judging is None:
            return False
        self.loading = qid
        self._show_after_load = show
        # the instructions before the first document an assessor judges in a project with
        # guidelines: asked once a session (whether they judged anything: in the worker)
        who = (wb.path, wb.judging.assessor.name)
        ask = bool(self.view.guidelines.strip()) and who not in self.help.instructed
        self.ops.read(
            lambda: read_topic(wb, qid, show, ask),
            self._on_topic_loaded,
            key="topic",
            failed=self._on_read_failed,
        )
        return True

    def _on_topic_loaded(self, load: TopicLoad) -> None:
        wb = self.workbench
        if wb is None:
            return
        self.loading = None
        self.follow()
        self.ops.invalidate("texts", "document", "pool search")
        self._forget_topic()
        queue, topic, qid = load.queue, load.topic, load.qid
        self.topic = topic
        self.view.topic_panel.show_topic(topic)
        self.view.viewer.forget_positions()
        self.view.search.blockSignals(True)
        self.view.search.clear()
        self.view.search.blockSignals(False)
        self.writer.notes.clear()
        self.writer.flags.clear()
        self.queue = queue
        self.current = None
        self.trainer.train(changed=True)
        words = topic_terms(topic.title, topic.description, topic.narrative) if topic else []
        self.view.terms.setText(load.terms)
        self.view.viewer.set_highlighter(
            Highlighter.build(words, parse_user_terms(self.view.terms.text()))
        )
        if queue is None:
            self.list.set_items([], blind=True)
            self.view.viewer.clear()
            self.view.viewer.set_header(
                "This topic has no pool yet.",
                "Build a pool (Judging ▸ Build pool…) to start judging.",
            )
            self.status.update_labels()
            self.topic_opened.emit(qid)
            return
        if load.record is not None:
            self.records[load.record.doc_id] = load.record
        self.list.set_items(queue.items, blind=queue.blind)
        self.view.viewer.set_search_terms([])
        self.list.apply()
        self.view.configure_list()
        if not wb.read_only:
            self.ops.write(lambda: wb.remember_topic(qid), what="remembering the topic")
        self.topic_opened.emit(qid)
        self.show_document(load.first)
        if load.instruct:
            self.help.instructed.add((wb.path, wb.judging.assessor.name if wb.judging else ""))
            self.help.show_instructions(first=True)
        if self.notice_after_load:
            self.view.show_notice(self.notice_after_load)
        self.notice_after_load = None
        # every pooled document's text, and an index of them for the search box: once the
        # document is painted and nothing else runs for the window (600-800 ms of indexing
        # at 2,000 documents a topic, which took turns for the interpreter lock with the
        # GUI thread while it painted the topic)
        opened = self.ops.generation("texts")
        self.ops.when_quiet(lambda: self._read_texts(opened))

    def _read_texts(self, opened: int) -> None:
        wb, queue = self.workbench, self.queue
        if wb is None or queue is None or self.ops.stale("texts", opened):
            return  # another topic (or project) came meanwhile: it reads its own
        self.ops.read(lambda: wb.pool_texts(queue), self._on_texts_loaded, key="texts")

    def _on_texts_loaded(self, found: tuple[dict[int, DocumentRecord], PoolIndex]) -> None:
        records, index = found
        self.records.update(records)
        self.texts_loaded = True
        self.pool_index = index
        if self.view.search.text().strip():
            self.list.on_search_text_changed(self.view.search.text())  # typed while it loaded

    def _on_read_failed(self, exc: BaseException) -> None:
        self.loading = None
        self.view.show_notice(f"The topic could not be read: {exc}")

    # -- showing -----------------------------------------------------------------------------------
    def show_document(self, doc_id: int | None, *, list_after_frame: bool = False) -> None:
        """Show `doc_id` (None: the topic is finished). `list_after_frame` (a grade key):
        the list's selection and the lines around the document follow once the frame with
        the document is painted (`_catch_up`), so that the frame holds only the document,
        its header lines and its grade bar."""
        queue, wb = self.queue, self.workbench
        if queue is None or wb is None:
            return
        self.current = doc_id
        self._textless_warned = None
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
            list_after_frame = False
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
            self.status.show_state()
        self.view.actions_by_name["next_topic"].setEnabled(doc_id is None)
        self.timer.start(self.clock())
        if list_after_frame:
            self._list_due = True
        else:
            self._show_in_list()
        self.view.focus_document()
        if doc_id is not None:
            self.document_shown.emit(doc_id)

    def _show_in_list(self) -> None:
        """The list and the lines around the document follow the document shown: its row
        selected (the row kept for the reader before shown as the filter says), the marks,
        the progress, position and estimate lines."""
        self._list_due = False
        queue, doc_id = self.queue, self.current
        if queue is None:
            return
        kept, self.list.kept = self.list.kept, None
        if kept is not None and kept != doc_id and queue.row_of(kept) is not None:
            self.list.apply(kept)  # the reader moved on: its row as the filter says
        self.view.select_row(None if doc_id is None else queue.row_of(doc_id))
        self.status.show_marks()
        self.status.update_labels()

    def _catch_up(self) -> None:
        """After a grade key's frame: the rows of the documents judged (saving) and the
        list's selection and lines (`show_document(list_after_frame=True)`)."""
        rows, self._rows_due = self._rows_due, set()
        queue = self.queue
        if queue is None:
            return
        self.status.show_marks()
        for doc in rows:
            if queue.row_of(doc) is not None:
                self._refresh_row(doc)
        if self._list_due:
            self._show_in_list()
        elif rows:
            self.status.update_labels()

    def _on_document_read(self, doc_id: int, record: DocumentRecord | None) -> None:
        if record is not None:
            self.records[doc_id] = record
        queue = self.queue
        if doc_id == self.current and queue is not None and queue.row_of(doc_id) is not None:
            self.view.viewer.show_document(doc_id, queue.item(doc_id).docno, record)

    def _next_topic(self, qid: str) -> str | None:
        finder = self.next_topic_finder
        return None if finder is None else finder(qid)

    def show_estimates(self, estimates: dict[str, Estimate]) -> None:
        """New estimates of the relevant documents left (`JudgingStatus.show_estimates`)."""
        self.status.show_estimates(estimates)

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
        if self.writer.waiting:
            self.view.show_notice(
                "Still saving the judgment before: another process is writing to the project. "
                "It is saved as soon as the project is free; then judge this one."
            )
            return
        p = self.writer.grade(queue, doc, grade, self.timer.take(self.clock()))
        if p is None:
            return
        # the next document at once, the judgment on its way to the writing lane (its row
        # says "saving" until it is committed; the order proposes the next document as if
        # it were); the rest of the window hears of it once it is committed and the frame
        # that shows the next document is painted, so that none of it delays that frame
        queue.expect(doc, p.expected)
        self._rows_due.add(doc)
        self._frame_due = True
        self._show_next(doc, list_after_frame=True)
        self.ops.after_paint(self.view.viewer.text.viewport(), self._on_frame_painted)

    def _on_frame_painted(self) -> None:
        self._frame_due = False
        self._catch_up()
        self.follow()

    def _on_recorded(self, queue: JudgingQueue, doc: int, change: JudgmentChange) -> None:
        """The judgment is committed (and may be undone): now its row says so, and it is
        broadcast (once the key's frame is painted)."""
        if queue is not self.queue:  # another topic is open now: only say it happened
            self.follow()
            self.judgment_recorded.emit(change)
            self.changed.emit(change.changes)
            return
        queue.recorded(change)
        self._following.append(change)
        self.status.show_marks()
        self._refresh_item(doc)
        if not self._frame_due:
            self.follow()

    def _on_not_recorded(self, grades: list[PendingGrade]) -> None:
        """Grades given were not recorded (taken back and said by `JudgmentWriter`): the
        view goes back to the first of them in the open topic."""
        mine = [p for p in grades if p.queue is self.queue]
        self.status.show_marks()
        for p in mine:
            self._refresh_row(p.doc)
        if mine and self.queue is not None:
            more = f" and {len(mine) - 1} after it" if len(mine) > 1 else ""
            docno = self.queue.item(mine[0].doc).docno
            self.notice_after_show = f"Not recorded: the grade {mine[0].grade} of {docno}{more}."
            self.show_document(mine[0].doc)

    def follow(self) -> None:
        """Tell the rest of the window about the judgments recorded here (in order)."""
        following, self._following = self._following, []
        for change in following:
            if self.queue is not None and change.qid == self.queue.qid:
                self.trainer.train(changed=True)
            self.judgment_recorded.emit(change)
            self.changed.emit(change.changes)

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
        self.trainer.train(changed=True)
        judged_elsewhere = (
            current is not None
            and fresh.row_of(current) is not None
            and queue.item(current).grade != fresh.item(current).grade
        )
        if judged_elsewhere:
            self.list.kept = current
        self.list.set_items(fresh.items, blind=fresh.blind)
        self.list.apply()
        if current is None or fresh.row_of(current) is None:
            self.show_document(fresh.next_unjudged(current))
            return
        # the reader stays on the document: never replaced under them
        self.view.select_row(fresh.row_of(current))
        self.status.show_state()
        self.status.show_marks()
        self.status.update_labels()
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
                self.writer.notes[doc] = note
            if flagged is not None:
                self.writer.flags[doc] = flagged
            self.status.show_state()
            self.status.show_marks()
            self.list.apply(doc)
            self.status.update_labels()
            return
        self.writer.annotate(queue, doc, note=note, flagged=flagged)

    def _on_annotated(self, queue: JudgingQueue, doc: int, change: JudgmentChange) -> None:
        self.follow()  # the news in the order the changes were made
        if queue is self.queue:
            queue.apply(change)
            self._refresh_item(doc)
        self.changed.emit(change.changes)

    def _on_restored(self, change: JudgmentChange, result: JudgmentChange) -> None:
        self.follow()
        queue = self.queue
        if queue is None or queue.qid != change.qid:
            self.changed.emit(result.changes)
            self.open_topic(change.qid, show=change.doc_id)
            return
        queue.apply(result)
        self.trainer.train(changed=True)
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
        self.trainer.train(changed=True)
        self._refresh_item(change.doc_id)

    def _refresh_item(self, doc: int) -> None:
        if self.queue is None:
            return
        self._refresh_row(doc)
        if doc == self.current:
            self.status.show_state()
        self.status.update_labels()

    def _refresh_row(self, doc: int) -> None:
        """The list's row of `doc` (of the open queue), as the list's filter shows it."""
        assert self.queue is not None
        self.view.list_model.update_item(self.queue.item(doc))
        self.list.apply(doc)

    # -- slots -----------------------------------------------------------------------------------
    def _on_flag_triggered(self) -> None:
        if self.queue is None or self.current is None:
            return
        item = self.queue.item(self.current)
        flagged = self.writer.flags.get(self.current, item.flagged)
        self._annotate(self.current, flagged=not flagged)

    def _on_skip_triggered(self) -> None:
        if self.queue is None or self.current is None:
            return
        self.queue.skip(self.current)
        self._show_next(self.current)

    def _on_next_unjudged_triggered(self) -> None:
        if self.queue is not None:
            self._show_next(self.current)

    def _show_next(self, current: int | None, *, list_after_frame: bool = False) -> None:
        """The next document to judge after `current` (`DocumentList.next_to_judge`)."""
        doc, notice = self.list.next_to_judge(current)
        if notice is not None:
            self.notice_after_show = notice
        self.show_document(doc, list_after_frame=list_after_frame)

    def _on_note_triggered(self) -> None:
        self.view.note.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.view.note.selectAll()

    def _on_note_return_pressed(self) -> None:
        if self.queue is not None and self.current is not None:
            text = self.view.note.text().strip()
            item = self.queue.item(self.current)
            if text != self.writer.notes.get(self.current, item.note):
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

    def _on_back_to_document_triggered(self) -> None:
        if self.view.search.hasFocus() and self.view.search.text():
            self.view.search.clear()
        if self.view.note.hasFocus() and self.current is not None and self.queue is not None:
            # Esc leaves the note as it was saved
            item = self.queue.item(self.current)
            self.view.note.setText(self.writer.notes.get(self.current, item.note))
        self.view.clear_notice()
        self.view.focus_document()

    # -- the document and the topic ---------------------------------------------------------------
    def _on_document_edge_triggered(self, direction: int) -> None:
        if direction > 0:
            self.view.viewer.hold_all()  # the end of a long text, not of what has come so far
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
            self.list.on_search_return_pressed()
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

    def _on_unknown_key(self, text: str) -> None:
        grades = ", ".join(f"{g.key} {g.label}" for g in self.view.scale)
        self.view.show_notice(
            f"Nothing was recorded: {text!r} is not a key of this project's scale ({grades}). "
            "F1 lists every key."
        )

    def _on_activity_seen(self) -> None:
        self.timer.touch(self.clock())

    @property
    def pending(self) -> PendingGrade | None:
        """The first grade key not yet committed (judgeapp.ui.judgment_writer)."""
        return self.writer.pending

    @property
    def training(self) -> Worker | None:
        """The fit of the judging order's model running (judgeapp.ui.order_training)."""
        return self.trainer.worker

    # -- help (judgeapp.ui.judging_help) -------------------------------------------------------
    def _on_help_triggered(self) -> None:
        self.help.show_sheet()

    def show_instructions(self, first: bool = False) -> InstructionsDialog:
        """The judging instructions (guidelines, grade meanings) in a dialog over the view;
        `first`: before the assessor's first document."""
        return self.help.show_instructions(first)

    def instructions(self) -> InstructionsDialog | None:
        """The instructions dialog last shown (tests)."""
        return self.help.instructions

    def shortcut_sheet(self) -> ShortcutSheet | None:
        """The shortcut sheet, once F1 or ? has opened it."""
        return self.help.sheet
