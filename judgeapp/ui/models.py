"""Table models: the topic list and the judging list (pooled documents in judging order).

Both hold plain rows from the services (`TopicRow`, `QueueItem`); a judgment replaces one
row and emits `dataChanged` for it, never a reset.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QFont, QIcon

from judgeapp.records import GradeInfo
from judgeapp.services.rows import QueueItem, TopicRow, natural_key
from judgeapp.ui import theme
from judgeapp.ui.plain import tooltip

Index = QModelIndex | QPersistentModelIndex
ROLE = Qt.ItemDataRole
USER = int(ROLE.UserRole)


_DISPLAY = int(ROLE.DisplayRole)
_FOREGROUND = int(ROLE.ForegroundRole)
_FONT = int(ROLE.FontRole)
_TOOLTIP = int(ROLE.ToolTipRole)
_ALIGN = int(ROLE.TextAlignmentRole)
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_DECORATION = int(ROLE.DecorationRole)
_ACCESSIBLE = int(ROLE.AccessibleTextRole)
_QID, _SORT, _PROGRESS = USER + 1, USER + 2, USER + 3  # TopicTableModel's roles


def fill_roles(cell_data: Callable[[int, int, int], Any], row: int, col: int, roles: Any) -> None:
    """Every role a paint asks of a cell, in one call from Qt (`multiData`): a model's own
    `multiData` asks its `data()` once per role, each a call into Python (seven a cell).
    Every role is set, those without a value cleared: Qt's delegate hands the same roles
    to every cell, holding what the cell before it was given."""
    for i in range(len(roles)):
        wanted = roles[i]
        value = cell_data(row, col, wanted.role())
        if value is None:
            wanted.clearData()
        else:
            wanted.setData(value)


class CellTableModel(QAbstractTableModel):
    """A table whose cells say what they hold by row, column and role (`cell_data`), asked
    once per cell for all the roles a paint wants (`multiData`)."""

    def data(self, index: Index, role: int = ROLE.DisplayRole) -> Any:
        if not index.isValid():
            return None
        return self.cell_data(index.row(), index.column(), int(role))

    def multiData(self, index: Index, roles: Any) -> None:
        if index.isValid():
            fill_roles(self.cell_data, index.row(), index.column(), roles)

    def cell_data(self, row: int, col: int, role: int) -> Any:
        raise NotImplementedError


class FixedColumnsTableModel(QAbstractTableModel):
    """A table of `items` under the fixed column titles `HEADERS`; subclasses say what a
    cell shows (`cell`)."""

    HEADERS: tuple[str, ...] = ()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.items: list[Any] = []

    def set_items(self, items: Sequence[Any]) -> None:
        self.beginResetModel()
        self.items = list(items)
        self.endResetModel()

    def update_item(self, row: int, item: Any) -> None:
        self.items[row] = item
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.items)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = ROLE.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == ROLE.DisplayRole:
            return self.HEADERS[section] if 0 <= section < len(self.HEADERS) else None
        return None

    def data(self, index: Index, role: int = ROLE.DisplayRole) -> Any:
        if not index.isValid() or role != ROLE.DisplayRole:
            return None
        return self.cell(self.items[index.row()], index.column())

    def cell(self, item: Any, column: int) -> Any:
        raise NotImplementedError


class TopicTableModel(CellTableModel):
    # IMPORTED is last in the model, shown after JUDGED (TopicsView moves it there)
    ID, TITLE, POOL, JUDGED, RELEVANT, PROGRESS, MISSING, ASSIGNED, IMPORTED = range(9)
    HEADERS = (
        "Topic",
        "Title",
        "Pool",
        "Judged",
        "Relevant",
        "Progress",
        "Est. missing",
        "Assigned",
        "Imported",
    )
    QidRole = _QID
    # a row's place in the column's order (0, 1, ...): the column's own order, ties by topic
    # id (numbers as numbers), so that the sort proxy compares plain integers in C++
    SortRole = _SORT
    ProgressRole = _PROGRESS  # fraction judged, 0..1

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[TopicRow] = []
        self._row_of: dict[str, int] = {}
        self._natural: dict[str, tuple] = {}  # natural_key of each topic id
        self._ranks: dict[int, list[int]] = {}  # column -> each row's place (made on demand)
        self.show_estimates = False
        # the progress column's pictures (judgeapp.ui.delegates.ProgressPictures), drawn as
        # the cells' decoration; without them the column shows the percentage as text
        self.progress_pictures: Callable[[float], QIcon] | None = None

    # -- filling ------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[TopicRow]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self._row_of = {r.qid: i for i, r in enumerate(self._rows)}
        self._natural = {r.qid: natural_key(r.qid) for r in self._rows}
        self._ranks = {}
        self.show_estimates = any(r.missing is not None for r in self._rows)
        self.endResetModel()

    def has_imported(self) -> bool:
        """Whether any topic has judgments from imported qrels (their column is shown)."""
        return any(r.imported for r in self._rows)

    def update_row(self, row: TopicRow) -> None:
        """One topic's counts changed: refresh its row only."""
        i = self._row_of.get(row.qid)
        if i is None:
            return
        self._rows[i] = row
        self._ranks = {}  # the other rows keep their order among themselves
        self.dataChanged.emit(self.index(i, 0), self.index(i, self.columnCount() - 1))

    def row_of(self, qid: str) -> int | None:
        return self._row_of.get(qid)

    def rank(self, row: int, col: int) -> int:
        """Row `row`'s place in column `col`'s order (SortRole)."""
        ranks = self._ranks.get(col)
        if ranks is None:
            rows, natural = self._rows, self._natural
            order = sorted(
                range(len(rows)),
                key=lambda i: (self._sort_key(rows[i], col), natural[rows[i].qid]),
            )
            ranks = [0] * len(rows)
            for place, i in enumerate(order):
                ranks[i] = place
            self._ranks[col] = ranks
        return ranks[row]

    def topic(self, row: int) -> TopicRow:
        return self._rows[row]

    def rows(self) -> list[TopicRow]:
        return list(self._rows)

    # -- Qt -----------------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = ROLE.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.HEADERS):
            return None
        if role == ROLE.DisplayRole:
            return self.HEADERS[section]
        if role == ROLE.ToolTipRole and section == self.MISSING:
            return "Estimated relevant documents not found yet (with its interval)"
        if role == ROLE.ToolTipRole and section == self.JUDGED:
            return "Pooled documents you judged"
        if role == ROLE.ToolTipRole and section == self.IMPORTED:
            return (
                "Pooled documents the imported qrels judge (not counted in Judged, which is "
                "yours; the dashboard and exports use both)"
            )
        return None

    def cell_data(self, r: int, col: int, role: int) -> Any:
        """What `data()` gives for the cell at row `r`, column `col`."""
        if not 0 <= r < len(self._rows):
            return None
        if role == _SORT:  # asked twice per comparison of a sort
            return self.rank(r, col)
        row = self._rows[r]
        if col == self.PROGRESS and self.progress_pictures is not None:
            if role == _DECORATION:
                return self.progress_pictures(row.progress)
            if role == _DISPLAY:
                return None  # the picture holds the percentage
            if role == _ACCESSIBLE:
                return self._display(row, col)
        if role == _DISPLAY:
            return self._display(row, col)
        if role == _QID:
            return row.qid
        if role == _PROGRESS:
            return row.progress
        if role == _ALIGN and col not in (self.ID, self.TITLE):
            return _RIGHT
        if role == _TOOLTIP and col == self.TITLE:
            return tooltip(row.title)
        if role == _TOOLTIP and col == self.MISSING and row.missing is not None:
            return f"{row.missing:.1f} (interval {row.missing_low:.1f} - {row.missing_high:.1f})"
        if role == _FOREGROUND and col == self.RELEVANT and row.relevant:
            return QBrush(theme.grade_colour(2))
        return None

    def _display(self, row: TopicRow, col: int) -> Any:
        if col == self.ID:
            return row.qid
        if col == self.TITLE:
            return " ".join(row.title.split())
        if col == self.POOL:
            return str(row.pool_size)
        if col == self.JUDGED:
            return str(row.judged)
        if col == self.RELEVANT:
            return str(row.relevant)
        if col == self.PROGRESS:
            return f"{row.progress:.0%}"
        if col == self.MISSING:
            return "" if row.missing is None else f"{row.missing:.1f}"
        if col == self.ASSIGNED:
            return ("yes, shared" if row.shared else "yes") if row.assigned else ""
        if col == self.IMPORTED:
            return str(row.imported)
        return None

    def _sort_key(self, row: TopicRow, col: int) -> Any:
        if col in (self.ID, self.ASSIGNED):  # the assessor's own topics first
            return (not row.assigned, self._natural[row.qid])
        if col == self.TITLE:
            return row.title.lower()
        return {
            self.POOL: row.pool_size,
            self.JUDGED: row.judged,
            self.IMPORTED: row.imported,
            self.RELEVANT: row.relevant,
            self.PROGRESS: row.progress,
            self.MISSING: -1.0 if row.missing is None else row.missing,
        }[col]


