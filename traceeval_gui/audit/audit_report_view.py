"""The Report tab's look and the pane above the tabs that says what the last merge did.

`polish_markdown` gives the Markdown report Qt draws (`core.audit.export.report_markdown`) readable tables and
headings; `MergeResultPane` shows a merge's summary, its conflicts (both kept, the newer stands) and what it skipped.
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QTextCursor, QTextTableFormat
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.audit.merge import MergeReport
from traceeval_gui.metrics.metrics_panel import HEADER_BACKGROUND
from traceeval_gui.theme.style import MUTED_TEXT


class MergeResultPane(QFrame):
    """What the last merge did: its summary, the conflicts (both kept, the newer stands) and what was skipped."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("merge_result")
        self.setStyleSheet("#merge_result { background: #eef4fb; border-bottom: 1px solid #c9d8ea; }")
        self.summary_label = QLabel()
        self.summary_label.setTextFormat(Qt.TextFormat.RichText)
        self.summary_label.setWordWrap(True)
        self.conflict_list = QListWidget()
        self.conflict_list.setWordWrap(True)
        self.conflict_list.setAlternatingRowColors(True)
        self.conflict_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.conflict_list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        close = QToolButton()
        close.setText("✕")
        close.setToolTip("Hide the merge result")
        close.setAutoRaise(True)
        close.clicked.connect(self.hide)
        top = QHBoxLayout()
        top.addWidget(self.summary_label, 1)
        top.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        layout.setSpacing(6)
        layout.addLayout(top)
        layout.addWidget(self.conflict_list)
        self.report: MergeReport | None = None
        self.hide()

    def show_report(self, report: MergeReport) -> None:
        self.report = report
        lines = [f"<b>{html.escape(report.summary()[:1].upper() + report.summary()[1:])}</b>"]
        if report.changed:
            lines.append(f"<span style='color:{MUTED_TEXT}'>Verdicts keep their author and time; merging "
                         f"{html.escape(report.source.name)} again adds nothing.</span>")
        if report.conflicts:
            lines.append(f"{len(report.conflicts)} conflict{'s' if len(report.conflicts) != 1 else ''}: the same "
                         "annotator (or, for adjudications, the same edge) differs in the two workspaces; both are "
                         "kept and the newer one stands.")
        self.summary_label.setText("<br>".join(lines))
        self.conflict_list.clear()
        self.conflict_list.addItems([f"conflict: {c.describe()}" for c in report.conflicts])
        self.conflict_list.addItems([f"skipped{' ' + audit if audit else ''}: {reason}"
                                     for audit, reason in report.skipped])
        count = self.conflict_list.count()
        self.conflict_list.setVisible(count > 0)
        lines = min(6, 2 * count)  # a conflict takes about two lines wrapped
        self.conflict_list.setFixedHeight(lines * self.fontMetrics().lineSpacing() + 8 * min(count, 3) + 4)
        self.show()


def polish_markdown(browser: QTextBrowser) -> None:
    """Qt draws Markdown tables with double borders and no padding, and headings tight on the text:
    give the tables thin collapsed borders, padding and a shaded header, and the headings some air."""
    document = browser.document()
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    block = document.begin()
    seen = set()
    while block.isValid():
        table = QTextCursor(block).currentTable()
        if table is not None and table.firstPosition() not in seen:
            seen.add(table.firstPosition())
            fmt = table.format()
            fmt.setBorderCollapse(True)
            fmt.setBorder(1)
            fmt.setBorderStyle(QTextTableFormat.BorderStyle.BorderStyle_Solid)
            fmt.setBorderBrush(QBrush(QColor("#d5d9de")))
            fmt.setCellPadding(4)
            fmt.setCellSpacing(0)
            fmt.setHeaderRowCount(1)
            fmt.setTopMargin(4)
            fmt.setBottomMargin(6)
            table.setFormat(fmt)
            for column in range(table.columns()):
                cell = table.cellAt(0, column)
                cell_format = cell.format()
                cell_format.setBackground(QBrush(QColor(HEADER_BACKGROUND)))
                cell.setFormat(cell_format)
        elif table is None and block.blockFormat().headingLevel():
            block_format = block.blockFormat()
            block_format.setTopMargin(16 if block_format.headingLevel() > 1 else 4)
            block_format.setBottomMargin(6)
            QTextCursor(block).setBlockFormat(block_format)
        block = block.next()
    cursor.endEditBlock()
