"""The controls above the graph and the file legend below it.

`GraphToolbar`: view mode, models A / B, errors only, hops and fit on one row; under it the
edge-class chips (the legend of the edge colours and line styles, and the toggles that hide a
class) and a status line. `FileLegendView`: "Colour by file" and which fill is which file.
Both show what they are given and report what the user did through signals; the graph panel
decides what it means.
"""
from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from PySide6.QtCore import QEvent, QPointF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.report.palette import EDGE_STYLES, UNPLACED_COLOUR
from core.report.view_modes import VIEW_MODES, view_mode
from traceeval_gui.graph.graph_items import edge_pen
from traceeval_gui.item_models.graph_focus import FOCUS_NODES, FocusedGraph
from traceeval_gui.theme.style import MUTED_TEXT, on_page
from traceeval_gui.widgets.callee_input import FlowLayout
from traceeval_gui.widgets.elided_label import ElidedLabel

NODE_FILL = "#546e7a"  # nodes defined in the program, when not coloured by file
LEGEND_STYLE = "#graph_legend_strip { background: palette(base); border-top: 1px solid palette(mid); }"
FOCUS_BAR_STYLE = ("#graph_focus_bar { background: palette(alternate-base); border-bottom: 1px solid palette(mid); }"
                   "QLabel { color: palette(window-text); }")
LEGEND_FILES = 10  # files named in the legend; the rest are in its tooltip


class GraphToolbar(QWidget):
    mode_chosen = Signal(str)
    class_toggled = Signal(str, bool)  # edge class, shown
    filters_changed = Signal()  # errors only or hops
    fit_requested = Signal()

    def __init__(self, mode: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mode_combo = QComboBox()
        for name in VIEW_MODES:
            self.mode_combo.addItem(view_mode(name).title, name)
        self.mode_combo.setToolTip("What the edge colours compare (models A and B are chosen in the main toolbar)")
        self.mode_combo.setCurrentIndex(VIEW_MODES.index(mode))
        self.mode_combo.currentIndexChanged.connect(self._on_mode_combo_changed)
        self.models_label = ElidedLabel()  # which models A and B are; shortened, never widening the panel
        self.models_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.errors_check = QCheckBox("Errors only")
        self.errors_check.setToolTip("Hide the edges that are right (found, both right, traced, ground truth) "
                                     "and the nodes without a wrong edge")
        self.errors_check.toggled.connect(self._on_filter_changed)
        self.hops_spin = QSpinBox()
        self.hops_spin.setRange(0, 9)
        self.hops_spin.setPrefix("Hops: ")
        self.hops_spin.setSpecialValueText("Hops: all")
        self.hops_spin.setToolTip("Show only the nodes within this many calls (either way) of the selected "
                                  "node or edge; 'all' shows the whole graph")
        self.hops_spin.valueChanged.connect(self._on_filter_changed)
        self.fit_button = QToolButton()
        self.fit_button.setText("Fit")
        self.fit_button.setToolTip("Show the whole graph (F, or double-click the background)")
        self.fit_button.clicked.connect(self.fit_requested)
        controls = QHBoxLayout()
        controls.setContentsMargins(8, 6, 8, 2)
        controls.setSpacing(8)
        controls.addWidget(self.mode_combo)
        controls.addWidget(self.models_label, 1)
        controls.addWidget(self.errors_check)
        controls.addWidget(self.hops_spin)
        controls.addWidget(self.fit_button)

        self.class_buttons: dict[str, QToolButton] = {}  # the chips: filled in place by `set_classes`
        chips_box = QWidget()  # the chips wrap to a second row rather than being cut or widening the panel
        chips_box.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.chips_row = FlowLayout(chips_box, spacing=3)
        self.chips_row.setContentsMargins(0, 0, 0, 0)
        self.status = _FitOrHideLabel()
        self.status.setStyleSheet(f"color: {MUTED_TEXT};")
        self.status.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # chips first
        chips = QHBoxLayout()
        chips.setContentsMargins(4, 2, 8, 4)
        chips.addWidget(chips_box, 3)
        chips.addWidget(self.status, 1)

        self.selection = ElidedLabel()  # the selection's full name (labels in the picture are shortened)
        self.selection.setContentsMargins(8, 0, 8, 3)
        self.show_selection(None)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(controls)
        layout.addLayout(chips)
        layout.addWidget(self.selection)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            for name, button in getattr(self, "class_buttons", {}).items():
                button.setStyleSheet(_chip_style(EDGE_STYLES[name].colour, self.palette()))

    @property
    def errors_only(self) -> bool:
        return self.errors_check.isChecked()

    @property
    def hops(self) -> int:
        """How many calls around the selection to show; 0: all."""
        return self.hops_spin.value()

    def show_mode(self, mode: str) -> None:
        """Show the view mode chosen elsewhere (without reporting it back)."""
        index = VIEW_MODES.index(mode)
        if self.mode_combo.currentIndex() != index:
            self.mode_combo.blockSignals(True)
            self.mode_combo.setCurrentIndex(index)
            self.mode_combo.blockSignals(False)

    def set_classes(self, classes: Iterable[str], hidden: Collection[str]) -> None:
        """One chip per edge class, in this order; chips of `hidden` classes unchecked."""
        for button in self.class_buttons.values():
            self.chips_row.removeWidget(button)
            button.hide()
            button.deleteLater()
        self.class_buttons.clear()
        for name in classes:
            style = EDGE_STYLES[name]
            button = QToolButton()
            button.setCheckable(True)
            button.setChecked(name not in hidden)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setIcon(_line_icon(style.colour, style.dash))
            button.setIconSize(QSize(18, 10))
            button.setToolTip(f"<b>{html.escape(style.label)}</b>: {html.escape(style.description)}."
                              "<br>Click to show or hide these edges.")
            button.setStyleSheet(_chip_style(style.colour, self.palette()))
            button.toggled.connect(lambda checked, name=name: self.class_toggled.emit(name, checked))
            button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)  # never elided
            self.class_buttons[name] = button
            self.chips_row.addWidget(button)

    def show_counts(self, counts: Mapping[str, int]) -> None:
        """How many edges each class has, on its chip."""
        for name, button in self.class_buttons.items():
            button.setText(f"{EDGE_STYLES[name].label} {counts.get(name, 0):,}")

    def show_hidden(self, hidden: Collection[str]) -> None:
        """Uncheck the chips of the hidden classes, check the others (without reporting it back)."""
        for name, button in self.class_buttons.items():
            button.blockSignals(True)
            button.setChecked(name not in hidden)
            button.blockSignals(False)

    def show_selection(self, names: Sequence[str] | None) -> None:
        """The selected node (one name) or edge (caller, callee), in full; None: nothing selected."""
        text = " → ".join(names) if names else ""
        self.selection.setText(f"Selected: {text}" if text else "Nothing selected: click a node or an edge")
        self.selection.setToolTip(text)
        self.selection.setForegroundRole(QPalette.ColorRole.WindowText if text else QPalette.ColorRole.PlaceholderText)

    def clear(self) -> None:
        self.set_classes((), ())
        self.status.clear()
        self.show_selection(None)

    def _on_mode_combo_changed(self, index: int) -> None:
        self.mode_chosen.emit(VIEW_MODES[index])

    def _on_filter_changed(self, *_args) -> None:
        self.filters_changed.emit()


