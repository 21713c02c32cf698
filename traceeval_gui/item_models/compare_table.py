"""Compare mode's tables: model A vs model B per edge of one instance, and per instance of the dataset.

The dataset table sorts itself on plain Python lists (like `instance_table`): a proxy comparing
through `data()` costs seconds per click at 10,583 rows. Its proxy only filters.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from core.dataset.workspace import InstanceRow
from core.languages import registry
from core.report.graph_labels import distinct_labels
from core.report.overlay import (
    BOTH_RIGHT,
    BOTH_WRONG,
    COMPARE_CLASSES,
    ONLY_A_RIGHT,
    ONLY_B_RIGHT,
    ModelDifference,
    OverlayEdge,
)
from core.report.palette import EDGE_STYLES
from core.scoring.metrics import Counts, instance_scores
from traceeval_gui.item_models.filtering import change_row_filter
from traceeval_gui.item_models.sorting import ListSortedModel
from traceeval_gui.theme.style import MUTED_TEXT

EDGE_ROLE = Qt.ItemDataRole.UserRole  # CompareEdge (edge table) / InstanceRow (dataset table)
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
SCORE_ROLE = Qt.ItemDataRole.UserRole + 2  # F1 columns: the F1 as a fraction
DIFFERENCE_ROLE = Qt.ItemDataRole.UserRole + 3  # the core ModelDifference

MODEL_A_COLOUR = EDGE_STYLES[ONLY_A_RIGHT].colour  # A is blue, B orange, everywhere in compare mode
MODEL_B_COLOUR = EDGE_STYLES[ONLY_B_RIGHT].colour
RIGHT_COLOUR = EDGE_STYLES["TP"].colour
WRONG_COLOUR = EDGE_STYLES["FP"].colour
# Differences first: where one model is right, then where both are wrong, agreement last.
CLASS_SORT_ORDER = (ONLY_A_RIGHT, ONLY_B_RIGHT, BOTH_WRONG, BOTH_RIGHT)
# What a model says about an edge, and (the mark) whether that is right.
KIND_WORDS = {"TP": "predicted ✓", "FP": "predicted ✗", "FN": "missed ✗", None: "—"}


def compare_tint(category: str, strength: float = 0.14) -> QColor:
    """A light background for a compare class: its colour over white."""
    colour = QColor(EDGE_STYLES[category].colour)
    mix = [round(255 + (channel - 255) * strength) for channel in (colour.red(), colour.green(), colour.blue())]
    return QColor(*mix)


@dataclass(frozen=True)
class CompareEdge:
    """One edge of the union with its compare class and what the truth, A and B say."""

    category: str  # one of COMPARE_CLASSES
    caller: str
    callee: str
    truth: bool
    kind_a: str | None  # TP / FP / FN of model A (None: A neither predicts nor misses it)
    kind_b: str | None

    @classmethod
    def of(cls, edge: OverlayEdge, model_a: str, model_b: str) -> CompareEdge | None:
        category = edge.compare(model_a, model_b)
        if category is None:
            return None
        return cls(category, edge.caller, edge.callee, edge.truth, edge.kind(model_a), edge.kind(model_b))


EDGE_COLUMNS = (("class", "Class"), ("caller", "Caller"), ("callee", "Callee"), ("truth", "Truth"),
                ("a", "Model A"), ("b", "Model B"))


class CompareEdgeTableModel(QAbstractTableModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._edges: list[CompareEdge] = []
        self._names = ("A", "B")
        self._labels: dict[str, str] = {}  # function name -> the shortest part no other name here shares

    def set_edges(self, edges: Sequence[CompareEdge], model_a: str = "A", model_b: str = "B") -> None:
        self.beginResetModel()
        self._edges = list(edges)
        self._names = (model_a, model_b)
        names = sorted({name for edge in self._edges for name in (edge.caller, edge.callee)})
        self._labels = dict(zip(names, distinct_labels(names)))
        self.endResetModel()

    def edge_at(self, row: int) -> CompareEdge:
        return self._edges[row]

    def row_of(self, caller: str, callee: str) -> int | None:
        return next((row for row, e in enumerate(self._edges) if (e.caller, e.callee) == (caller, callee)), None)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._edges)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(EDGE_COLUMNS)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        edge = self._edges[index.row()]
        if role == EDGE_ROLE:
            return edge
        field = EDGE_COLUMNS[index.column()][0]
        if field == "class":
            return self._class_data(edge.category, role)
        if field in ("caller", "callee"):
            name = getattr(edge, field)
            if role == Qt.ItemDataRole.DisplayRole:  # short, as the graph labels it; the full name on hover
                return self._labels.get(name, name)
            if role in (SORT_ROLE, Qt.ItemDataRole.ToolTipRole):
                return name
            return None
        if field == "truth":
            if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
                return "in truth" if edge.truth else "—"
            if role == Qt.ItemDataRole.ToolTipRole:
                return "In the ground truth (witnessed by the tracer)" if edge.truth else \
                    "Not in the ground truth"
            if role == Qt.ItemDataRole.ForegroundRole and not edge.truth:
                return QBrush(QColor(MUTED_TEXT))
            return None
        which = 0 if field == "a" else 1
        kind = edge.kind_a if which == 0 else edge.kind_b
        if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
            return KIND_WORDS[kind]
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor(MUTED_TEXT if kind is None else RIGHT_COLOUR if kind == "TP" else WRONG_COLOUR))
        if role == Qt.ItemDataRole.ToolTipRole:
            name = self._names[which]
            if kind is None:
                return f"{name} does not predict this edge (right: it is not in the ground truth)"
            return f"{name}: {kind} — {EDGE_STYLES[kind].description}"
        return None

    @staticmethod
    def _class_data(category: str, role: int):
        style = EDGE_STYLES[category]
        if role == Qt.ItemDataRole.DisplayRole:
            return style.label
        if role == SORT_ROLE:
            return CLASS_SORT_ORDER.index(category)
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor(style.colour))
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(compare_tint(category))
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return style.description
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        field, title = EDGE_COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return title
        if role == Qt.ItemDataRole.ToolTipRole and field in ("a", "b"):
            return f"What model {field.upper()} ({self._names[0 if field == 'a' else 1]}) says about the edge"
        if role == Qt.ItemDataRole.ForegroundRole and field in ("a", "b"):
            return QBrush(QColor(MODEL_A_COLOUR if field == "a" else MODEL_B_COLOUR))
        return None


class CompareEdgeFilterProxyModel(QSortFilterProxyModel):
    """Shows only the chosen compare classes; sorting is stable, so edges keep (caller, callee) order."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._shown = set(COMPARE_CLASSES)
        self.setSortRole(SORT_ROLE)

    def set_shown(self, category: str, shown: bool) -> None:
        change_row_filter(self, lambda: (self._shown.add if shown else self._shown.discard)(category))

    def filterAcceptsRow(self, source_row: int, _source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        return self.sourceModel().edge_at(source_row).category in self._shown


# -- the dataset table ----------------------------------------------------------------------------
DIFFERENCE_COLUMNS = (
    ("rank", "#", "Rank by the size of the F1 difference, |F1(A) − F1(B)|, largest first"),
    ("program", "Program", "Program id: <repository>_<NNNN>"),
    ("language", "Language", "Programming language"),
    ("f1_a", "F1 A", "Per-program F1 of model A"),
    ("f1_b", "F1 B", "Per-program F1 of model B"),
    ("delta", "Δ F1", "F1(A) − F1(B) in percentage points: + A is better, − B is better"),
    ("counts_a", "A TP/FP/FN", "Model A's true positives / false positives / false negatives"),
    ("counts_b", "B TP/FP/FN", "Model B's true positives / false positives / false negatives"),
)
COLUMN_FIELDS = tuple(field for field, _, _ in DIFFERENCE_COLUMNS)
NUMBER_FIELDS = {"rank", "f1_a", "f1_b", "delta", "counts_a", "counts_b"}


class DifferenceTableModel(ListSortedModel, QAbstractTableModel):
    """One row per instance both models answered, in `rank_differences` order until sorted."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._differences: list[ModelDifference] = []
        self._rows: list[InstanceRow] = []
        self._order: list[int] = []  # view row -> index in _differences (= rank - 1)
        self._names = ("A", "B")
        self._sorted_by: tuple[int, Qt.SortOrder] | None = None

    def set_differences(self, differences: Sequence[ModelDifference], rows_by_key: dict[str, InstanceRow],
                        model_a: str, model_b: str) -> None:
        """`differences` as `rank_differences` returns them (largest |ΔF1| first)."""
        self.beginResetModel()
        self._differences = list(differences)
        self._rows = [rows_by_key[d.key] for d in self._differences]
        self._names = (model_a, model_b)
        self._order = list(range(len(self._differences)))
        if self._sorted_by is not None:
            self._order = self._sorted_order(*self._sorted_by)
        self.endResetModel()
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(DIFFERENCE_COLUMNS) - 1)

    def items(self) -> list[tuple[ModelDifference, InstanceRow]]:
        """Every row's difference and instance, in rank order (not the shown order)."""
        return list(zip(self._differences, self._rows))

    def difference_at(self, row: int) -> ModelDifference:
        return self._differences[self._order[row]]

    def instance_at(self, row: int) -> InstanceRow:
        return self._rows[self._order[row]]

    def row_of(self, key: str) -> int | None:
        for row, item in enumerate(self._order):
            if self._differences[item].key == key:
                return row
        return None

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._differences)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(DIFFERENCE_COLUMNS)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        item = self._order[index.row()]
        difference, row = self._differences[item], self._rows[item]
        field = COLUMN_FIELDS[index.column()]
        if role == EDGE_ROLE:
            return row
        if role == DIFFERENCE_ROLE:
            return difference
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(field, item, difference, row)
        if role == SORT_ROLE:
            return _sort_value(field, item, difference, row)
        if role == SCORE_ROLE and field in ("f1_a", "f1_b"):
            return difference.f1_a if field == "f1_a" else difference.f1_b
        if role == Qt.ItemDataRole.TextAlignmentRole and field in NUMBER_FIELDS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole:
            if field == "delta" and difference.delta:
                return QBrush(QColor(MODEL_A_COLOUR if difference.delta > 0 else MODEL_B_COLOUR))
            if field in ("rank", "language"):
                return QBrush(QColor(MUTED_TEXT))
        if role == Qt.ItemDataRole.FontRole and field == "delta" and difference.delta:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(field, difference, row)
        return None

    def _tooltip(self, field: str, difference: ModelDifference, row: InstanceRow) -> str | None:
        if field == "program":
            return f"{row.key}\n{row.source_url}" if row.source_url else row.key
        if field == "delta":
            if not difference.delta:
                return "Both models score the same F1 here"
            better = self._names[0] if difference.delta > 0 else self._names[1]
            return f"{better} is better by {abs(difference.delta) * 100:.1f} percentage points"
        if field in ("f1_a", "f1_b", "counts_a", "counts_b"):
            which = 0 if field.endswith("_a") else 1
            counts = difference.counts_a if which == 0 else difference.counts_b
            scores = instance_scores(counts)
            return (f"{self._names[which]}: P {scores.precision:.1%}  R {scores.recall:.1%}  F1 {scores.f1:.1%}\n"
                    f"TP {counts.tp}  FP {counts.fp}  FN {counts.fn}")
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(DIFFERENCE_COLUMNS):
            return None
        field, title, tip = DIFFERENCE_COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return title
        if role == Qt.ItemDataRole.ToolTipRole:
            for letter, name in zip("AB", self._names):
                tip = tip.replace(f"model {letter}", f"model {letter} ({name})")
            return tip
        if role == Qt.ItemDataRole.ForegroundRole and field in ("f1_a", "counts_a", "f1_b", "counts_b"):
            return QBrush(QColor(MODEL_A_COLOUR if field.endswith("_a") else MODEL_B_COLOUR))
        return None

    def _sorted_order(self, column: int, order: Qt.SortOrder) -> list[int]:
        field = COLUMN_FIELDS[column]
        values = [_sort_value(field, i, d, r) for i, (d, r) in enumerate(zip(self._differences, self._rows))]
        # ties stay in rank order both ways (`reverse=True` keeps equal items in their given order)
        return sorted(range(len(values)), key=values.__getitem__, reverse=order == Qt.SortOrder.DescendingOrder)


