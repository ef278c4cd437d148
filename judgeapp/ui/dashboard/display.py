"""Showing a snapshot: the runs x measures table (changed cells highlighted for a while,
each mean's 95% interval), the topic choice, the four plots, the coverage warnings and the
status line; and the plots' choices (their topic, their runs).

The plots show the first rows of the table as it is sorted (the best N by its sort column)
and the baseline, unless the user selected rows; the legend under the plots names them and
says why they are there.

The table models get `dataChanged` for the changed cells only; the plots update their
artists in place, one redraw per batch.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QListWidgetItem

from judgeapp.services.baseline import TESTS
from judgeapp.services.dashboard_tables import DOWN, UP, mean_intervals
from judgeapp.services.live_eval import (
    DashboardWarning,
    ProgressCurve,
    Snapshot,
    stability_warning,
)
from judgeapp.ui.dashboard.parts import DashboardParts
from judgeapp.ui.dashboard.plots import COLOURS

HIGHLIGHT_MS = 6000  # how long the change of the last judgment stays highlighted
MAX_PLOT_RUNS = len(COLOURS)


class SnapshotDisplay(QObject):
    """Sets `dash.snapshot` (the one shown) and the plots' `dash.plot_runs`, `dash.diff_run`
    and `dash.topic`."""

    def __init__(self, dash: DashboardParts) -> None:
        super().__init__(dash)
        self.dash = dash
        self.updates = 0  # snapshots shown
        self.changed_cells: list[tuple[int, int]] = []  # (run, measure) the last update changed
        self._filling = False  # filling the topic combo box from code: no slot reactions
        self.manual_runs = False  # the plotted runs were chosen in the table (not the best)
        self._selecting = False  # selecting table rows from code: no slot reactions
        self._warning_texts: list[str] = []  # the coverage warnings shown
        self.highlight_timer = QTimer(self)
        self.highlight_timer.setSingleShot(True)
        self.highlight_timer.setInterval(HIGHLIGHT_MS)
        self._connect()

    def _connect(self) -> None:
        v = self.dash.view
        self.highlight_timer.timeout.connect(self._on_highlight_timer_timeout)
        v.topic.currentIndexChanged.connect(self._on_topic_changed)
        v.table.selectionModel().selectionChanged.connect(self._on_run_selection_changed)
        v.table.horizontalHeader().sortIndicatorChanged.connect(self._on_sort_changed)
        v.plot_count.valueChanged.connect(self._on_plot_count_changed)
        v.plot_auto.clicked.connect(self._on_plot_auto_clicked)
        v.show_intervals.toggled.connect(v.model.set_show_intervals)
        v.show_bounds.toggled.connect(self._on_show_bounds_toggled)
        self.dash.significance_updated.connect(self._on_significance_updated)

    def _on_show_bounds_toggled(self, shown: bool) -> None:
        v = self.dash.view
        v.model.set_show_bounds(shown)  # a second line; the columns refit (ColumnFitter)
        if shown:
            self.dash.analysis.bounds_timer.start()

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
        low, high = mean_intervals(snap)
        v.model.set_intervals(low, high, snap.num_topics)
        v.model.set_baseline(dash.baseline)
        if not self.manual_runs:
            self._pick_plot_runs(snap)
        else:
            self._show_plot_legend()
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
        order = [runs[r] for r in _best_first(snap)]
        if dash.baseline not in runs:
            # the best run by the first measure, until the user chooses (then remembered)
            dash.baseline = order[0] if order else None
        others = [r for r in order if r != dash.baseline]
        dash.plot_runs = [r for r in dash.plot_runs if r in runs]
        if not dash.plot_runs:
            self.manual_runs = False
        if not self.manual_runs:
            dash.plot_runs = self._best_runs(snap)
        if dash.diff_run not in runs or dash.diff_run == dash.baseline:
            dash.diff_run = others[0] if others else None

    # -- which runs the plots show -----------------------------------------------------------------
    def table_order(self) -> list[str]:
        """The runs as the table shows them (its sort column and order)."""
        return self.dash.view.model.labels_shown()

    def _best_runs(self, snap: Snapshot) -> list[str]:
        """The first N runs of the table (its order; the snapshot's best-first order while
        the table is not filled yet), and the baseline."""
        n = self.dash.view.plot_count.value()
        order = self.table_order()
        if sorted(order) != sorted(snap.run_names):
            order = [snap.run_names[r] for r in _best_first(snap)]
        picked = order[:n]
        base = self.dash.baseline
        if base is not None and base in snap.run_names and base not in picked:
            picked.append(base)
        return picked

    def _pick_plot_runs(self, snap: Snapshot) -> None:
        """Follow the table: a new best N (the sort changed, or the judgments reordered
        it) re-draws the curves with them."""
        dash = self.dash
        picked = self._best_runs(snap)
        if picked != dash.plot_runs:
            dash.plot_runs = picked
        self._show_plot_legend()

    def _show_plot_legend(self) -> None:
        """Coloured names of the plotted runs, and why these."""
        dash = self.dash
        v = dash.view
        snap = dash.snapshot
        if snap is None or not dash.plot_runs:
            v.plot_legend.setText("")
            return
        swatches = []
        for i, run in enumerate(dash.plot_runs):
            colour = COLOURS[i % len(COLOURS)]
            name = _html(run) + (" (baseline)" if run == dash.baseline else "")
            swatches.append(f"<span style='color:{colour}'>■</span>&nbsp;{name}")
        total = len(snap.run_names)
        if self.manual_runs:
            why = f"the runs chosen in the table ({len(dash.plot_runs)} of {total})"
        else:
            header = v.table.horizontalHeader()
            col = header.sortIndicatorSection()
            model = v.model
            key = model.headerData(col, Qt.Orientation.Horizontal) if col >= 0 else None
            best = "first" if col == 0 else "best"
            order = f" by {key}" if key and col > 0 else ""
            why = (
                f"the {best} {min(v.plot_count.value(), total)} of {total} runs{order} "
                "(the table's order) and the baseline; select rows to choose others"
            )
        text = "&nbsp;&nbsp; ".join(swatches) + f"<br><i>Plotted: {why}.</i>"
        if v.plot_legend.text() != text:  # a label's new text lays the window out again
            v.plot_legend.setText(text)
        v.plot_auto.setEnabled(self.manual_runs)

    def _on_sort_changed(self, *_args) -> None:
        if self.dash.snapshot is not None and not self.manual_runs:
            self._pick_plot_runs(self.dash.snapshot)
            self.update_plots(self.dash.snapshot, structure=False)

    def _on_plot_count_changed(self, _value: int) -> None:
        self._on_plot_auto_clicked()

    def _on_plot_auto_clicked(self) -> None:
        """Back to the best runs by the table."""
        self.manual_runs = False
        self._selecting = True
        try:
            self.dash.view.table.clearSelection()
        finally:
            self._selecting = False
        if self.dash.snapshot is not None:
            self._pick_plot_runs(self.dash.snapshot)
            self.update_plots(self.dash.snapshot, structure=False)

    # -- what the marks mean -------------------------------------------------------------------
    def _on_significance_updated(self, sig) -> None:
        v = self.dash.view
        if sig is None:
            base = self.dash.baseline
            v.marks_legend.setText(
                f"Baseline {base}: significance marks follow once the judging pauses."
                if base
                else ""
            )
            return
        corr = "" if sig.correction == "none" else f", {sig.correction.capitalize()}-corrected"
        v.marks_legend.setText(
            f"{UP}/{DOWN} significantly better/worse than {sig.baseline} "
            f"({TESTS[sig.test]}{corr}, p < {sig.alpha:g}). Hover a cell for p, effect "
            "size and 95% interval."
        )

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
        full_pr = full_ndcg = False
        if structure or tuple(dash.plot_runs) != pr.runs:
            # other runs, measures or topics: the curves are recoloured and drawn over the
            # kept background; a full draw only when their x changes (a full draw of both
            # took 40-180 ms of the GUI thread at TREC size, with most judgments there)
            full_pr = pr.configure(dash.plot_runs)
            full_ndcg = ndcg.configure(dash.plot_runs, snap.ndcg_cutoffs)
        key = (dash.diff_run, dash.baseline, snap.num_topics)
        full_diff = key != diff.key
        if full_diff:
            diff.configure(dash.diff_run, dash.baseline, snap.num_topics)
        full = {
            pr: pr.update(snap, dash.topic) or full_pr,
            ndcg: ndcg.update(snap, dash.topic) or full_ndcg,
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
        """The baseline changed: ΔAP compares with it (and not with itself), the plots
        show it, the panel waits for its tests."""
        dash = self.dash
        run = dash.baseline
        if dash.diff_run == run:
            dash.diff_run = next((r for r in dash.plot_runs if r != run), None)
        dash.view.model.set_baseline(run)
        dash.view.comparison_model.set_significance(None, None)
        self._on_significance_updated(None)
        if dash.snapshot is not None:
            if not self.manual_runs:
                self._pick_plot_runs(dash.snapshot)
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
        if self._selecting:
            return
        runs = self.dash.view.selected_runs()
        if not runs or self.dash.snapshot is None:
            return
        self.set_plot_runs(runs)

    def set_plot_runs(self, runs: list[str]) -> None:
        """Plot these runs (the first non-baseline one also in ΔAP). More than the plots
        can tell apart: the best of them by the table's order, and the legend says so."""
        dash = self.dash
        if dash.snapshot is None:
            return
        order = self.table_order() or list(dash.snapshot.run_names)
        runs = sorted(set(runs), key=lambda r: order.index(r) if r in order else len(order))
        runs = runs[:MAX_PLOT_RUNS]
        others = [r for r in runs if r != dash.baseline]
        if others:
            dash.diff_run = others[0]
        if len(runs) == 1 and dash.baseline and runs[0] != dash.baseline:
            runs = [runs[0], dash.baseline]  # a run alone is compared with the baseline
        self.manual_runs = True
        dash.plot_runs = runs
        self._show_plot_legend()
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
        if texts == self._warning_texts and w.count() == len(texts):
            return  # (read from the list's items, 1-2 ms at 115 runs every judgment)
        self._warning_texts = texts
        w.clear()
        shown: list[DashboardWarning | None] = list(warnings) or [None]
        for text, warning in zip(texts, shown, strict=True):
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, None if warning is None else warning.kind)
            w.addItem(item)

    def _show_status(self, snap: Snapshot) -> None:
        judged = f"{snap.num_topics} judged topic{'s' * (snap.num_topics != 1)}"
        self.dash.view.status.setText(
            f"{len(snap.run_names)} runs · {judged} · {snap.made} judgments made · "
            f"{snap.config.judgments.describe()} · trec_eval -c -l "
            f"{snap.config.judgments.relevance_level} semantics"
        )

    def stop(self) -> None:
        self.highlight_timer.stop()
        self.highlight_timer.timeout.disconnect()


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _best_first(snap: Snapshot) -> list[int]:
    """Run indices by the first measure's mean, best first (NaN last)."""
    col = snap.means[0] if len(snap.measures) else np.zeros(len(snap.run_names))
    key = np.where(np.isfinite(col), -col, np.inf)
    return list(np.argsort(key, kind="stable"))
