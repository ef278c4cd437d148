"""The judging view's writes: grades, notes and flags go to the writing lane through the
`JudgingService`, and each becomes durable, undoable and shown only once it is committed.

A grade key that finds another process writing waits a moment (`WRITE_TRY_S`), then is
tried again soon (`RETRY_MS`), the window staying live meanwhile; once it has waited
`TELL_AFTER_S` the view says so. Nothing is dropped silently: a judgment that cannot be
recorded is reported, and the key can be pressed again. Undo and redo go through the same
lane, as commands on the shared `QUndoStack`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QMessageBox

from judgeapp.records import JudgmentChange
from judgeapp.services.judging import JudgingError, ProjectBusy
from judgeapp.services.queue import JudgingQueue
from judgeapp.services.workbench import Workbench
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
class PendingGrade:
    """A grade key that waits for another writer to finish before it can be recorded."""

    queue: JudgingQueue  # of the topic open when the key was pressed
    doc: int
    grade: int
    note: str | None
    flagged: bool | None
    spent: float
    since: float


# (the queue, the document, the change committed)
Written = Callable[[JudgingQueue, int, JudgmentChange], None]


class JudgmentWriter(QObject):
    def __init__(
        self,
        view: JudgingView,
        ops: Ops,
        undo_stack: QUndoStack,
        *,
        workbench: Callable[[], Workbench | None],
        clock: Callable[[], float],
        recorded: Written,
        annotated: Written,
        restored: Callable[[JudgmentChange, JudgmentChange], None],
        said: Callable[[str], None],
        parent: QObject | None = None,
    ) -> None:
        """`recorded`, `annotated`: a grade, a note or flag is committed (and on the undo
        stack); `restored(change, result)`: an undo or redo of `change` is; `said(text)`:
        a short confirmation for the status bar."""
        super().__init__(parent)
        self.view = view
        self.ops = ops
        self.undo_stack = undo_stack
        self.workbench = workbench
        self.clock = clock
        self.recorded = recorded
        self.annotated = annotated
        self.restored = restored
        self.said = said
        # notes and flags on unjudged documents wait for their grade
        self.notes: dict[int, str] = {}
        self.flags: dict[int, bool] = {}
        self.pending: PendingGrade | None = None
        self.retry_timer = QTimer(self)
        self.retry_timer.setSingleShot(True)
        self.retry_timer.timeout.connect(self._try_pending)

    # -- grades ---------------------------------------------------------------------------------
    def grade(self, queue: JudgingQueue, doc: int, grade: int, spent: float) -> None:
        """Record `grade` of `doc` (with the note and flag waiting for it)."""
        note = self.notes.pop(doc, None)
        flagged = self.flags.pop(doc, None)
        self.pending = PendingGrade(queue, doc, grade, note, flagged, spent, self.clock())
        self._try_pending()

    def drop_pending(self) -> None:
        self.retry_timer.stop()
        self.pending = None
        self.view.clear_notice()

    def _try_pending(self) -> None:
        """Record the waiting grade key in the writing lane (trying for a moment if another
        process writes), else try again soon."""
        p, wb = self.pending, self.workbench()
        if p is None or wb is None or p.queue.row_of(p.doc) is None:
            self.drop_pending()
            return
        service, qid = wb.judging, p.queue.qid
        if service is None:
            self.drop_pending()
            return

        def record() -> JudgmentChange:
            with wb.short_writes(WRITE_TRY_S):
                return service.record(
                    qid, p.doc, p.grade, note=p.note, flagged=p.flagged, time_spent=p.spent
                )

        self.ops.write(
            record,
            lambda change: self._on_recorded(p, change),
            failed=lambda exc: self._on_record_failed(p, exc),
            what="recording a judgment",
        )

    def _on_record_failed(self, p: PendingGrade, exc: BaseException) -> None:
        if self.pending is not p:
            return  # another topic was opened meanwhile: its view has nothing to say
        if isinstance(exc, ProjectBusy):
            waited = self.clock() - p.since
            if waited >= TELL_AFTER_S:
                docno = p.queue.item(p.doc).docno
                self.view.show_notice(
                    f"Waiting for another writer ({waited:.0f} s): the judgment of {docno} "
                    f"(grade {p.grade}) is saved as soon as the project is free."
                )
            self.retry_timer.start(RETRY_MS)
            return
        # refused (JudgingError) or failed (the store): say so
        self.drop_pending()
        if p.note is not None:
            self.notes.setdefault(p.doc, p.note)
        if p.flagged is not None:
            self.flags.setdefault(p.doc, p.flagged)
        reason = str(exc) if isinstance(exc, JudgingError) else f"{type(exc).__name__}: {exc}"
        self.warn(f"{reason}\n\nNothing was recorded; press the grade key again to retry.")

    def _on_recorded(self, p: PendingGrade, change: JudgmentChange) -> None:
        """The judgment is committed: now it may be undone, shown and broadcast."""
        if self.pending is p:
            self.drop_pending()
        label = self.view.grade_bar.buttons[p.grade].text().split(None, 1)[-1]
        docno = p.queue.item(p.doc).docno
        self.undo_stack.push(JudgmentCommand(f"judge {docno} {label}", change, self.restore))
        self.recorded(p.queue, p.doc, change)

    # -- notes and flags on judged documents ----------------------------------------------------
    def annotate(
        self, queue: JudgingQueue, doc: int, *, note: str | None, flagged: bool | None
    ) -> None:
        wb = self.workbench()
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
            self.undo_stack.push(JudgmentCommand(f"{what} {docno}", change, self.restore))
            self.annotated(queue, doc, change)
            if note is not None:
                self.said(
                    f"Note saved on {docno}." if note.strip() else f"Note removed from {docno}."
                )
            else:
                self.said(f"Flag {'set on' if flagged else 'taken off'} {docno}.")

        def failed(exc: BaseException) -> None:
            if isinstance(exc, ProjectBusy):
                self.warn(BUSY_TEXT)
            elif isinstance(exc, JudgingError):
                self.warn(str(exc))
            else:
                self.warn(f"{type(exc).__name__}: {exc}\n\nNothing was recorded.")

        self.ops.write(annotate, annotated, failed=failed, what="a note or flag")

    # -- undo and redo --------------------------------------------------------------------------
    def restore(self, change: JudgmentChange, undo: bool) -> None:
        """Undo or redo `change` through the judging service (in the writing lane: the undo
        stack has moved already, and this waits for another writer as long as it takes, as
        an undo cannot fail half-way), then `restored(change, result)`."""
        wb = self.workbench()
        service = wb.judging if wb is not None else None
        if service is None:
            return
        self.ops.write(
            lambda: service.restore(change, undo=undo),
            lambda result: self.restored(change, result),
            what="undo" if undo else "redo",
        )

    def warn(self, text: str) -> None:
        box = plain(QMessageBox(QMessageBox.Icon.Warning, "Not recorded", text, parent=self.view))
        box.open()
