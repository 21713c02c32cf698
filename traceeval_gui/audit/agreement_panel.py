"""The Agreement tab of the audit results: how far the annotators agree, overall, per language and per edge
class (percent agreement, Cohen's κ, Fleiss' κ, Krippendorff's α), each statistic explained and each undefined
one saying why.
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.audit.agreement import Agreement
from core.audit.export import NONE
from core.audit.reports import AuditReport
from core.languages import registry
from core.report.palette import EDGE_STYLES
from traceeval_gui.theme.style import MUTED_TEXT

AGREEMENT_COLUMNS = ("Group", "Annotators", "Items", "Percent", "Cohen κ", "Fleiss κ", "Krippendorff α")
AGREEMENT_ROLE = Qt.ItemDataRole.UserRole  # every cell of a row carries its Agreement
GROUP_ROLE = Qt.ItemDataRole.UserRole + 1  # ... and its group: ("overall", ""), ("language", "java"), ...
AGREEMENT_TIPS = (
    "Overall, then per language and per edge class of the sampled edges",
    "Annotators who rated at least one of the group's items",
    "Edges with verdicts from at least two annotators (what agreement is computed on)",
    "Percent agreement: per edge, the share of annotator pairs who gave the same label, averaged over edges",
    "Cohen's κ (1960): chance-corrected agreement of exactly two annotators, on the edges both rated. "
    "Defined only with two annotators who share an edge, and not when every rating is the same label",
    "Fleiss' κ (1971): chance-corrected agreement of any number of annotators, on the edges every one of them "
    "rated. Not defined without such an edge, or when every rating is the same label",
    "Krippendorff's α (nominal): chance-corrected agreement of any number of annotators; missing ratings are "
    "fine. Not defined without an edge rated twice, or when every rating is the same label",
)
CLASS_TIPS = {name: EDGE_STYLES[name].description for name in ("TP", "FP", "FN", "truth")}


class AgreementPanel(QWidget):
    """Agreement overall, per language and per edge class, each statistic explained."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = _agreement_table()
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.RichText)
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        layout.addWidget(self.table)
        layout.addWidget(self.note)
        layout.addStretch(1)

    def set_report(self, report: AuditReport | None, waiting: str = "") -> None:
        """Show the agreement of `report` (None: the `waiting` note instead)."""
        table = self.table
        table.clearSpans()
        summary = report.agreement if report is not None else None
        if summary is None:
            table.setRowCount(0)
            text = waiting if report is None else ("A baseline audit: annotators answer questions instead of "
                                                   "judging edges, so there is no agreement to show.")
            self.note.setText(f"<p style='color:{MUTED_TEXT}'>{html.escape(text)}</p>")
            return
        groups: list[tuple[str, tuple[str, str] | None, str, Agreement | None]] = [
            ("Overall", ("overall", ""), "", summary.overall), ("By language", None, "", None)]
        groups += [(registry.title(k, k), ("language", k), "", a) for k, a in summary.by_language.items()]
        groups.append(("By edge class", None, "", None))
        groups += [(k or NONE, ("edge_class", k), CLASS_TIPS.get(k, ""), a) for k, a in summary.by_edge_class.items()]
        table.setRowCount(len(groups))
        for row, (name, group, tip, agreement) in enumerate(groups):
            if agreement is None:
                self._add_section(row, name)
            else:
                self._add_row(row, name if row == 0 else f"    {name}", group, tip, agreement)
        _fit_table(table)
        people = len(summary.overall.annotators)
        hint = ("<p><b>Only one annotator has judged this audit so far</b>: merge another annotator's workspace "
                "(Merge Workspace…) to see how far they agree.</p>" if people < 2 else "")
        glossary = "".join(f"<li><b>{html.escape(title)}</b>: {html.escape(tip)}.</li>"
                           for title, tip in zip(AGREEMENT_COLUMNS[2:], AGREEMENT_TIPS[2:]))
        self.note.setText(
            f"{hint}<p style='color:{MUTED_TEXT}'>κ and α: 1 is perfect agreement, 0 what chance alone gives, below "
            f"0 worse than chance. {NONE}: not defined for this group (hover over it for why).</p>"
            f"<ul style='color:{MUTED_TEXT}; margin-left:-24px'>{glossary}</ul>")

    def _add_section(self, row: int, title: str) -> None:
        cell = QTableWidgetItem(title)
        cell.setFlags(Qt.ItemFlag.ItemIsEnabled)
        cell.setForeground(QColor(MUTED_TEXT))
        font = QFont(cell.font())
        font.setBold(True)
        cell.setFont(font)
        self.table.setItem(row, 0, cell)
        self.table.setSpan(row, 0, 1, len(AGREEMENT_COLUMNS))

    def _add_row(self, row: int, name: str, group: tuple[str, str], tip: str, agreement: Agreement) -> None:
        cells = [(name, tip), (", ".join(agreement.annotators) or NONE, ""), (f"{agreement.items:,}", ""),
                 _value(agreement.percent, percent=True), *statistic_cells(agreement)]
        for column, (text, cell_tip) in enumerate(cells):
            cell = QTableWidgetItem(text)
            cell.setData(AGREEMENT_ROLE, agreement)
            cell.setData(GROUP_ROLE, group)
            if column >= 2:
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if text == NONE:
                cell.setForeground(QColor(MUTED_TEXT))
            if cell_tip:
                cell.setToolTip(cell_tip)
            if group[0] == "overall":
                font = QFont(cell.font())
                font.setBold(True)
                cell.setFont(font)
            self.table.setItem(row, column, cell)

    def rows(self) -> dict[tuple[str, str], tuple[str, ...]]:
        """(group kind, key) -> the texts of its row, as shown ("overall", "") first."""
        table, rows = self.table, {}
        for row in range(table.rowCount()):
            group = table.item(row, 0).data(GROUP_ROLE) if table.item(row, 0) else None
            if group is not None:
                rows[tuple(group)] = tuple(table.item(row, c).text() for c in range(table.columnCount()))
        return rows


