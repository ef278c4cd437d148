"""Showing a snapshot: the runs x measures table (changed cells highlighted for a while),
the topic choice, the four plots, the coverage warnings and the status line; and the
plots' choices (their topic, their runs).

The table models get `dataChanged` for the changed cells only; the plots update their
artists in place, one redraw per batch.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QListWidgetItem

from judgeapp.services.live_eval import ProgressCurve, Snapshot, stability_warning
from judgeapp.ui.dashboard.plots import COLOURS

if TYPE_CHECKING:
    from judgeapp.ui.dashboard.controller import DashboardController

HIGHLIGHT_MS = 6000  # how long the change of the last judgment stays highlighted
MAX_PLOT_RUNS = len(COLOURS)
AUTO_PLOT_RUNS = 5


class SnapshotDisplay(QObject):
    """Sets `dash.snapshot` (the one shown) and the plots' `dash.plot_runs`, `dash.diff_run`
    and `dash.topic`."""

    def __init__(self, dash: DashboardController) -> None:
        super().__init__(dash)
        self.dash = dash
        self.updates = 0  # snapshots shown
        self.changed_cells: list[tuple[int, int]] = []  # (run, measure) the last update changed
        self._filling = False  # filling the topic combo box from code: no slot reactions
        self.highlight_timer = QTimer(self)
        self.highlight_timer.setSingleShot(True)
        self.highlight_timer.setInterval(HIGHLIGHT_MS)
        self._connect()

    def _connect(self) -> None:
        v = self.dash.view
        self.highlight_timer.timeout.connect(self._on_highlight_timer_timeout)
        v.topic.currentIndexChanged.connect(self._on_topic_changed)
        v.table.selectionModel().selectionChanged.connect(self._on_run_selection_changed)

    # -- a new snapshot ------------------------------------------------------------------------
    def show(self, snap: Snapshot, fresh: bool) -> None:
        """Show `snap`; `fresh`: a new evaluation (rows and columns may all differ)."""
        dash = self.dash
        v = dash.view
        old = dash.snapshot
        dash.snapshot = snap
        structure = (
            fresh or old is None or old.run_names != snap.run_names or old.measures != snap.measures
        )
        if structure:
            self._choose_defaults(snap)
            dash.filters.fill_baseline(snap.run_names)
            dash.drill.fill_keys()
        changed = v.model.set_matrix(snap.run_names, snap.measures, snap.means.T, fresh=fresh)
        self.changed_cells = changed
        v.model.set_baseline(dash.baseline)
        if changed:
            self.highlight_timer.start()
        dash.drill.follow(structure)
        self._update_topics(snap, old)
        self.update_plots(snap, structure or (old is not None and old.qids != snap.qids))
        self.show_warnings(snap)
        self._show_status(snap)
        self.updates += 1
        dash.jobs.snapshot_shown()
        dash.updated.emit(snap)
        dash.analysis.follow()

    def _choose_defaults(self, snap: Snapshot) -> None:
        dash = self.dash
        runs = snap.run_names
        if dash.baseline not in runs:
            dash.baseline = runs[0] if runs else None
        order = [runs[r] for r in _best_first(snap)]
        others = [r for r in order if r != dash.baseline]
        dash.plot_runs = [r for r in dash.plot_runs if r in runs]
        if not dash.plot_runs:
            picked = ([dash.baseline] if dash.baseline else []) + others[: AUTO_PLOT_RUNS - 1]
            dash.plot_runs = sorted(picked, key=runs.index)
        if dash.diff_run not in runs or dash.diff_run == dash.baseline:
            dash.diff_run = others[0] if others else None

    def _update_topics(self, snap: Snapshot, old: Snapshot | None) -> None:
        v = self.dash.view
        if old is not None and old.qids == snap.qids and v.topic.count():
            return
        self._filling = True
        try:
            v.topic.clear()
            v.topic.addItem(f"Mean of all {snap.num_topics}", None)
            for qid in snap.qids:
                v.topic.addItem(qid, qid)
            v.topic.setCurrentIndex(max(v.topic.findData(self.dash.topic), 0))
            self.dash.drill.topics_changed()
        finally:
            self._filling = False

    def _on_highlight_timer_timeout(self) -> None:
        self.dash.view.model.clear_changes()
        self.dash.view.drill_model.clear_changes()

    # -- plots ---------------------------------------------------------------------------------
    def update_plots(self, snap: Snapshot, structure: bool) -> None:
        dash = self.dash
        v = dash.view
        pr, ndcg, diff, prog = v.pr_plot, v.ndcg_plot, v.diff_plot, v.progress_plot
        if structure or tuple(dash.plot_runs) != pr.runs:
            pr.configure(dash.plot_runs)
            ndcg.configure(dash.plot_runs, snap.ndcg_cutoffs)
            full_lines = True
        else:
            full_lines = False
        key = (dash.diff_run, dash.baseline, snap.num_topics)
        full_diff = key != diff.key
        if full_diff:
            diff.configure(dash.diff_run, dash.baseline, snap.num_topics)
        full = {
            pr: pr.update(snap, dash.topic) or full_lines,
            ndcg: ndcg.update(snap, dash.topic) or full_lines,
            diff: diff.update(snap, dash.diff_run, dash.baseline) or full_diff,
            prog: prog.update(self._progress_curve(snap)),
        }
        for plot, needs_full in full.items():
            plot.refresh(full=needs_full)

    def _progress_curve(self, snap: Snapshot) -> ProgressCurve | None:
        """The snapshot's progress curve with the latest estimate of the topic's total
        (worked out in the background; the previous one stays until the next arrives)."""
        curve = snap.progress
        qid, total = self.dash.estimate
        if curve is not None and total is not None and qid == curve.qid:
            curve = dataclasses.replace(curve, estimate=total)
        return curve

    def show_progress(self) -> None:
        snap = self.dash.snapshot
        if snap is not None:
            plot = self.dash.view.progress_plot
            plot.refresh(full=plot.update(self._progress_curve(snap)))

    def follow_baseline(self) -> None:
        """The baseline changed: ΔAP compares with it (and not with itself)."""
        dash = self.dash
        run = dash.baseline
        if dash.diff_run == run:
            dash.diff_run = next((r for r in dash.plot_runs if r != run), None)
        dash.view.model.set_baseline(run)
        if dash.snapshot is not None:
            self.update_plots(dash.snapshot, structure=False)

    # -- the plots' choices --------------------------------------------------------------------
    def _on_topic_changed(self, _index: int) -> None:
        if self._filling:
            return
        self.set_topic(self.dash.view.topic.currentData())

    def set_topic(self, qid: str | None) -> None:
        """Plots for one topic (its progress too), or the mean over topics (None)."""
        dash = self.dash
        dash.topic = qid
        if qid is not None:
            dash.progress_topic = qid
            dash.jobs.refresh_view()
        if dash.snapshot is not None:
            self.update_plots(dash.snapshot, structure=False)

    def _on_run_selection_changed(self, *_args) -> None:
        runs = self.dash.view.selected_runs()
        if not runs or self.dash.snapshot is None:
            return
        self.set_plot_runs(runs)

    def set_plot_runs(self, runs: list[str]) -> None:
        """Plot these runs (the first non-baseline one also in ΔAP)."""
        dash = self.dash
        runs = runs[:MAX_PLOT_RUNS]
        if dash.snapshot is None:
            return
        others = [r for r in runs if r != dash.baseline]
        if others:
            dash.diff_run = others[0]
        if len(runs) == 1 and dash.baseline and runs[0] != dash.baseline:
            runs = [dash.baseline, runs[0]]  # a run alone is compared with the baseline
        dash.plot_runs = sorted(set(runs), key=dash.snapshot.run_names.index)
        self.update_plots(dash.snapshot, structure=False)

    # -- warnings and status -------------------------------------------------------------------
    def show_warnings(self, snap: Snapshot) -> None:
        """Coverage warnings of the snapshot, and the ranking's stability as last worked
        out in the background."""
        warnings = list(snap.warnings)
        settled = stability_warning(self.dash.stability)
        if settled is not None:
            warnings.insert(0, settled)  # one verdict first, then the runs
        w = self.dash.view.warnings
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
        self.dash.view.status.setText(
            f"{len(snap.run_names)} runs · {judged} · {snap.judgments} judgments made · "
            f"{snap.config.judgments.describe()} · trec_eval -c -l "
            f"{snap.config.judgments.relevance_level} semantics"
        )

    def stop(self) -> None:
        self.highlight_timer.stop()
        self.highlight_timer.timeout.disconnect()


def _best_first(snap: Snapshot) -> list[int]:
    """Run indices by the first measure's mean, best first (NaN last)."""
    col = snap.means[0] if len(snap.measures) else np.zeros(len(snap.run_names))
    key = np.where(np.isfinite(col), -col, np.inf)
    return list(np.argsort(key, kind="stable"))
