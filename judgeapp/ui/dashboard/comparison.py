"""The comparison panel: every run against the baseline, measure by measure, with the
difference, the test's p-value (corrected across runs) and the paired effect size in
plain columns (the table's tooltips say the same cell by cell). Filled from the
`Significance` the background analysis works out; emptied while it is being redone.
Its rows are shown sorted by the model itself (judgeapp.ui.dashboard.sorting): `items` are
in the model's own order, Qt's row r shows `items[source_row(r)]`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt

from judgeapp.services.baseline import TESTS, Significance
from judgeapp.services.dashboard_tables import DOWN, UP
from judgeapp.ui.dashboard.sorting import SortedRows
from judgeapp.ui.models import FixedColumnsTableModel

Index = QModelIndex | QPersistentModelIndex
ROLE = Qt.ItemDataRole
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class ComparisonTableModel(SortedRows, FixedColumnsTableModel):
    RUN, MEASURE, MEAN, DELTA, P, EFFECT, VERDICT = range(7)
    HEADERS = ("Run", "Measure", "Mean", "Δ vs baseline", "p (corrected)", "Effect d", "")
    SortRole = int(ROLE.UserRole) + 1

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)  # items: one per (run, measure), the values shown
        self.significance: Significance | None = None
        self.resets = 0  # new rows (other runs or measures), counted for the tests
        self._init_sorting()

    def set_items(self, items: Sequence[Any]) -> None:
        self.beginResetModel()
        self.items = list(items)
        self._sort_now()
        self.endResetModel()

    def _source_count(self) -> int:
        return len(self.items)

    def set_significance(self, sig: Significance | None, means: np.ndarray | None) -> None:
        """Rows for `sig` (None empties the panel); `means` [measure, run] of its table."""
        self.significance = sig
        rows: list[tuple[Any, ...]] = []
        if sig is not None and sig.topics and means is not None:
            for r, run in enumerate(sig.run_names):
                if run == sig.baseline:
                    continue
                for m, measure in enumerate(sig.measures):
                    rows.append(
                        (
                            run,
                            measure,
                            float(means[m, r]),
                            float(sig.delta[m, r]),
                            float(sig.p[m, r]),
                            float(sig.effect[m, r]),
                            int(sig.sign[m, r]),
                        )
                    )
        same_rows = len(rows) == len(self.items) and all(
            new[:2] == old[:2] for new, old in zip(rows, self.items, strict=True)
        )
        if not same_rows:
            self.resets += 1
            self.set_items(rows)
            return
        # the same runs and measures: new values in place, the rows whose values changed
        # signalled (a reset re-sorted and repainted the whole table at every judgment:
        # 115 runs x 8 measures, 60-150 ms of the GUI thread at TREC size)
        changed = [
            i for i, (new, old) in enumerate(zip(rows, self.items, strict=True)) if new != old
        ]
        self.items = rows
        self.resort()  # rows that move: one layout change
        if changed:
            shown = [self._shown[i] for i in changed]
            self.dataChanged.emit(
                self.index(min(shown), self.MEAN), self.index(max(shown), self.VERDICT)
            )

    def sort_keys(self, col: int) -> list[Any]:
        """What each row sorts by in column `col` (its SortRole; a missing number first
        in ascending order)."""
        return [_key(item[col]) for item in self.items]

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = ROLE.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.HEADERS):
            return None
        if role == ROLE.ToolTipRole and self.significance is not None:
            sig = self.significance
            corr = "" if sig.correction == "none" else f", {sig.correction}-corrected across runs"
            return {
                self.P: f"{TESTS[sig.test]}{corr}",
                self.EFFECT: "paired Cohen's d: mean difference / its standard deviation",
                self.DELTA: f"mean of the run minus mean of {sig.baseline}",
            }.get(section)
        return super().headerData(section, orientation, role)

    def cell(self, item: tuple[Any, ...], column: int) -> str:
        run, measure, mean, delta, p, effect, sign = item
        return (
            run,
            measure,
            f"{mean:.4f}",
            f"{delta:+.4f}",
            f"{p:.3g}",
            f"{effect:+.2f}",
            (f"{UP} better" if sign > 0 else f"{DOWN} worse") if sign else "",
        )[column]

    def data(self, index: Index, role: int = ROLE.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._order):
            return None
        row, col = self.items[self._order[index.row()]], index.column()
        if role == ROLE.DisplayRole:
            return self.cell(row, col)
        if role == self.SortRole:
            return row[col]
        if role == ROLE.TextAlignmentRole and col not in (self.RUN, self.MEASURE, self.VERDICT):
            return RIGHT
        return None


def _key(value: Any) -> Any:
    """A sort key: NaN (no test) as minus infinity, which sorts consistently."""
    return -math.inf if isinstance(value, float) and math.isnan(value) else value