def statistic_cells(agreement: Agreement) -> list[tuple[str, str]]:
    """Cohen, Fleiss, Krippendorff: (text, tooltip saying why when undefined)."""
    same = "every rating in this group is the same label (chance agreement is 1)"
    if len(agreement.annotators) != 2:
        cohen = f"Cohen's κ compares exactly two annotators; this group has {len(agreement.annotators)}"
    else:
        cohen = "the two annotators rated no edge in common" if not agreement.items else same
    if len(agreement.annotators) < 2:
        fleiss = "Fleiss' κ needs at least two annotators"
    else:
        fleiss = "no edge was rated by every annotator of the group" if not agreement.complete_items else same
    alpha = "no edge was rated by two annotators" if not agreement.items else same
    complete = f" (on the {agreement.complete_items:,} edges every annotator rated)"
    return [_value(agreement.cohen_kappa, why=cohen), _value(agreement.fleiss_kappa, why=fleiss, tip=complete),
            _value(agreement.krippendorff_alpha, why=alpha)]


def _value(value: float | None, percent: bool = False, why: str = "", tip: str = "") -> tuple[str, str]:
    if value is None:
        return NONE, f"Not defined: {why}" if why else "Not defined: no edge was rated by two annotators"
    return (f"{value * 100:.1f} %" if percent else f"{value:.3f}"), (f"{value:.4f}{tip}" if tip else "")


def _agreement_table() -> QTableWidget:
    table = QTableWidget(0, len(AGREEMENT_COLUMNS))
    table.setHorizontalHeaderLabels(AGREEMENT_COLUMNS)
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setShowGrid(False)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setHighlightSections(False)
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setMinimumSectionSize(96)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    for column, tip in enumerate(AGREEMENT_TIPS):
        item = table.horizontalHeaderItem(column)
        item.setToolTip(tip)
        item.setTextAlignment((Qt.AlignmentFlag.AlignLeft if column < 2 else Qt.AlignmentFlag.AlignRight)
                              | Qt.AlignmentFlag.AlignVCenter)
    return table


def _fit_table(table: QTableWidget) -> None:
    """Size a short table to its rows and columns, so it reads like a table in a report."""
    table.resizeColumnsToContents()
    height = table.horizontalHeader().height() + sum(table.rowHeight(r) for r in range(table.rowCount()))
    table.setFixedHeight(height + 2 * table.frameWidth())
    table.setFixedWidth(table.horizontalHeader().length() + 2 * table.frameWidth())
