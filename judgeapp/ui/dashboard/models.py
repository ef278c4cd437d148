"""Table models of the dashboard: runs x measures (means, changes, significance marks) and
the drill-down (topics x measures for one run, or runs x measures for one topic).

Both keep a matrix of values. A new snapshot with the same rows and columns emits
`dataChanged` for the cells whose value changed (one signal per changed row, spanning its
changed columns) and for the cells whose highlight ends; only a new set of rows or columns
resets the model. The change of a cell since the last judgment is kept as its delta until
the next change or until `clear_changes()` (the controller's highlight timer).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from judgeapp.measures import Measure
from judgeapp.services.dashboard_tables import DOWN, UP
from judgeapp.services.live_eval import Significance

Index = QModelIndex | QPersistentModelIndex
ROLE = Qt.ItemDataRole
USER = int(ROLE.UserRole)

UP_COLOUR = QColor("#1e7a4f")
DOWN_COLOUR = QColor("#b3261e")
UP_TINT = QColor("#e3f4ea")
DOWN_TINT = QColor("#fbe6e4")


def sort_text(label: str) -> str:
    """A label that sorts naturally as text: '2' before '10', 'run2' before 'run10'."""
    return re.sub(r"\d+", lambda m: m.group(0).rjust(12, "0"), label.lower())


class _MatrixTableModel(QAbstractTableModel):
    """Rows named by `labels`, column 0 the label, then one column per measure."""

    ValueRole = USER + 1  # the float value (sorting, tests)
    DeltaRole = USER + 2  # change at the last update, or None
    KeyRole = USER + 3  # the row's run name or qid
    SortRole = USER + 4

    def __init__(self, label_header: str, parent=None) -> None:
        super().__init__(parent)
        self.label_header = label_header
        self._labels: tuple[str, ...] = ()
        self._measures: tuple[Measure, ...] = ()
        self._values = np.zeros((0, 0))
        self._delta = np.full((0, 0), np.nan)  # NaN: no highlight
        self.resets = 0  # model resets (new rows or columns), counted for the tests

    # -- filling ----------------------------------------------------------------------------------
    def set_matrix(
        self,
        labels: Sequence[str],
        measures: Sequence[Measure],
        values: np.ndarray,
        *,
        fresh: bool = False,
    ) -> list[tuple[int, int]]:
        """Show `values` (rows x measures); returns the cells whose value changed.
        `fresh`: other data under the same labels (no change to highlight): a reset."""
        labels, measures = tuple(labels), tuple(measures)
        values = np.asarray(values, dtype=np.float64)
        if fresh or labels != self._labels or measures != self._measures:
            self.beginResetModel()
            self._labels, self._measures = labels, measures
            self._values = values.copy()
            self._delta = np.full(values.shape, np.nan)
            self.resets += 1
            self.endResetModel()
            return []
        old = self._values
        same = (old == values) | (np.isnan(old) & np.isnan(values))
        changed = ~same
        was_highlighted = ~np.isnan(self._delta)
        delta = np.where(changed, values - old, np.nan)
        self._values = values.copy()
        self._delta = delta
        touched = changed | was_highlighted
        self._emit_cells(touched)
        rows, cols = np.nonzero(changed)
        return list(zip(rows.tolist(), cols.tolist(), strict=True))

    def clear_changes(self) -> None:
        """End the highlight of the last change."""
        highlighted = ~np.isnan(self._delta)
        if highlighted.any():
            self._delta[:] = np.nan
            self._emit_cells(highlighted)

    def _emit_cells(self, mask: np.ndarray) -> None:
        for r in np.flatnonzero(mask.any(axis=1)):
            cols = np.flatnonzero(mask[r])
            self.dataChanged.emit(
                self.index(int(r), int(cols[0]) + 1), self.index(int(r), int(cols[-1]) + 1)
            )

    # -- reading ---------------------------------------------------------------------------------
    def labels(self) -> tuple[str, ...]:
        return self._labels

    def measures(self) -> tuple[Measure, ...]:
        return self._measures

    def row_of(self, label: str) -> int | None:
        try:
            return self._labels.index(label)
        except ValueError:
            return None

    def value(self, label: str, measure: str) -> float:
        r = self._labels.index(label)
        c = [str(m) for m in self._measures].index(measure)
        return float(self._values[r, c])

    def delta(self, label: str, measure: str) -> float | None:
        r = self._labels.index(label)
        c = [str(m) for m in self._measures].index(measure)
        d = self._delta[r, c]
        return None if np.isnan(d) else float(d)

    def highlighted(self) -> list[tuple[str, str]]:
        rows, cols = np.nonzero(~np.isnan(self._delta))
        return [
            (self._labels[r], str(self._measures[c]))
            for r, c in zip(rows.tolist(), cols.tolist(), strict=True)
        ]

    # -- Qt ----------------------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._labels)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._measures) + 1

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = ROLE.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == ROLE.DisplayRole:
            return self.label_header if section == 0 else str(self._measures[section - 1])
        if role == ROLE.ToolTipRole and section > 0:
            m = self._measures[section - 1]
            return f"{m}: {m.description}"
        if role == ROLE.TextAlignmentRole:
            # centred: the sort indicator sits at the right edge
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def _text(self, r: int, c: int) -> str:
        value = self._values[r, c]
        if not np.isfinite(value):
            return "–"
        if self._measures[c].is_count:
            return f"{value:.0f}"
        return f"{value:.4f}"

    def data(self, index: Index, role: int = ROLE.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r, col = index.row(), index.column()
        if not (0 <= r < len(self._labels)) or not (0 <= col <= len(self._measures)):
            return None
        if col == 0:
            if role in (ROLE.DisplayRole, self.KeyRole):
                return self._labels[r]
            if role == self.SortRole:
                return sort_text(self._labels[r])
            return None
        c = col - 1
        if role == ROLE.DisplayRole:
            return self._text(r, c)
        if role in (self.ValueRole, self.SortRole):
            value = float(self._values[r, c])
            return value if np.isfinite(value) or role == self.ValueRole else -np.inf
        if role == self.DeltaRole:
            d = self._delta[r, c]
            return None if np.isnan(d) else float(d)
        if role == self.KeyRole:
            return self._labels[r]
        if role == ROLE.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == ROLE.BackgroundRole:
            d = self._delta[r, c]
            if not np.isnan(d) and d != 0:
                return QBrush(UP_TINT if d > 0 else DOWN_TINT)
            return None
        if role == ROLE.ToolTipRole:
            d = self._delta[r, c]
            if not np.isnan(d):
                return f"changed by {d:+.4f} at the last judgment"
            return None
        return None


class RunMeasureTableModel(_MatrixTableModel):
    """Runs x measures: means over topics, with significance marks against a baseline."""

    SignRole = USER + 10  # +1 significantly better than the baseline, -1 worse, 0 neither
    PValueRole = USER + 11

    def __init__(self, parent=None) -> None:
        super().__init__("Run", parent)
        self._sig: Significance | None = None
        self._sign = np.zeros((0, 0))
        self._p = np.ones((0, 0))
        self.baseline: str | None = None

    def set_matrix(self, labels, measures, values, *, fresh: bool = False):
        reset = fresh or tuple(labels) != self._labels or tuple(measures) != self._measures
        changed = super().set_matrix(labels, measures, values, fresh=fresh)
        if reset:
            self._sig = None
            self._sign = np.zeros(self._values.shape)
            self._p = np.ones(self._values.shape)
        return changed

    def set_baseline(self, run: str | None) -> None:
        if run == self.baseline:
            return
        rows = [self.row_of(x) for x in (self.baseline, run) if x is not None]
        self.baseline = run
        for r in rows:
            if r is not None:
                self.dataChanged.emit(self.index(r, 0), self.index(r, len(self._measures)))

    def set_significance(self, sig: Significance | None) -> None:
        """Show the marks of `sig` (None removes them); cells whose mark or p-value text
        changed are signalled."""
        usable = (
            sig is not None
            and sig.run_names == self._labels
            and sig.measures == tuple(str(m) for m in self._measures)
        )
        shape = self._values.shape
        new_sign = sig.sign.T.copy() if usable else np.zeros(shape)
        new_p = sig.p.T.copy() if usable else np.ones(shape)
        changed = (new_sign != self._sign) | (new_p != self._p)
        if (self._sig is None) != (not usable):
            changed[:] = True  # the tooltips gain or lose their test lines
        self._sig = sig if usable else None
        self._sign, self._p = new_sign, new_p
        self._emit_cells(changed)

    def significance(self) -> Significance | None:
        return self._sig

    def sign(self, run: str, measure: str) -> int:
        r = self._labels.index(run)
        c = [str(m) for m in self._measures].index(measure)
        return int(self._sign[r, c])

    def data(self, index: Index, role: int = ROLE.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r, col = index.row(), index.column()
        if not (0 <= r < len(self._labels)):
            return None
        is_baseline = self._labels[r] == self.baseline
        if role == ROLE.FontRole and is_baseline:
            font = QFont()
            font.setBold(True)
            return font
        if col == 0:
            if role == ROLE.ToolTipRole and is_baseline:
                return "the baseline of the significance marks"
            return super().data(index, role)
        c = col - 1
        if not (0 <= c < len(self._measures)):
            return None
        mark = int(self._sign[r, c]) if self._sign.size else 0
        if role == ROLE.DisplayRole:
            text = self._text(r, c)
            return f"{text} {UP if mark > 0 else DOWN}" if mark else text
        if role == self.SignRole:
            return mark
        if role == self.PValueRole:
            return None if self._sig is None else float(self._sig.p[c, r])
        if role == ROLE.ForegroundRole and mark:
            return QBrush(UP_COLOUR if mark > 0 else DOWN_COLOUR)
        if role == ROLE.ToolTipRole:
            parts = []
            change = super().data(index, role)
            if change:
                parts.append(change)
            if self._sig is not None:
                parts.append(self._sig.describe(c, r))
            return "\n".join(parts) or None
        return super().data(index, role)


class DrillDownTableModel(_MatrixTableModel):
    """Per-topic values: topics x measures for one run, or runs x measures for one topic."""

    def __init__(self, parent=None) -> None:
        super().__init__("Topic", parent)
        self.mode: str = "run"  # "run": rows are topics; "topic": rows are runs
        self.key: str | None = None

    def show(self, mode: str, key: str | None) -> None:
        self.mode, self.key = mode, key
        self.label_header = "Topic" if mode == "run" else "Run"
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, 0)
