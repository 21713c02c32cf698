"""The instance browser: filter by text, language, split, repository and F1 range; sort by any
column; pick a program."""
from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QCompleter,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.wording import count_of
from traceeval_gui.item_models.instance_table import (
    BASE_COLUMNS,
    ROW_ROLE,
    SCORE_ROLE,
    InstanceFilterProxyModel,
    InstanceTableModel,
)
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.widgets.column_fit import column_width
from traceeval_gui.widgets.language_combo import LanguageCombo
from traceeval_gui.widgets.score_bar_delegate import ScoreBarDelegate
from traceeval_gui.widgets.split_combo import SplitCombo

FIT_SAMPLE_ROWS = 300
MAX_COLUMN_WIDTH = 190  # a few very long ids must not push the scores out of view (tooltips show them)
READ_AHEAD_MS = 50  # a program shown this long has its neighbours read ahead (not at every step of a held key)


class InstanceBrowserPanel(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._read_ahead_timer = QTimer(self, singleShot=True, interval=READ_AHEAD_MS)
        self._read_ahead_timer.timeout.connect(self._on_read_ahead_timer_timeout)
        self.model = InstanceTableModel(self)
        self.proxy = InstanceFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)

        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by id or repository  (Ctrl+F)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._on_filter_edit_text_changed)
        self.language_combo = LanguageCombo()
        self.language_combo.currentIndexChanged.connect(self._on_language_combo_changed)
        self.split_combo = SplitCombo()
        self.split_combo.currentIndexChanged.connect(self._on_split_combo_changed)
        self.repo_combo = QComboBox()
        self.repo_combo.setEditable(True)  # hundreds of repositories: type to find one
        self.repo_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.repo_combo.setMinimumContentsLength(14)
        self.repo_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.repo_combo.setToolTip("Only the programs of one repository")
        self.repo_combo.currentIndexChanged.connect(self._on_repo_combo_changed)
        self._fill_repo_combo([])
        self.f1_low = self._percent_box("lowest F1 shown", 0.0)
        self.f1_high = self._percent_box("highest F1 shown", 100.0)
        self.f1_label = QLabel("F1")
        self.f1_reset = QToolButton()
        self.f1_reset.setText("×")
        self.f1_reset.setToolTip("Show every F1 (programs without a result too)")
        self.f1_reset.clicked.connect(self._on_f1_reset_clicked)

        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSortingEnabled(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        vertical = self.table.verticalHeader()
        vertical.hide()
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # uniform rows: fast at 10k
        vertical.setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setResizeContentsPrecision(300)
        header.setHighlightSections(False)
        header.setSectionsMovable(True)
        header.setSortIndicator(0, Qt.SortOrder.AscendingOrder)
        self._score_delegate = ScoreBarDelegate(SCORE_ROLE, self.table)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_row_changed)

        self.count_label = QLabel()
        self.count_label.setStyleSheet(f"color: {MUTED_TEXT};")
        filters = QHBoxLayout()
        filters.setContentsMargins(0, 0, 0, 0)
        filters.addWidget(self.filter_edit, 1)
        filters.addWidget(self.language_combo)
        filters.addWidget(self.split_combo)
        more_filters = QHBoxLayout()
        more_filters.setContentsMargins(0, 0, 0, 0)
        more_filters.addWidget(self.repo_combo, 1)
        more_filters.addSpacing(8)
        more_filters.addWidget(self.f1_label)
        more_filters.addWidget(self.f1_low)
        more_filters.addWidget(QLabel("–"))
        more_filters.addWidget(self.f1_high)
        more_filters.addWidget(self.f1_reset)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 0, 4)
        layout.setSpacing(6)
        layout.addLayout(filters)
        layout.addLayout(more_filters)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count_label)
        self.proxy.rowsInserted.connect(self._update_count)
        self.proxy.rowsRemoved.connect(self._update_count)
        self.proxy.modelReset.connect(self._update_count)
        self.proxy.layoutChanged.connect(self._update_count)
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.instance_selected.connect(self._on_state_instance_selected)
        state.predictions_changed.connect(self._on_state_predictions_changed)
        state.model_selected.connect(self._on_state_model_selected)
        self._update_count()

    # -- queries (tests, other views) -----------------------------------------------------
    def shown_keys(self) -> list[str]:
        return [self.proxy.index(row, 0).data(ROW_ROLE).key for row in range(self.proxy.rowCount())]

    def select_key(self, key: str) -> bool:
        """Make `key` the current row (clearing a filter that hides it); False if unknown."""
        row = self.model.row_of(key)
        if row is None:
            return False
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid():
            self._reset_filters()
            index = self.proxy.mapFromSource(self.model.index(row, 0))
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
        return True

    # -- slots ----------------------------------------------------------------------------
    def _on_state_dataset_opened(self) -> None:
        opened = self.state.opened
        self.model.set_instances(opened.rows, opened.models, opened.counts)
        self.model.set_current_model(self.state.model)
        for column in range(len(BASE_COLUMNS), self.model.columnCount()):
            self.table.setItemDelegateForColumn(column, self._score_delegate)
        self.split_combo.fill({row.split for row in opened.rows})
        self.proxy.set_split(None)
        self._fill_repo_combo(sorted({row.repo for row in opened.rows}))
        self._update_f1_filter()
        self._show_scores_early()
        self._fit_columns()
        if self.proxy.rowCount():
            self.select_key(self.proxy.index(0, 0).data(ROW_ROLE).key)

    def _on_state_predictions_changed(self, model: str, keys: frozenset) -> None:
        opened = self.state.opened
        counts = {key: value for key, value in opened.counts.get(model, {}).items() if key in keys}
        if self.model.update_model_counts(model, counts):
            return
        before = set(self.model.model_names())
        self.model.set_models(opened.models, opened.counts)  # a new model: a new column
        self.model.set_current_model(self.state.model)
        for column in range(len(BASE_COLUMNS), self.model.columnCount()):
            self.table.setItemDelegateForColumn(column, self._score_delegate)
        self._show_scores_early()
        self._fit_columns([len(BASE_COLUMNS) + position for position, name in enumerate(self.model.model_names())
                           if name not in before])
        if self.state.instance_key:
            self.select_key(self.state.instance_key)

    def _on_state_instance_selected(self, key: str) -> None:
        current = self.table.currentIndex()
        if key and (not current.isValid() or current.data(ROW_ROLE).key != key):
            self.select_key(key)

    def _on_state_model_selected(self, model: str) -> None:
        self.model.set_current_model(model or None)
        self._update_f1_filter()

    def _on_table_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.state.select_instance(current.data(ROW_ROLE).key)
            self._read_ahead_timer.start()

    def _on_read_ahead_timer_timeout(self) -> None:
        """The programs a step down and a step up the list as shown, the likely next ones."""
        row = self.table.currentIndex().row()
        if row >= 0:
            neighbours = [r for r in (row + 1, row - 1) if 0 <= r < self.proxy.rowCount()]
            self.state.read_ahead([self.proxy.index(r, 0).data(ROW_ROLE).key for r in neighbours])

    def _on_filter_edit_text_changed(self, text: str) -> None:
        self.proxy.set_text(text)
        self._keep_current_visible()

    def _on_language_combo_changed(self, _index: int) -> None:
        self.proxy.set_language(self.language_combo.currentData())
        self._keep_current_visible()

    def _on_split_combo_changed(self, _index: int) -> None:
        self.proxy.set_split(self.split_combo.currentData())
        self._keep_current_visible()

    def _on_repo_combo_changed(self, _index: int) -> None:
        self.proxy.set_repo(self.repo_combo.currentData())
        self._keep_current_visible()

    def _on_f1_box_changed(self, _value: float) -> None:
        self._update_f1_filter()
        self._keep_current_visible()

    def _on_f1_reset_clicked(self) -> None:
        for box, value in ((self.f1_low, 0.0), (self.f1_high, 100.0)):
            box.blockSignals(True)
            box.setValue(value)
            box.blockSignals(False)
        self._update_f1_filter()

    def select_relative(self, step: int) -> bool:
        """Select the program `step` rows below (negative: above) the current one, as shown."""
        rows = self.proxy.rowCount()
        if not rows:
            return False
        current = self.table.currentIndex().row()
        target = min(max(current + step, 0), rows - 1) if current >= 0 else 0
        if target == current:
            return False
        self.select_key(self.proxy.index(target, 0).data(ROW_ROLE).key)
        return True

    # -- helpers --------------------------------------------------------------------------
    def focus_filter(self) -> None:
        """Ctrl+F outside the source (the window's Go menu holds the shortcut)."""
        self.filter_edit.setFocus()
        self.filter_edit.selectAll()

    def set_f1_range(self, low: float, high: float) -> None:
        """Show only programs whose F1 under the current model is within [low, high] percent."""
        for box, value in ((self.f1_low, low), (self.f1_high, high)):
            box.blockSignals(True)
            box.setValue(value)
            box.blockSignals(False)
        self._update_f1_filter()

    def _percent_box(self, what: str, value: float) -> QDoubleSpinBox:
        box = QDoubleSpinBox()
        box.setRange(0.0, 100.0)
        box.setDecimals(0)
        box.setSingleStep(10.0)
        box.setSuffix(" %")
        box.setValue(value)
        box.setToolTip(f"The {what} for the current model (programs without a result are hidden "
                       "while the range is narrowed)")
        box.valueChanged.connect(self._on_f1_box_changed)
        return box

    def _update_f1_filter(self) -> None:
        model = self.state.model
        low, high = self.f1_low.value() / 100.0, self.f1_high.value() / 100.0
        self.proxy.set_f1_range(model, min(low, high), max(low, high))
        enabled = model is not None
        for widget in (self.f1_low, self.f1_high, self.f1_label, self.f1_reset):
            widget.setEnabled(enabled)
        self.f1_label.setToolTip(f"F1 range of {model}" if model else "No model results: nothing to filter by")
        self.f1_reset.setVisible(self.proxy.f1_filtered)

    def _fill_repo_combo(self, repos: list[str]) -> None:
        self.repo_combo.blockSignals(True)
        self.repo_combo.clear()
        self.repo_combo.addItem("All repositories", None)
        for repo in repos:
            self.repo_combo.addItem(repo, repo)
        completer = QCompleter([self.repo_combo.itemText(i) for i in range(self.repo_combo.count())],
                               self.repo_combo)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.repo_combo.setCompleter(completer)
        self.repo_combo.blockSignals(False)
        self.proxy.set_repo(None)

    def _reset_filters(self) -> None:
        widgets = (self.filter_edit, self.language_combo, self.split_combo, self.repo_combo, self.f1_low, self.f1_high)
        for widget in widgets:
            widget.blockSignals(True)
        self.filter_edit.clear()
        for combo in (self.language_combo, self.split_combo, self.repo_combo):
            combo.setCurrentIndex(0)
        self.f1_low.setValue(0.0)
        self.f1_high.setValue(100.0)
        for widget in widgets:
            widget.blockSignals(False)
        self.proxy.set_text("")
        self.proxy.set_language(None)
        self.proxy.set_split(None)
        self.proxy.set_repo(None)
        self._update_f1_filter()

    def _keep_current_visible(self) -> None:
        current = self.table.currentIndex()
        if current.isValid():
            self.table.scrollTo(current)

    def _fit_columns(self, columns: Iterable[int] | None = None) -> None:
        """Fit each column (or these) to its header and its first rows' text (all rows: too slow at 10,000)."""
        sample = range(min(self.model.rowCount(), FIT_SAMPLE_ROWS))
        for column in range(self.model.columnCount()) if columns is None else columns:
            width = column_width(self.table, column, (self.model.display_text(row, column) for row in sample))
            self.table.horizontalHeader().resizeSection(column, min(width, MAX_COLUMN_WIDTH))

    def _show_scores_early(self) -> None:
        """Show the F1 columns right after the id (the model keeps them last, so column numbers
        stay stable): with many models the program facts scroll away, not the scores."""
        header = self.table.horizontalHeader()
        header.reset()  # forget earlier moves (another dataset, other models)
        id_column = [name for name, _, _ in BASE_COLUMNS].index("id")
        for offset, column in enumerate(range(len(BASE_COLUMNS), self.model.columnCount())):
            header.moveSection(header.visualIndex(column), id_column + 1 + offset)

    def _update_count(self, *_args) -> None:
        total, shown = self.model.rowCount(), self.proxy.rowCount()
        self.count_label.setText(count_of(shown, total, "program"))
