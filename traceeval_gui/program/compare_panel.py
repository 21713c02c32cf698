"""Compare mode: model A (the toolbar's model) against model B, on this program and across the dataset.

Left, this program: how many edges both models get right, only A, only B, neither (chips that
also filter and count every edge), and every edge with what the truth, A and B say (its bounded part
beyond core.report.overlay.SHOWN_EDGE_LIMIT, with a line saying how many are left out); a row selects the edge and
switches the graph to the compare classes. Right, the dataset: every program both models
answered, largest |F1(A) − F1(B)| first; Enter or a double click opens the program. Below it, the paired
statistics of A against B over the chosen language and split (`core.scoring.paired`: ΔF1 = F1(A) − F1(B), the
ranking's sign, with its bootstrap interval, A's wins / losses / ties and the sign test), computed on a background
job whenever the models, their answers or the selection change, and exported from its Export button.
"""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.languages import registry
from core.report.overlay import COMPARE_CLASSES, rank_differences
from core.report.palette import EDGE_STYLES
from core.scoring.metrics import INSTANCE_RULE, Counts, instance_scores
from core.scoring.paired import PairedStats
from core.scoring.paired_tables import notes, render_paired
from core.scoring.scores import Selection
from core.scoring.stats import PAIRED_RESAMPLES
from core.wording import count_of
from traceeval_gui.item_models.compare_table import (
    DIFFERENCE_COLUMNS,
    DIFFERENCE_ROLE,
    EDGE_ROLE,
    MODEL_A_COLOUR,
    MODEL_B_COLOUR,
    SCORE_ROLE,
    CompareEdge,
    CompareEdgeFilterProxyModel,
    CompareEdgeTableModel,
    DifferenceFilterProxyModel,
    DifferenceTableModel,
    compare_tint,
)
from traceeval_gui.item_models.instance_detail import ClassifiedEdge
from traceeval_gui.item_models.paired_table import PairedStatsTableModel
from traceeval_gui.program.compare_jobs import PairedStatsJob
from traceeval_gui.program.edge_table import fit_checked_text
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import MUTED_TEXT, model_label, model_tooltip
from traceeval_gui.widgets.column_fit import column_width
from traceeval_gui.widgets.form_parts import pane_splitter
from traceeval_gui.widgets.language_combo import LanguageCombo
from traceeval_gui.widgets.omitted_edges import OmittedEdgesLabel
from traceeval_gui.widgets.score_bar_delegate import ScoreBarDelegate
from traceeval_gui.widgets.split_combo import SplitCombo
from traceeval_gui.widgets.when_shown import WhenShown

FIT_SAMPLE_ROWS = 300
MAX_PROGRAM_WIDTH = 190  # very long ids elide (the tooltip has them) rather than push the scores away
IMPORT_HINT = "import another with <code>traceeval import-results DATASET RESULTS</code>"
STATS_EXPORTS = (("csv", "CSV"), ("md", "Markdown"), ("json", "JSON"))


