"""What the judging view says beside the document's text: the progress line (judged,
saving, relevant, the order), the position line (the document's place and state), the
estimate line with its stopping advice, the grade bar and note of the document shown, and
the list's marks (skipped, flagged waiting for a grade, saving)."""

from __future__ import annotations

from collections.abc import Callable

from judgeapp.pooling.estimate import Estimate
from judgeapp.services.queue import JudgingQueue
from judgeapp.ui.judging_view import JudgingView
from judgeapp.ui.judgment_writer import JudgmentWriter
from judgeapp.ui.stopping_advice import estimate_text


class JudgingStatus:
    def __init__(
        self,
        view: JudgingView,
        writer: JudgmentWriter,
        *,
        queue: Callable[[], JudgingQueue | None],
        current: Callable[[], int | None],
    ) -> None:
        """`queue()`, `current()`: the open topic's queue and the document shown; `writer`
        holds the notes and flags waiting for a grade and the grades being saved."""
        self.view = view
        self.writer = writer
        self.queue = queue
        self.current = current
        # the main controller's latest estimates ({qid: Estimate}); none in blind mode
        self.estimates: dict[str, Estimate] = {}

    def show_marks(self) -> None:
        """Skipped documents and flags waiting for their grade, as the list shows them."""
        queue = self.queue()
        if queue is None:
            return
        self.view.list_model.set_marks(
            queue.skipped, set(self.writer.flags), self.writer.saving(queue)
        )

    def show_state(self) -> None:
        """The grade bar and the note of the document shown."""
        queue, current = self.queue(), self.current()
        if queue is None or current is None:
            return
        item = queue.item(current)
        flagged = self.writer.flags.get(current, item.flagged)
        self.view.grade_bar.show_state(item.grade, flagged)
        self.view.note.setText(self.writer.notes.get(current, item.note))

    def show_estimates(self, estimates: dict[str, Estimate]) -> None:
        """New estimates of the relevant documents left (the topic list's, computed after a
        pause in the judging): the open topic's is shown with its stopping advice."""
        self.estimates = dict(estimates)
        self.show_estimate()

    def show_estimate(self) -> None:
        queue = self.queue()
        estimate = self.estimates.get(queue.qid) if queue is not None else None
        if estimate is None:
            self.view.show_estimate("")
            return
        text, detail = estimate_text(estimate)
        self.view.show_estimate(text, detail)

    def update_labels(self) -> None:
        """The estimate, progress and position lines."""
        self.show_estimate()
        queue, current = self.queue(), self.current()
        if queue is None:
            self.view.progress_label.setText("")
            self.view.position_label.setText("")
            return
        pooled, judged, relevant = queue.counts()
        order = queue.order.name
        saving = len(self.writer.saving(queue))
        self.view.progress_label.setText(
            f"{judged} of {pooled} judged"
            + (f" ({saving} saving)" if saving else "")
            + f" · {relevant} relevant · {order} order"
        )
        if current is None:
            self.view.position_label.setText("")
            return
        row = queue.row_of(current)
        if row is None:
            self.view.position_label.setText("")
            return
        item = queue.item(current)
        state = self.view.list_model.state_text(item)
        if item.grade is None and self.writer.flags.get(current):
            state += ": the flag is saved with the grade"
        self.view.position_label.setText(f"Document {row + 1} of {pooled}  ·  {state}")
