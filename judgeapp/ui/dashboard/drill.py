"""The dashboard's drill-down: the per-topic values of one run (topics x measures) or of
one topic (runs x measures), reached by a double click on a run or a topic.

Out of sight (the runs x measures tab in front) it is brought up to date when its tab is
shown, not with every judgment.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from judgeapp.ui.dashboard.parts import DashboardParts


class DrillDownController(QObject):
    def __init__(self, dash: DashboardParts) -> None:
        super().__init__(dash)
        self.dash = dash
        self._stale = False  # a snapshot came while the drill-down was out of sight
        self._filling = False  # filling its combo boxes from code: no slot reactions
        self._connect()

    def _connect(self) -> None:
        v = self.dash.view
        v.table.doubleClicked.connect(self._on_run_double_clicked)
        v.drill_table.doubleClicked.connect(self._on_drill_double_clicked)
        v.drill_kind.currentIndexChanged.connect(self._on_drill_kind_changed)
        v.drill_key.currentIndexChanged.connect(self._on_drill_key_changed)
        v.tables.currentChanged.connect(self._on_tables_current_changed)

    def _on_run_double_clicked(self, index) -> None:
        run = index.data(self.dash.view.model.KeyRole)
        if run is not None:
            self.show_drill("run", run)

    def _on_drill_double_clicked(self, index) -> None:
        drill_model = self.dash.view.drill_model
        key = index.data(drill_model.KeyRole)
        if key is None:
            return
        if drill_model.mode == "run":
            self.show_drill("topic", key)
        else:
            self.show_drill("run", key)

    def show_drill(self, mode: str, key: str) -> None:
        """Bring the drill-down of one run ("run") or one topic ("topic") to the front."""
        v = self.dash.view
        self._filling = True
        try:
            v.drill_kind.setCurrentIndex(v.drill_kind.findData(mode))
            self._fill_keys()
            v.drill_key.setCurrentIndex(max(v.drill_key.findData(key), 0))
        finally:
            self._filling = False
        v.tables.setCurrentIndex(1)
        self._update(fresh=True)

    def fill_keys(self) -> None:
        """The runs or topics to choose from, as in the snapshot shown."""
        self._filling = True
        try:
            self._fill_keys()
        finally:
            self._filling = False

    def topics_changed(self) -> None:
        """The snapshot's topics changed: a drill-down by topic offers the new ones."""
        if self.dash.view.drill_kind.currentData() == "topic":
            self.fill_keys()

    def _fill_keys(self) -> None:
        v, snap = self.dash.view, self.dash.snapshot
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
        self.fill_keys()
        self._update(fresh=True)

    def _on_drill_key_changed(self, _index: int) -> None:
        if not self._filling:
            self._update(fresh=True)

    def follow(self, structure: bool) -> None:
        """A new snapshot is shown; `structure`: its runs or measures changed."""
        v = self.dash.view
        if v.tables.currentWidget() is v.table and not structure:
            self._stale = True  # the drill-down is not on screen: brought up to date
        else:  # when its tab is shown
            self._update(fresh=structure)

    def _update(self, fresh: bool) -> None:
        v, snap = self.dash.view, self.dash.snapshot
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
        v = self.dash.view
        if self._stale and v.tables.currentWidget() is not v.table:
            self._stale = False
            self._update(fresh=True)
