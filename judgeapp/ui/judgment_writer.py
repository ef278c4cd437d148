"""The judging view's writes: grades, notes and flags go to the writing lane through the
`JudgingService`; each becomes durable, undoable and broadcast only once it is committed.

A grade key does not wait for its commit: the view shows the next document at once, and
the judged document's row says "saving" until the write is committed (`unsaved`). Grades
given meanwhile queue behind it and are written one after the other, in the order given.
If a write fails (the project refuses it, the disk, the team's lock), that grade and every
one queued behind it are taken back: `refused` returns the view to the first of them and
the view says what was not recorded. Nothing is shown as recorded before its commit.

A grade that finds another process writing waits a moment (`WRITE_TRY_S`), then is tried
again soon (`RETRY_MS`), the window staying live meanwhile; once it has waited
`TELL_AFTER_S` the view says so, and further grade keys are refused until it lands. Undo
and redo go through the same lane, as commands on the shared `QUndoStack`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QMessageBox

from judgeapp.records import JudgmentChange, JudgmentState
from judgeapp.services.judging import JudgingError, JudgingService, ProjectBusy
from judgeapp.services.queue import JudgingQueue
from judgeapp.services.workbench import Workbench
from judgeapp.ui.judging_view import JudgingView
from judgeapp.ui.ops import Ops
from judgeapp.ui.plain import plain
from judgeapp.ui.undo import JudgmentCommand

WRITE_TRY_S = 0.2  # how long one try of a grade key waits for another writer
RETRY_MS = 150  # then it is tried again this soon, the window staying live meanwhile
TELL_AFTER_S = 1.0  # when the view says that the judgment waits
FLUSH_WAIT_S = 5.0  # how long the grades sent as the project or window closes wait
BUSY_TEXT = (
    "Another process is writing to the project (an import, or another assessor's long "
    "change). Nothing was changed; try again in a moment."
)


@dataclass(slots=True)
class PendingGrade:
    """A grade key not yet committed: in the writing lane, queued behind another, or
    waiting for another writer to finish."""

    queue: JudgingQueue  # of the topic open when the key was pressed
    doc: int
    grade: int
    note: str | None
    flagged: bool | None
    spent: float
    since: float
    before: JudgmentState  # the document's judgment before the key (put back on failure)
    workbench: Workbench  # the project, and the assessor's service, of the key
    service: JudgingService
    busy: bool = False  # another writer held the project at its last try
    in_lane: bool = False  # a try is in the writing lane
    last_try: bool = False  # sent as the project or window closed: not tried again

    @property
    def expected(self) -> JudgmentState:
        """The judgment the write will make (shown until it is committed)."""
        b = self.before
        return JudgmentState(
            self.grade,
            b.note if self.note is None else self.note,
            b.flagged if self.flagged is None else self.flagged,
        )


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
        queue: Callable[[], JudgingQueue | None],
        clock: Callable[[], float],
        recorded: Written,
        annotated: Written,
        restored: Callable[[JudgmentChange, JudgmentChange], None],
        refused: Callable[[list[PendingGrade]], None],
        said: Callable[[str], None],
        parent: QObject | None = None,
    ) -> None:
        """`recorded`, `annotated`: a grade, a note or flag is committed (and on the undo
        stack); `restored(change, result)`: an undo or redo of `change` is; `refused(grades)`:
        grades given were not recorded (taken back here, and the warning shown); `said(text)`: a short confirmation for the status bar."""
        super().__init__(parent)
        self.view = view
        self.ops = ops
        self.undo_stack = undo_stack
        self.workbench = workbench
        self.queue = queue  # the open topic's
        self.clock = clock
        self.recorded = recorded
        self.annotated = annotated
        self.restored = restored
        self.refused = refused
        self.said = said
        # notes and flags on unjudged documents wait for their grade
        self.notes: dict[int, str] = {}
        self.flags: dict[int, bool] = {}
        # grades given and not yet committed, in the order given; the first is in the
        # writing lane (or waits for another writer), the others wait for it
        self.unsaved: list[PendingGrade] = []
        self.retry_timer = QTimer(self)
        self.retry_timer.setSingleShot(True)
        self.retry_timer.timeout.connect(self._try_first)

    @property
    def pending(self) -> PendingGrade | None:
        """The first grade not yet committed (None: every grade given is recorded)."""
        return self.unsaved[0] if self.unsaved else None

    @property
    def waiting(self) -> bool:
        """Whether the first grade not yet committed waits for another writer."""
        return bool(self.unsaved) and self.unsaved[0].busy

    def saving(self, queue: JudgingQueue | None) -> set[int]:
        """The documents of `queue` whose grade is not committed yet."""
        return {p.doc for p in self.unsaved if p.queue is queue}

    # -- grades ---------------------------------------------------------------------------------
    def grade(self, queue: JudgingQueue, doc: int, grade: int, spent: float) -> PendingGrade | None:
        """Write `grade` of `doc` (with the note and flag waiting for it) after the grades
        given before it; returns it, not yet committed (None: no project to write to)."""
        wb = self.workbench()
        service = wb.judging if wb is not None else None
        if wb is None or service is None:
            return None
        item = queue.item(doc)
        note = self.notes.pop(doc, None)
        flagged = self.flags.pop(doc, None)
        before = JudgmentState(item.grade, item.note, item.flagged)
        p = PendingGrade(queue, doc, grade, note, flagged, spent, self.clock(), before, wb, service)
        self.unsaved.append(p)
        if len(self.unsaved) == 1:
            # once the frame with the next document is painted: the write's own Python
            # work (3-5 ms of CPU) would otherwise take turns with that frame's
            self.ops.after_paint(self.view.viewer.text.viewport(), self._try_first)
        return p

    def flush(self) -> None:
        """The project, its assessor or the window is about to change or close: every grade
        not yet committed goes to the writing lane now, in order, each waiting longer for
        another writer (`FLUSH_WAIT_S`) and then tried no more; each result still comes
        back (unless the window closes)."""
        self.retry_timer.stop()
        for p in self.unsaved:
            p.last_try = True
            if not p.in_lane:
                self._send(p, FLUSH_WAIT_S)

    def _try_first(self) -> None:
        """Record the first grade not yet committed in the writing lane (trying for a moment
        if another process writes), else try again soon."""
        if not self.unsaved or self.unsaved[0].in_lane or self.retry_timer.isActive():
            return
        self._send(self.unsaved[0], WRITE_TRY_S)

    def _send(self, p: PendingGrade, wait: float) -> None:
        p.in_lane = True
        wb, service, qid = p.workbench, p.service, p.queue.qid

        def record() -> JudgmentChange:
            with wb.short_writes(wait):
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
        p.in_lane = False
        if p not in self.unsaved:
            return  # given up already
        if isinstance(exc, ProjectBusy) and not p.last_try:
            p.busy = True
            waited = self.clock() - p.since
            if waited >= TELL_AFTER_S:
                docno = p.queue.item(p.doc).docno
                self.view.show_notice(
                    f"Waiting for another writer ({waited:.0f} s): the judgment of {docno} "
                    f"(grade {p.grade}) is saved as soon as the project is free."
                )
            self.retry_timer.start(RETRY_MS)
            return
        # refused (JudgingError) or failed (the store): this grade and those behind it
        reason = str(exc) if isinstance(exc, JudgingError) else f"{type(exc).__name__}: {exc}"
        if p.busy:
            self.view.clear_notice()
        # with it, those queued behind it (any already in the lane answer for themselves)
        self._fail([q for q in self.unsaved if q is p or not q.in_lane], reason)

    def _fail(self, grades: list[PendingGrade], reason: str) -> None:
        """`grades` (the last of `unsaved`) are not recorded: taken back, said."""
        self.unsaved = [p for p in self.unsaved if p not in grades]
        for p in reversed(grades):  # each document's judgment as it was before its key
            p.queue.set_state(p.doc, p.before)
            if p.queue is self.queue():  # the note and flag wait for the grade again
                if p.note is not None:
                    self.notes.setdefault(p.doc, p.note)
                if p.flagged is not None:
                    self.flags.setdefault(p.doc, p.flagged)
        self.refused(grades)
        which = ", ".join(f"{p.queue.item(p.doc).docno} (grade {p.grade})" for p in grades)
        what = "The judgment of" if len(grades) == 1 else "The judgments of"
        self.warn(
            f"{what} {which} NOT recorded: {reason}\n\nNothing of it was saved. The document "
            "is shown again: press the grade key again to retry."
        )

    def _on_recorded(self, p: PendingGrade, change: JudgmentChange) -> None:
        """The judgment is committed: now it may be undone, shown and broadcast; the next
        grade given goes to the writing lane."""
        p.in_lane = False
        if p in self.unsaved:  # (the first: never given up while in the lane)
            self.unsaved.remove(p)
        if p.busy:
            self.view.clear_notice()
        if self.unsaved:
            self._try_first()
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
        if doc in self.saving(queue):  # its grade's write would come after the note's
            self.view.show_notice(
                f"Still saving the judgment of {queue.item(doc).docno}: add the note or "
                "flag once it is saved."
            )
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