class FileLegendView(QWidget):
    """The strip under the graph: "Colour by file" and the files of the nodes drawn, in their colours."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graph_legend_strip")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)  # a QWidget subclass paints no background
        self.setStyleSheet(LEGEND_STYLE)
        self.file_check = QCheckBox("Colour by file:")
        self.file_check.setChecked(True)
        self.file_check.setToolTip("Fill nodes by the file that defines them; grey: not defined in the program "
                                   "(library calls, hallucinated names)")
        self.files_label = QLabel()
        self.files_label.setTextFormat(Qt.TextFormat.RichText)
        self.files_label.setWordWrap(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 3, 8, 3)
        layout.addWidget(self.file_check, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.files_label, 1)

    @property
    def colour_by_file(self) -> bool:
        return self.file_check.isChecked()

    def show_files(self, colours: Mapping[str, str], files: Collection[str]) -> None:
        """Name the `files` of the nodes drawn ("": not defined in the program) in their `colours`
        (file -> fill; empty when nodes are not coloured by file)."""
        chips = []
        if colours:
            names = _file_titles(list(colours))
            listed = [(file, colour) for file, colour in colours.items() if file in files]
            chips += [f"<span style='color:{colour}'>●</span>&nbsp;{html.escape(names[file])}"
                      for file, colour in listed[:LEGEND_FILES]]
            if len(listed) > LEGEND_FILES:
                chips.append(f"<span style='color:{MUTED_TEXT}'>+{len(listed) - LEGEND_FILES} more files</span>")
        elif set(files) - {""}:
            chips.append(f"<span style='color:{NODE_FILL}'>●</span>&nbsp;defined in the program")
        if "" in files:
            chips.append(f"<span style='color:{UNPLACED_COLOUR}'>●</span>&nbsp;"
                         f"<span style='color:{MUTED_TEXT}'>not defined in the program</span>")
        items = [f"<span style='white-space:nowrap'>{chip}</span>" for chip in chips]
        self.files_label.setText(" &nbsp;&nbsp;".join(items))
        tip = "".join(f"<span style='color:{c}'>●</span>&nbsp;{html.escape(f)}<br>" for f, c in colours.items())
        self.files_label.setToolTip(tip)

    def clear(self) -> None:
        self.files_label.clear()


def node_fill(file: str, colours: Mapping[str, str]) -> str:
    """A node's fill: its file's colour (`colours` empty: not by file), grey when not defined in the program."""
    if not file:
        return UNPLACED_COLOUR
    return colours[file] if colours else NODE_FILL


def _file_titles(files: list[str]) -> dict[str, str]:
    """File names for the legend: the base name where it is unique, else the whole relative path."""
    bases = Counter(f.rsplit("/", 1)[-1] for f in files)
    return {f: f.rsplit("/", 1)[-1] if bases[f.rsplit("/", 1)[-1]] == 1 else f for f in files}


def _line_icon(colour: str, dash: str) -> QIcon:
    pixmap = QPixmap(52, 20)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    pen = edge_pen(colour, dash, width=3.0)
    painter.setPen(pen)
    painter.drawLine(QPointF(3, 10), QPointF(40, 10))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(colour))
    painter.drawPolygon([QPointF(50, 10), QPointF(40, 5), QPointF(40, 15)])
    painter.end()
    return QIcon(pixmap)


def _chip_style(colour: str, palette: QPalette) -> str:
    """A class chip: muted when its class is hidden, tinted in the class colour when shown, on the palette's base."""
    tint = on_page(colour, palette)  # as the canvas draws edges
    colour = tint.name()
    base = palette.color(QPalette.ColorRole.Base)
    mixed = QColor(round(base.red() * 0.88 + tint.red() * 0.12), round(base.green() * 0.88 + tint.green() * 0.12),
                   round(base.blue() * 0.88 + tint.blue() * 0.12))
    muted = palette.color(QPalette.ColorRole.PlaceholderText).name()
    border = palette.color(QPalette.ColorRole.Mid).name()
    return (f"QToolButton {{ color: {muted}; border: 1px solid {border}; border-radius: 10px; "
            f"padding: 2px 6px; background: {base.name()}; }}"
            f"QToolButton:checked {{ color: {colour}; border-color: {colour}; background: {mixed.name()}; "
            f"font-weight: bold; }}")


