"""The dashboard's controller: keeps the live evaluation in step with the judgments.

It follows the main controller: `project_opened(Workbench)` starts a full evaluation,
`changes_applied(Changes)` marks the changed topics for the next update. The work is
shared among parts, one job each, which read and set the state kept here (the project,
the choices, what is shown):

- `filters` (filters.py): the judgments filter, the measures, baseline and test, kept
  with the project;
- `jobs` (jobs.py): the full evaluation and the updates of changed topics, coalesced,
  tagged with generation numbers, stale results dropped; waiting while out of sight;
- `analysis` (analysis.py): significance marks, the ranking's stability and the
  estimate of the total relevant, in the background once the judging pauses;
- `display` (display.py): a snapshot into the table, the plots, the warnings, the status;
  the plots' topic and runs;
- `drill` (drill.py): the per-topic drill-down of one run or one topic;
- `exports` (exports.py): the Export menu and its save dialogs;
- `window_control` (own_window.py): a tab of the main window or a window of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from judgeapp.records import Changes
from judgeapp.services.baseline import Significance
from judgeapp.services.live_eval import (
    DashboardConfig,
    JudgmentFilter,
    Snapshot,
    Stability,
)
from judgeapp.services.workbench import Workbench
from judgeapp.ui.dashboard.analysis import BackgroundAnalysis
from judgeapp.ui.dashboard.display import SnapshotDisplay
from judgeapp.ui.dashboard.drill import DrillDownController
from judgeapp.ui.dashboard.exports import ExportController
from judgeapp.ui.dashboard.filters import SETTINGS_KEY, FilterController
from judgeapp.ui.dashboard.jobs import COALESCE_MS, EvaluationJobs
from judgeapp.ui.dashboard.own_window import OwnWindowController
from judgeapp.ui.dashboard.parts import DashboardParts
from judgeapp.ui.dashboard.plots import LivePlot
from judgeapp.ui.dashboard.view import DashboardView, DashboardWindow, MeasuresDialog
from judgeapp.ui.ops import Ops


class DashboardController(DashboardParts):
    """The evaluator's dashboard: its parts (judgeapp.ui.dashboard.parts) composed, following
    the main window's projects and changes."""

    # the parts as the controller knows them (the parts know each other by protocol)
    filters: FilterController
    jobs: EvaluationJobs
    analysis: BackgroundAnalysis
    display: SnapshotDisplay
    drill: DrillDownController

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
        # the window's ops once attached (judgeapp.ui.ops): every query of the dashboard
        self.ops = Ops(self)
        # the state the parts share: the project, the choices, what is shown
        self.workbench: Workbench | None = None
        self.config = DashboardConfig()  # set by filters
        self.baseline: str | None = None  # set by filters (display picks one if missing)
        self.test = "t"  # set by filters
        self.snapshot: Snapshot | None = None  # set by display
        self.sig: Significance | None = None  # set by analysis
        self.stability: Stability | None = None  # set by analysis
        self.estimate: tuple[str | None, tuple[float, float, float] | None] = (None, None)
        self.plot_runs: list[str] = []  # set by display
        self.diff_run: str | None = None  # the run ΔAP compares with the baseline
        self.topic: str | None = None  # the plots' topic; None: mean over topics
        self.progress_topic: str | None = None  # the last judged topic
        self._shut = False
        self.blinded = False  # taken out of the window: the assessor judges blind
        self.show_action: Any = None  # the main window's "Dashboard" action (Ctrl+3)
        self.save_folders: Any = None  # where save dialogs open (the main controller's)
        self.filters = FilterController(self)
        self.jobs = EvaluationJobs(self, threaded=threaded, coalesce_ms=coalesce_ms)
        self.analysis = BackgroundAnalysis(self)
        self.display = SnapshotDisplay(self)
        self.drill = DrillDownController(self)
        self.exports = ExportController(self)
        self.window_control = OwnWindowController(self)
        self.significance_updated.connect(self._on_significance_updated)
        # what the comparison panel is to show once its tab is (None: shown already)
        self._comparison: tuple[Significance | None, np.ndarray | None] | None = None
        self.view.tables.currentChanged.connect(self._show_comparison)
        self.view.set_ready_check(lambda: self.ready() and self.analysis_ready())

    def _on_significance_updated(self, sig: Significance | None) -> None:
        """The comparison panel follows the significance marks (emptied while redone), when
        its tab is shown: brought up to date as it comes to the front otherwise. Its rows
        are every other run times every measure (912 at 115 runs and 8 measures), kept
        sorted by a proxy in Python: 40-80 ms of the GUI thread a judgment at TREC size,
        spent on a table out of sight."""
        snap = self.snapshot
        usable = sig is not None and snap is not None and sig.run_names == snap.run_names
        self._comparison = (
            sig if usable else None,
            snap.means if usable and snap is not None else None,
        )
        if self.view.tables.currentWidget() is self.view.comparison_table:
            self._show_comparison()

    def _show_comparison(self, _tab: int = -1) -> None:
        """The comparison panel brought up to date, if it is on screen and behind."""
        if self._comparison is None or self.view.tables.currentWidget() is not (
            self.view.comparison_table
        ):
            return
        sig, means = self._comparison
        self._comparison = None
        self.view.comparison_model.set_significance(sig, means)

    # -- following the main controller ---------------------------------------------------------
    def attach(self, main_controller: Any, tab_title: str = "Dashboard") -> None:
        """Follow the main window's controller: its projects and its changes."""
        self.window_control.attach(main_controller.window, tab_title)
        self.save_folders = getattr(main_controller, "save_folders", None)
        self.ops = getattr(main_controller, "ops", self.ops)
        main_controller.project_opened.connect(self._on_project_opened)
        main_controller.changes_applied.connect(self._on_changes_applied)
        main_controller.blind_changed.connect(self.set_blind)
        main_controller.window.closing.connect(self.shutdown)
        self.set_blind(bool(getattr(main_controller, "blind", False)))
        if getattr(main_controller, "workbench", None) is not None:
            self._on_project_opened(main_controller.workbench)  # attached after the opening

    def set_blind(self, blind: bool) -> None:
        """A blind assessor's window holds no dashboard at all (and it computes nothing);
        an evaluator's gets it back, evaluated afresh."""
        if blind == self.blinded:
            return
        self.blinded = blind
        if self.show_action is not None:
            self.show_action.setVisible(not blind)
        main = self.window_control.main_window
        if main is None:
            return
        if blind:
            self.window_control.set_own_window(False)
            main.remove_view(self.view)
        else:
            main.add_view(self.window_control.tab_title, self.view)
            if self.workbench is not None:
                self.jobs.reload()

    def _on_project_opened(self, workbench: Workbench) -> None:
        self.workbench = workbench
        self.snapshot = None
        self.sig = None
        self.stability = None
        self.estimate = (None, None)
        self.topic = None
        self.plot_runs = []
        self.diff_run = None
        self.jobs.generation += 1  # what runs for the project before is stale now

        def read() -> tuple[Any, list, list, str | None]:
            return (
                workbench.setting(SETTINGS_KEY),
                workbench.assessors(),
                workbench.scale(),
                workbench.last_topic(),
            )

        self.ops.read(read, lambda found: self._on_project_read(workbench, *found))

    def _on_project_read(
        self, workbench: Workbench, saved: Any, assessors: list, scale: list, last: str | None
    ) -> None:
        if workbench is not self.workbench:
            return
        self.progress_topic = last
        self.filters.load_settings(saved)
        self.filters.fill_controls(assessors, scale)
        self.jobs.reload()

    def _on_changes_applied(self, changes: Changes) -> None:
        if self.workbench is None or changes.empty:
            return
        if changes.assessors or changes.scale:
            self.filters.read_controls()
        self.jobs.take_changes(changes)

    # -- state -----------------------------------------------------------------------------------
    def ready(self) -> bool:
        """True once the project is shown and no update is waiting."""
        return (
            self.snapshot is not None
            and self.jobs.idle()
            and not any(plot.pending for plot in self.view.plots)
        )

    def analysis_ready(self) -> bool:
        """Marks, stability and the estimate belong to what is shown (screenshots, tests)."""
        return self.analysis.ready()

    def marks_ready(self) -> bool:
        """The significance marks shown belong to the snapshot shown, baseline and test."""
        return self.analysis.marks_ready()

    def bounds_ready(self) -> bool:
        """The bounds shown belong to the snapshot shown (or are not asked for)."""
        return self.analysis.bounds_ready()

    @property
    def updates(self) -> int:
        """Snapshots shown."""
        return self.display.updates

    @property
    def changed_cells(self) -> list[tuple[int, int]]:
        """(run, measure) cells the last snapshot changed."""
        return self.display.changed_cells

    @property
    def dropped(self) -> int:
        """Stale results dropped (evaluations, significance tests, estimates)."""
        return self.jobs.dropped + self.analysis.dropped

    @property
    def last_error(self) -> str | None:
        return self.jobs.last_error

    @property
    def own_window(self) -> DashboardWindow | None:
        return self.window_control.window

    # -- what the parts do, for the app, the tests and the benchmarks --------------------------
    def reload(self) -> None:
        self.jobs.reload()

    def set_filter(self, filt: JudgmentFilter) -> None:
        self.filters.set_filter(filt)

    def set_measures(self, lines: list[str]) -> None:
        self.filters.set_measures(lines)

    def show_measures_dialog(self) -> MeasuresDialog:
        return self.filters.show_measures_dialog()

    def set_topic(self, qid: str | None) -> None:
        self.display.set_topic(qid)

    def set_plot_runs(self, runs: list[str]) -> None:
        self.display.set_plot_runs(runs)

    def show_drill(self, mode: str, key: str) -> None:
        self.drill.show_drill(mode, key)

    def table_text(self, fmt: str) -> str:
        return self.exports.table_text(fmt)

    def export_table(self, path: str | Path, fmt: str) -> Path:
        return self.exports.export_table(path, fmt)

    def copy_trec_eval(self) -> str:
        return self.exports.copy_trec_eval()

    def ask_export_table(self, fmt: str) -> QFileDialog:
        return self.exports.ask_export_table(fmt)

    def ask_save_plot(self, plot: LivePlot) -> QFileDialog:
        return self.exports.ask_save_plot(plot)

    def set_own_window(self, own: bool) -> None:
        self.window_control.set_own_window(own)

    # -- closing ---------------------------------------------------------------------------------
    def shutdown(self) -> None:
        """Stop timers, drop whatever is running, wait for the workers (once)."""
        if self._shut:
            return
        self._shut = True
        self.jobs.stop()
        self.analysis.stop()
        self.display.stop()
        self.window_control.close()
        self.jobs.wait()
        self.analysis.wait()
        self.workbench = None
        self.jobs.live = None
