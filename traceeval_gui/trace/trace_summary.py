"""The Summary tab of a trace run: its facts on the left, its diff against the stored ground truth
on the right.

A click on a differing edge emits `edge_clicked` (the tracer's raw names); "Show in graph" emits
`overlay_clicked`. What to do with either is the panel's business.
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core import traces
from core.report.overlay import TRACE_ONLY, TRUTH_ONLY
from core.report.palette import EDGE_STYLES
from core.scoring.replay import ReplayDiff, key_notes
from core.traces import TraceRun
from core.wording import count
from traceeval_gui.theme.style import MUTED_TEXT, monospace_font
from traceeval_gui.theme.trace_text import AMBER, GREEN, local_time, seconds, status_title

FACTS = ("Run", "Exit code", "Duration", "Phases", "Edges", "Sandbox", "Child processes", "Warnings")
WARNINGS_SHOWN = 8
CHILDREN_SHOWN = 8
DIFF_ROLE = Qt.ItemDataRole.UserRole  # diff list items: (side, caller, callee)
SIDE_MARKS = {TRACE_ONLY: "+", TRUTH_ONLY: "−"}
SIDE_LABELS = {TRACE_ONLY: "only in the trace", TRUTH_ONLY: "only in the ground truth"}


class TraceSummaryView(QSplitter):
    edge_clicked = Signal(str, str)  # caller, callee of a differing edge, as the tracer named them
    overlay_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.addWidget(self._build_facts())
        self.addWidget(self._build_truth())
        self.setStretchFactor(0, 1)
        self.setStretchFactor(1, 1)
        self.setSizes([450, 450])
        self.setChildrenCollapsible(False)

    def _build_facts(self) -> QScrollArea:
        self.facts: dict[str, QLabel] = {}
        facts = QFormLayout()
        facts.setContentsMargins(8, 6, 8, 6)
        facts.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        facts.setHorizontalSpacing(12)
        facts.setVerticalSpacing(5)
        for name in FACTS:
            value = QLabel()
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setTextFormat(Qt.TextFormat.RichText if name == "Warnings" else Qt.TextFormat.PlainText)
            self.facts[name] = value
            caption = QLabel(name)
            caption.setStyleSheet(f"color: {MUTED_TEXT};")
            facts.addRow(caption, value)
        facts_widget = QWidget()
        facts_widget.setLayout(facts)
        scroll = QScrollArea()
        scroll.setWidget(facts_widget)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(300)
        return scroll

    def _build_truth(self) -> QWidget:
        self.overlay_button = QToolButton()
        self.overlay_button.setText("Show in graph")
        self.overlay_button.clicked.connect(self.overlay_clicked)
        top = QHBoxLayout()
        top.addWidget(QLabel("<b>Against the stored ground truth</b>"), 1)
        top.addWidget(self.overlay_button)
        self.diff_label = QLabel()
        self.diff_label.setWordWrap(True)
        self.diff_label.setTextFormat(Qt.TextFormat.RichText)
        self.diff_list = QListWidget()
        self.diff_list.setFont(monospace_font(9))
        self.diff_list.setToolTip("Click an edge to select it in the graph, the source and the edge table")
        self.diff_list.itemClicked.connect(self._on_diff_list_item_clicked)
        self.diff_list.itemActivated.connect(self._on_diff_list_item_clicked)
        truth = QVBoxLayout()
        truth.setContentsMargins(8, 6, 8, 6)
        truth.setSpacing(4)
        truth.addLayout(top)
        truth.addWidget(self.diff_label)
        truth.addWidget(self.diff_list, 1)
        truth.addStretch(0)  # keeps the counts at the top when there is no list
        widget = QWidget()
        widget.setLayout(truth)
        return widget

    # -- public ---------------------------------------------------------------------------
    def show_run(self, run_id: int, run: TraceRun, diff: ReplayDiff | None, newest_id: int) -> None:
        """Show a run and its diff (None: no stored ground truth); `newest_id` is the instance's newest run."""
        facts = {
            "Run": f"#{run_id} of {run.instance_key} · {run.tracer} {run.tracer_version} · started "
                   f"{local_time(run.started_at)}" + (f" · {run.runs} runs merged" if run.runs > 1 else "")
                   + ("" if run_id == newest_id else f" · an older run (newest: #{newest_id})"),
            "Exit code": "—" if run.exit_code is None else str(run.exit_code),
            "Duration": seconds(run.duration_s),
            "Phases": " · ".join(f"{phase} {seconds(s)}" for phase, s in run.timings.items()) or "—",
            "Edges": _edges_fact(run),
            "Sandbox": run.sandbox or ("the program did not run" if not run.ran else "—"),
            "Child processes": "\n".join(child.summary() for child in run.children[:CHILDREN_SHOWN])
                               + (f"\n… and {len(run.children) - CHILDREN_SHOWN} more"
                                  if len(run.children) > CHILDREN_SHOWN else "") or "none",
            "Warnings": _warnings_fact(run.warnings),
        }
        for name, text in facts.items():
            self.facts[name].setText(text)
        latest = run_id == newest_id
        self.overlay_button.setEnabled(latest and diff is not None)
        self.overlay_button.setToolTip(
            "Switch the graph to “Latest trace vs truth”: this run as an overlay" if latest else
            "The graph overlays the newest run only: pick it in the Run list to compare it in the graph")
        self._show_diff(run, diff)

    def diff_items(self) -> list[tuple[str, str, str]]:
        """(side, caller, callee) of each edge in the diff list, as shown."""
        return [self.diff_list.item(i).data(DIFF_ROLE) for i in range(self.diff_list.count())]

    # -- slots ----------------------------------------------------------------------------
    def _on_diff_list_item_clicked(self, item: QListWidgetItem) -> None:
        _side, caller, callee = item.data(DIFF_ROLE)
        self.edge_clicked.emit(caller, callee)

    # -- showing --------------------------------------------------------------------------
    def _show_diff(self, run: TraceRun, diff: ReplayDiff | None) -> None:
        self.diff_list.clear()
        self.diff_list.hide()
        if diff is None:
            self.diff_label.setText(f"<span style='color:{MUTED_TEXT}'>No stored ground truth for this program.</span>")
            return
        if not run.ran:
            self.diff_label.setText(f"<span style='color:{MUTED_TEXT}'>The program did not run "
                                    f"({html.escape(status_title(run.status).lower())}): "
                                    f"there is nothing to compare.</span>")
            return
        self.diff_label.setText(_diff_html(run, diff))
        for side, edges in ((TRACE_ONLY, diff.only_in_trace), (TRUTH_ONLY, diff.only_in_truth)):
            for caller, callee in edges:
                item = QListWidgetItem(f"{SIDE_MARKS[side]} {caller} → {callee}")
                item.setData(DIFF_ROLE, (side, caller, callee))
                item.setForeground(QBrush(QColor(EDGE_STYLES[side].colour)))
                item.setToolTip(f"{caller} → {callee}: {SIDE_LABELS[side]} (click to select it in the app)")
                self.diff_list.addItem(item)
        self.diff_list.setVisible(self.diff_list.count() > 0)


