"""Every edge of the selected instance (its bounded part beyond core.report.overlay.SHOWN_EDGE_LIMIT, with a line
under the table saying how many are left out): model A's class and what the truth, model B, the latest
trace and the auditors say; a row selects the edge everywhere. The counts on the class buttons count every edge."""
from __future__ import annotations

import html

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.scoring.metrics import INSTANCE_RULE
from core.verdicts import LABEL_TITLES
from traceeval_gui.item_models.edge_table import (
    A_COLUMN,
    B_COLUMN,
    CALLEE_COLUMN,
    CALLER_COLUMN,
    CLASS_COLUMN,
    EDGE_ROLE,
    KINDS,
    NO,
    TRACE_COLUMN,
    TRUTH_COLUMN,
    VERDICT_COLUMN,
    YES,
    EdgeFilterProxyModel,
    EdgeRow,
    EdgeSources,
    EdgeTableModel,
    class_text,
)
from traceeval_gui.item_models.instance_detail import ClassifiedEdge
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import EDGE_COLOURS, EDGE_DESCRIPTIONS, EDGE_LABELS, MUTED_TEXT, edge_tint, model_label
from traceeval_gui.widgets.column_fit import column_width
from traceeval_gui.widgets.omitted_edges import OmittedEdgesLabel


class EdgePanel(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.model = EdgeTableModel(self)
        self.proxy = EdgeFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)  # wraps instead of widening the pane
        self.summary.setToolTip(f"Per-program scores after normalisation; rule: {INSTANCE_RULE}")
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter edges by name")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setMaximumWidth(220)
        self.filter_edit.textChanged.connect(self.proxy.set_text)
        self.class_buttons: dict[str, QToolButton] = {}
        top = QHBoxLayout()
        top.setContentsMargins(8, 6, 8, 6)
        top.addWidget(self.summary, 1)
        top.addWidget(self.filter_edit)
        for kind in KINDS:
            button = QToolButton()
            button.setCheckable(True)
            button.setChecked(True)
            title = f"{kind} {EDGE_LABELS[kind]}" if kind else "Other edges"
            button.setToolTip(f"{title}: {EDGE_DESCRIPTIONS[kind]}. Click to show or hide.")
            button.setStyleSheet(toggle_style(kind))
            button.toggled.connect(self._on_class_button_toggled)
            self.class_buttons[kind] = button
            top.addWidget(button)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setWordWrap(False)
        self.table.setShowGrid(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        for column in (CALLER_COLUMN, CALLEE_COLUMN):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        self._fit_columns()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_row_changed)
        self.omitted = OmittedEdgesLabel()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.omitted)
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.instance_selected.connect(self._on_state_instance_selected)
        state.model_selected.connect(self._on_state_model_selected)
        state.edge_selected.connect(self._on_state_edge_selected)
        state.node_selected.connect(self._on_state_node_selected)
        state.compare_model_selected.connect(self._on_state_model_selected)
        state.runs_changed.connect(self._on_state_runs_changed)
        state.predictions_changed.connect(self._on_state_predictions_changed)
        state.verdicts_changed.connect(self._on_state_verdicts_changed)
        self._refresh()

    def edges(self) -> list[ClassifiedEdge]:
        """The rows as shown (after the class filter and sorting)."""
        return [self.proxy.index(row, 0).data(EDGE_ROLE) for row in range(self.proxy.rowCount())]

    def select_row(self, row: int) -> None:
        self.table.selectionModel().setCurrentIndex(
            self.proxy.index(row, 0),
            QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)

    # -- slots ----------------------------------------------------------------------------
    def _on_state_dataset_opened(self) -> None:
        self._refresh()

    def _on_state_instance_selected(self, _key: str) -> None:
        self._refresh()

    def _on_state_model_selected(self, _model: str) -> None:
        self._refresh()

    def _on_state_predictions_changed(self, _model: str, keys: frozenset) -> None:
        if self.state.instance_key in keys:
            self._on_state_runs_changed(self.state.instance_key)

    def _on_state_verdicts_changed(self, key: str) -> None:
        if key in ("", self.state.instance_key):
            self._on_state_runs_changed(self.state.instance_key)

    def _on_state_runs_changed(self, key: str) -> None:
        if key == self.state.instance_key:
            self._refresh()

    def _on_state_edge_selected(self, edge: ClassifiedEdge | None) -> None:
        current = self.table.currentIndex().data(EDGE_ROLE)
        if edge == current:
            return
        row = self.model.row_of(edge) if edge is not None else None
        if row is None:
            self.table.clearSelection()
            return
        self.select_row(self.proxy.mapFromSource(self.model.index(row, 0)).row())

    def _on_state_node_selected(self, name: str) -> None:
        """Show a selected function's edges: its first row as caller (else as callee) is highlighted and
        scrolled to; the selected edge stays what it was."""
        edges = self.edges()
        row = next((r for r, e in enumerate(edges) if e.caller == name), None)
        if row is None:
            row = next((r for r, e in enumerate(edges) if e.callee == name), None)
        if not name or row is None:
            return
        index = self.proxy.index(row, 0)
        self.table.selectionModel().select(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                           | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index)

    def _on_table_current_row_changed(self, current, _previous) -> None:
        edge = current.data(EDGE_ROLE) if current.isValid() else None
        if edge is not None:
            self.state.select_edge(edge)

    def select_next_error(self, step: int = 1) -> bool:
        """Move to the next (step 1) or previous (-1) missed or hallucinated edge, in table order,
        wrapping around; False when the table shows none."""
        edges = self.edges()
        errors = [row for row, edge in enumerate(edges) if edge.kind in ("FN", "FP")]
        if not errors:
            return False
        current = self.table.currentIndex().row()
        later = [row for row in errors if (row - current) * step > 0]
        target = (min(later) if step > 0 else max(later)) if later else (errors[0] if step > 0 else errors[-1])
        self.select_row(target)
        self.table.scrollTo(self.proxy.index(target, 0))
        return True

    def focus_filter(self) -> None:
        self.filter_edit.setFocus()
        self.filter_edit.selectAll()

    def _on_class_button_toggled(self, checked: bool) -> None:
        kind = next(k for k, button in self.class_buttons.items() if button is self.sender())
        self.proxy.set_shown(kind, checked)

    # -- building -------------------------------------------------------------------------
    def _refresh(self) -> None:
        detail = self.state.detail()
        model_row = self.state.model_row(self.state.model)
        self._fill(detail)
        if detail is None or detail.diff is None:
            self._set_counts(None)
            if not self.state.models:
                self.summary.setText("No model results in this workspace: import some with "
                                     "<code>traceeval import-results</code>.")
            elif detail is None:
                self.summary.setText(f"<span style='color:{MUTED_TEXT}'>No program selected.</span>")
            else:
                self.summary.setText(f"<b>{html.escape(model_label(model_row))}</b> has no result for "
                                     f"{html.escape(detail.instance.key)}: not scored (listed as missing in "
                                     f"the metrics).")
            return
        if self.proxy.rowCount():
            self.select_row(0)  # like a diff tool: start at the first difference (mistakes sort first)
        counts = detail.diff.counts
        others = len(detail.overlay.edges) - counts.tp - counts.fp - counts.fn  # every edge, listed or not
        self._set_counts(counts, others)
        scores = detail.scores
        self.summary.setText(
            f"<b>{html.escape(model_label(model_row))}</b>&nbsp;&nbsp;"
            f"P {scores.precision:.1%} · R {scores.recall:.1%} · <b>F1 {scores.f1:.1%}</b>")

    def _fill(self, detail) -> None:
        self.omitted.show_part(detail.overlay.shown() if detail is not None else None)
        if detail is None:
            self.model.set_rows([], EdgeSources())
            return
        overlay = detail.overlay
        compare = self.state.compare_model
        sources = EdgeSources(detail.model if detail.model in overlay.models else None,
                              compare if compare in overlay.models and compare != detail.model else None,
                              overlay.trace is not None)
        rows = self._rows(detail)
        placed = {name for row in rows for name in row.edge[1:] if detail.place(name) is not None}
        self.model.set_rows(rows, sources, placed)

    def _rows(self, detail) -> list[EdgeRow]:
        """The shown part's edges (all of them up to the bound)."""
        evidence = detail.overlay.trace_evidence
        return [EdgeRow(detail.classify(e.caller, e.callee), e, evidence.get(e.edge), detail.verdicts.get(e.edge))
                for e in detail.overlay.shown().edges]

    def _fit_columns(self) -> None:
        """The columns other than the names get the width of the widest text they can hold, once: fitting
        them to the rows cost thousands of calls into the model at every program shown, and the columns
        moved from program to program."""
        bold = QFont(self.table.font())
        bold.setBold(True)
        for column, texts, font in ((CLASS_COLUMN, [class_text(kind) for kind in KINDS], bold),
                                    (TRUTH_COLUMN, [YES, NO], None), (A_COLUMN, [YES, NO], None),
                                    (B_COLUMN, [YES, NO], None), (TRACE_COLUMN, [f"{YES} 9,999+×"], None),
                                    (VERDICT_COLUMN, list(LABEL_TITLES.values()), None)):
            self.table.horizontalHeader().resizeSection(column, column_width(self.table, column, texts, font))

    def _set_counts(self, counts, others: int = 0) -> None:
        for kind, button in self.class_buttons.items():
            number = others if not kind else getattr(counts, kind.lower()) if counts is not None else 0
            button.setText(f"{kind or 'Other'} {number:,}")
            fit_checked_text(button)
            button.setEnabled(counts is not None)


def fit_checked_text(button: QToolButton, padding: int = 26) -> None:
    """Room for the button's text in bold (its checked style), so a long count ("FP 1,000,000") is never elided."""
    font = QFont(button.font())
    font.setBold(True)
    button.setMinimumWidth(QFontMetrics(font).horizontalAdvance(button.text()) + padding)


def toggle_style(kind: str) -> str:
    colour, tint = EDGE_COLOURS[kind], edge_tint(kind).name()
    return (f"QToolButton {{ color: #80868b; border: 1px solid palette(mid); border-radius: 10px; "
            f"padding: 2px 9px; margin-left: 4px; background: palette(base); }}"
            f"QToolButton:checked {{ color: {colour}; border-color: {colour}; background: {tint}; "
            f"font-weight: bold; }}")
