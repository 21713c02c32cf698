"""The instance browser's table: one row per indexed program, one F1 column per model.

Sorting happens here, on plain Python values, not in the proxy: `QSortFilterProxyModel`
compares through `data()` calls, which costs one to two seconds per click at 10,583 rows;
sorting an index list takes milliseconds. The proxy only filters, and forwards sort requests.

Opening a dataset must not stall the window, so a reset does no per-row work it can leave for
later: a model's F1 column is computed when first asked for (a shown cell, a sort, the F1 filter),
and setting a filter to the value it has already does not refilter 10,583 rows.
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QFont

from core.dataset.workspace import InstanceRow, ModelRow
from core.languages import registry
from core.scoring.metrics import Counts, instance_scores
from traceeval_gui.item_models.filtering import change_row_filter
from traceeval_gui.item_models.sorting import ListSortedModel
from traceeval_gui.theme.style import f1_column_tooltip

ROW_ROLE = Qt.ItemDataRole.UserRole  # the core InstanceRow
SORT_ROLE = Qt.ItemDataRole.UserRole + 1  # the raw value: numbers for number columns
SCORE_ROLE = Qt.ItemDataRole.UserRole + 2  # F1 columns: the F1 as a fraction, or None

BASE_COLUMNS = (
    ("id", "ID", "Program id: <repository>_<NNNN>"),
    ("language", "Language", "Programming language"),
    ("split", "Split", "Benchmark split (test / train) from the split files"),
    ("repo", "Repository", "Repository the program was extracted from"),
    ("functions", "Functions", "Defined functions: the keys of callgraph.json"),
    ("edges", "Edges", "Ground-truth call edges"),
    ("lines", "Lines", "Lines of source code"),
)
NUMBER_COLUMNS = {"functions", "edges", "lines"}
MISSING_SCORE = -1.0  # sorts programs without a result below 0 %


class InstanceTableModel(ListSortedModel, QAbstractTableModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[InstanceRow] = []
        self._order: list[int] = []  # view row -> index in _rows
        self._models: list[ModelRow] = []
        self._counts: list[list[Counts | None]] = []  # per model, aligned with _rows
        self._f1: list[list[float | None] | None] = []  # per model, aligned with _rows; None until asked for
        self._positions: dict[str, int] = {}  # instance key -> index in _rows
        self._rows_of_items: tuple[list[int], list[int]] | None = None  # (_order, index in _rows -> view row)
        self._current_model: str | None = None
        self._sorted_by: tuple[int, Qt.SortOrder] | None = None

    # -- content --------------------------------------------------------------------------
    def set_instances(self, rows: Sequence[InstanceRow], models: Sequence[ModelRow],
                      counts: dict[str, dict[str, Counts]]) -> None:
        """Replace everything (F1 columns are computed when first needed)."""
        self.beginResetModel()
        self._rows = list(rows)
        self._positions = {row.key: index for index, row in enumerate(self._rows)}
        self._order = list(range(len(self._rows)))
        self._models = list(models)
        self._counts = [self._counts_of(counts.get(model.name, {})) for model in self._models]
        self._f1 = [None] * len(self._models)
        if self._sorted_by is not None:
            self._order = self._sorted_order(*self._sorted_by)
        self._rows_of_items = None
        self.endResetModel()

    def set_models(self, models: Sequence[ModelRow], counts: dict[str, dict[str, Counts]]) -> None:
        """The models (and their counts) changed: a model that joins gets its column inserted, without
        resetting the table (a reset makes the proxy and the view go through every row again)."""
        names = self.model_names()
        new_names = [m.name for m in models]
        if [n for n in new_names if n in names] != names:  # one went away or the order changed
            self.set_instances(self._rows, models, counts)
            return
        for position, model in enumerate(models):
            if model.name in names:
                self._models[position] = model
                continue
            section = len(BASE_COLUMNS) + position
            self.beginInsertColumns(QModelIndex(), section, section)
            by_key = counts.get(model.name, {})
            self._models.insert(position, model)
            self._counts.insert(position, self._counts_of(by_key))
            self._f1.insert(position, None)
            if self._sorted_by is not None and self._sorted_by[0] >= section:  # the same column, one further
                self._sorted_by = (self._sorted_by[0] + 1, self._sorted_by[1])
            self.endInsertColumns()

    def model_names(self) -> list[str]:
        """The models with a column, in column order."""
        return [m.name for m in self._models]

    def _counts_of(self, by_key: dict[str, Counts]) -> list[Counts | None]:
        """One model's counts in row order (None: no result)."""
        return list(map(by_key.get, self._positions))  # the keys, in row order

    def update_model_counts(self, model: str, counts: dict[str, Counts]) -> bool:
        """New counts of a model already shown (a run answering programs); False when the model has
        no column yet (then `set_instances` must add it)."""
        names = self.model_names()
        if model not in names:
            return False
        column = names.index(model)
        f1 = self._f1[column]
        section = len(BASE_COLUMNS) + column
        for key, value in counts.items():
            position = self._positions.get(key)
            if position is not None:
                self._counts[column][position] = value
                if f1 is not None:
                    f1[position] = instance_scores(value).f1
                # the changed cells only: a whole column's change makes the proxy look at every row again
                index = self.index(self.row_of(key), section)
                self.dataChanged.emit(index, index)
        return True

    def set_current_model(self, name: str | None) -> None:
        """The current model's column header is shown in bold."""
        self._current_model = name
        if self._models:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, len(BASE_COLUMNS), self.columnCount() - 1)

    def instance_at(self, row: int) -> InstanceRow:
        return self._rows[self._order[row]]

    def row_of(self, key: str) -> int | None:
        item = self._positions.get(key)
        if item is None:
            return None
        if self._rows_of_items is None or self._rows_of_items[0] is not self._order:  # sorted since
            rows = [0] * len(self._order)
            for row, index in enumerate(self._order):
                rows[index] = row
            self._rows_of_items = (self._order, rows)
        return self._rows_of_items[1][item]

    def f1_at(self, row: int, model: str) -> float | None:
        """The F1 of `model` on the program in view row `row` (None: no result or no such model)."""
        names = self.model_names()
        return self._f1_column(names.index(model))[self._order[row]] if model in names else None

    def _f1_column(self, model_index: int) -> list[float | None]:
        f1 = self._f1[model_index]
        if f1 is None:
            f1 = self._f1[model_index] = [instance_scores(c).f1 if c is not None else None
                                          for c in self._counts[model_index]]
        return f1

    def f1_column(self, model: str) -> int | None:
        names = self.model_names()
        return len(BASE_COLUMNS) + names.index(model) if model in names else None

    # -- Qt model interface ---------------------------------------------------------------
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(BASE_COLUMNS) + len(self._models)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        return self._cell(self._order[index.row()], index.column(), role)

    def _cell(self, item: int, column: int, role: int):
        if column >= len(BASE_COLUMNS):
            return self._score_data(item, column - len(BASE_COLUMNS), role)
        row = self._rows[item]
        field = BASE_COLUMNS[column][0]
        if role == Qt.ItemDataRole.DisplayRole:
            if field == "language":
                return registry.title(row.language, row.language)
            value = getattr(row, field)
            return f"{value:,}" if field in NUMBER_COLUMNS else value
        if role == SORT_ROLE:
            return getattr(row, field)
        if role == ROW_ROLE:
            return row
        if role == Qt.ItemDataRole.TextAlignmentRole and field in NUMBER_COLUMNS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and field in ("id", "repo"):
            name = row.key if field == "id" else row.repo
            return f"{name}\n{row.source_url}" if row.source_url else name
        return None

    def display_text(self, row: int, column: int) -> str:
        """What the cell shows, without a model index (fitting columns reads hundreds of cells)."""
        return self._cell(self._order[row], column, Qt.ItemDataRole.DisplayRole) or ""

    def _f1_of(self, model_index: int, item: int) -> float | None:
        """One program's F1, without computing the whole column when it is not needed yet."""
        f1 = self._f1[model_index]
        if f1 is not None:
            return f1[item]
        counts = self._counts[model_index][item]
        return instance_scores(counts).f1 if counts is not None else None

    def _score_data(self, item: int, model_index: int, role: int):
        f1 = self._f1_of(model_index, item)
        if role == Qt.ItemDataRole.DisplayRole:
            return "" if f1 is None else f"{f1 * 100:.1f}%"
        if role == SORT_ROLE:
            return MISSING_SCORE if f1 is None else f1
        if role == SCORE_ROLE:
            return f1
        if role == ROW_ROLE:
            return self._rows[item]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            counts = self._counts[model_index][item]
            name = self._models[model_index].name
            if counts is None:
                return f"{name} has no result for this program (not scored)"
            scores = instance_scores(counts)
            return (f"{name}: P {scores.precision:.1%}  R {scores.recall:.1%}  F1 {scores.f1:.1%}\n"
                    f"TP {counts.tp}  FP {counts.fp}  FN {counts.fn}")
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or section < 0:
            return None
        model = self._models[section - len(BASE_COLUMNS)] if section >= len(BASE_COLUMNS) else None
        if role == Qt.ItemDataRole.DisplayRole:
            if model is None:
                return BASE_COLUMNS[section][1]
            return f"F1\n{model.name}" + (" †" if model.illustrative else "")
        if role == Qt.ItemDataRole.ToolTipRole:
            return BASE_COLUMNS[section][2] if model is None else f1_column_tooltip(model)
        if role == Qt.ItemDataRole.FontRole and model is not None and model.name == self._current_model:
            font = QFont()
            font.setBold(True)
            return font
        return None

    def _sorted_order(self, column: int, order: Qt.SortOrder) -> list[int]:
        rows = self._rows
        if column >= len(BASE_COLUMNS):
            f1 = self._f1_column(column - len(BASE_COLUMNS))
            values = [MISSING_SCORE if v is None else v for v in f1]
        elif BASE_COLUMNS[column][0] == "language":
            values = [registry.title(r.language, r.language) for r in rows]
        else:
            field = BASE_COLUMNS[column][0]
            values = [getattr(r, field) for r in rows]
        # ties stay in id order both ways (`reverse=True` keeps equal items in their given order)
        ids = [(row.id, row.language) for row in rows]
        by_id = sorted(range(len(rows)), key=ids.__getitem__)
        return sorted(by_id, key=values.__getitem__, reverse=order == Qt.SortOrder.DescendingOrder)


