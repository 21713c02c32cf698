"""The TP / FP / FN legend shown in the toolbar: what each colour means."""
from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from traceeval_gui.models.instance_detail import EDGE_CLASSES
from traceeval_gui.views.style import EDGE_COLOURS, EDGE_DESCRIPTIONS, EDGE_LABELS


class EdgeLegendView(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        chips = [f"<span style='color:{EDGE_COLOURS[kind]}'>■</span>&nbsp;<b style='color:{EDGE_COLOURS[kind]}'>"
                 f"{kind}</b>&nbsp;{EDGE_LABELS[kind]}" for kind in EDGE_CLASSES]
        self.setText("&nbsp;&nbsp;&nbsp;".join(chips))
        self.setToolTip("<br>".join(f"<b>{kind}</b>: {EDGE_DESCRIPTIONS[kind]}" for kind in EDGE_CLASSES))
        self.setContentsMargins(8, 0, 8, 0)