def _display(field: str, item: int, difference: ModelDifference, row: InstanceRow) -> str:
    if field == "rank":
        return f"{item + 1:,}"
    if field == "program":
        return row.id
    if field == "language":
        return registry.title(row.language, row.language)
    if field == "f1_a":
        return f"{difference.f1_a * 100:.1f}%"
    if field == "f1_b":
        return f"{difference.f1_b * 100:.1f}%"
    if field == "delta":
        return f"{difference.delta * 100:+.1f}" if difference.delta else "0.0"
    return _counts_text(difference.counts_a if field == "counts_a" else difference.counts_b)


def _sort_value(field: str, item: int, difference: ModelDifference, row: InstanceRow):
    if field == "rank":
        return item
    if field == "program":
        return (row.id, row.language)
    if field == "language":
        return (registry.title(row.language, row.language), row.id)
    if field in ("f1_a", "f1_b", "delta"):
        return getattr(difference, field)
    counts = difference.counts_a if field == "counts_a" else difference.counts_b
    return (counts.tp, -counts.fp, -counts.fn)


def _counts_text(counts: Counts) -> str:
    return f"{counts.tp} / {counts.fp} / {counts.fn}"


class DifferenceFilterProxyModel(QSortFilterProxyModel):
    """Filters by text (id or repository), language and split, as the instance browser does."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._text = ""
        self._language: str | None = None
        self._split: str | None = None

    def set_text(self, text: str) -> None:
        change_row_filter(self, lambda: setattr(self, "_text", text.strip().lower()))

    def set_language(self, language: str | None) -> None:
        change_row_filter(self, lambda: setattr(self, "_language", language))

    def set_split(self, split: str | None) -> None:
        """`None` = every split; "" = programs no split file names."""
        change_row_filter(self, lambda: setattr(self, "_split", split))

    def filterAcceptsRow(self, source_row: int, _source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        return self.accepts(self.sourceModel().instance_at(source_row))

    def accepts(self, row: InstanceRow) -> bool:
        if self._language is not None and row.language != self._language:
            return False
        if self._split is not None and row.split != self._split:
            return False
        return not self._text or self._text in row.key.lower() or self._text in row.repo.lower()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sourceModel().sort(column, order)