class ComparePanel(QWidget):
    stats_changed = Signal()  # the paired statistics shown changed (a job ended, or there is nothing to show)
    export_requested = Signal(str)  # the Export button's format: the window asks where and calls export_stats

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._syncing = False  # rows set from the state must not be sent back to it

        # -- top: A and B --------------------------------------------------------------------
        self.model_a_label = QLabel()
        self.model_a_label.setTextFormat(Qt.TextFormat.RichText)
        self.model_b_combo = QComboBox()
        self.model_b_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.model_b_combo.setMinimumContentsLength(20)
        self.model_b_combo.setToolTip("Model B, compared with model A (the model chosen in the toolbar)")
        self.model_b_combo.currentIndexChanged.connect(self._on_model_b_combo_changed)
        model_b_title = QLabel(f"<span style='color:{MODEL_B_COLOUR}'>■</span>&nbsp;<b>Model B:</b>")
        top = QHBoxLayout()
        top.setContentsMargins(8, 6, 8, 2)
        top.setSpacing(6)
        top.addWidget(self.model_a_label)
        top.addSpacing(10)
        top.addWidget(model_b_title)
        top.addWidget(self.model_b_combo)
        top.addStretch(1)

        # -- left: this program --------------------------------------------------------------
        self.instance_header = QLabel()
        self.instance_header.setTextFormat(Qt.TextFormat.RichText)
        self.instance_header.setWordWrap(True)
        self.instance_header.setToolTip(f"Per-program scores after normalisation; rule: {INSTANCE_RULE}")
        self.class_buttons: dict[str, QToolButton] = {}
        chips = QHBoxLayout()
        chips.setContentsMargins(0, 0, 0, 0)
        chips.setSpacing(4)
        for category in COMPARE_CLASSES:
            style = EDGE_STYLES[category]
            button = QToolButton()
            button.setCheckable(True)
            button.setChecked(True)
            button.setToolTip(f"{style.label}: {style.description}. Click to show or hide these edges.")
            button.setStyleSheet(_chip_style(category))
            button.toggled.connect(self._on_class_button_toggled)
            self.class_buttons[category] = button
            chips.addWidget(button)
        chips.addStretch(1)
        self.edge_model = CompareEdgeTableModel(self)
        self.edge_proxy = CompareEdgeFilterProxyModel(self)
        self.edge_proxy.setSourceModel(self.edge_model)
        self.edge_table = _table_view(self)
        self.edge_table.setModel(self.edge_proxy)
        self.edge_table.setTextElideMode(Qt.TextElideMode.ElideLeft)  # keep the function names, not the modules
        self.edge_table.setSortingEnabled(True)
        self.edge_table.sortByColumn(0, Qt.SortOrder.AscendingOrder)  # differences first
        header = self.edge_table.horizontalHeader()
        header.setResizeContentsPrecision(40)  # fit to the first rows, not every edge of a 200-node program
        for column, mode in enumerate((QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.Stretch,
                                       QHeaderView.ResizeMode.Stretch)):
            header.setSectionResizeMode(column, mode)
        for column in range(3, self.edge_model.columnCount()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.edge_table.selectionModel().currentRowChanged.connect(self._on_edge_table_current_row_changed)
        self.edge_table.clicked.connect(self._on_edge_table_clicked)
        self.omitted = OmittedEdgesLabel()
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(8, 4, 4, 4)
        left_layout.setSpacing(6)
        left_layout.addWidget(_section_title("This program"))
        left_layout.addWidget(self.instance_header)
        left_layout.addLayout(chips)
        left_layout.addWidget(self.edge_table, 1)
        left_layout.addWidget(self.omitted)

        # -- right: the dataset --------------------------------------------------------------
        self.difference_model = DifferenceTableModel(self)
        self.difference_proxy = DifferenceFilterProxyModel(self)
        self.difference_proxy.setSourceModel(self.difference_model)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by id or repository")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._on_filter_edit_text_changed)
        self.language_combo = LanguageCombo()
        self.language_combo.currentIndexChanged.connect(self._on_language_combo_changed)
        self.split_combo = SplitCombo()
        self.split_combo.currentIndexChanged.connect(self._on_split_combo_changed)
        filters = QHBoxLayout()
        filters.setContentsMargins(0, 0, 0, 0)
        filters.addWidget(self.filter_edit, 1)
        filters.addWidget(self.language_combo)
        filters.addWidget(self.split_combo)
        self.difference_table = _table_view(self)
        self.difference_table.setModel(self.difference_proxy)
        self.difference_table.horizontalHeader().setSortIndicator(0, Qt.SortOrder.AscendingOrder)
        self.difference_table.setSortingEnabled(True)
        self.difference_table.setToolTip("Enter or double-click: open the program")
        self._score_delegate = ScoreBarDelegate(SCORE_ROLE, self.difference_table)
        for column in (3, 4):
            self.difference_table.setItemDelegateForColumn(column, self._score_delegate)
        header = self.difference_table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setHighlightSections(False)
        self.difference_table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.difference_table.activated.connect(self._on_difference_table_activated)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        ranking = QWidget()
        ranking_layout = QVBoxLayout(ranking)
        ranking_layout.setContentsMargins(0, 4, 0, 0)
        ranking_layout.setSpacing(6)
        ranking_layout.addWidget(self.difference_table, 1)
        ranking_layout.addWidget(self.summary)
        stats = QWidget()
        stats.setLayout(self._build_stats())
        # two pages over the same language and split: the programs where they differ, and whether A is better
        self.dataset_tabs = QTabWidget()
        self.dataset_tabs.setDocumentMode(True)
        self.dataset_tabs.addTab(ranking, "Where they differ")
        self.dataset_tabs.addTab(stats, "Paired statistics")
        self.dataset_tabs.setTabToolTip(1, "Is A better than B? ΔF1 = F1(A) − F1(B) with its bootstrap interval "
                                           "and the sign test of A's wins")
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(4, 4, 8, 4)
        right_layout.setSpacing(6)
        right_layout.addWidget(_section_title("Across the dataset"))
        right_layout.addLayout(filters)
        right_layout.addWidget(self.dataset_tabs, 1)

        # the edge names need the room; the ranking fits in less
        self.splitter = pane_splitter(Qt.Orientation.Horizontal, (left, right), (1, 1), (520, 480))
        self.message = QLabel()  # instead of the splitter when there is nothing to compare
        self.message.setTextFormat(Qt.TextFormat.RichText)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setContentsMargins(24, 24, 24, 24)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.message)
        self.stack.addWidget(self.splitter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(top)
        layout.addWidget(self.stack, 1)

        self.difference_proxy.modelReset.connect(self._update_summary)
        self.difference_proxy.rowsInserted.connect(self._update_summary)
        self.difference_proxy.rowsRemoved.connect(self._update_summary)
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.instance_selected.connect(self._on_state_instance_selected)
        state.model_selected.connect(self._on_state_model_selected)
        state.compare_model_selected.connect(self._on_state_compare_model_selected)
        state.edge_selected.connect(self._on_state_edge_selected)
        state.answers_settled.connect(self._on_state_answers_settled)
        self._stats_job: PairedStatsJob | None = None  # the latest request; an older result is not shown
        self._when_shown = WhenShown(self)  # while another tab is current, refreshes wait until this one shows
        self._on_state_dataset_opened()

    # -- queries (tests, other views) -----------------------------------------------------
    @property
    def can_compare(self) -> bool:
        self._when_shown.flush()
        return self._comparing()

    def edges(self) -> list[CompareEdge]:
        """This program's edges as shown (after the class filter and sorting)."""
        self._when_shown.flush()
        return [self.edge_proxy.index(row, 0).data(EDGE_ROLE) for row in range(self.edge_proxy.rowCount())]

    def shown_keys(self) -> list[str]:
        """The dataset table's programs as shown (after filters and sorting)."""
        self._when_shown.flush()
        return [self.difference_proxy.index(row, 0).data(DIFFERENCE_ROLE).key
                for row in range(self.difference_proxy.rowCount())]

    def select_edge_row(self, row: int) -> None:
        self._when_shown.flush()
        self.edge_table.selectionModel().setCurrentIndex(
            self.edge_proxy.index(row, 0),
            QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)

    @property
    def stats(self) -> PairedStats | None:
        """The paired statistics shown (None while computing or when there is nothing to compare)."""
        self._when_shown.flush()
        return self.stats_model.stats

    def stats_pending(self) -> bool:
        return self._stats_job is not None

    def export_stats(self, path: str | Path, fmt: str) -> Path:
        """Write the statistics shown as `fmt` (csv, md or json, as `traceeval compare --stats` writes them)."""
        stats = self.stats
        if stats is None or not stats.rows:
            raise ValueError("no paired statistics to export: choose two models that answered the same programs")
        path = Path(path)
        try:
            path.write_text(render_paired(stats, fmt), encoding="utf-8")
        except OSError as error:
            raise OSError(f"{path}: cannot write: {error.strerror or error}") from None
        return path

    def open_row(self, row: int) -> None:
        """What Enter or a double click on a dataset row does: select that program."""
        self._when_shown.flush()
        self._on_difference_table_activated(self.difference_proxy.index(row, 0))

    # -- slots: the state -----------------------------------------------------------------
    def _on_state_dataset_opened(self) -> None:
        opened = self.state.opened
        self.split_combo.fill({row.split for row in opened.rows} if opened else ())
        self.difference_proxy.set_split(None)
        self._fill_model_b_combo()
        self._request_all()

    def _on_state_model_selected(self, model: str) -> None:
        if model and self.state.compare_model in (None, model):
            others = [m.name for m in self.state.models if m.name != model]
            if others:  # B must differ from A: this emits compare_model_selected, which refreshes
                self._fill_model_b_combo()
                self.state.select_compare_model(others[0])
                return
        self._fill_model_b_combo()
        self._request_all()

    def _on_state_compare_model_selected(self, _model: str) -> None:
        self._fill_model_b_combo()
        self._request_all()

    def _on_state_answers_settled(self, _model: str) -> None:
        self._fill_model_b_combo()
        self._request_all()

    def _on_state_instance_selected(self, _key: str) -> None:
        if not self._when_shown.waits(self._refresh_all):  # which would show the program too
            self._when_shown.request(self._refresh_program)

    def _on_state_edge_selected(self, _edge: ClassifiedEdge | None) -> None:
        self._when_shown.request(self._show_state_edge)

    def _request_all(self) -> None:
        self._when_shown.discard(self._refresh_program)
        self._when_shown.discard(self._show_state_edge)
        self._when_shown.request(self._refresh_all)

    def _refresh_program(self) -> None:
        self._refresh_instance()
        self._show_current_program(self.state.instance_key or "")

    def _show_state_edge(self) -> None:
        edge = self.state.edge
        current = self.edge_table.currentIndex().data(EDGE_ROLE)
        if edge is not None and current is not None and (current.caller, current.callee) == edge[1:]:
            return
        row = self.edge_model.row_of(edge.caller, edge.callee) if edge is not None else None
        index = self.edge_proxy.mapFromSource(self.edge_model.index(row, 0)) if row is not None else QModelIndex()
        self._syncing = True
        try:
            if index.isValid():
                self.select_edge_row(index.row())
            else:
                self.edge_table.selectionModel().clearCurrentIndex()
                self.edge_table.clearSelection()
        finally:
            self._syncing = False

    # -- slots: the widgets ---------------------------------------------------------------
    def _on_model_b_combo_changed(self, _index: int) -> None:
        name = self.model_b_combo.currentData()
        if name:
            self.state.select_compare_model(name)

    def _on_class_button_toggled(self, checked: bool) -> None:
        category = next(c for c, button in self.class_buttons.items() if button is self.sender())
        self.edge_proxy.set_shown(category, checked)

    def _on_edge_table_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not self._syncing and current.isValid():
            self._select_edge(current.data(EDGE_ROLE))

    def _on_edge_table_clicked(self, index: QModelIndex) -> None:
        if index.isValid():  # also a click on the current row (the graph may show another mode now)
            self._select_edge(index.data(EDGE_ROLE))

    def _on_difference_table_activated(self, index: QModelIndex) -> None:
        if index.isValid():
            self.state.select_instance(index.data(DIFFERENCE_ROLE).key)

    def _on_filter_edit_text_changed(self, text: str) -> None:
        self.difference_proxy.set_text(text)
        self._update_summary()

    def _on_language_combo_changed(self, _index: int) -> None:
        self.difference_proxy.set_language(self.language_combo.currentData())
        self._update_summary()
        self._request_stats()

    def _on_split_combo_changed(self, _index: int) -> None:
        self.difference_proxy.set_split(self.split_combo.currentData())
        self._update_summary()
        self._request_stats()

    def _on_stats_job_finished(self, stats: PairedStats) -> None:
        if self.sender() is not (self._stats_job.signals if self._stats_job else None):
            return  # a request since replaced
        self._stats_job = None
        self._show_stats(stats)

    def _on_stats_job_failed(self, message: str) -> None:
        if self._stats_job is not None and self.sender() is self._stats_job.signals:
            self._stats_job = None
            self.stats_note.setText(f"<span style='color:#8a5a00'>⚠ paired statistics failed: "
                                    f"{html.escape(message)}</span>")
            self.stats_changed.emit()

    # -- building -------------------------------------------------------------------------
    def _select_edge(self, edge: CompareEdge) -> None:
        self.state.set_view_mode("compare")
        self.state.select_edge_named(edge.caller, edge.callee)

    def _refresh_all(self) -> None:
        state = self.state
        row_a = state.model_row(state.model)
        self.model_a_label.setText(
            f"<span style='color:{MODEL_A_COLOUR}'>■</span>&nbsp;<b>Model A:</b>&nbsp;"
            + (html.escape(model_label(row_a)) if row_a else f"<span style='color:{MUTED_TEXT}'>none</span>"))
        self.model_a_label.setToolTip(("The toolbar's model. " + model_tooltip(row_a)) if row_a else "")
        if state.opened is None:
            self._show_message("Open a dataset to compare two models on it.")
        elif len(state.models) < 2:
            only = f"only <b>{html.escape(state.models[0].name)}</b>" if state.models else "no model results"
            self._show_message(f"<p><b>Compare needs two models.</b></p><p>This workspace has {only}: "
                               f"{IMPORT_HINT}.</p>")
        else:
            self.stack.setCurrentWidget(self.splitter)
            self._refresh_dataset()
            self._refresh_instance()
            self._show_current_program(state.instance_key or "")
            return
        self.edge_model.set_edges([])
        self.difference_model.set_differences([], {}, "A", "B")
        self._request_stats()

    def _show_message(self, text: str) -> None:
        self.message.setText(f"<div style='color:{MUTED_TEXT}'>{text}</div>")
        self.stack.setCurrentWidget(self.message)

    def _comparing(self) -> bool:
        return self.stack.currentWidget() is self.splitter

    def _refresh_instance(self) -> None:
        if not self._comparing():
            return
        state = self.state
        model_a, model_b = state.model, state.compare_model
        detail = state.detail()
        self._syncing = True
        try:
            self.omitted.show_part(None)
            if detail is None:
                self.edge_model.set_edges([])
                self._set_chip_counts(None)
                self.instance_header.setText(f"<span style='color:{MUTED_TEXT}'>No program selected.</span>")
                return
            overlay = detail.overlay
            title = f"<b>{html.escape(detail.instance.id)}</b>&nbsp;<span style='color:{MUTED_TEXT}'>" \
                    f"{registry.title(detail.instance.language, detail.instance.language)}" \
                    f" · {html.escape(detail.instance.split or 'no split')}</span>"
            missing = [name for name in (model_a, model_b) if name not in overlay.models]
            if missing:
                self.edge_model.set_edges([])
                self._set_chip_counts(None)
                names = " and ".join(html.escape(name or "(no model chosen)") for name in missing)
                self.instance_header.setText(
                    f"{title}<br><span style='color:#8a5a00'>⚠ {names} "
                    f"{'have' if len(missing) > 1 else 'has'} no result for this program: nothing to compare "
                    f"(not scored).</span>")
                return
            shown = overlay.shown()  # beyond the bound the list holds a part; the chips and scores count every edge
            edges = [e for e in (CompareEdge.of(edge, model_a, model_b) for edge in shown.edges) if e is not None]
            self.edge_model.set_edges(edges, model_a, model_b)
            self.omitted.show_part(shown)
            self._set_chip_counts(overlay.class_counts("compare", model_a, model_b))
            scores = [instance_scores(_model_counts(overlay.class_counts("model", name))).f1
                      for name in (model_a, model_b)]
            self.instance_header.setText(
                f"{title}<br>F1&nbsp;&nbsp;<b style='color:{MODEL_A_COLOUR}'>A {scores[0]:.1%}</b>"
                f"&nbsp;&nbsp;<b style='color:{MODEL_B_COLOUR}'>B {scores[1]:.1%}</b>"
                f"&nbsp;&nbsp;<span style='color:{MUTED_TEXT}'>Δ {(scores[0] - scores[1]) * 100:+.1f} points"
                f"</span>")
        finally:
            self._syncing = False
        if state.edge is not None:
            self._show_state_edge()

    def _refresh_dataset(self) -> None:
        opened, model_a, model_b = self.state.opened, self.state.model, self.state.compare_model
        rows = {row.key: row for row in opened.rows}
        differences = rank_differences(opened.counts.get(model_a, {}), opened.counts.get(model_b, {}), list(rows))
        self.difference_model.set_differences(differences, rows, model_a, model_b)
        self._fit_difference_columns()
        self._request_stats()

    # -- the paired statistics --------------------------------------------------------------
    def _build_stats(self) -> QVBoxLayout:
        self.stats_model = PairedStatsTableModel(self)
        self.stats_table = _table_view(self)
        self.stats_table.setModel(self.stats_model)
        self.stats_table.setAlternatingRowColors(False)
        self.stats_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.stats_table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = self.stats_table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        header.setHighlightSections(False)
        self.stats_export = QToolButton()
        self.stats_export.setText("Export")
        self.stats_export.setToolTip("Save these statistics as CSV, Markdown or JSON (as traceeval compare --stats "
                                     "writes them)")
        self.stats_export.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.stats_export)
        for fmt, title in STATS_EXPORTS:
            menu.addAction(f"As {title}…").triggered.connect(lambda _=False, f=fmt: self.export_requested.emit(f))
        self.stats_export.setMenu(menu)
        self.stats_export.setEnabled(False)
        title = QLabel(f"<b>Is A better than B?</b>&nbsp; <span style='color:{MUTED_TEXT}'>ΔF1 = F1(A) − F1(B)"
                       "</span>")
        title.setToolTip("ΔF1 = F1(A) − F1(B) of the paper metric over the programs both models answered (positive: "
                         f"A is better, as in the ranking), with a paired bootstrap interval ({PAIRED_RESAMPLES:,} "
                         "resamples, seed 0) and the exact sign test on per-program F1 (A's wins / losses / ties). "
                         "Bold: an interval without 0, or p < 0.05. Follows the language and split chosen above, "
                         "not the text filter.")
        heading = QHBoxLayout()
        heading.setContentsMargins(0, 0, 0, 0)
        heading.addWidget(title)
        heading.addStretch(1)
        heading.addWidget(self.stats_export)
        self.stats_note = QLabel()
        self.stats_note.setTextFormat(Qt.TextFormat.RichText)
        self.stats_note.setWordWrap(True)
        layout = QVBoxLayout()
        layout.setContentsMargins(0, 6, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(heading)
        layout.addWidget(self.stats_table, 1)
        layout.addWidget(self.stats_note)
        return layout

    def _stats_selection(self) -> Selection:
        language = self.language_combo.currentData()
        return Selection(languages=(language,) if language else Selection().languages,
                         split=self.split_combo.currentData())

    def _request_stats(self) -> None:
        """Start the statistics of the current models and selection; the previous request is dropped."""
        if self._stats_job is not None:
            self._stats_job.cancel()
            self._stats_job = None
        opened, model_a, model_b = self.state.opened, self.state.model, self.state.compare_model
        if not self._comparing() or opened is None or not model_a or not model_b or model_a == model_b:
            self._show_stats(None)
            return
        job = PairedStatsJob(model_a, model_b, opened.rows, dict(opened.counts.get(model_a, {})),
                             dict(opened.counts.get(model_b, {})), self._stats_selection())
        job.signals.finished.connect(self._on_stats_job_finished)
        job.signals.failed.connect(self._on_stats_job_failed)
        self._stats_job = job
        self.stats_model.set_stats(None)
        self.stats_export.setEnabled(False)
        self.stats_note.setText(f"<span style='color:{MUTED_TEXT}'>computing…</span>")
        self.state.jobs.start(job)

    def _show_stats(self, stats: PairedStats | None) -> None:
        self.stats_model.set_stats(stats)
        self.stats_export.setEnabled(stats is not None and bool(stats.rows))
        if stats is None:
            self.stats_note.setText("")
        elif not stats.rows:
            self.stats_note.setText(f"<span style='color:{MUTED_TEXT}'>No program of this selection has results "
                                    "from both models.</span>")
        else:
            left_out = notes(stats)[1:]  # the first note explains the method: the title's tooltip has it
            self.stats_note.setText(f"<span style='color:{MUTED_TEXT}'>"
                                    + " ".join(f"{html.escape(n)}." for n in left_out) + "</span>")
        self.stats_note.setVisible(bool(self.stats_note.text()))
        self.stats_changed.emit()

    def _show_current_program(self, key: str) -> None:
        """Mark the current program's row, if listed, without selecting anything in the state."""
        row = self.difference_model.row_of(key) if key else None
        index = self.difference_proxy.mapFromSource(self.difference_model.index(row, 0)) \
            if row is not None else QModelIndex()
        selection = self.difference_table.selectionModel()
        if index.isValid():
            selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                      | QItemSelectionModel.SelectionFlag.Rows)
            self.difference_table.scrollTo(index)
        else:
            selection.clearSelection()

    def _set_chip_counts(self, counts: dict[str, int] | None) -> None:
        for category, button in self.class_buttons.items():
            number = counts.get(category, 0) if counts is not None else 0
            button.setText(f"{EDGE_STYLES[category].label}  {number:,}")
            fit_checked_text(button)
            button.setEnabled(counts is not None)

    def _fill_model_b_combo(self) -> None:
        state = self.state
        self.model_b_combo.blockSignals(True)
        self.model_b_combo.clear()
        for model in state.models:
            if model.name != state.model:
                self.model_b_combo.addItem(model_label(model), model.name)
                self.model_b_combo.setItemData(self.model_b_combo.count() - 1, model_tooltip(model),
                                               Qt.ItemDataRole.ToolTipRole)
        if not self.model_b_combo.count():
            self.model_b_combo.addItem("no other model", None)
        self.model_b_combo.setCurrentIndex(max(0, self.model_b_combo.findData(state.compare_model)))
        self.model_b_combo.setEnabled(self.model_b_combo.currentData() is not None)
        self.model_b_combo.blockSignals(False)

    def _update_summary(self, *_args) -> None:
        model, proxy = self.difference_model, self.difference_proxy
        total = model.rowCount()
        if not total:
            self.summary.setText(f"<span style='color:{MUTED_TEXT}'>No program has results from both models.</span>"
                                 if self._comparing() else "")
            return
        shown = [difference for difference, row in model.items() if proxy.accepts(row)]
        a_wins = sum(d.delta > 0 for d in shown)
        b_wins = sum(d.delta < 0 for d in shown)
        self.summary.setText(
            f"{count_of(len(shown), total, 'program')} answered by both: "
            f"<b style='color:{MODEL_A_COLOUR}'>A better on {a_wins:,}</b>, "
            f"<b style='color:{MODEL_B_COLOUR}'>B better on {b_wins:,}</b>, "
            f"tied on {len(shown) - a_wins - b_wins:,}")

    def _fit_difference_columns(self) -> None:
        """Tight widths from the widest possible value (and the first rows' ids), so the ranking's
        important columns (program, scores, Δ) fit a narrow pane."""
        metrics = self.difference_table.fontMetrics()
        header = self.difference_table.horizontalHeader()
        ids = [row.id for _, row in self.difference_model.items()[:FIT_SAMPLE_ROWS]]
        widest = {"rank": f"{self.difference_model.rowCount():,}",
                  "program": max(ids, key=metrics.horizontalAdvance, default=""),
                  "language": "JavaScript", "f1_a": "100.0%", "f1_b": "100.0%", "delta": "+100.0",
                  "counts_a": "999 / 999 / 999", "counts_b": "999 / 999 / 999"}
        for column, (field, _, _) in enumerate(DIFFERENCE_COLUMNS):
            width = column_width(self.difference_table, column, [widest[field]])
            header.resizeSection(column, min(width, MAX_PROGRAM_WIDTH))


def _model_counts(classes: dict[str, int]) -> Counts:
    """A model's TP / FP / FN from the counts of the model view mode's classes (shared with the graph's chips)."""
    return Counts(classes.get("TP", 0), classes.get("FP", 0), classes.get("FN", 0))


def _table_view(parent: QWidget) -> QTableView:
    table = QTableView(parent)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    table.setWordWrap(False)
    table.setShowGrid(False)
    table.setAlternatingRowColors(True)
    vertical = table.verticalHeader()
    vertical.hide()
    vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # uniform rows: fast at 10k
    vertical.setDefaultSectionSize(table.fontMetrics().height() + 8)
    return table


def _section_title(text: str) -> QLabel:
    label = QLabel(text)
    label.setStyleSheet(f"color: {MUTED_TEXT}; font-weight: bold;")
    return label


def _chip_style(category: str) -> str:
    colour, tint = EDGE_STYLES[category].colour, compare_tint(category).name()
    return (f"QToolButton {{ color: #80868b; border: 1px solid #d0d3d7; border-radius: 10px; "
            f"padding: 2px 9px; background: #fafafa; }}"
            f"QToolButton:checked {{ color: {colour}; border-color: {colour}; background: {tint}; "
            f"font-weight: bold; }}")