class _FitOrHideLabel(QLabel):
    """A one-line label that shows its text whole or not at all (the class chips beside it win)."""

    def paintEvent(self, event) -> None:
        if self.fontMetrics().horizontalAdvance(self.text()) <= self.contentsRect().width():
            super().paintEvent(event)


class FocusBar(QWidget):
    """Above a big program's graph: whose neighbourhood is drawn and how much is folded, and the button
    that shows every node (or goes back to the neighbourhood). Hidden for programs drawn whole anyway."""

    show_all_toggled = Signal(bool)  # True: draw every node

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graph_focus_bar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet(FOCUS_BAR_STYLE)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.button = QPushButton()
        self.button.setCheckable(True)
        self.button.toggled.connect(self.show_all_toggled)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 3, 8, 3)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.hide()

    def show_focus(self, focused: FocusedGraph | None, total: int, label_of: Callable[[str], str]) -> None:
        """Say what is drawn: `focused` (None: every node) of a program of `total` nodes."""
        if focused is None and total <= FOCUS_NODES:
            self.hide()
            return
        self.button.blockSignals(True)
        self.button.setChecked(focused is None)
        self.button.blockSignals(False)
        if focused is None:
            self.label.setText(f"All {total:,} nodes of this program.")
            self.button.setText("Show the neighbourhood")
            self.button.setToolTip("Draw only the nodes near the selection, the rest folded by file")
        else:
            centre = " → ".join(f"<b>{html.escape(label_of(name))}</b>" for name in focused.centre)
            calls = "call" if focused.hops == 1 else "calls"
            real = len(focused.nodes) - len(focused.folded)
            self.label.setText(f"Around {centre}: {real:,} of {total:,} nodes, within {focused.hops} {calls} "
                               "either way; their callers and callees outside it are folded by file (squares). "
                               "Select a node elsewhere to move there.")
            self.button.setText(f"Show all {total:,} nodes")
            self.button.setToolTip("Draw every node of this program")
        self.show()
