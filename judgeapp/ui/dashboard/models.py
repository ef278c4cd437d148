"""Table models of the dashboard: runs x measures (means, changes, significance marks) and
the drill-down (topics x measures for one run, or runs x measures for one topic).

Both keep a matrix of values. A new snapshot with the same rows and columns emits
`dataChanged` for the cells whose value changed (one signal per changed row, spanning its
changed columns) and for the cells whose highlight ends; only a new set of rows or columns
resets the model. The change of a cell since the last judgment is kept as its delta until
the next change or until `clear_changes()` (the controller's highlight timer).

A repaint asks `data()` for some ten roles of every visible cell, so what it returns is
prepared when the values change (texts, brushes, tooltips per cell) and `data()` only looks
it up: the table repaints after every judgment. The change of a cell shows in its text,
"0.3005  +.0120", and as a green or red tint.

The rows are shown sorted by the model itself (judgeapp.ui.dashboard.sorting): Qt's row r
is the model's own row `source_row(r)` (the order of `labels()`, the snapshot's); the
arrays here are in that own order, and `data()` maps Qt's rows onto it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QModelRoleData,
    QModelRoleDataSpan,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont

from judgeapp.measures import Measure
from judgeapp.services.baseline import Significance
from judgeapp.services.dashboard_tables import DOWN, UP
from judgeapp.ui import theme
from judgeapp.ui.dashboard.sorting import SortedRows
from judgeapp.ui.models import fill_roles as fill_cell_roles

Index = QModelIndex | QPersistentModelIndex
ROLE = Qt.ItemDataRole
USER = int(ROLE.UserRole)
DISPLAY = int(ROLE.DisplayRole)
TOOLTIP = int(ROLE.ToolTipRole)
ALIGN = int(ROLE.TextAlignmentRole)
BACKGROUND = int(ROLE.BackgroundRole)
FOREGROUND = int(ROLE.ForegroundRole)
FONT = int(ROLE.FontRole)
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
CENTRE = int(Qt.AlignmentFlag.AlignCenter)
UNKEPT = {TOOLTIP, int(ROLE.StatusTipRole), int(ROLE.WhatsThisRole)}  # asked, not kept
CELL_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable  # made once: an enum's
NO_FLAGS = Qt.ItemFlag.NoItemFlags  # "|" is Python code, and Qt asks for every cell painted

UP_COLOUR = QColor("#1e7a4f")
DOWN_COLOUR = QColor("#b3261e")
UP_BRUSH = QBrush(UP_COLOUR)
DOWN_BRUSH = QBrush(DOWN_COLOUR)
_TINTS: dict[tuple[str, str], tuple[QBrush, QBrush]] = {}


def _tints() -> tuple[QBrush, QBrush]:
    """The change tints (up, down) of the colour scheme in use (light or dark)."""
    key = (theme.COLOURS["up_tint"], theme.COLOURS["down_tint"])
    if key not in _TINTS:
        _TINTS[key] = (QBrush(QColor(key[0])), QBrush(QColor(key[1])))
    return _TINTS[key]


def sort_text(label: str) -> str:
    """A label that sorts naturally as text: '2' before '10', 'run2' before 'run10'."""
    return re.sub(r"\d+", lambda m: m.group(0).rjust(12, "0"), label.lower())


def _value_text(value: float, count: bool) -> str:
    value = float(value)  # a numpy scalar formats several times slower
    if not math.isfinite(value):
        return "–"
    return f"{value:.0f}" if count else f"{value:.4f}"


def _bound_text(value: float, count: bool) -> str:
    """A bound beside the value in a narrow column: .2040, 1.0000 (the leading zero dropped
    below 1, as in the deltas and the ± of the intervals)."""
    text = _value_text(value, count)
    return text[1:] if text.startswith("0.") else text


def _delta_text(delta: float) -> str:
    """A change, short enough to stand beside the value in a narrow column: +.0123, −.0004,
    +1.250 (a true minus sign; the leading zero dropped below 1)."""
    sign = "+" if delta >= 0 else "−"
    size = abs(delta)
    if size >= 1:
        return f"{sign}{size:.3f}"
    return sign + f"{size:.4f}"[1:]


class MatrixTableModel(SortedRows, QAbstractTableModel):
    """Rows named by `labels`, column 0 the label, then one column per measure; shown
    sorted by the column the view's header chose (`sort`)."""

    ValueRole = USER + 1  # the float value (sorting, tests)
    DeltaRole = USER + 2  # change at the last update, or None
    KeyRole = USER + 3  # the row's run name or qid
    SortRole = USER + 4

    def __init__(self, label_header: str, parent=None) -> None:
        super().__init__(parent)
        self.label_header = label_header
        self._labels: tuple[str, ...] = ()
        self._sort_labels: list[str] = []
        self._measures: tuple[Measure, ...] = ()
        self._names: list[str] = []
        self._values = np.zeros((0, 0))
        self._delta = np.full((0, 0), np.nan)  # NaN: no highlight
        # per cell, what data() returns: [row][column], column 0 the label
        self._text: list[list[str | None]] = []  # None: to be prepared when asked
        self._tint: list[list[QBrush | None]] = []
        self._tip: list[list[str | None]] = []
        # per cell, what a paint asked of it and got, by role (None: to be asked again):
        # a paint asks seven roles of each cell on screen, and the table repaints after
        # every judgment
        self._painted: list[list[dict[int, Any] | None]] = []
        self.resets = 0  # model resets (new rows or columns), counted for the tests
        self._init_sorting()

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
            self._sort_labels = [sort_text(x) for x in labels]
            self._names = [str(m) for m in measures]
            self._values = values.copy()
            self._delta = np.full(values.shape, np.nan)
            n_cols = len(measures) + 1
            self._text = [[label, *([""] * len(measures))] for label in labels]
            self._tint = [[None] * n_cols for _ in labels]
            self._tip = [[None] * n_cols for _ in labels]
            self._painted = [[None] * n_cols for _ in labels]
            self._refresh_cells(np.ones(values.shape, dtype=bool))
            self.resets += 1
            self._sort_now()
            self.endResetModel()
            return []
        old = self._values
        changed = ~((old == values) | (np.isnan(old) & np.isnan(values)))
        if not changed.any():
            return []  # the last change stays highlighted until the next one
        was_highlighted = ~np.isnan(self._delta)
        self._delta = np.where(changed, values - old, np.nan)
        self._values = values.copy()
        touched = changed | was_highlighted
        self._refresh_cells(touched)
        self.resort()  # rows that move: one layout change
        self._emit_cells(touched)
        rows, cols = np.nonzero(changed)
        return list(zip(rows.tolist(), cols.tolist(), strict=True))

    def clear_changes(self) -> None:
        """End the highlight of the last change."""
        highlighted = ~np.isnan(self._delta)
        if highlighted.any():
            self._delta[:] = np.nan
            self._refresh_cells(highlighted)
            self._emit_cells(highlighted)

    def _refresh_cells(self, mask: np.ndarray) -> None:
        """Forget the prepared text, tint and tooltip of the cells in `mask` (rows x
        measures): they are prepared again when the view asks for them, so only the cells
        on screen are ever formatted."""
        rows, cols = np.nonzero(mask)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            self._text[r][c + 1] = None
            self._painted[r][c + 1] = None

    def _forget_rows(self, rows: list[int]) -> None:
        """Forget what the paints were given for these rows (the model's own) in every
        column: the roles that are not prepared per cell (the baseline's font) changed."""
        for r in rows:
            self._painted[r] = [None] * len(self._painted[r])

    def _prepared(self, r: int, col: int) -> None:
        if col and self._text[r][col] is None:
            self._refresh_cell(r, col - 1)

    def _refresh_cell(self, r: int, c: int) -> None:
        text = _value_text(self._values[r, c], self._measures[c].is_count) + self._mark(r, c)
        d = float(self._delta[r, c])
        if math.isnan(d):
            self._tint[r][c + 1] = None
            self._tip[r][c + 1] = None
        else:
            # the change in the text and as a tint: no Python delegate, so that repainting
            # the table after each judgment stays cheap
            text += f"  {_delta_text(d)}"
            up, down = _tints()
            self._tint[r][c + 1] = None if d == 0 else (up if d > 0 else down)
            self._tip[r][c + 1] = f"changed by {d:+.4f} at the last judgment"
        second = self._second_line(r, c)
        self._text[r][c + 1] = f"{text}\n{second}" if second else text

    def _mark(self, r: int, c: int) -> str:
        """What follows the value (the significance mark in the runs table)."""
        return ""

    def _second_line(self, r: int, c: int) -> str:
        """What goes under the value (the interval and bounds in the runs table, on a line
        of their own so that a column is no wider than a value with its mark and change)."""
        return ""

    def lines(self) -> int:
        """How many lines of text a row has."""
        return 1

    def shape_key(self) -> tuple:
        """What the widths of the texts depend on besides the rows and columns (a change
        of values alone keeps every text as wide: the numbers have fixed formats)."""
        return (self.lines(),)

    def widest_texts(self, col: int) -> list[str]:
        """Texts as wide as the widest a column shows, from the formats and the column's
        extremes rather than from every cell (measured without asking the view, which
        formats each cell through Python: 100 ms at TREC scale)."""
        if col == 0:
            return [max(self._labels, key=len, default="")]
        c = col - 1
        values = self._values[:, c] if self._values.size else np.zeros(0)
        finite = values[np.isfinite(values)]
        count = self._measures[c].is_count
        samples = (
            [_value_text(float(v), count) for v in (finite.min(), finite.max())]
            if (finite.size)
            else ["–"]
        )
        # room for a significance mark and the change of the last judgment
        first = max(samples, key=len) + self._mark_room(c) + "  −.0000"
        return [first, *self._second_lines(c)]

    def _mark_room(self, c: int) -> str:
        return ""

    def _second_lines(self, c: int) -> list[str]:
        return []

    def _emit_cells(self, mask: np.ndarray) -> None:
        """One dataChanged for the block of shown rows that holds the changed cells
        (`mask`: the model's own rows x measures): a judgment changes most runs' AP."""
        if not self._order:
            return
        changed_rows = np.asarray(mask.any(axis=1))
        rows = np.flatnonzero(changed_rows[self._order])
        if not rows.size:
            return
        cols = np.flatnonzero(mask.any(axis=0))
        self.dataChanged.emit(
            self.index(int(rows[0]), int(cols[0]) + 1),
            self.index(int(rows[-1]), int(cols[-1]) + 1),
        )

    def sort_keys(self, col: int) -> list[Any]:
        """What each of the model's own rows sorts by in column `col`, as its SortRole
        gives it: the label as natural text, or the value (a missing one first in
        ascending order, last in descending)."""
        if col <= 0:
            return list(self._sort_labels)
        values = self._values[:, col - 1]
        return np.where(np.isfinite(values), values, -np.inf).tolist()

    # -- reading ---------------------------------------------------------------------------------
    def labels(self) -> tuple[str, ...]:
        return self._labels

    def measures(self) -> tuple[Measure, ...]:
        return self._measures

    def _source_count(self) -> int:
        return len(self._labels)

    def row_of(self, label: str) -> int | None:
        """The row (as shown, Qt's) of `label`."""
        try:
            return self._shown[self._labels.index(label)]
        except ValueError:
            return None

    def labels_shown(self) -> list[str]:
        """The labels in the order the rows are shown."""
        return [self._labels[s] for s in self._order]

    def label_at(self, row: int) -> str | None:
        """The label of the row shown at `row` (Qt's)."""
        return self._labels[self._order[row]] if 0 <= row < len(self._order) else None

    def _cell(self, label: str, measure: str) -> tuple[int, int]:
        return self._labels.index(label), self._names.index(measure)

    def value(self, label: str, measure: str) -> float:
        return float(self._values[self._cell(label, measure)])

    def delta(self, label: str, measure: str) -> float | None:
        d = self._delta[self._cell(label, measure)]
        return None if np.isnan(d) else float(d)

    def highlighted(self) -> list[tuple[str, str]]:
        rows, cols = np.nonzero(~np.isnan(self._delta))
        return [
            (self._labels[r], self._names[c])
            for r, c in zip(rows.tolist(), cols.tolist(), strict=True)
        ]

    # -- Qt ----------------------------------------------------------------------------------------
    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        """One call into Python per cell a paint asks for (Qt's own asks `rowCount()` and
        `columnCount()` here, two)."""
        if parent.isValid() or not (
            0 <= row < len(self._labels) and 0 <= column <= len(self._measures)
        ):
            return QModelIndex()
        return self.createIndex(row, column)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._labels)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._measures) + 1

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DISPLAY):
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == DISPLAY:
            return self.label_header if section == 0 else self._names[section - 1]
        if role == TOOLTIP and section > 0:
            m = self._measures[section - 1]
            return f"{m}: {m.description}"
        if role == ALIGN:
            return CENTRE  # the sort indicator sits at the right edge
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        return CELL_FLAGS if index.isValid() else NO_FLAGS

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        row = index.row()
        if not 0 <= row < len(self._order):
            return None
        return self.cell_data(self._order[row], index.column(), role)

    def multiData(self, index: Index, roles: QModelRoleDataSpan | QModelRoleData) -> None:
        row = index.row()
        if 0 <= row < len(self._order):
            self.fill_roles(self._order[row], index.column(), roles)

    def fill_roles(self, r: int, col: int, roles: Any) -> None:
        """Every role a paint asks of a cell (the model's own row `r`) in one call from Qt
        (`multiData`), instead of one call into Python per role: a repaint of the table
        after a judgment asks seven roles of each cell on screen. What a cell gave is kept
        until it changes (`_refresh_cells`, `_forget_rows`): most cells a repaint asks
        for did not (the tooltip, written when asked, is never kept)."""
        if not (0 <= r < len(self._painted) and 0 <= col < len(self._painted[r])):
            return
        given = self._painted[r][col]
        if given is None:
            given = self._painted[r][col] = self._paint_roles(r, col)

        def kept(r: int, col: int, role: int) -> Any:
            if role in given:
                return given[role]
            value = self.cell_data(r, col, role)
            if role < USER and role not in UNKEPT:
                given[role] = value
            return value

        fill_cell_roles(kept, r, col, roles)

    def _paint_roles(self, r: int, col: int) -> dict[int, Any]:
        """What a paint asks of a cell, made at once (as `cell_data` gives it role by role,
        each a few calls in Python)."""
        self._prepared(r, col)
        return {
            DISPLAY: self._text[r][col],
            ALIGN: RIGHT if col else None,
            BACKGROUND: self._tint[r][col],
        }

    def cell_data(self, r: int, col: int, role: int) -> Any:
        """What `data()` gives for the cell of the model's own row `r`, column `col`."""
        if r < 0 or r >= len(self._text) or col < 0 or col > len(self._names):
            return None
        if role == DISPLAY:
            self._prepared(r, col)
            return self._text[r][col]
        if role == ALIGN:
            return RIGHT if col else None
        if role == BACKGROUND:
            self._prepared(r, col)
            return self._tint[r][col]
        if role == TOOLTIP:
            self._prepared(r, col)
            return self._tip[r][col]
        if role >= USER:
            return self._user_data(r, col, role)
        return None

    def _user_data(self, r: int, col: int, role: int) -> Any:
        if col == 0:
            if role == self.SortRole:
                return self._sort_labels[r]
            return self._labels[r] if role in (self.KeyRole, self.ValueRole) else None
        c = col - 1
        if role == self.SortRole:
            value = float(self._values[r, c])
            return value if np.isfinite(value) else -np.inf
        if role == self.ValueRole:
            return float(self._values[r, c])
        if role == self.DeltaRole:
            d = self._delta[r, c]
            return None if np.isnan(d) else float(d)
        if role == self.KeyRole:
            return self._labels[r]
        return None


