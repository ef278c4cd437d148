"""What the dashboard's parts share, and what each may ask of the others.

`DashboardController` (judgeapp.ui.dashboard.controller) is composed of parts (the filters,
the evaluation jobs, the background analysis, the display, the drill-down, the exports,
the own-window control), each handed the controller as `dash`. They share its state and
signals, declared here on `DashboardParts`, its base class, and reach each other only
through the small protocols below, so that no part imports the controller or another part
(no import circle inside the package).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer, Signal

from judgeapp.services.baseline import Significance
from judgeapp.services.live_eval import (
    DashboardConfig,
    LiveEvaluation,
    Snapshot,
    Stability,
)
from judgeapp.services.workbench import Workbench
from judgeapp.ui.dashboard.view import DashboardView
from judgeapp.ui.ops import Ops

LANE = "dashboard"  # the ops lane of the evaluation


class AnalysisPart(Protocol):
    """judgeapp.ui.dashboard.analysis.BackgroundAnalysis, as the other parts see it."""

    bounds_timer: QTimer

    def follow(self) -> None: ...

    def redo_significance(self) -> None: ...


class DisplayPart(Protocol):
    """judgeapp.ui.dashboard.display.SnapshotDisplay, as the other parts see it."""

    def show(self, snap: Snapshot, fresh: bool) -> None: ...

    def show_progress(self) -> None: ...

    def follow_baseline(self) -> None: ...

    def show_warnings(self, snap: Snapshot) -> None: ...


class DrillPart(Protocol):
    """judgeapp.ui.dashboard.drill.DrillDownController, as the other parts see it."""

    def fill_keys(self) -> None: ...

    def topics_changed(self) -> None: ...

    def follow(self, structure: bool) -> None: ...


class FiltersPart(Protocol):
    """judgeapp.ui.dashboard.filters.FilterController, as the other parts see it."""

    def fill_baseline(self, runs: tuple[str, ...]) -> None: ...


class JobsPart(Protocol):
    """judgeapp.ui.dashboard.jobs.EvaluationJobs, as the other parts see it."""

    threaded: bool
    live: LiveEvaluation | None
    generation: int

    def submit(
        self, fn: Callable[[], Any], done: Callable[[Any], None], lane: str = LANE
    ) -> None: ...

    def reload(self) -> None: ...

    def refresh_view(self) -> None: ...

    def snapshot_shown(self) -> None: ...


class DashboardParts(QObject):
    """The dashboard's shared state and signals (the controller's base class)."""

    updated = Signal(object)  # the Snapshot now shown by the table and the plots
    significance_updated = Signal(object)  # the Significance now shown as marks
    estimated = Signal(object)  # (qid, (point, low, high) or None): the progress estimate
    bounds_updated = Signal(object)  # the Bounds now shown (judgeapp.services.bounds)
    failed = Signal(str)

    view: DashboardView
    ops: Ops  # the window's ops once attached (judgeapp.ui.ops): every query of the dashboard
    workbench: Workbench | None
    config: DashboardConfig  # set by filters
    baseline: str | None  # set by filters (display picks one if missing)
    test: str  # set by filters
    snapshot: Snapshot | None  # set by display
    sig: Significance | None  # set by analysis
    stability: Stability | None  # set by analysis
    estimate: tuple[str | None, tuple[float, float, float] | None]
    plot_runs: list[str]  # set by display
    diff_run: str | None  # the run ΔAP compares with the baseline
    topic: str | None  # the plots' topic; None: mean over topics
    progress_topic: str | None  # the last judged topic
    blinded: bool  # taken out of the window: the assessor judges blind
    save_folders: Any  # where save dialogs open (the main controller's)
    filters: FiltersPart
    jobs: JobsPart
    analysis: AnalysisPart
    display: DisplayPart
    drill: DrillPart
