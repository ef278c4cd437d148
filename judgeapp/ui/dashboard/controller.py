"""The dashboard's controller: keeps the live evaluation in step with the judgments.

It listens to the main controller: `project_opened(Workbench)` starts a full evaluation,
`changes_applied(Changes)` marks the changed topics dirty and starts a short single-shot
timer (which also lets the judging view show its next document first). The update then
re-reads those topics, recomputes them for every run and takes a snapshot. An update of one
topic (a judgment, an undo) runs right there on the GUI thread, in a few milliseconds: a
worker would compete with the GUI thread for the interpreter lock and take longer to show
the same numbers. Larger updates and every full evaluation run in a one-thread pool;
judgments that come while one runs are dirty topics for the next update, and the result it
brings is stale: it is dropped (up to MAX_HELD in a row) and the next update starts at
once, so a burst of judgments is shown once. Every job is tagged with the evaluation's
generation: a result from before a reload (another project, filter or measure set) is
dropped too. With `threaded=False` everything runs on the GUI thread. The snapshot then
updates the table models (`dataChanged` for changed cells) and the plots (artists updated
in place, one redraw per batch). Significance tests and the ranking's stability follow in
their own one-thread pool, debounced, with their own generation numbers: a slow
randomization test never delays the numbers.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QApplication, QFileDialog, QListWidgetItem

from judgeapp.measures import DEFAULT_GUI_MEASURES
from judgeapp.records import Changes
from judgeapp.services import dashboard_tables
from judgeapp.services.live_eval import (
    DashboardConfig,
    JudgmentFilter,
    LiveEvaluation,
    ProgressCurve,
    Significance,
    Snapshot,
    Stability,
    estimate_total,
    significance,
    stability_warning,
)
from judgeapp.services.workbench import Workbench
from judgeapp.ui.dashboard.plots import COLOURS, LivePlot
from judgeapp.ui.dashboard.view import DashboardView, DashboardWindow, MeasuresDialog
from judgeapp.ui.worker import Worker

COALESCE_MS = 2  # judgments closer than this go together (and any while an update runs)
HIGHLIGHT_MS = 6000  # how long the change of the last judgment stays highlighted
SIGNIFICANCE_DELAY_MS = 300  # the tests wait for a pause in the judging
ESTIMATE_DELAY_MS = 1000  # the estimate of the total relevant for a longer pause
INLINE_TOPICS = 1  # an update of this many topics runs on the GUI thread (see _on_timer_timeout)
MAX_HELD = 3  # stale results dropped in a row before one is shown anyway
MAX_PLOT_RUNS = len(COLOURS)
AUTO_PLOT_RUNS = 5
SETTINGS_KEY = "ui.dashboard"


class DashboardController(QObject):
    updated = Signal(object)  # the Snapshot now shown by the table and the plots
    significance_updated = Signal(object)  # the Significance now shown as marks
    estimated = Signal(object)  # (qid, (point, low, high) or None): the progress estimate
    failed = Signal(str)

    def __init__(
        self,
        view: DashboardView,
        parent: QObject | None = None,
        *,
        threaded: bool = True,
        coalesce_ms: int = COALESCE_MS,
    ) -> None:
        super().__init__(parent)
        self.view = view
        self.threaded = threaded
        self.inline_topics = INLINE_TOPICS
        self.workbench: Workbench | None = None
        self.config = DashboardConfig()
        self.live: LiveEvaluation | None = None
        self.snapshot: Snapshot | None = None
        self.sig: Significance | None = None
        self.stability: Stability | None = None
        self.estimate: tuple[str | None, tuple[float, float, float] | None] = (None, None)
        self.generation = 0
        self.sig_generation = 0
        self.baseline: str | None = None
        self.test = "t"
        self.plot_runs: list[str] = []
        self.diff_run: str | None = None
        self.topic: str | None = None  # the plots' topic; None: mean over topics
        self.progress_topic: str | None = None  # the last judged topic
        self.updates = 0  # snapshots applied
        self.changed_cells: list[tuple[int, int]] = []  # (run, measure) the last update changed
        self.dropped = 0  # stale results dropped
        self.last_error: str | None = None
        self.last_latency: float | None = None  # seconds from a change to its snapshot shown
        self._dirty: set[str] = set()
        self._view_dirty = False
        self._reload_requested = False
        self._busy = False
        self._sig_busy = False
        self._sig_pending = False
        self._dirty_since: float | None = None
        self._workers: set[Worker] = set()
        self._pool_changed = False
        self._drill_stale = False
        self._held = 0
        self._analysed: tuple = ()  # (generation, version, baseline, test) of the marks
        self._filling = False  # setting combo boxes from code: no slot reactions
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)  # updates run one after another, in order
        self.sig_pool = QThreadPool(self)
        self.sig_pool.setMaxThreadCount(1)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(coalesce_ms)
        self.highlight_timer = QTimer(self)
        self.highlight_timer.setSingleShot(True)
        self.highlight_timer.setInterval(HIGHLIGHT_MS)
        self.sig_timer = QTimer(self)
        self.sig_timer.setSingleShot(True)
        self.sig_timer.setInterval(SIGNIFICANCE_DELAY_MS)
        self.estimate_timer = QTimer(self)
        self.estimate_timer.setSingleShot(True)
        self.estimate_timer.setInterval(ESTIMATE_DELAY_MS)
        self._estimate_busy = False
        self._analysis_waiting = False  # significance tests or estimate skipped while hidden
        self._shut = False
        self.main_window: Any = None
        self.own_window: DashboardWindow | None = None
        self.tab_title = "Dashboard"
        self.measures_dialog: MeasuresDialog | None = None
        self.file_dialog: QFileDialog | None = None
        self.view.set_ready_check(lambda: self.ready() and self.analysis_ready())
        self._connect()
        self._build_export_menu()

    # -- wiring ------------------------------------------------------------------------------------
    def _connect(self) -> None:
        v = self.view
        self.timer.timeout.connect(self._on_timer_timeout)
        self.highlight_timer.timeout.connect(self._on_highlight_timer_timeout)
        self.sig_timer.timeout.connect(self._on_sig_timer_timeout)
        self.estimate_timer.timeout.connect(self._on_estimate_timer_timeout)
        v.assessor.currentIndexChanged.connect(self._on_filter_changed)
        v.sources.toggled.connect(self._on_filter_changed)
        v.level.valueChanged.connect(self._on_filter_changed)
        v.baseline.currentIndexChanged.connect(self._on_baseline_changed)
        v.test.currentIndexChanged.connect(self._on_test_changed)
        v.topic.currentIndexChanged.connect(self._on_topic_changed)
        v.measures_button.clicked.connect(self._on_measures_clicked)
        v.window_button.toggled.connect(self._on_window_button_toggled)
        v.table.selectionModel().selectionChanged.connect(self._on_run_selection_changed)
        v.table.doubleClicked.connect(self._on_run_double_clicked)
        v.drill_table.doubleClicked.connect(self._on_drill_double_clicked)
        v.drill_kind.currentIndexChanged.connect(self._on_drill_kind_changed)
        v.drill_key.currentIndexChanged.connect(self._on_drill_key_changed)
        v.tables.currentChanged.connect(self._on_tables_current_changed)
        v.shown.connect(self._on_view_shown)

    def attach(self, main_controller: Any, tab_title: str = "Dashboard") -> None:
        """Follow the main window's controller: its projects and its changes."""
        self.main_window = main_controller.window
        self.tab_title = tab_title
        main_controller.project_opened.connect(self._on_project_opened)
        main_controller.changes_applied.connect(self._on_changes_applied)
        main_controller.window.closing.connect(self.shutdown)
        if getattr(main_controller, "workbench", None) is not None:
            self._on_project_opened(main_controller.workbench)  # attached after the opening

    def _build_export_menu(self) -> None:
        menu = self.view.export_menu
        for fmt, text in (
            ("csv", "Table as CSV…"),
            ("latex", "Table as LaTeX…"),
            ("markdown", "Table as Markdown…"),
        ):
            menu.addAction(text).triggered.connect(lambda _=False, f=fmt: self.ask_export_table(f))
        menu.addAction("Copy as trec_eval output").triggered.connect(self.copy_trec_eval)
        menu.addSeparator()
        for plot in self.view.plots:
            menu.addAction(f"Plot: {plot.title} (PNG, SVG, PDF)…").triggered.connect(
                lambda _=False, p=plot: self.ask_save_plot(p)
            )

    # -- jobs ------------------------------------------------------------------------------------------
    def _submit(
        self,
        fn: Callable[[], Any],
        done: Callable[[Any], None],
        pool: QThreadPool | None = None,
        inline: bool = False,
    ) -> None:
        """Run `fn` in `pool` (or now, on this thread) and hand its result to `done`."""
        if inline:
            try:
                result = fn()
            except Exception as exc:
                self._on_job_failed(exc)
                return
            done(result)
            return
        worker = Worker(lambda _progress: fn(), "dashboard")
        self._workers.add(worker)
        worker.signals.succeeded.connect(done)
        worker.signals.failed.connect(self._on_job_failed)
        worker.signals.finished.connect(lambda: self._workers.discard(worker))
        worker.start(pool or self.pool)

    def _on_job_failed(self, exc: BaseException) -> None:
        self._busy = False
        self.last_error = f"{type(exc).__name__}: {exc}"
        self.view.status.setText(f"Evaluation failed: {exc}")
        self.failed.emit(self.last_error)

    # -- project and filter ----------------------------------------------------------------------
    def _on_project_opened(self, workbench: Workbench) -> None:
        self.workbench = workbench
        self.snapshot = None
        self.sig = None
        self.stability = None
        self.estimate = (None, None)
        self.topic = None
        self.progress_topic = workbench.last_topic()
        self.plot_runs = []
        self.diff_run = None
        self._load_settings()
        self._fill_filter_controls()
        self.reload()

    def _load_settings(self) -> None:
        wb = self.workbench
        saved = wb.store.get_setting(SETTINGS_KEY) if wb is not None else None
        saved = saved if isinstance(saved, dict) else {}
        measures = tuple(saved.get("measures") or DEFAULT_GUI_MEASURES)
        filt = JudgmentFilter(
            assessor=saved.get("assessor"),
            include_sources=bool(saved.get("include_sources", True)),
            relevance_level=int(saved.get("relevance_level", 1)),
        )
        self.config = DashboardConfig(measures=measures, judgments=filt)
        self.baseline = saved.get("baseline")
        self.test = saved.get("test", "t") if saved.get("test") in ("t", "rand") else "t"

    def _save_settings(self) -> None:
        wb = self.workbench
        if wb is None:
            return
        f = self.config.judgments
        wb.store.set_setting(
            SETTINGS_KEY,
            {
                "measures": list(self.config.measures),
                "assessor": f.assessor,
                "include_sources": f.include_sources,
                "relevance_level": f.relevance_level,
                "baseline": self.baseline,
                "test": self.test,
            },
        )

    def _fill_filter_controls(self) -> None:
        wb = self.workbench
        v = self.view
        self._filling = True
        try:
            v.assessor.clear()
            v.assessor.addItem("All assessors", None)
            if wb is not None:
                for a in wb.store.assessors():
                    label = a.name if a.kind == "person" else f"{a.name} (imported)"
                    v.assessor.addItem(label, a.name)
            f = self.config.judgments
            found = v.assessor.findData(f.assessor) if f.assessor is not None else 0
            v.assessor.setCurrentIndex(max(found, 0))
            v.sources.setChecked(f.include_sources)
            top = max((g.grade for g in wb.scale()), default=1) if wb is not None else 1
            v.level.setRange(1, max(top, 1))
            v.level.setValue(min(max(f.relevance_level, 1), max(top, 1)))
            v.test.setCurrentIndex(max(v.test.findData(self.test), 0))
            self._update_sources_enabled()
        finally:
            self._filling = False

    def _update_sources_enabled(self) -> None:
        v = self.view
        label = v.assessor.currentText()
        v.sources.setEnabled(not label.endswith("(imported)"))

    def _on_filter_changed(self, *_args) -> None:
        if self._filling:
            return
        v = self.view
        self._update_sources_enabled()
        self.set_filter(
            JudgmentFilter(
                assessor=v.assessor.currentData(),
                include_sources=v.sources.isChecked(),
                relevance_level=v.level.value(),
            )
        )

    def set_filter(self, filt: JudgmentFilter) -> None:
        """Evaluate against other judgments (a full evaluation)."""
        if filt == self.config.judgments:
            return
        self.config = DashboardConfig(
            measures=self.config.measures,
            judgments=filt,
            judged_k=self.config.judged_k,
            judged_threshold=self.config.judged_threshold,
            checkpoint_every=self.config.checkpoint_every,
        )
        self._save_settings()
        self.reload()

    def set_measures(self, lines: list[str]) -> None:
        """Show other measures (a full evaluation)."""
        if tuple(lines) == self.config.measures:
            return
        self.config = DashboardConfig(
            measures=tuple(lines),
            judgments=self.config.judgments,
            judged_k=self.config.judged_k,
            judged_threshold=self.config.judged_threshold,
            checkpoint_every=self.config.checkpoint_every,
        )
        self._save_settings()
        self.reload()

    def _on_measures_clicked(self) -> None:
        self.show_measures_dialog()

    def show_measures_dialog(self) -> MeasuresDialog:
        dialog = MeasuresDialog(list(self.config.measures), self.view)
        dialog.chosen.connect(self.set_measures)
        self.measures_dialog = dialog
        dialog.open()
        return dialog

    # -- evaluation --------------------------------------------------------------------------------
    def reload(self) -> None:
        """Evaluate everything again (new project, filter, measures, runs or qrels)."""
        wb = self.workbench
        self.generation += 1
        self._dirty.clear()
        self._view_dirty = False
        if wb is None:
            return
        gen = self.generation
        store, config, pool = wb.store, self.config, wb.pool_name()
        topic = self.progress_topic
        self._busy = True
        self._dirty_since = time.perf_counter()
        self.view.status.setText("Evaluating every run…")

        def work() -> tuple[LiveEvaluation, Snapshot]:
            live = LiveEvaluation(store, config, generation=gen, pool=pool)
            return live, live.snapshot(topic)

        self._submit(work, lambda result: self._on_loaded(gen, result), inline=not self.threaded)

    def _on_loaded(self, gen: int, result: tuple[LiveEvaluation, Snapshot]) -> None:
        if gen != self.generation:
            self.dropped += 1
            return
        self.live, snapshot = result
        self._busy = False
        self._apply(snapshot, fresh=True)
        self._resubmit_if_dirty()

    def _on_changes_applied(self, changes: Changes) -> None:
        if self.workbench is None or changes.empty:
            return
        if changes.runs or changes.assessors or changes.topic_list or changes.scale:
            if changes.assessors or changes.scale:
                self._fill_filter_controls()
            self._reload_requested = True
            if not self._busy:
                self._reload_requested = False
                self.reload()
            return
        if changes.pools:
            self._view_dirty = True
            self._pool_changed = True
        if changes.topics:
            self._dirty |= set(changes.topics)
            if changes.judged:
                self.progress_topic = changes.judged[-1][0]
            elif len(changes.topics) == 1:
                self.progress_topic = next(iter(changes.topics))
        if self._dirty_since is None:
            self._dirty_since = time.perf_counter()
        self._schedule()

    def _schedule(self) -> None:
        if not self.timer.isActive():  # a throttle, not a debounce: a long burst still updates
            self.timer.start()

    def _on_view_shown(self) -> None:
        if self._dirty or self._view_dirty or self._reload_requested:
            self._schedule()  # what changed while it was hidden
        if self._analysis_waiting:
            self._analysis_waiting = False
            self.sig_timer.start()
            self.estimate_timer.start()

    def _on_timer_timeout(self) -> None:
        if self._busy or self.live is None:
            return  # picked up when the running job is done
        if not self.view.isVisible():
            return  # nobody looks: the changed topics wait until it is shown
        if self._reload_requested:
            self._reload_requested = False
            self.reload()
            return
        if not self._dirty and not self._view_dirty:
            return
        qids, self._dirty = self._dirty, set()
        self._view_dirty = False
        live, gen = self.live, self.generation
        topic = self.progress_topic
        repool, self._pool_changed = self._pool_changed, False
        wb = self.workbench
        pool = wb.pool_name() if repool and wb is not None else None
        assessor = wb.assessor if wb is not None else None
        self._busy = True

        def work() -> Snapshot:
            if repool:
                live.set_pool(pool)
            live.update(qids, assessor)
            return live.snapshot(topic)

        # one changed topic is recomputed here, on the GUI thread, once the judging view
        # has shown the next document: a few milliseconds, less than handing it to a
        # worker that competes with the GUI thread for the interpreter lock
        inline = not self.threaded or (len(qids) <= self.inline_topics and not repool)
        self._submit(work, lambda snap: self._on_updated(gen, snap), inline=inline)

    def _on_updated(self, gen: int, snapshot: Snapshot) -> None:
        if gen != self.generation:
            self.dropped += 1
            return
        self._busy = False
        if (self._dirty or self._reload_requested) and self._held < MAX_HELD:
            # newer judgments came while it ran: this result is stale already and the next
            # one follows at once (a burst is shown once); a flood of judgments still shows
            # every few results
            self._held += 1
            self.dropped += 1
            self._resubmit_if_dirty()
            return
        self._held = 0
        self._apply(snapshot, fresh=False)
        self._resubmit_if_dirty()

    def _resubmit_if_dirty(self) -> None:
        if self._reload_requested:
            self._reload_requested = False
            self.reload()
        elif self._dirty or self._view_dirty:
            self._schedule()

    def ready(self) -> bool:
        """True once the project is shown and no update is waiting."""
        return (
            self.snapshot is not None
            and not self._busy
            and not self._dirty
            and not self.timer.isActive()
            and not any(plot.pending for plot in self.view.plots)
        )

    # -- showing a snapshot ----------------------------------------------------------------------
    def _apply(self, snap: Snapshot, fresh: bool) -> None:
        v = self.view
        old = self.snapshot
        self.snapshot = snap
        structure = (
            fresh or old is None or old.run_names != snap.run_names or old.measures != snap.measures
        )
        if structure:
            self._choose_defaults(snap)
            self._fill_view_controls(snap)
        changed = v.model.set_matrix(snap.run_names, snap.measures, snap.means.T, fresh=fresh)
        self.changed_cells = changed
        v.model.set_baseline(self.baseline)
        if changed:
            self.highlight_timer.start()
        if v.tables.currentWidget() is v.table and not structure:
            self._drill_stale = True  # the drill-down is not on screen: brought up to date
        else:  # when its tab is shown
            self._update_drill(fresh=structure)
        self._update_topics(snap, old)
        self._update_plots(snap, structure or (old is not None and old.qids != snap.qids))
        self._show_warnings(snap)
        self._show_status(snap)
        self.updates += 1
        if self._dirty_since is not None:
            self.last_latency = time.perf_counter() - self._dirty_since
            self._dirty_since = None if not self._dirty else time.perf_counter()
        self.updated.emit(snap)
        self.sig_timer.start()
        self.estimate_timer.start()

    def _choose_defaults(self, snap: Snapshot) -> None:
        runs = snap.run_names
        if self.baseline not in runs:
            self.baseline = runs[0] if runs else None
        order = [runs[r] for r in _best_first(snap)]
        others = [r for r in order if r != self.baseline]
        self.plot_runs = [r for r in self.plot_runs if r in runs]
        if not self.plot_runs:
            picked = ([self.baseline] if self.baseline else []) + others[: AUTO_PLOT_RUNS - 1]
            self.plot_runs = sorted(picked, key=runs.index)
        if self.diff_run not in runs or self.diff_run == self.baseline:
            self.diff_run = others[0] if others else None

    def _fill_view_controls(self, snap: Snapshot) -> None:
        v = self.view
        self._filling = True
        try:
            v.baseline.clear()
            for run in snap.run_names:
                v.baseline.addItem(run, run)
            v.baseline.setCurrentIndex(max(v.baseline.findData(self.baseline), 0))
            self._fill_drill_keys()
        finally:
            self._filling = False

    def _update_topics(self, snap: Snapshot, old: Snapshot | None) -> None:
        if old is not None and old.qids == snap.qids and self.view.topic.count():
            return
        v = self.view
        self._filling = True
        try:
            v.topic.clear()
            v.topic.addItem(f"Mean of all {snap.num_topics}", None)
            for qid in snap.qids:
                v.topic.addItem(qid, qid)
            v.topic.setCurrentIndex(max(v.topic.findData(self.topic), 0))
            if v.drill_kind.currentData() == "topic":
                self._fill_drill_keys()
        finally:
            self._filling = False

    def _update_plots(self, snap: Snapshot, structure: bool) -> None:
        v = self.view
        pr, ndcg, diff, prog = v.pr_plot, v.ndcg_plot, v.diff_plot, v.progress_plot
        if structure or tuple(self.plot_runs) != pr.runs:
            pr.configure(self.plot_runs)
            ndcg.configure(self.plot_runs, snap.ndcg_cutoffs)
            full_lines = True
        else:
            full_lines = False
        key = (self.diff_run, self.baseline, snap.num_topics)
        full_diff = key != diff.key
        if full_diff:
            diff.configure(self.diff_run, self.baseline, snap.num_topics)
        full = {
            pr: pr.update(snap, self.topic) or full_lines,
            ndcg: ndcg.update(snap, self.topic) or full_lines,
            diff: diff.update(snap, self.diff_run, self.baseline) or full_diff,
            prog: prog.update(self._progress_curve(snap)),
        }
        for plot, needs_full in full.items():
            plot.refresh(full=needs_full)

    def _progress_curve(self, snap: Snapshot) -> ProgressCurve | None:
        """The snapshot's progress curve with the latest estimate of the topic's total
        (worked out in the background; the previous one stays until the next arrives)."""
        curve = snap.progress
        qid, total = self.estimate
        if curve is not None and total is not None and qid == curve.qid:
            curve = dataclasses.replace(curve, estimate=total)
        return curve

    def _show_progress(self) -> None:
        snap = self.snapshot
        if snap is not None:
            plot = self.view.progress_plot
            plot.refresh(full=plot.update(self._progress_curve(snap)))

    def _show_warnings(self, snap: Snapshot) -> None:
        """Coverage warnings of the snapshot, and the ranking's stability as last worked
        out in the background."""
        warnings = list(snap.warnings)
        settled = stability_warning(self.stability)
        if settled is not None:
            warnings.insert(0, settled)  # one verdict first, then the runs
        w = self.view.warnings
        texts = [("⚠ " if x.severity else "ℹ ") + x.text for x in warnings]
        if not warnings:
            texts = ["Every run's top ranks are judged well enough."]
        if [w.item(i).text() for i in range(w.count())] == texts:
            return
        w.clear()
        for text, warning in zip(texts, warnings or [None], strict=True):
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, None if warning is None else warning.kind)
            w.addItem(item)

    def _show_status(self, snap: Snapshot) -> None:
        judged = f"{snap.num_topics} judged topics"
        self.view.status.setText(
            f"{len(snap.run_names)} runs · {judged} · {snap.judgments} judgments made · "
            f"{snap.config.judgments.describe()} · trec_eval -c -l "
            f"{snap.config.judgments.relevance_level} semantics"
        )

    # -- significance and ranking stability (in the background) --------------------------------
    def _on_sig_timer_timeout(self) -> None:
        """Significance marks and Kendall's tau of the snapshot shown, worked out in their
        own thread once the judging pauses: they never delay the numbers."""
        if self._sig_busy:
            self._sig_pending = True
            return
        if self._analysis_deferred():
            return
        snap, baseline = self.snapshot, self.baseline
        if snap is None:
            return
        if baseline not in snap.run_names:
            baseline = None
        self.sig_generation += 1
        gen, test = self.sig_generation, self.test
        self._sig_busy = True

        def work() -> tuple:
            sig = None if baseline is None else significance(snap, baseline, test=test)
            return sig, snap.stability

        def done(result: tuple) -> None:
            self._sig_busy = False
            sig, stability = result
            if gen == self.sig_generation and snap.generation == self.generation:
                self._analysed = (snap.generation, snap.version, baseline, test)
                self.sig = sig
                self.stability = stability
                self.view.model.set_significance(sig)
                if self.snapshot is not None:
                    self._show_warnings(self.snapshot)
                self.significance_updated.emit(sig)
            else:
                self.dropped += 1
            if self._sig_pending:
                self._sig_pending = False
                self.sig_timer.start()

        self._submit(work, done, pool=self.sig_pool)

    def _analysis_deferred(self) -> bool:
        """True when the dashboard is out of sight: its analysis waits until it is shown."""
        if self.view.isVisible():
            return False
        self._analysis_waiting = True
        return True

    def _on_estimate_timer_timeout(self) -> None:
        """The pooling estimate of the progress topic's total relevant documents: a few
        hundred milliseconds at TREC scale, so only once the judging pauses for a second
        (an assessor reading a document); the last one stays on screen until then."""
        snap, wb, live = self.snapshot, self.workbench, self.live
        if snap is None or snap.progress is None or wb is None or live is None:
            return
        if self._analysis_deferred():
            return
        if self._estimate_busy:
            self.estimate_timer.start()  # once the running one is done
            return
        self._estimate_busy = True
        gen, store, pool = self.generation, wb.store, wb.pool_name()
        qid, persons = snap.progress.qid, list(live.persons)
        level = snap.config.judgments.relevance_level

        def work():
            return qid, estimate_total(store, pool, qid, persons, level)

        def done(estimate) -> None:
            self._estimate_busy = False
            if gen != self.generation:
                self.dropped += 1
                return
            if estimate != self.estimate:
                self.estimate = estimate
                self._show_progress()
            self.estimated.emit(estimate)

        self._submit(work, done, pool=self.sig_pool)

    def analysis_ready(self) -> bool:
        """Marks, stability and the estimate belong to what is shown (screenshots, tests)."""
        return self.marks_ready() and not self._estimate_busy and not self.estimate_timer.isActive()

    def marks_ready(self) -> bool:
        """The significance marks shown belong to the snapshot shown, baseline and test."""
        sig, snap = self.sig, self.snapshot
        if snap is None or self._sig_busy or self.sig_timer.isActive():
            return False
        if self._analysed != (snap.generation, snap.version, self.baseline, self.test):
            return False
        return sig is None or (sig.baseline, sig.test) == (self.baseline, self.test)

    def _on_baseline_changed(self, _index: int) -> None:
        if self._filling:
            return
        run = self.view.baseline.currentData()
        if run is None or run == self.baseline:
            return
        self.baseline = run
        if self.diff_run == run:
            self.diff_run = next((r for r in self.plot_runs if r != run), None)
        self._save_settings()
        self.sig_generation += 1  # marks against the old baseline are stale
        self.view.model.set_significance(None)
        self.view.model.set_baseline(run)
        if self.snapshot is not None:
            self._update_plots(self.snapshot, structure=False)
        self.sig_timer.start()

    def _on_test_changed(self, _index: int) -> None:
        if self._filling:
            return
        self.test = self.view.test.currentData()
        self._save_settings()
        self.sig_generation += 1
        self.sig_timer.start()

    # -- choices of the plots and the drill-down -----------------------------------------------
    def _on_topic_changed(self, _index: int) -> None:
        if self._filling:
            return
        self.set_topic(self.view.topic.currentData())

    def set_topic(self, qid: str | None) -> None:
        """Plots for one topic (its progress too), or the mean over topics (None)."""
        self.topic = qid
        if qid is not None:
            self.progress_topic = qid
            self._view_dirty = True
            self._schedule()
        if self.snapshot is not None:
            self._update_plots(self.snapshot, structure=False)

    def _on_run_selection_changed(self, *_args) -> None:
        runs = self.view.selected_runs()
        if not runs or self.snapshot is None:
            return
        self.set_plot_runs(runs)

    def set_plot_runs(self, runs: list[str]) -> None:
        """Plot these runs (the first non-baseline one also in ΔAP)."""
        runs = runs[:MAX_PLOT_RUNS]
        if self.snapshot is None:
            return
        others = [r for r in runs if r != self.baseline]
        if others:
            self.diff_run = others[0]
        if len(runs) == 1 and self.baseline and runs[0] != self.baseline:
            runs = [self.baseline, runs[0]]  # a run alone is compared with the baseline
        self.plot_runs = sorted(set(runs), key=self.snapshot.run_names.index)
        self._update_plots(self.snapshot, structure=False)

    def _on_run_double_clicked(self, index) -> None:
        run = index.data(self.view.model.KeyRole)
        if run is not None:
            self.show_drill("run", run)

    def _on_drill_double_clicked(self, index) -> None:
        key = index.data(self.view.drill_model.KeyRole)
        if key is None:
            return
        if self.view.drill_model.mode == "run":
            self.show_drill("topic", key)
        else:
            self.show_drill("run", key)

    def show_drill(self, mode: str, key: str) -> None:
        v = self.view
        self._filling = True
        try:
            v.drill_kind.setCurrentIndex(v.drill_kind.findData(mode))
            self._fill_drill_keys()
            v.drill_key.setCurrentIndex(max(v.drill_key.findData(key), 0))
        finally:
            self._filling = False
        v.tables.setCurrentIndex(1)
        self._update_drill(fresh=True)

    def _fill_drill_keys(self) -> None:
        v, snap = self.view, self.snapshot
        if snap is None:
            return
        keys = snap.run_names if v.drill_kind.currentData() == "run" else snap.qids
        current = v.drill_key.currentData()
        v.drill_key.clear()
        for k in keys:
            v.drill_key.addItem(k, k)
        if current in keys:
            v.drill_key.setCurrentIndex(v.drill_key.findData(current))

    def _on_drill_kind_changed(self, _index: int) -> None:
        if self._filling:
            return
        self._filling = True
        try:
            self._fill_drill_keys()
        finally:
            self._filling = False
        self._update_drill(fresh=True)

    def _on_drill_key_changed(self, _index: int) -> None:
        if not self._filling:
            self._update_drill(fresh=True)

    def _update_drill(self, fresh: bool) -> None:
        v, snap = self.view, self.snapshot
        if snap is None:
            return
        mode, key = v.drill_kind.currentData(), v.drill_key.currentData()
        if key is None:
            v.drill_model.show(mode, None)
            v.drill_model.set_matrix((), snap.measures, snap.means[:0].T[:0], fresh=True)
            return
        fresh = fresh or (mode, key) != (v.drill_model.mode, v.drill_model.key)
        v.drill_model.show(mode, key)
        if mode == "run" and key in snap.run_names:
            r = snap.run_names.index(key)
            v.drill_model.set_matrix(
                snap.qids, snap.measures, snap.per_topic[:, r, :].T, fresh=fresh
            )
        elif mode == "topic" and key in snap.qids:
            t = snap.topic_index(key)
            v.drill_model.set_matrix(
                snap.run_names, snap.measures, snap.per_topic[:, :, t].T, fresh=fresh
            )

    def _on_tables_current_changed(self, _index: int) -> None:
        if self._drill_stale and self.view.tables.currentWidget() is not self.view.table:
            self._drill_stale = False
            self._update_drill(fresh=True)

    def _on_highlight_timer_timeout(self) -> None:
        self.view.model.clear_changes()
        self.view.drill_model.clear_changes()

    # -- export ------------------------------------------------------------------------------------------
    def table_text(self, fmt: str) -> str:
        if self.snapshot is None:
            raise ValueError("nothing evaluated yet")
        return dashboard_tables.FORMATS[fmt](self.snapshot, self.sig)

    def export_table(self, path: str | Path, fmt: str) -> Path:
        path = Path(path)
        path.write_text(self.table_text(fmt), encoding="utf-8")
        return path

    def copy_trec_eval(self) -> str:
        """Put the table as trec_eval output on the clipboard (and return it)."""
        if self.snapshot is None:
            return ""
        text = dashboard_tables.to_trec_eval(self.snapshot)
        QApplication.clipboard().setText(text)
        return text

    def _save_dialog(self, title: str, filters: list[str], name: str, on_file) -> QFileDialog:
        dialog = QFileDialog(self.view, title)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setNameFilters(filters)
        dialog.selectFile(name)
        dialog.fileSelected.connect(on_file)
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def ask_export_table(self, fmt: str) -> QFileDialog:
        suffix = {"csv": "csv", "latex": "tex", "markdown": "md"}[fmt]
        return self._save_dialog(
            "Export table",
            [f"{fmt.upper()} (*.{suffix})", "All files (*)"],
            f"dashboard.{suffix}",
            lambda path: self.export_table(path, fmt),
        )

    def ask_save_plot(self, plot: LivePlot) -> QFileDialog:
        return self._save_dialog(
            "Save plot",
            ["PNG image (*.png)", "SVG drawing (*.svg)", "PDF document (*.pdf)"],
            f"{plot.name}.png",
            lambda path: self._save_plot(plot, path),
        )

    def _save_plot(self, plot: LivePlot, path: str) -> None:
        try:
            plot.save(path)
        except (OSError, ValueError) as exc:
            self.view.status.setText(f"Could not save the plot: {exc}")

    # -- own window --------------------------------------------------------------------------------
    def _on_window_button_toggled(self, checked: bool) -> None:
        self.set_own_window(checked)

    def set_own_window(self, own: bool) -> None:
        """Move the dashboard out of the main window's tabs into a window of its own (to
        watch it while judging), or back."""
        v, main = self.view, self.main_window
        if own == (self.own_window is not None) or main is None:
            return
        if own:
            main.tabs.removeTab(main.tabs.indexOf(v))
            window = DashboardWindow(main)
            window.layout().addWidget(v)
            window.closed.connect(lambda: self.set_own_window(False))
            self.own_window = window
            v.show()
            window.show()
        else:
            window, self.own_window = self.own_window, None
            window.layout().removeWidget(v)
            main.add_view(self.tab_title, v)
            window.hide()
            window.deleteLater()
        v.window_button.blockSignals(True)
        v.window_button.setChecked(own)
        v.window_button.blockSignals(False)

    # -- closing -------------------------------------------------------------------------------------
    def shutdown(self) -> None:
        """Stop timers, drop whatever is running, wait for the workers (once)."""
        if self._shut:
            return
        self._shut = True
        self.generation += 1
        self.sig_generation += 1
        for timer in (self.timer, self.highlight_timer, self.sig_timer, self.estimate_timer):
            timer.stop()
            timer.timeout.disconnect()  # a job finishing late may start one: nothing runs
        if self.own_window is not None:
            self.own_window.close()
        self.pool.waitForDone(10_000)
        self.sig_pool.waitForDone(10_000)
        self.workbench = None
        self.live = None


def _best_first(snap: Snapshot) -> list[int]:
    """Run indices by the first measure's mean, best first (NaN last)."""
    import numpy as np

    col = snap.means[0] if len(snap.measures) else np.zeros(len(snap.run_names))
    key = np.where(np.isfinite(col), -col, np.inf)
    return list(np.argsort(key, kind="stable"))
