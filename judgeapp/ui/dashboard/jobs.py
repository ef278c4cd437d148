"""The dashboard's evaluation jobs: the full evaluation and the updates of changed topics.

`changes_applied(Changes)` marks the changed topics dirty and starts a short single-shot
timer (which also lets the judging view show its next document first). The update then
re-reads those topics, recomputes them for every run and takes a snapshot, in the
dashboard's lane of the window's ops (judgeapp.ui.ops: one thread, so updates run one after
another, in order, and never on the GUI thread: at TREC scale one topic's update took 10-16
ms, linear in the number of runs). Judgments that come while one runs are dirty topics for
the next update, and the result it brings is stale: it is dropped (up to MAX_HELD in a row)
and the next update starts at once, so a burst of judgments is shown once. Every job is
tagged with the evaluation's generation: a result from before a reload (another project,
filter or measure set) is dropped too. With `threaded=False` everything runs on the GUI
thread (tests of the dashboard's own logic). Out of sight, the dirty topics wait until the
dashboard is shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer

from judgeapp.lasting import import_for_good
from judgeapp.records import Changes
from judgeapp.services.live_eval import LiveEvaluation, Snapshot
from judgeapp.ui.dashboard.parts import LANE, DashboardParts

# judgments closer than this go together (and any while an update runs); long enough for
# the judging view to paint the next document before the update starts in the worker
COALESCE_MS = 30
MAX_HELD = 3  # stale results dropped in a row before one is shown anyway


class EvaluationJobs(QObject):
    """Keeps `dash.jobs.live` (the LiveEvaluation) in step with the judgments and hands
    each snapshot to the dashboard's display."""

    def __init__(
        self, dash: DashboardParts, *, threaded: bool, coalesce_ms: int = COALESCE_MS
    ) -> None:
        super().__init__(dash)
        self.dash = dash
        self.threaded = threaded
        self.live: LiveEvaluation | None = None
        self.generation = 0
        self.dropped = 0  # stale results dropped
        self.last_error: str | None = None
        self.last_latency: float | None = None  # seconds from a change to its snapshot shown
        self.dirty: set[str] = set()  # topics changed since the last update
        self.busy = False  # an evaluation or update is running
        self._view_dirty = False  # a new snapshot is wanted though no topic changed
        self._reload_requested = False
        self._pool_changed = False
        self._dirty_since: float | None = None
        self._held = 0
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(coalesce_ms)
        self._connect()

    def _connect(self) -> None:
        self.timer.timeout.connect(self._on_timer_timeout)
        self.dash.view.shown.connect(self._on_view_shown)

    # -- running work ----------------------------------------------------------------------------
    def submit(self, fn: Callable[[], Any], done: Callable[[Any], None], lane: str = LANE) -> None:
        """Run `fn` in the ops lane `lane` (with `threaded=False`: now, on this thread) and
        hand its result to `done`."""
        if not self.threaded:
            try:
                result = fn()
            except Exception as exc:
                self._on_job_failed(exc)
                return
            done(result)
            return
        self.dash.ops.read(fn, done, failed=self._on_job_failed, lane=lane, what="dashboard")

    def _on_job_failed(self, exc: BaseException) -> None:
        self.busy = False
        self.last_error = f"{type(exc).__name__}: {exc}"
        self.dash.view.status.setText(f"Evaluation failed: {exc}")
        self.dash.failed.emit(self.last_error)

    # -- the full evaluation -------------------------------------------------------------------
    def reload(self) -> None:
        """Evaluate everything again (new project, filter, measures, runs or qrels); for a
        blind assessor, nothing (done when the dashboard comes back)."""
        if self.dash.blinded:
            self.generation += 1
            self.live = None
            return
        wb = self.dash.workbench
        self.generation += 1
        self.dirty.clear()
        self._view_dirty = False
        if wb is None:
            return
        gen = self.generation
        config = self.dash.config
        topic = self.dash.progress_topic
        self.busy = True
        self._dirty_since = time.perf_counter()
        self.dash.view.status.setText("Evaluating every run…")

        def work() -> tuple[LiveEvaluation, Snapshot]:
            # the table's confidence intervals need scipy.stats: imported here, in the
            # worker, before the snapshot is shown (2.3 s of CPU on the GUI thread else),
            # and frozen (judgeapp.lasting: the collector's passes over it held the
            # interpreter lock 35-45 ms while the GUI thread waited)
            import_for_good("scipy.stats")

            live = wb.live_evaluation(config, generation=gen, pool=wb.pool_name())
            return live, live.snapshot(topic)

        def start() -> None:
            if gen == self.generation:  # else a newer reload (or a stop) came meanwhile
                self.submit(work, lambda result: self._on_loaded(gen, result))

        if not self.threaded:
            start()
            return
        # once the window has taken in and painted what it asked for (a project's opening:
        # the topic list, then its last topic): reading every run's ranked lists is some
        # 200 ms of Python, which took turns for the interpreter lock with the GUI thread
        # painting them, stretching its 20-40 ms into stalls of 50-120 ms on PostgreSQL
        self.dash.ops.when_quiet(start)

    def _on_loaded(self, gen: int, result: tuple[LiveEvaluation, Snapshot]) -> None:
        if gen != self.generation:
            self.dropped += 1
            return
        self.live, snapshot = result
        self.busy = False
        self.dash.display.show(snapshot, fresh=True)
        self._resubmit_if_dirty()

    # -- updates of changed topics -------------------------------------------------------------
    def take_changes(self, changes: Changes) -> None:
        """Mark what `changes` touched for the next update (or ask for a full evaluation)."""
        if changes.runs or changes.assessors or changes.topic_list or changes.scale:
            self._reload_requested = True
            if not self.busy:
                self._reload_requested = False
                self.reload()
            return
        if changes.pools:
            self._view_dirty = True
            self._pool_changed = True
        if changes.topics:
            self.dirty |= set(changes.topics)
            if changes.judged:
                self.dash.progress_topic = changes.judged[-1][0]
            elif len(changes.topics) == 1:
                self.dash.progress_topic = next(iter(changes.topics))
        if self._dirty_since is None:
            self._dirty_since = time.perf_counter()
        self.schedule()

    def refresh_view(self) -> None:
        """A new snapshot though no topic changed (the progress plot's topic)."""
        self._view_dirty = True
        self.schedule()

    def schedule(self) -> None:
        if not self.timer.isActive():  # a throttle, not a debounce: a long burst still updates
            self.timer.start()

    def _on_view_shown(self) -> None:
        if self.dirty or self._view_dirty or self._reload_requested:
            self.schedule()  # what changed while it was hidden

    def _on_timer_timeout(self) -> None:
        if self.busy or self.live is None:
            return  # picked up when the running job is done
        if not self.dash.view.isVisible():
            return  # nobody looks: the changed topics wait until it is shown
        if self._reload_requested:
            self._reload_requested = False
            self.reload()
            return
        if not self.dirty and not self._view_dirty:
            return
        qids, self.dirty = self.dirty, set()
        self._view_dirty = False
        live, gen = self.live, self.generation
        topic = self.dash.progress_topic
        repool, self._pool_changed = self._pool_changed, False
        wb = self.dash.workbench
        assessor = wb.assessor if wb is not None else None
        self.busy = True

        def work() -> Snapshot:
            if repool and wb is not None:
                live.set_pool(wb.pool_name())
            live.update(qids, assessor)
            return live.snapshot(topic)

        self.submit(work, lambda snap: self._on_updated(gen, snap))

    def _on_updated(self, gen: int, snapshot: Snapshot) -> None:
        if gen != self.generation:
            self.dropped += 1
            return
        self.busy = False
        if (self.dirty or self._reload_requested) and self._held < MAX_HELD:
            # newer judgments came while it ran: this result is stale already and the next
            # one follows at once (a burst is shown once); a flood of judgments still shows
            # every few results
            self._held += 1
            self.dropped += 1
            self._resubmit_if_dirty()
            return
        self._held = 0
        self.dash.display.show(snapshot, fresh=False)
        self._resubmit_if_dirty()

    def _resubmit_if_dirty(self) -> None:
        if self._reload_requested:
            self._reload_requested = False
            self.reload()
        elif self.dirty or self._view_dirty:
            self.schedule()

    def snapshot_shown(self) -> None:
        """Note how long the change took to show (the display has just shown it)."""
        if self._dirty_since is not None:
            self.last_latency = time.perf_counter() - self._dirty_since
            self._dirty_since = None if not self.dirty else time.perf_counter()

    def idle(self) -> bool:
        """Nothing running, nothing waiting to run."""
        return not self.busy and not self.dirty and not self.timer.isActive()

    # -- closing -------------------------------------------------------------------------------
    def stop(self) -> None:
        """Drop whatever runs; no update starts any more."""
        self.generation += 1
        self.timer.stop()
        self.timer.timeout.disconnect()  # a job finishing late may start it: nothing runs

    def wait(self) -> None:
        if self.threaded:
            self.dash.ops.lane(LANE).waitForDone(10_000)