class InstanceFilterProxyModel(QSortFilterProxyModel):
    """Filters rows by text (id or repository), language, split, repository and one model's F1
    range; sorting is the source's."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._text = ""
        self._language: str | None = None
        self._split: str | None = None
        self._repo: str | None = None
        self._f1: tuple[str, float, float] | None = None  # model, low, high (fractions, inclusive)
        self.filtering = False  # whether any filter is set (else every row is shown, asked 10,583 times a pass)

    def set_text(self, text: str) -> None:
        self._set_filter("_text", text.strip().lower())

    def set_language(self, language: str | None) -> None:
        self._set_filter("_language", language)

    def set_split(self, split: str | None) -> None:
        """`None` = every split; "" = programs no split file names."""
        self._set_filter("_split", split)

    def set_repo(self, repo: str | None) -> None:
        self._set_filter("_repo", repo)

    def set_f1_range(self, model: str | None, low: float = 0.0, high: float = 1.0) -> None:
        """Only programs whose F1 under `model` is in [low, high]; programs without a result are hidden.
        `model=None` or the full range [0, 1] removes the filter."""
        active = model is not None and (low > 0.0 or high < 1.0)
        self._set_filter("_f1", (model, low, high) if active else None)

    @property
    def f1_filtered(self) -> bool:
        return self._f1 is not None

    def _set_filter(self, name: str, value) -> None:
        """Refilter only when the value changes: each pass asks about every row (10,583 calls)."""
        if getattr(self, name) != value:
            change_row_filter(self, lambda: self._change_filter(name, value))

    def _change_filter(self, name: str, value) -> None:
        setattr(self, name, value)
        self.filtering = bool(self._text) or any(value is not None for value in (self._language, self._split,
                                                                                   self._repo, self._f1))

    def filterAcceptsRow(self, source_row: int, _source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        if not self.filtering:
            return True
        source = self.sourceModel()
        row = source.instance_at(source_row)
        if self._language is not None and row.language != self._language:
            return False
        if self._split is not None and row.split != self._split:
            return False
        if self._repo is not None and row.repo != self._repo:
            return False
        if self._f1 is not None:
            model, low, high = self._f1
            f1 = source.f1_at(source_row, model)
            if f1 is None or not low - 1e-9 <= f1 <= high + 1e-9:
                return False
        return not self._text or self._text in row.key.lower() or self._text in row.repo.lower()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sourceModel().sort(column, order)