class RunMeasureTableModel(MatrixTableModel):
    """Runs x measures: means over topics, with significance marks against a baseline."""

    SignRole = USER + 10  # +1 significantly better than the baseline, -1 worse, 0 neither
    PValueRole = USER + 11

    def __init__(self, parent=None) -> None:
        super().__init__("Run", parent)
        self._sig: Significance | None = None
        self._sign = np.zeros((0, 0))
        self._p = np.ones((0, 0))
        self._fg: list[list[QBrush | None]] = []
        self.baseline: str | None = None
        self._bold = QFont()
        self._bold.setBold(True)
        # each mean's 95% interval [run, measure] (NaN: none), in the tooltip; in the text too
        # when `show_intervals`
        self._low = np.full((0, 0), np.nan)
        self._high = np.full((0, 0), np.nan)
        self.show_intervals = False
        self.interval_topics = 0
        # each mean's least and greatest value once the pools are judged [run, measure]
        # (NaN: not known), in the text when `show_bounds`, and in the tooltip
        self._bound_low = np.full((0, 0), np.nan)
        self._bound_high = np.full((0, 0), np.nan)
        self.show_bounds = False
        self.unjudged = 0

    def set_matrix(self, labels, measures, values, *, fresh: bool = False):
        labels, measures = tuple(labels), tuple(measures)
        if fresh or labels != self._labels or measures != self._measures:
            self._sig = None
            shape = (len(labels), len(measures))
            self._sign = np.zeros(shape)
            self._p = np.ones(shape)
            self._fg = [[None] * (len(measures) + 1) for _ in labels]
            self._low = np.full(shape, np.nan)
            self._high = np.full(shape, np.nan)
            self._bound_low = np.full(shape, np.nan)
            self._bound_high = np.full(shape, np.nan)
        return super().set_matrix(labels, measures, values, fresh=fresh)

    def _mark(self, r: int, c: int) -> str:
        mark = int(self._sign[r, c]) if self._sign.size else 0
        return f" {UP if mark > 0 else DOWN}" if mark else ""

    def _second_line(self, r: int, c: int) -> str:
        parts = []
        if self.show_intervals and self._low.shape == self._values.shape:
            low, high = self._low[r, c], self._high[r, c]
            if np.isfinite(low) and np.isfinite(high):
                parts.append(f"±{_delta_text((high - low) / 2)[1:]}")
        bounds = self._bounds_at(r, c) if self.show_bounds else None
        if bounds is not None:
            count = self._measures[c].is_count
            parts.append(f"[{_bound_text(bounds[0], count)}–{_bound_text(bounds[1], count)}]")
        return " ".join(parts)

    def lines(self) -> int:
        return 2 if self.show_intervals or self.show_bounds else 1

    def shape_key(self) -> tuple:
        known = bool(np.isfinite(self._bound_low).any()) or bool(np.isfinite(self._low).any())
        marked = np.flatnonzero(self._sign.any(axis=0)).tobytes() if self._sign.size else b""
        return (self.lines(), self.show_intervals, self.show_bounds, known, marked)

    def _mark_room(self, c: int) -> str:
        marked = self._sign.size and self._sign.shape[1] > c and self._sign[:, c].any()
        return f" {DOWN}" if marked else ""

    def _second_lines(self, c: int) -> list[str]:
        if self.lines() < 2:
            return []
        return [max((self._second_line(r, c) for r in range(len(self._labels))), key=len)]

    def set_bounds(self, runs, measures, low: np.ndarray, high: np.ndarray, unjudged: int) -> None:
        """Each mean's bounds once the pools are judged ([measure, run] arrays over `runs`
        and `measures`, which may be older than the table's: matched by name)."""
        shape = self._values.shape
        new_low, new_high = np.full(shape, np.nan), np.full(shape, np.nan)
        where_run = {name: i for i, name in enumerate(runs)}
        where_measure = {str(m): i for i, m in enumerate(measures)}
        for r, run in enumerate(self._labels):
            for c, m in enumerate(self._measures):
                i, j = where_measure.get(str(m)), where_run.get(run)
                if i is not None and j is not None:
                    new_low[r, c], new_high[r, c] = low[i, j], high[i, j]
        changed = _ranges_changed(self._bound_low, self._bound_high, new_low, new_high)
        self._bound_low, self._bound_high, self.unjudged = new_low, new_high, unjudged
        if changed.any():
            self._refresh_cells(changed)
            self._emit_cells(changed)

    def set_show_bounds(self, shown: bool) -> None:
        if shown == self.show_bounds:
            return
        self.show_bounds = shown
        self._refresh_every_cell()

    def _bounds_at(self, r: int, c: int) -> tuple[float, float] | None:
        if self._bound_low.shape != self._values.shape:
            return None
        low, high = self._bound_low[r, c], self._bound_high[r, c]
        if not (np.isfinite(low) and np.isfinite(high)):
            return None
        return float(low), float(high)

    def bounds(self, run: str, measure: str) -> tuple[float, float] | None:
        """The (low, high) shown for a cell, None while unknown."""
        return self._bounds_at(*self._cell(run, measure))

    def _bounds_tip(self, r: int, c: int) -> str | None:
        bounds = self._bounds_at(r, c)
        if bounds is None:
            return None
        return (
            f"once the {self.unjudged} unjudged pooled documents are judged: "
            f"{bounds[0]:.4f} – {bounds[1]:.4f}"
        )

    def set_intervals(self, low: np.ndarray, high: np.ndarray, topics: int) -> None:
        """The 95% interval of each mean ([measure, run] arrays, as the snapshot's); the
        cells whose interval changed are signalled when the text shows them."""
        low, high = np.asarray(low).T.copy(), np.asarray(high).T.copy()
        self.interval_topics = topics
        if low.shape != self._values.shape:
            return
        changed = _ranges_changed(self._low, self._high, low, high)
        self._low, self._high = low, high
        if self.show_intervals and changed.any():
            self._refresh_cells(changed)
            self._emit_cells(changed)

    def set_show_intervals(self, shown: bool) -> None:
        if shown == self.show_intervals:
            return
        self.show_intervals = shown
        self._refresh_every_cell()

    def _refresh_every_cell(self) -> None:
        everything = np.ones(self._values.shape, dtype=bool)
        self._refresh_cells(everything)
        self._emit_cells(everything)

    def interval(self, run: str, measure: str) -> tuple[float, float] | None:
        r, c = self._cell(run, measure)
        if self._low.shape != self._values.shape or not np.isfinite(self._low[r, c]):
            return None
        return float(self._low[r, c]), float(self._high[r, c])

    def _interval_tip(self, r: int, c: int) -> str | None:
        if self._low.shape != self._values.shape:
            return None
        low, high = self._low[r, c], self._high[r, c]
        if not (np.isfinite(low) and np.isfinite(high)):
            return None
        return f"95% interval {low:.4f} – {high:.4f} (t over {self.interval_topics} topics)"

    def _refresh_cell(self, r: int, c: int) -> None:
        super()._refresh_cell(r, c)
        mark = int(self._sign[r, c]) if self._sign.size else 0
        self._fg[r][c + 1] = (UP_BRUSH if mark > 0 else DOWN_BRUSH) if mark else None

    def set_baseline(self, run: str | None) -> None:
        if run == self.baseline:
            return
        own = [self._labels.index(x) for x in (self.baseline, run) if x in self._labels]
        self.baseline = run
        self._forget_rows(own)  # the baseline's row is in bold
        for r in own:
            row = self._shown[r]
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self._measures)))

    def set_significance(self, sig: Significance | None) -> None:
        """Show the marks of `sig` (None removes them); cells whose mark changed are
        signalled. The p-values and the tooltips' test lines are read when asked: new
        p-values alone (every run's, after every judgment) repaint nothing, where they
        repainted the whole table a second time per judgment."""
        usable = (
            sig is not None and sig.run_names == self._labels and sig.measures == tuple(self._names)
        )
        shape = self._values.shape
        new_sign = sig.sign.T.copy() if sig is not None and usable else np.zeros(shape)
        new_p = sig.p.T.copy() if sig is not None and usable else np.ones(shape)
        changed = new_sign != self._sign
        self._sig = sig if usable else None
        self._sign, self._p = new_sign, new_p
        self._refresh_cells(changed)
        self._emit_cells(changed)

    def significance(self) -> Significance | None:
        return self._sig

    def sign(self, run: str, measure: str) -> int:
        return int(self._sign[self._cell(run, measure)])

    def _paint_roles(self, r: int, col: int) -> dict[int, Any]:
        given = super()._paint_roles(r, col)
        given[FOREGROUND] = self._fg[r][col]
        given[FONT] = self._bold if self._labels[r] == self.baseline else None
        return given

    def cell_data(self, r: int, col: int, role: int) -> Any:
        if role == FOREGROUND:
            if not (0 <= r < len(self._fg)):
                return None
            self._prepared(r, col)
            return self._fg[r][col]
        if role == FONT:
            is_base = 0 <= r < len(self._labels) and self._labels[r] == self.baseline
            return self._bold if is_base else None
        if role == TOOLTIP:
            if not (0 <= r < len(self._labels)):
                return None
            if col == 0:
                is_base = self._labels[r] == self.baseline
                return "the baseline of the significance marks" if is_base else None
            change = super().cell_data(r, col, role)
            parts = [change, self._interval_tip(r, col - 1), self._bounds_tip(r, col - 1)]
            if self._sig is not None:
                parts.append(self._sig.describe(col - 1, r))  # written when asked
            text = "\n".join(p for p in parts if p)
            return text or None
        return super().cell_data(r, col, role)

    def _user_data(self, r: int, col: int, role: int) -> Any:
        if col > 0 and role == self.SignRole:
            return int(self._sign[r, col - 1])
        if col > 0 and role == self.PValueRole:
            return None if self._sig is None else float(self._p[r, col - 1])
        return super()._user_data(r, col, role)


class DrillDownTableModel(MatrixTableModel):
    """Per-topic values: topics x measures for one run, or runs x measures for one topic."""

    def __init__(self, parent=None) -> None:
        super().__init__("Topic", parent)
        self.mode: str = "run"  # "run": rows are topics; "topic": rows are runs
        self.key: str | None = None

    def show(self, mode: str, key: str | None) -> None:
        self.mode, self.key = mode, key
        self.label_header = "Topic" if mode == "run" else "Run"
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, 0)


def _ranges_changed(
    old_low: np.ndarray, old_high: np.ndarray, low: np.ndarray, high: np.ndarray
) -> np.ndarray:
    """Which cells' (low, high) differ (NaN equal to NaN); every cell when the shapes do."""
    if old_low.shape != low.shape:
        return np.ones(low.shape, dtype=bool)
    same_low = (old_low == low) | (np.isnan(old_low) & np.isnan(low))
    same_high = (old_high == high) | (np.isnan(old_high) & np.isnan(high))
    return ~(same_low & same_high)
