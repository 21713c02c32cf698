"""Small widgets and layouts the views share (forms of Run Model and the build wizard, titled panes)."""
from __future__ import annotations

from PySide6.QtWidgets import QSpinBox, QVBoxLayout, QWidget


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


def titled_pane(title: QWidget, body: QWidget) -> QWidget:
    """`title` above `body`, with no margins or spacing; the body takes the height."""
    layout = QVBoxLayout()
    layout.setSpacing(0)
    layout.addWidget(title)
    layout.addWidget(body, 1)
    return layout_widget(layout)
