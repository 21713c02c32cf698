"""Small widgets the settings forms (Run Model, the build wizard) are made of."""
from __future__ import annotations

from PySide6.QtWidgets import QSpinBox, QWidget


def spin_box(low: int, high: int, value: int, tip: str) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setValue(value)
    spin.setToolTip(tip)
    return spin


def layout_widget(layout) -> QWidget:
    """A plain widget holding `layout` with no margins, to put a row of widgets in one form cell."""
    widget = QWidget()
    layout.setContentsMargins(0, 0, 0, 0)
    widget.setLayout(layout)
    return widget
