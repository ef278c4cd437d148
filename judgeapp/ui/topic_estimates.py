"""The topic list's "estimated missing relevant": each judged topic's estimate of the
relevant documents not found yet, computed in a worker of its own after a pause in the
judging (never competing with a grade key), dropped whole when the project, pool or
assessor changes. A blind assessor gets none (an estimate of what is left biases when to
stop)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from PySide6.QtCore import QObject, QTimer

from judgeapp.lasting import import_for_good
from judgeapp.pooling.estimate import Estimate
from judgeapp.services.rows import TopicRow
from judgeapp.ui.window_context import WindowContext
from judgeapp.ui.worker import Worker

ESTIMATE_DELAY_MS = 800  # the topic list's estimates wait for a pause in the judging


class TopicEstimates(QObject):
    def __init__(
        self,
        ctx: WindowContext,
        shown: Callable[[dict[str, Estimate]], None],
        parent: QObject | None = None,
    ) -> None:
        """`shown(estimates)`: called with every estimate now shown (the judging view's)."""
        super().__init__(parent)
        self.ctx = ctx
        self.shown = shown
        self.estimates: dict[str, Estimate] = {}
        self.pending: set[str] | None = set()  # None: every judged topic
        self.worker: Worker | None = None
        self.generation = 0
        self.starting = 0  # starts waiting for the window to be quiet (Ops.when_quiet)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(ESTIMATE_DELAY_MS)
        self.timer.timeout.connect(self._run)

    def with_estimate(self, row: TopicRow) -> TopicRow:
        """`row` with the estimate known for its topic (none: the columns empty)."""
        est = self.estimates.get(row.qid)
        if est is None:
            return dataclasses.replace(row, missing=None, missing_low=None, missing_high=None)
        low, high = est.missing_interval
        return dataclasses.replace(row, missing=est.missing, missing_low=low, missing_high=high)

    def request(self, qids: Iterable[str] | None = None, *, delay: bool = True) -> None:
        """Estimate again the topics `qids` (every judged topic: None), after a pause."""
        if self.ctx.blind:
            return
        if qids is None:
            self.pending = None
        elif self.pending is not None:
            self.pending |= set(qids)
        self.timer.start(ESTIMATE_DELAY_MS if delay else 0)

    def reset(self) -> None:
        """Another project, pool or assessor: every estimate shown is void."""
        self.generation += 1
        if self.worker is not None:
            self.worker.cancel()
        self.estimates = {}
        # the rows shown lose the void estimates at once, not when the new ones arrive
        model = self.ctx.window.topics_view.model
        for row in model.rows():
            if row.missing is not None:
                model.update_row(self.with_estimate(row))
        self.request(None, delay=False)

    def hide(self) -> None:
        """The assessor now judges blind: no estimate is computed or shown."""
        self.stop()
        self.estimates = {}
        self.shown({})
        view = self.ctx.window.topics_view
        view.model.show_estimates = False
        view.show_estimates(False)

    def settled(self) -> bool:
        """No estimate running or waiting (screenshots, tests)."""
        return self.worker is None and not self.timer.isActive() and not self.starting

    def stop(self) -> None:
        self.timer.stop()
        self.generation += 1
        if self.worker is not None:
            self.worker.cancel()  # its result is for the project closing

    def _run(self) -> None:
        """Start once the window is quiet: not while it takes in and paints what it asked
        for (a project's opening: its last topic), as the first estimates of a process take
        100-130 ms of Python, which would share the interpreter lock with that painting."""
        self.starting += 1
        gen = self.generation
        self.ctx.ops.when_quiet(lambda: self._start(gen))

    def _start(self, asked: int) -> None:
        self.starting -= 1
        wb = self.ctx.workbench
        if wb is None or asked != self.generation:
            return  # stopped meanwhile (a reset asks again for itself)
        if self.worker is not None:
            return  # started again when the running one is done
        qids, self.pending = self.pending, set()
        if qids is not None and not qids:
            return
        gen = self.generation

        def estimate(progress):
            # the estimator's scipy, imported the first time here: frozen (judgeapp.lasting)
            import_for_good("scipy.stats", "scipy.special")
            return wb.topic_estimates(qids, progress)

        worker = self.ctx.ops.read(
            estimate,
            lambda result: self._on_estimates(gen, qids, result),
            failed=lambda _exc: None,  # cancelled, or the pool went away: nothing to show
            lane="estimates",
            what="estimates",
            cancellable=True,
            finished=self._on_finished,
        )
        self.worker = worker

    def _on_estimates(self, gen: int, qids, result: dict[str, Estimate]) -> None:
        if gen != self.generation:
            return  # for another project, pool or assessor
        if qids is None:
            self.estimates = dict(result)
        else:
            for qid in qids:
                self.estimates.pop(qid, None)
            self.estimates.update(result)
        view = self.ctx.window.topics_view
        for row in view.model.rows():
            new = self.with_estimate(row)
            if new != row:
                view.model.update_row(new)
        view.model.show_estimates = bool(self.estimates)
        view.show_estimates(bool(self.estimates))
        self.shown(dict(self.estimates))

    def _on_finished(self) -> None:
        self.worker = None
        if self.pending is None:
            self.timer.start(0)  # a reset came while it ran
        elif self.pending:
            # judgments came while it ran: they wait for the next pause too (started at
            # once, estimates would follow the judging back to back, competing with it)
            self.timer.start(ESTIMATE_DELAY_MS)
