"""The line a view shows when it holds only the bounded part of an instance's edges (`InstanceOverlay.shown`).

An absurd model answer (10^6 callees) must not become 10^6 drawn edges or table rows: the graph, the edge table
and the compare list show the same bounded part (the truth's and the trace's edges first) and say here how much
they leave out. Scores and class counts elsewhere still count every edge.
"""
from __future__ import annotations

from PySide6.QtWidgets import QWidget

from core.report.overlay import ShownPart
from traceeval_gui.widgets.note_label import NoteLabel


class OmittedEdgesLabel(NoteLabel):
    """Hidden while a view shows every edge; else "Showing 2,000 of N edges, … and K more edges not shown; …"."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setToolTip("So that the window stays responsive, views list and draw a bounded part of this "
                        "program's edges (the ground truth's and the trace's first); name filters apply to that "
                        "part. Precision, recall, F1 and the class counts count every edge.")

    def show_part(self, shown: ShownPart | None) -> None:
        """Say what `shown` leaves out (hide when it leaves nothing out, or when there is no program)."""
        summary = shown.summary() if shown is not None else ""
        total = len(shown.edges) + shown.omitted_edges if shown is not None else 0
        self.setText(f"Showing {len(shown.edges):,} of {total:,} edges, the truth's and the trace's first "
                     f"{summary}" if summary else "")
        self.setVisible(bool(summary))