class TopicFilterProxyModel(QSortFilterProxyModel):
    """Filter on topic id and title (case-insensitive words, all must match), and sort by
    each column's natural order (topic ids as numbers where they are numbers): by the
    model's places in that order (SortRole), compared by Qt, with no Python comparison."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._words: list[str] = []
        self.pooled_only = False
        self.setSortRole(TopicTableModel.SortRole)

    def multiData(self, index: Index, roles: Any) -> None:
        """The roles a paint asks of a cell, from the model in one call (a proxy's own
        `multiData` asks its `data()` once per role, each a call into the model's Python)."""
        model = self.sourceModel()
        if not isinstance(model, TopicTableModel) or not index.isValid():
            super().multiData(index, roles)
            return
        source = self.mapToSource(index)
        fill_roles(model.cell_data, source.row(), source.column(), roles)

    def set_pooled_only(self, on: bool) -> None:
        """Show only the topics of the pool being judged (a topic no run retrieved for has
        an empty pool)."""
        if on == self.pooled_only:
            return
        if hasattr(self, "beginFilterChange"):  # Qt 6.9 and newer
            self.beginFilterChange()
            self.pooled_only = on
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.pooled_only = on
            self.invalidateRowsFilter()

    def set_filter_text(self, text: str) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt 6.9 and newer
            self.beginFilterChange()
            self._words = text.lower().split()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self._words = text.lower().split()
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        assert isinstance(model, TopicTableModel)
        row: TopicRow = model.topic(source_row)
        if self.pooled_only and not row.pool_size:
            return False
        if not self._words:
            return True
        hay = f"{row.qid} {row.title}".lower()
        return all(word in hay for word in self._words)


_POOL_ROLES = frozenset(
    {_DISPLAY, _FOREGROUND, _FONT, _TOOLTIP, _ALIGN, USER + 1, USER + 2, USER + 3}
)


class PoolTableModel(CellTableModel):
    """The pooled documents of one topic in judging order. In blind mode the rank and run
    columns do not exist at all (and their roles return nothing)."""

    POSITION, DOCNO, STATE, NOTE, RANK, RUNS = range(6)
    HEADERS = ("#", "Document", "Judgment", "Note", "Best rank", "Runs")
    DocIdRole = USER + 1
    GradeRole = USER + 2
    FlaggedRole = USER + 3

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._items: list[QueueItem] = []
        self._row_of: dict[int, int] = {}
        self._labels: dict[int, str] = {}
        self._cells: dict[int, tuple] = {}
        self._set_blind(True)
        self._skipped: frozenset[int] = frozenset()
        self._flag_waits: frozenset[int] = frozenset()  # flags set before the grade
        self._saving: frozenset[int] = frozenset()  # graded, the write not committed yet
        self._scheme = theme.COLOURS["base"]  # the colour scheme the cached cells are in

    def set_marks(
        self,
        skipped: frozenset[int] | set[int],
        flag_waits: set[int],
        saving: set[int] | frozenset[int] = frozenset(),
    ) -> None:
        """Documents skipped, unjudged ones flagged (the flag waits for the grade), and
        graded ones whose judgment is not committed yet: the rows whose marks changed are
        signalled."""
        now_skipped, now_waiting, now_saving = (
            frozenset(skipped),
            frozenset(flag_waits),
            frozenset(saving),
        )
        changed = (
            (now_skipped ^ self._skipped)
            | (now_waiting ^ self._flag_waits)
            | (now_saving ^ self._saving)
        )
        self._skipped, self._flag_waits, self._saving = now_skipped, now_waiting, now_saving
        for doc in changed:
            i = self._row_of.get(doc)
            if i is not None:
                self._cells.pop(i, None)
                self.dataChanged.emit(self.index(i, 0), self.index(i, self.columnCount() - 1))

    def set_scale(self, scale: Sequence[GradeInfo]) -> None:
        self._labels = {g.grade: g.label for g in scale}
        self._cells = {}

    def set_items(self, items: Sequence[QueueItem], *, blind: bool) -> None:
        self.beginResetModel()
        self._items = list(items)
        self._row_of = {item.doc_id: i for i, item in enumerate(self._items)}
        self._cells = {}
        self._set_blind(blind)
        self._skipped = frozenset()
        self._flag_waits = frozenset()
        self._saving = frozenset()
        self.endResetModel()

    def update_item(self, item: QueueItem) -> None:
        i = self._row_of.get(item.doc_id)
        if i is None:
            return
        self._items[i] = item
        self._cells.pop(i, None)
        self.dataChanged.emit(self.index(i, 0), self.index(i, self.columnCount() - 1))

    def row_of(self, doc_id: int) -> int | None:
        return self._row_of.get(doc_id)

    def item(self, row: int) -> QueueItem:
        return self._items[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._columns

    def _set_blind(self, blind: bool) -> None:
        self.blind = blind
        # the columns there are (blind: none from the rank on), kept as a number: every
        # role of every cell painted checks it (a method's call there cost 30% more)
        self._columns = self.RANK if blind else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = ROLE.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or role != ROLE.DisplayRole:
            return None
        if 0 <= section < self.columnCount():
            return self.HEADERS[section]
        return None

    def grade_text(self, grade: int) -> str:
        """A grade as the list shows it: "2 Relevant" (the number alone without a label)."""
        return f"{grade} {self._labels.get(grade, '')}".strip()

    def state_text(self, item: QueueItem) -> str:
        if item.grade is None:
            text = "skipped" if item.doc_id in self._skipped else "unjudged"
        else:
            text = self.grade_text(item.grade)
            if item.doc_id in self._saving:
                text += " (saving…)"
        text += "  ⚑" if item.flagged or item.doc_id in self._flag_waits else ""
        if item.others:
            text += f"  · also judged by {item.others} other{'s' * (item.others > 1)}"
        return text

    def cell_data(self, row: int, col: int, role: int) -> Any:
        """What `data()` gives for the cell at row `row`, column `col`."""
        # asked for every role of every visible cell on each repaint: the roles this
        # model never answers leave first, and per-item values are built once and cached
        if role not in _POOL_ROLES:
            return None
        if not 0 <= row < len(self._items) or col >= self._columns:
            return None
        if self._scheme != theme.COLOURS["base"]:  # light <-> dark: new colours
            self._cells, self._scheme = {}, theme.COLOURS["base"]
        cells = self._cells.get(row)
        if cells is None:
            cells = self._cells[row] = self._make_cells(row)
        if role == _DISPLAY:
            return cells[0][col]
        item = self._items[row]
        if role == self.DocIdRole:
            return item.doc_id
        if role == self.GradeRole:
            return item.grade
        if role == self.FlaggedRole:
            return item.flagged
        if col == self.STATE:
            if role == _FOREGROUND:
                return cells[1]
            if role == _FONT:
                return cells[2]
        if role == _TOOLTIP and col == self.NOTE and item.note:
            return tooltip(item.note)
        if role == _ALIGN and col in (self.POSITION, self.RANK):
            return _RIGHT
        return None

    def _make_cells(self, row: int) -> tuple[tuple[str, ...], QBrush, QFont | None]:
        item = self._items[row]
        display = (
            str(row + 1),
            item.docno,
            self.state_text(item),
            " ".join(item.note.split()),
            "" if item.best_rank is None else str(item.best_rank),
            ", ".join(item.runs),
        )
        if item.flagged or item.doc_id in self._flag_waits:
            brush = QBrush(theme.colour("flagged"))
        elif item.grade is None and item.doc_id in self._skipped:
            brush = QBrush(theme.colour("skipped"))
        elif item.grade is None:
            brush = QBrush(theme.colour("unjudged"))
        else:
            brush = QBrush(theme.grade_colour(item.grade))
        font = None
        if item.grade is not None:
            font = QFont()
            font.setBold(item.grade > 0)
        elif item.doc_id in self._skipped:
            font = QFont()
            font.setItalic(True)
        return display, brush, font
