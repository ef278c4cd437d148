"""Rows kept sorted inside a dashboard table model, with no sorting proxy.

A judgment changes most runs' means, and a `QSortFilterProxyModel` re-sorts the changed
rows by comparing them two at a time: through a `lessThan` written in Python, and with
every source index it makes asking the model's `rowCount()` and `columnCount()` in Python,
some 20,000 calls into Python and 20-30 ms of the GUI thread for each update of the
runs x measures table at TREC size (115 runs). The models here sort their rows themselves,
once per change, from one key per row (`sort_keys`): Python's sort of 115 keys takes a few
microseconds. The view's header still sorts (`QTableView.sortByColumn` calls the model's
`sort`); the rows are the model's rows in the order shown, and a move of rows is a layout
change that carries the persistent indexes (the selection, the current cell) along with
their rows.

The order is the one Qt's sorting proxy gives: a stable sort of the keys, ties in the
model's own order (the snapshot's order of the runs), turned round for a descending sort.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt


def sorted_rows(keys: Sequence[Any], descending: bool) -> list[int]:
    """The rows in the order of their keys, as Qt's sorting proxy orders them: ascending a
    stable sort (ties in row order), descending the ascending order turned round (ties
    in reverse row order)."""
    rows = sorted(range(len(keys)), key=keys.__getitem__)
    return rows[::-1] if descending else rows


class SortedRows:
    """Mixed into a QAbstractItemModel whose rows (0..n-1 in its own order: its "source"
    rows) it shows sorted. The model gives `sort_keys(column)` and `_source_count()`; Qt's
    row r shows source row `source_row(r)`. Call `_sort_now()` while the model resets, and
    `resort()` after the keys changed (it moves the rows, if they move, as a layout
    change)."""

    _order: list[int]  # shown row -> source row
    _shown: list[int]  # source row -> shown row
    _sort_column: int
    _descending: bool

    def _init_sorting(self) -> None:
        self._order, self._shown = [], []
        self._sort_column, self._descending = -1, False

    # -- what the model gives -------------------------------------------------------------------
    def sort_keys(self, column: int) -> Sequence[Any]:
        raise NotImplementedError

    def _source_count(self) -> int:
        raise NotImplementedError

    # -- Qt ---------------------------------------------------------------------------------------
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by `column` (the header's click, `QTableView.sortByColumn`); -1: the
        model's own order."""
        self._sort_column = column
        self._descending = order == Qt.SortOrder.DescendingOrder
        self.resort()

    def sort_column(self) -> int:
        return self._sort_column

    def sort_order(self) -> Qt.SortOrder:
        return Qt.SortOrder.DescendingOrder if self._descending else Qt.SortOrder.AscendingOrder

    # -- rows ---------------------------------------------------------------------------------------
    def source_row(self, row: int) -> int:
        """The model's own row shown at row `row`."""
        return self._order[row]

    def shown_row(self, source: int) -> int:
        """Where the model's own row `source` is shown."""
        return self._shown[source]

    def _sorted_order(self) -> list[int]:
        n = self._source_count()
        column = self._sort_column
        if column < 0 or column >= self.columnCount():  # type: ignore[attr-defined]
            return list(range(n))
        return sorted_rows(self.sort_keys(column), self._descending)

    def _sort_now(self) -> None:
        """The order for new rows, without signals (inside a model reset)."""
        self._set_order(self._sorted_order())

    def _set_order(self, order: list[int]) -> None:
        shown = [0] * len(order)
        for row, source in enumerate(order):
            shown[source] = row
        self._order, self._shown = order, shown

    def resort(self) -> bool:
        """Sort the rows by the keys as they are now; True when some moved (a layout
        change, the persistent indexes moved with their rows)."""
        order = self._sorted_order()
        if order == self._order:
            return False
        model: Any = self
        # (no arguments: PySide6 6.11 crashes emitting the parents list and a sort hint)
        model.layoutAboutToBeChanged.emit()
        before = self._order
        self._set_order(order)
        held = model.persistentIndexList()
        if held and len(before) == len(order):
            moved = [
                model.index(self._shown[before[index.row()]], index.column()) for index in held
            ]
            model.changePersistentIndexList(held, moved)
        model.layoutChanged.emit()
        return True
