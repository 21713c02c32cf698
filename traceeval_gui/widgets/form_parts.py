"""Small widgets and layouts the views share (forms of Run Model and the build wizard, titled panes,
splitters)."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSpinBox, QSplitter, QVBoxLayout, QWidget

from traceeval_gui.theme.style import MUTED_TEXT


def caption(text: str) -> QLabel:
    """A bold label naming the part of a form below it."""
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


def muted(text: str = "", wrap: bool = True) -> QLabel:
    """A note in the theme's muted text colour (explanations, hints, facts beside the thing itself)."""
    label = QLabel(text)
    label.setStyleSheet(f"color: {MUTED_TEXT};")
    label.setWordWrap(wrap)
    return label


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


def pane_splitter(orientation: Qt.Orientation, panes: Sequence[QWidget], stretch: Sequence[int],
                  sizes: Sequence[int] = ()) -> QSplitter:
    """`panes` side by side (or stacked) with a handle wide enough to grab; no pane collapses to nothing.
    `stretch`: how growth is shared; `sizes`: the first sizes in pixels (none: from the stretch)."""
    splitter = QSplitter(orientation)
    for index, pane in enumerate(panes):
        splitter.addWidget(pane)
        splitter.setStretchFactor(index, stretch[index])
    if sizes:
        splitter.setSizes(list(sizes))
    splitter.setChildrenCollapsible(False)
    splitter.setHandleWidth(6)
    return splitter
