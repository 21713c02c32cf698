"""The TP / FP / FN legend shown in the toolbar: what each colour means."""
from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel, QWidget

from traceeval_gui.item_models.instance_detail import EDGE_CLASSES
from traceeval_gui.theme.style import EDGE_COLOURS, EDGE_DESCRIPTIONS, EDGE_LABELS, on_page


class EdgeLegendView(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._write()
        self.setToolTip("<br>".join(f"<b>{kind}</b>: {EDGE_DESCRIPTIONS[kind]}" for kind in EDGE_CLASSES))
        self.setContentsMargins(8, 0, 8, 0)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._write()

    def _write(self) -> None:
        colours = {kind: on_page(EDGE_COLOURS[kind], self.palette()).name() for kind in EDGE_CLASSES}
        self.setText("&nbsp;&nbsp;&nbsp;".join(
            f"<span style='color:{colours[kind]}'>■</span>&nbsp;<b style='color:{colours[kind]}'>{kind}</b>"
            f"&nbsp;{EDGE_LABELS[kind]}" for kind in EDGE_CLASSES))