def _diff_html(run: TraceRun, diff: ReplayDiff) -> str:
    """The verdict (full agreement, a partial run), the counts and the notes on how names were matched."""
    if diff.agrees:
        verdict = f"<span style='color:{GREEN}'>✓ Full agreement: the trace sees exactly the stored edges.</span><br>"
    elif run.status != traces.OK:
        verdict = (f"<span style='color:{AMBER}'>Partial run ({html.escape(status_title(run.status).lower())}): "
                   f"calls after the program stopped were not traced.</span><br>")
    else:
        verdict = ""
    counts = (f"<b>{diff.agreed}</b> agree · "
              f"<span style='color:{EDGE_STYLES[TRACE_ONLY].colour}'><b>{len(diff.only_in_trace)}</b> only in "
              f"the trace</span> · <span style='color:{EDGE_STYLES[TRUTH_ONLY].colour}'>"
              f"<b>{len(diff.only_in_truth)}</b> only in the ground truth</span>")
    keys = html.escape("; ".join(key_notes(diff)))
    return verdict + counts + (f"<br><span style='color:{MUTED_TEXT}'>{keys}</span>" if keys else "")


def _edges_fact(run: TraceRun) -> str:
    parts = [f"{len(run.edges):,} recorded"]
    unknown = sum(not e.count_known for e in run.edges)
    if unknown:
        parts.append(f"{unknown:,} without a final count (stopped early)")
    if run.runs > 1:
        parts.append(f"{len(run.unstable_edges()):,} seen in only some of the {run.runs} runs")
    parts.append(count(len(run.unresolved), "unresolved frame"))
    return " · ".join(parts)


def _warnings_fact(warnings: tuple[str, ...]) -> str:
    if not warnings:
        return f"<span style='color:{MUTED_TEXT}'>none</span>"
    shown = [f"⚠ {html.escape(w)}" for w in warnings[:WARNINGS_SHOWN]]
    if len(warnings) > WARNINGS_SHOWN:
        shown.append(f"… and {len(warnings) - WARNINGS_SHOWN} more")
    return "<br>".join(shown)
