"""The dashboard's slower analysis, in the background: significance marks against the
baseline, the ranking's stability, the estimate of the progress topic's total relevant and,
while the "Bounds" box is ticked, each mean's bounds once the pools are judged.

They follow each snapshot shown in a lane of their own of the window's ops (one thread),
debounced, with their own generation numbers: a slow randomization test never delays the
numbers. Out of sight they wait until the dashboard is shown.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

from judgeapp.services.baseline import significance
from judgeapp.ui.dashboard.parts import DashboardParts

SIGNIFICANCE_DELAY_MS = 300  # the tests wait for a pause in the judging
ESTIMATE_DELAY_MS = 1000  # the estimate of the total relevant for a longer pause
BOUNDS_DELAY_MS = 300
LANE = "dashboard analysis"


class BackgroundAnalysis(QObject):
    """Sets `dash.sig`, `dash.stability` and `dash.estimate` for the snapshot shown."""

    def __init__(self, dash: DashboardParts) -> None:
        super().__init__(dash)
        self.dash = dash
        self.generation = 0  # of the significance tests
        self.dropped = 0  # stale results dropped
        self._sig_busy = False
        self._sig_pending = False
        self._estimate_busy = False
        self._waiting = False  # significance tests or estimate skipped while hidden
        self._analysed: tuple = ()  # (generation, version, baseline, test) of the marks
        self.sig_timer = QTimer(self)
        self.sig_timer.setSingleShot(True)
        self.sig_timer.setInterval(SIGNIFICANCE_DELAY_MS)
        self.estimate_timer = QTimer(self)
        self.estimate_timer.setSingleShot(True)
        self.estimate_timer.setInterval(ESTIMATE_DELAY_MS)
        self._bounds_busy = False
        self._bounds_of: tuple = ()  # (generation, version) of the bounds shown
        self.bounds_timer = QTimer(self)
        self.bounds_timer.setSingleShot(True)
        self.bounds_timer.setInterval(BOUNDS_DELAY_MS)
        self._connect()

    def _connect(self) -> None:
        self.sig_timer.timeout.connect(self._on_sig_timer_timeout)
        self.estimate_timer.timeout.connect(self._on_estimate_timer_timeout)
        self.bounds_timer.timeout.connect(self._on_bounds_timer_timeout)
        self.dash.view.shown.connect(self._on_view_shown)

    def follow(self) -> None:
        """A new snapshot is shown: its analysis follows once the judging pauses."""
        self.sig_timer.start()
        self.estimate_timer.start()
        if self.dash.view.show_bounds.isChecked():
            self.bounds_timer.start()

    def redo_significance(self) -> None:
        """Marks against another baseline or with another test: the old ones are stale."""
        self.generation += 1
        self.sig_timer.start()

    def _on_view_shown(self) -> None:
        if self._waiting:
            self._waiting = False
            self.follow()

    def _deferred(self) -> bool:
        """True when the dashboard is out of sight: its analysis waits until it is shown."""
        if self.dash.view.isVisible():
            return False
        self._waiting = True
        return True

    # -- significance and ranking stability ----------------------------------------------------
    def _on_sig_timer_timeout(self) -> None:
        """Significance marks and Kendall's tau of the snapshot shown, worked out in their
        own thread once the judging pauses: they never delay the numbers."""
        if self._sig_busy:
            self._sig_pending = True
            return
        if self._deferred():
            return
        dash = self.dash
        snap, baseline = dash.snapshot, dash.baseline
        if snap is None:
            return
        if baseline not in snap.run_names:
            baseline = None
        self.generation += 1
        gen, test = self.generation, dash.test
        self._sig_busy = True

        def work() -> tuple:
            sig = None if baseline is None else significance(snap, baseline, test=test)
            return sig, snap.stability

        def done(result: tuple) -> None:
            self._sig_busy = False
            sig, stability = result
            if gen == self.generation and snap.generation == dash.jobs.generation:
                self._analysed = (snap.generation, snap.version, baseline, test)
                dash.sig = sig
                dash.stability = stability
                dash.view.model.set_significance(sig)
                if dash.snapshot is not None:
                    dash.display.show_warnings(dash.snapshot)
                dash.significance_updated.emit(sig)
            else:
                self.dropped += 1
            if self._sig_pending:
                self._sig_pending = False
                self.sig_timer.start()

        dash.jobs.submit(work, done, lane=LANE)

    def marks_ready(self) -> bool:
        """The significance marks shown belong to the snapshot shown, baseline and test."""
        dash = self.dash
        sig, snap = dash.sig, dash.snapshot
        if snap is None or self._sig_busy or self.sig_timer.isActive():
            return False
        if self._analysed != (snap.generation, snap.version, dash.baseline, dash.test):
            return False
        return sig is None or (sig.baseline, sig.test) == (dash.baseline, dash.test)

    # -- the estimate of the total relevant ----------------------------------------------------
    def _on_estimate_timer_timeout(self) -> None:
        """The pooling estimate of the progress topic's total relevant documents: a few
        hundred milliseconds at TREC scale, so only once the judging pauses for a second
        (an assessor reading a document); the last one stays on screen until then."""
        dash = self.dash
        snap, wb, live = dash.snapshot, dash.workbench, dash.jobs.live
        if snap is None or snap.progress is None or wb is None or live is None:
            return
        if self._deferred():
            return
        if self._estimate_busy:
            self.estimate_timer.start()  # once the running one is done
            return
        self._estimate_busy = True
        gen = dash.jobs.generation
        qid, persons = snap.progress.qid, list(live.persons)
        level = snap.config.judgments.relevance_level

        def work():
            return qid, wb.estimate_total(wb.pool_name(), qid, persons, level)

        def done(estimate) -> None:
            self._estimate_busy = False
            if gen != dash.jobs.generation:
                self.dropped += 1
                return
            if estimate != dash.estimate:
                dash.estimate = estimate
                dash.display.show_progress()
            dash.estimated.emit(estimate)

        dash.jobs.submit(work, done, lane=LANE)

    # -- the bounds once the pools are judged ------------------------------------------------
    def _on_bounds_timer_timeout(self) -> None:
        """Each mean's bounds for the snapshot shown: one evaluation per run over every
        completion of the judgments, so in the background once the judging pauses."""
        dash = self.dash
        snap, live = dash.snapshot, dash.jobs.live
        if snap is None or live is None or not dash.view.show_bounds.isChecked():
            return
        if self._bounds_busy:
            self.bounds_timer.start()  # once the running one is done
            return
        self._bounds_busy = True
        gen, version = dash.jobs.generation, snap.version
        work = live.bounds_job()

        def done(bounds) -> None:
            self._bounds_busy = False
            if gen != dash.jobs.generation:
                self.dropped += 1
                return
            self._bounds_of = (gen, version)
            dash.view.model.set_bounds(
                bounds.run_names,
                bounds.measures,
                bounds.low_mean,
                bounds.high_mean,
                bounds.unjudged,
            )
            dash.bounds_updated.emit(bounds)

        dash.jobs.submit(work, done, lane=LANE)

    def bounds_ready(self) -> bool:
        """The bounds shown belong to the snapshot shown (or are not asked for)."""
        snap = self.dash.snapshot
        if not self.dash.view.show_bounds.isChecked() or snap is None:
            return True
        if self._bounds_busy or self.bounds_timer.isActive():
            return False
        return self._bounds_of == (self.dash.jobs.generation, snap.version)

    def ready(self) -> bool:
        """Marks, stability, the estimate and the bounds belong to what is shown
        (screenshots, tests)."""
        return (
            self.marks_ready()
            and not self._estimate_busy
            and not self.estimate_timer.isActive()
            and self.bounds_ready()
        )

    # -- closing -------------------------------------------------------------------------------
    def stop(self) -> None:
        self.generation += 1
        for timer in (self.sig_timer, self.estimate_timer, self.bounds_timer):
            timer.stop()
            timer.timeout.disconnect()  # a job finishing late may start one: nothing runs

    def wait(self) -> None:
        if self.dash.jobs.threaded:
            self.dash.ops.lane(LANE).waitForDone(10_000)
