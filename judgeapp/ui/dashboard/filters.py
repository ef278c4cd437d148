"""What the dashboard evaluates and compares with: the judgments filter (whose judgments,
imported qrels or not, relevance level), the measures (their dialog), the baseline run and
the significance test. Kept with the project as the `ui.dashboard` setting.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from judgeapp.measures import DEFAULT_GUI_MEASURES
from judgeapp.records import AssessorInfo, GradeInfo
from judgeapp.services.live_eval import DashboardConfig, JudgmentFilter
from judgeapp.ui.dashboard.parts import DashboardParts
from judgeapp.ui.dashboard.view import MeasuresDialog

SETTINGS_KEY = "ui.dashboard"


class FilterController(QObject):
    """Sets `dash.config`, `dash.baseline` and `dash.test`."""

    def __init__(self, dash: DashboardParts) -> None:
        super().__init__(dash)
        self.dash = dash
        self.measures_dialog: MeasuresDialog | None = None
        self._filling = False  # setting its controls from code: no slot reactions
        self._connect()

    def _connect(self) -> None:
        v = self.dash.view
        v.assessor.currentIndexChanged.connect(self._on_filter_changed)
        v.sources.toggled.connect(self._on_filter_changed)
        v.policy.currentIndexChanged.connect(self._on_filter_changed)
        v.level.valueChanged.connect(self._on_filter_changed)
        v.baseline.currentIndexChanged.connect(self._on_baseline_changed)
        v.test.currentIndexChanged.connect(self._on_test_changed)
        v.measures_button.clicked.connect(self._on_measures_clicked)

    # -- kept with the project -----------------------------------------------------------------
    def load_settings(self, saved: object) -> None:
        """Take the choices kept with the project (`saved`: the setting's value, read in a
        worker with the rest of what the dashboard needs of a project)."""
        dash = self.dash
        saved = saved if isinstance(saved, dict) else {}
        measures = tuple(saved.get("measures") or DEFAULT_GUI_MEASURES)
        filt = JudgmentFilter(
            assessor=saved.get("assessor"),
            include_sources=bool(saved.get("include_sources", True)),
            relevance_level=int(saved.get("relevance_level", 1)),
            policy=str(saved.get("policy") or "newest"),
        )
        dash.config = DashboardConfig(measures=measures, judgments=filt)
        dash.baseline = saved.get("baseline")
        dash.test = saved.get("test", "t") if saved.get("test") in ("t", "rand") else "t"

    def save_settings(self) -> None:
        dash = self.dash
        wb = dash.workbench
        if wb is None:
            return
        f = dash.config.judgments
        values = {
            "measures": list(dash.config.measures),
            "assessor": f.assessor,
            "include_sources": f.include_sources,
            "relevance_level": f.relevance_level,
            "policy": f.policy,
            "baseline": dash.baseline,
            "test": dash.test,
        }
        dash.ops.write(lambda: wb.set_setting(SETTINGS_KEY, values), what="dashboard settings")

    # -- the judgments filter ------------------------------------------------------------------
    def read_controls(self) -> None:
        """Read the project's assessors and scale again, then fill the controls."""
        wb = self.dash.workbench
        if wb is not None:
            self.dash.ops.read(
                lambda: (wb.assessors(), wb.scale()),
                lambda found: self.fill_controls(*found),
                key="dashboard controls",
            )

    def fill_controls(self, assessors: list[AssessorInfo], scale: list[GradeInfo]) -> None:
        """The filter's controls (and the test's) as the project (its `assessors` and
        `scale`) and the settings have them."""
        dash = self.dash
        v = dash.view
        self._filling = True
        try:
            v.assessor.clear()
            v.assessor.addItem("All assessors", None)
            for a in assessors:
                label = a.name if a.kind == "person" else f"{a.name} (imported)"
                v.assessor.addItem(label, a.name)
            f = dash.config.judgments
            found = v.assessor.findData(f.assessor) if f.assessor is not None else 0
            v.assessor.setCurrentIndex(max(found, 0))
            v.sources.setChecked(f.include_sources)
            v.policy.setCurrentIndex(max(v.policy.findData(f.policy), 0))
            top = max((g.grade for g in scale), default=1)
            v.level.setRange(1, max(top, 1))
            v.level.setValue(min(max(f.relevance_level, 1), max(top, 1)))
            v.test.setCurrentIndex(max(v.test.findData(dash.test), 0))
            self._update_sources_enabled()
        finally:
            self._filling = False

    def _update_sources_enabled(self) -> None:
        v = self.dash.view
        label = v.assessor.currentText()
        v.sources.setEnabled(not label.endswith("(imported)"))

    def _on_filter_changed(self, *_args) -> None:
        if self._filling:
            return
        v = self.dash.view
        self._update_sources_enabled()
        self.set_filter(
            JudgmentFilter(
                assessor=v.assessor.currentData(),
                include_sources=v.sources.isChecked(),
                relevance_level=v.level.value(),
                policy=v.policy.currentData() or "newest",
            )
        )

    def set_filter(self, filt: JudgmentFilter) -> None:
        """Evaluate against other judgments (a full evaluation)."""
        config = self.dash.config
        if filt == config.judgments:
            return
        self.dash.config = DashboardConfig(
            measures=config.measures,
            judgments=filt,
            judged_k=config.judged_k,
            judged_threshold=config.judged_threshold,
            checkpoint_every=config.checkpoint_every,
        )
        self.save_settings()
        self.dash.jobs.reload()

    # -- the measures --------------------------------------------------------------------------
    def set_measures(self, lines: list[str]) -> None:
        """Show other measures (a full evaluation)."""
        config = self.dash.config
        if tuple(lines) == config.measures:
            return
        self.dash.config = DashboardConfig(
            measures=tuple(lines),
            judgments=config.judgments,
            judged_k=config.judged_k,
            judged_threshold=config.judged_threshold,
            checkpoint_every=config.checkpoint_every,
        )
        self.save_settings()
        self.dash.jobs.reload()

    def _on_measures_clicked(self) -> None:
        self.show_measures_dialog()

    def show_measures_dialog(self) -> MeasuresDialog:
        dialog = MeasuresDialog(list(self.dash.config.measures), self.dash.view)
        dialog.chosen.connect(self.set_measures)
        self.measures_dialog = dialog
        dialog.open()
        return dialog

    # -- the baseline and the test -------------------------------------------------------------
    def fill_baseline(self, runs: tuple[str, ...]) -> None:
        """The runs to choose the baseline from (the snapshot's)."""
        v = self.dash.view
        self._filling = True
        try:
            v.baseline.clear()
            for run in runs:
                v.baseline.addItem(run, run)
            v.baseline.setCurrentIndex(max(v.baseline.findData(self.dash.baseline), 0))
        finally:
            self._filling = False

    def _on_baseline_changed(self, _index: int) -> None:
        if self._filling:
            return
        dash = self.dash
        run = dash.view.baseline.currentData()
        if run is None or run == dash.baseline:
            return
        dash.baseline = run
        self.save_settings()
        dash.view.model.set_significance(None)  # marks against the old baseline are stale
        dash.display.follow_baseline()
        dash.analysis.redo_significance()

    def _on_test_changed(self, _index: int) -> None:
        if self._filling:
            return
        self.dash.test = self.dash.view.test.currentData()
        self.save_settings()
        self.dash.analysis.redo_significance()
