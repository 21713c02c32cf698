"""The call graph of the selected instance: truth, every model and the trace in one fixed layout.

The layout is computed once per instance from the union of all edge sources (core.graph_layout),
so switching the view mode, model A / B or hiding classes never moves a node: those only rebuild
the edge paths and node brushes. Edge classes differ by colour and line style (core.palette);
the class chips in the toolbar are the legend and the toggles. Drawing follows pyqtgraph's
GraphItem: one scatter item for all nodes, one path per edge class, arrowheads and labels
painted in pixels from numpy arrays, labels only where they are readable.

Clicking a node or an edge selects it in the shared state (the source view follows); hovering
shows what it is; selections made elsewhere are highlighted and scrolled into view.
"""
from __future__ import annotations

import dataclasses
import html
from collections import Counter, OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QAction, QColor, QCursor, QIcon, QImage, QKeySequence, QPainter, QPen, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

# isort: split
import pyqtgraph as pg  # after PySide6 (DESIGN.md)

from core.graph_export import MODE_TITLES, GraphPicture, file_colours, to_dot, to_graphml, to_json, to_svg
from core.graph_layout import LAYER_GAP, NODE_GAP, GraphLayout, layered_layout
from core.model import Edge, Node
from core.overlay import VIEW_MODES, InstanceOverlay, classify_edges
from core.palette import EDGE_STYLES, MODE_CLASSES, UNPLACED_COLOUR
from traceeval_gui.app_state import VIEW_MODE_TITLES, AppState
from traceeval_gui.models.graph_scene import (
    CORRECT_CLASSES,
    EdgeGeometry,
    hop_nodes,
    pick_labels,
    short_name,
    short_names,
    shown_edges,
)
from traceeval_gui.models.instance_detail import ClassifiedEdge
from traceeval_gui.views.graph_items import (
    ArrowHeadsItem,
    EdgePathItem,
    NodeLabelsItem,
    bounds_of,
    edge_pen,
)
from traceeval_gui.views.style import MUTED_TEXT

NODE_SIZE = 11.0  # pixels, when rows are far enough apart; smaller zoomed out (level of detail)
MIN_NODE_SIZE = 4.0
FAINT_SIZE = 6.0
THIN_LAYER_PX = 70.0  # below this many pixels between layers: thin translucent edges, no arrowheads
LABEL_LIMIT = 150  # labels drawn at most at once
LABEL_ROW_PX = 24.0  # labels only when two nodes of a layer are this many pixels apart
HIT_PX = 5.0  # click / hover tolerance around edges, beyond the node's radius for nodes
MAX_STRETCH = 3.0
LEGEND_FILES = 10  # files named in the legend; the rest are in its tooltip  # "fit" may scale rows up to this many times more than layers
LAYOUT_CACHE = 8
HIGHLIGHT = "#ffc107"
NODE_FILL = "#546e7a"  # nodes when not coloured by file
EXPORTERS = {"svg": to_svg, "dot": to_dot, "graphml": to_graphml, "json": to_json}
EXPORT_FILTERS = "SVG image (*.svg);;PNG image (*.png);;Graphviz DOT (*.dot);;GraphML (*.graphml);;JSON (*.json)"


@dataclass
class _LoadedGraph:
    """One instance's overlay with its layout and everything derived from it that never changes."""

    overlay: InstanceOverlay
    layout: GraphLayout
    geometry: EdgeGeometry
    groups: dict[str, str]  # node -> file ("" = not defined in the program source)
    places: dict[str, Node | None]
    title: str
    labels: list[str]
    colours: dict[str, str]  # file -> fill, as in the exports ("" -> UNPLACED_COLOUR)
    index: dict[str, int]  # node -> row of the layout

    @property
    def positions(self) -> np.ndarray:
        return self.layout.positions


class GraphPanel(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.picture: GraphPicture | None = None
        self._graph: _LoadedGraph | None = None
        self._layouts: OrderedDict[tuple, tuple[GraphLayout, EdgeGeometry]] = OrderedDict()
        self._classes: dict[Edge, str] = {}  # every edge of the effective mode, by class
        self._drawn: dict[Edge, str] = {}  # after hidden classes and filters
        self._mode = ""  # the effective view mode (the requested one, or "truth" as a fallback)
        self._classified_for: tuple | None = None  # (view mode, model A, model B) of `_classes`
        self._node_style: tuple | None = None  # what the scatter item was last styled with
        self._node_px = NODE_SIZE  # node diameter at the current zoom
        self._thin = False  # edges drawn thin (zoomed far out)
        self._shown = np.zeros(0, dtype=bool)  # per layout node: drawn in full (not faint)
        self._degree = np.zeros(0)
        self._degree_of: object = None  # the drawn-edge dict `_degree` was counted from
        self._segments = None
        self._focus: tuple[str, ...] = ()  # the latest selection's nodes: a node, or an edge's two ends
        self._hover_key: object = None
        self._build_toolbar()
        self._build_plot()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(self.toolbar_row)
        layout.addLayout(self.filter_row)
        layout.addWidget(self.banner)
        layout.addWidget(self.stack, 1)
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.instance_selected.connect(self._on_state_instance_selected)
        state.model_selected.connect(self._on_state_model_selected)
        state.compare_model_selected.connect(self._on_state_compare_model_selected)
        state.overlays_changed.connect(self._on_state_overlays_changed)
        state.node_selected.connect(self._on_state_node_selected)
        state.edge_selected.connect(self._on_state_edge_selected)
        state.runs_changed.connect(self._on_state_runs_changed)
        self._load_from_state()

    # -- building -------------------------------------------------------------------------
    def _build_toolbar(self) -> None:
        self.mode_combo = QComboBox()
        for mode in VIEW_MODES:
            self.mode_combo.addItem(VIEW_MODE_TITLES[mode], mode)
        self.mode_combo.setToolTip("What the edge colours compare (models A and B are chosen in the main toolbar)")
        self.mode_combo.setCurrentIndex(VIEW_MODES.index(self.state.view_mode))
        self.mode_combo.currentIndexChanged.connect(self._on_mode_combo_changed)
        self.models_label = QLabel()  # which models A and B are
        self.models_label.setStyleSheet(f"color: {MUTED_TEXT};")
        self.models_label.setTextFormat(Qt.TextFormat.PlainText)
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
        self.fit_button.clicked.connect(self.fit)
        self.toolbar_row = QHBoxLayout()
        self.toolbar_row.setContentsMargins(8, 6, 8, 2)
        self.toolbar_row.setSpacing(8)
        self.toolbar_row.addWidget(self.mode_combo)
        self.toolbar_row.addWidget(self.models_label, 1)
        self.toolbar_row.addWidget(self.errors_check)
        self.toolbar_row.addWidget(self.hops_spin)
        self.toolbar_row.addWidget(self.fit_button)

        self.class_buttons: dict[str, QToolButton] = {}
        self.chips_row = QHBoxLayout()
        self.chips_row.setSpacing(0)
        self.status = _FitOrHideLabel()
        self.status.setStyleSheet(f"color: {MUTED_TEXT};")
        self.status.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # chips first
        self.filter_row = QHBoxLayout()  # the class chips: legend and toggles
        self.filter_row.setContentsMargins(4, 2, 8, 4)
        self.filter_row.addLayout(self.chips_row)
        self.filter_row.addWidget(self.status, 1)
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setContentsMargins(8, 3, 8, 3)
        self.banner.setStyleSheet("color: #8a5a00; background: #fff8e1;")
        self.banner.hide()

    def _build_plot(self) -> None:
        self.plot = pg.GraphicsView(background="w")
        self.plot.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.plot.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        # Not aspect-locked: layers are far apart and rows close, so "fit" may stretch rows (up to
        # MAX_STRETCH) to use the panel's height; the wheel zooms both axes alike.
        self.view = pg.ViewBox(lockAspect=False, invertY=True, enableMenu=False)
        self.view.disableAutoRange()
        self.plot.setCentralItem(self.view)
        self.edge_halo = EdgePathItem(edge_pen(HIGHLIGHT, "solid", width=9.0, alpha=170))
        self.edge_halo.setZValue(0)
        self.node_halo = pg.ScatterPlotItem(pxMode=True, symbol="o", size=NODE_SIZE + 13, pen=None,
                                            brush=pg.mkBrush(QColor(HIGHLIGHT)))
        self.node_halo.setZValue(0.5)
        self.edge_items: dict[str, EdgePathItem] = {}
        for z, (name, style) in enumerate(EDGE_STYLES.items()):
            item = EdgePathItem(edge_pen(style.colour, style.dash))
            item.setZValue(1 + z * 0.01)
            self.edge_items[name] = item
        self.arrows = ArrowHeadsItem(NODE_SIZE / 2)
        self.arrows.setZValue(2)
        self.nodes_item = pg.ScatterPlotItem(pxMode=True, symbol="o", size=NODE_SIZE, hoverable=False)
        self.nodes_item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.nodes_item.setZValue(3)
        self.labels = NodeLabelsItem(NODE_SIZE / 2)
        self.labels.setZValue(2.5)  # over edges, under nodes: a tight label never hides a node
        self.labels.chooser = self._choose_labels
        self.labels.room = lambda sx: max(LAYER_GAP * sx - 8.0, 48.0)
        self.labels.row_gap = NODE_GAP
        for item in (self.edge_halo, self.node_halo, *self.edge_items.values(), self.arrows, self.nodes_item,
                     self.labels):
            self.view.addItem(item, ignoreBounds=True)
        # pyqtgraph moves the view's matrix only when painting, which makes Qt paint every pan twice;
        # moving it as soon as the range changes makes that one paint.
        self.view.sigRangeChanged.connect(self._on_view_range_changed)
        scene = self.plot.scene()
        scene.sigMouseClicked.connect(self._on_scene_mouse_clicked)
        scene.sigMouseMoved.connect(self._on_scene_mouse_moved)
        fit_key = QShortcut(QKeySequence(Qt.Key.Key_F), self.plot)
        fit_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        fit_key.activated.connect(self.fit)
        self.placeholder = QLabel()
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setStyleSheet(f"color: {MUTED_TEXT}; background: white;")
        self.file_check = QCheckBox("Colour by file:")
        self.file_check.setChecked(True)
        self.file_check.setToolTip("Fill nodes by the file that defines them; grey: not defined in the program "
                                   "(library calls, hallucinated names)")
        self.file_check.toggled.connect(self._on_file_check_toggled)
        self.file_legend = QLabel()
        self.file_legend.setTextFormat(Qt.TextFormat.RichText)
        self.file_legend.setWordWrap(True)
        legend_strip = QWidget()
        legend_strip.setObjectName("graph_legend_strip")
        legend_strip.setStyleSheet("#graph_legend_strip { background: white; border-top: 1px solid #e0e3e7; }")
        legend_layout = QHBoxLayout(legend_strip)
        legend_layout.setContentsMargins(8, 3, 8, 3)
        legend_layout.addWidget(self.file_check, 0, Qt.AlignmentFlag.AlignTop)
        legend_layout.addWidget(self.file_legend, 1)
        plot_page = QWidget()
        plot_layout = QVBoxLayout(plot_page)
        plot_layout.setContentsMargins(0, 0, 0, 0)
        plot_layout.setSpacing(0)
        plot_layout.addWidget(self.plot, 1)
        plot_layout.addWidget(legend_strip)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(plot_page)

    # -- public API -----------------------------------------------------------------------
    def show_overlay(self, overlay: InstanceOverlay, groups: dict[str, str] | None = None,
                     places: dict[str, Node | None] | None = None, title: str = "") -> None:
        """Show an overlay (the state's instance, or any other: benchmarks, tests, traces).

        The layout is cached per instance and union of edges, so showing it again costs nothing.
        """
        groups = {name: (groups or {}).get(name, "") for name in overlay.nodes}
        edges = tuple(e.edge for e in overlay.edges)
        key = (overlay.instance_key, overlay.nodes, edges)
        cached = self._layouts.pop(key, None)
        if cached is None:
            layout = layered_layout(overlay.nodes, edges, groups)
            cached = (layout, EdgeGeometry.build(layout, edges))
        self._layouts[key] = cached
        while len(self._layouts) > LAYOUT_CACHE:
            self._layouts.popitem(last=False)
        layout, geometry = cached
        title = title or overlay.instance_key
        colours = file_colours(GraphPicture(title, "truth", layout, groups, {}, overlay))
        self._graph = _LoadedGraph(overlay, layout, geometry, groups, places or {}, title,
                                   short_names(layout.nodes), colours,
                                   {name: i for i, name in enumerate(layout.nodes)})
        self.labels.set_labels(layout.positions, self._graph.labels,
                               bounds_of(layout.positions, LAYER_GAP * 0.5))
        self._focus = self._selection_focus()
        self._mode = ""
        self._node_style = None
        self._hover_key = None
        if not layout.nodes:
            self._show_placeholder(f"{html.escape(self._graph.title)} has no call edges to draw.")
            self._reclassify()
            return
        self.stack.setCurrentIndex(1)
        self._reclassify()
        self.fit()

    def clear(self, message: str = "Select a program to see its call graph.") -> None:
        self._graph = None
        self.picture = None
        self._classes, self._drawn = {}, {}
        self._shown = np.zeros(0, dtype=bool)
        self._segments = None
        self._node_style = None
        for item in self.edge_items.values():
            item.set_segments(np.zeros((0, 2)))
        self.edge_halo.set_segments(np.zeros((0, 2)))
        self.nodes_item.clear()
        self.node_halo.clear()
        self.arrows.set_groups([], QRectF())
        self.labels.set_labels(np.zeros((0, 2)), [], QRectF())
        self._rebuild_chips(())
        self.banner.hide()
        self.status.clear()
        self.file_legend.clear()
        self._show_placeholder(message)

    def visible_nodes(self) -> set[str]:
        """The nodes drawn in full (filtered-out nodes stay in place, drawn faint)."""
        if self._graph is None:
            return set()
        return {self._graph.layout.nodes[i] for i in np.flatnonzero(self._shown)}

    def drawn_edges(self) -> dict[Edge, str]:
        """The edges drawn, by class, after hidden classes and filters."""
        return dict(self._drawn)

    def edge_classes(self) -> dict[Edge, str]:
        """Every edge of the current view mode by class, before hiding and filters."""
        return dict(self._classes)

    @property
    def mode(self) -> str:
        """The view mode drawn: the requested one, or "truth" when its inputs are missing."""
        return self._mode

    def node_position(self, name: str) -> tuple[float, float]:
        """Where the node is drawn (read from the scatter item)."""
        index = self._graph.layout.index(name)
        x, y = self.nodes_item.data["x"][index], self.nodes_item.data["y"][index]
        return float(x), float(y)

    def fit(self) -> None:
        """Zoom to what is shown (the whole graph, or the nodes left by the filters)."""
        if self._graph is None or not len(self._graph.layout.nodes):
            return
        shown = self._shown if self._shown.any() else np.ones(len(self._graph.layout.nodes), dtype=bool)
        points = self._graph.positions[shown]
        x0, y0 = points.min(axis=0)
        x1, y1 = points.max(axis=0)
        rect = QRectF(QPointF(x0 - LAYER_GAP * 0.45, y0 - NODE_GAP * 1.1),
                      QPointF(x1 + LAYER_GAP * 0.45, y1 + NODE_GAP * 0.9))
        width, height = max(self.view.width(), 1.0), max(self.view.height(), 1.0)
        sx, sy = width / rect.width(), height / rect.height()
        centre = rect.center()
        if sy > sx * MAX_STRETCH:  # a wide, flat graph: rows spread out, but only so far
            rect.setHeight(height / (sx * MAX_STRETCH))
        elif sx > sy * MAX_STRETCH:  # a tall, narrow one
            rect.setWidth(width / (sy * MAX_STRETCH))
        rect.moveCenter(centre)
        self.view.setRange(rect, padding=0.0)

    def node_at(self, point) -> str | None:
        """The node under `point` (graph coordinates, as `view.mapSceneToView` gives), or None."""
        if self._graph is None or not self._shown.any():
            return None
        x, y = _xy(point)
        px, py = self._pixel_size()
        positions = self._graph.positions
        distance = np.hypot((positions[:, 0] - x) / px, (positions[:, 1] - y) / py)  # in pixels
        distance[~self._shown] = np.inf
        index = int(np.argmin(distance))
        return self._graph.layout.nodes[index] if distance[index] <= self._node_px / 2 + 2.0 else None

    def edge_at(self, point) -> Edge | None:
        """The drawn edge passing within a few pixels of `point` (graph coordinates), or None."""
        segments = self._segments
        if self._graph is None or segments is None or not len(segments.owner):
            return None
        pixel = np.array(self._pixel_size())  # measure in pixels: x and y may be scaled differently
        p = np.array(_xy(point)) / pixel
        a = segments.a / pixel
        d = segments.b / pixel - a
        length2 = np.einsum("ij,ij->i", d, d)
        t = np.clip(np.einsum("ij,ij->i", p - a, d) / np.where(length2 > 0, length2, 1.0), 0.0, 1.0)
        nearest = a + d * t[:, None]
        distance = np.hypot(nearest[:, 0] - p[0], nearest[:, 1] - p[1])
        index = int(np.argmin(distance))
        if distance[index] > HIT_PX:
            return None
        return self._graph.geometry.edges[int(segments.owner[index])]

    def label_nodes(self) -> list[str]:
        """The nodes labelled at the current zoom and range (what the label item paints)."""
        if self._graph is None:
            return []
        px, py = self._pixel_size()
        return [self._graph.layout.nodes[i] for i in self._choose_labels(self.view.viewRect(), 1 / px, 1 / py)]

    def tooltip_at(self, point) -> str:
        """The hover text at `point` (graph coordinates): a node's, else an edge's, else ""."""
        node = self.node_at(point)
        if node is not None:
            return self._node_tooltip(node)
        edge = self.edge_at(point)
        return self._edge_tooltip(edge) if edge is not None else ""

    def export_picture(self) -> GraphPicture | None:
        """The picture as drawn, with nodes removed by the filters left out (positions unchanged)."""
        picture = self.picture
        if picture is None or self._shown.all():
            return picture
        layout = picture.layout
        keep = np.flatnonzero(self._shown)
        nodes = tuple(layout.nodes[i] for i in keep)
        kept = set(nodes)
        sub = GraphLayout(nodes, layout.positions[keep], layout.layers[keep],
                          frozenset(e for e in layout.reversed_edges if e[0] in kept and e[1] in kept))
        return dataclasses.replace(picture, layout=sub, groups={n: picture.groups.get(n, "") for n in nodes})

    def export(self, path: str | Path, fmt: str | None = None) -> Path:
        """Write the graph as drawn: fmt png / svg / dot / graphml / json (default: from the suffix)."""
        path = Path(path)
        fmt = (fmt or path.suffix.lstrip(".")).lower()
        if fmt == "png":
            return self.export_png(path)
        if fmt not in EXPORTERS:
            raise ValueError(f"unknown graph export format {fmt!r} (choose from png, {', '.join(EXPORTERS)})")
        picture = self.export_picture()
        if picture is None:
            raise ValueError("no graph to export: select a program first")
        path.write_text(EXPORTERS[fmt](picture), encoding="utf-8")
        return path

    def export_png(self, path: str | Path, scale: float = 2.0) -> Path:
        """The plot area as shown, at `scale` times the screen resolution."""
        path = Path(path)
        viewport = self.plot.viewport().rect()
        image = QImage(QSize(round(viewport.width() * scale), round(viewport.height() * scale)),
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(scale)  # items sized in pixels (labels, arrowheads) scale with the rest
        image.fill(QColor("white"))
        use_cache = self.nodes_item.opts["useCache"]
        self.nodes_item.opts["useCache"] = False  # draw node symbols as paths: sharp at any scale
        painter = QPainter(image)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            source = self.plot.mapToScene(viewport).boundingRect()
            self.plot.scene().render(painter, QRectF(0, 0, viewport.width(), viewport.height()), source)
        finally:
            painter.end()
            self.nodes_item.opts["useCache"] = use_cache
        if not image.save(str(path), "PNG"):
            raise OSError(f"could not write {path}")
        return path

    # -- state slots ----------------------------------------------------------------------
    def _on_state_dataset_opened(self) -> None:
        self._layouts.clear()
        self._load_from_state()

    def _on_state_instance_selected(self, _key: str) -> None:
        self._load_from_state()

    def _on_state_runs_changed(self, key: str) -> None:
        if key and key == self.state.instance_key:
            self._load_from_state(keep_range=True)

    def _on_state_model_selected(self, _model: str) -> None:
        self._reclassify()

    def _on_state_compare_model_selected(self, _model: str) -> None:
        self._reclassify()

    def _on_state_overlays_changed(self) -> None:
        index = VIEW_MODES.index(self.state.view_mode)
        if self.mode_combo.currentIndex() != index:
            self.mode_combo.blockSignals(True)
            self.mode_combo.setCurrentIndex(index)
            self.mode_combo.blockSignals(False)
        if self._classified_for != (self.state.view_mode, self.state.model, self.state.compare_model):
            self._reclassify()
        else:
            self._apply_filters()  # only hidden classes changed

    def _on_state_node_selected(self, name: str) -> None:
        if name:
            self._focus = (name,)
        self._selection_changed()
        if name and self._graph is not None and name in self._graph.index:
            self._ensure_visible([name])

    def _on_state_edge_selected(self, edge: ClassifiedEdge | None) -> None:
        if edge is not None:
            self._focus = (edge.caller, edge.callee)
        self._selection_changed()
        if edge is not None and self._graph is not None:
            names = [n for n in (edge.caller, edge.callee) if n in self._graph.index]
            if names:
                self._ensure_visible(names)

    # -- widget slots ---------------------------------------------------------------------
    def _on_mode_combo_changed(self, index: int) -> None:
        self.state.set_view_mode(VIEW_MODES[index])

    def _on_class_button_toggled(self, checked: bool) -> None:
        name = next(n for n, button in self.class_buttons.items() if button is self.sender())
        self.state.set_class_shown(name, checked)

    def _on_filter_changed(self, *_args) -> None:
        self._apply_filters()

    def _on_file_check_toggled(self, _checked: bool) -> None:
        self._style_nodes()

    def _on_view_range_changed(self, *_args) -> None:
        self.view.updateMatrix()
        self._apply_level_of_detail()

    def _apply_level_of_detail(self) -> None:
        """Zoomed out, nodes shrink to fit between their neighbours and edges get thin (nothing moves)."""
        px, py = self._pixel_size()
        size = float(np.clip(round(NODE_GAP / py * 0.45), MIN_NODE_SIZE, NODE_SIZE))
        if size != self._node_px:
            self._node_px = size
            self.arrows.node_radius = self.labels.node_radius = size / 2
            if len(self.node_halo.data):
                self.node_halo.setSize(size + 13)
            self._node_style = None
            self._style_nodes()
        thin = LAYER_GAP / px < THIN_LAYER_PX
        if thin != self._thin:
            self._thin = thin
            self.arrows.setVisible(not thin)  # a few pixels per layer: arrowheads would only be noise
            for name, item in self.edge_items.items():
                style = EDGE_STYLES[name]
                item.set_pen(edge_pen(style.colour, style.dash, width=1.0 if thin else 1.6, alpha=150 if thin else 255))

    def _on_scene_mouse_clicked(self, event) -> None:
        if self._graph is None:
            return
        point = self.view.mapSceneToView(event.scenePos())
        if event.button() == Qt.MouseButton.RightButton:
            self._show_context_menu(point, event.screenPos())
            return
        if event.button() != Qt.MouseButton.LeftButton:
            return
        if event.double():
            if self.node_at(point) is None and self.edge_at(point) is None:
                self.fit()
            return
        self.click(point)

    def click(self, point) -> None:
        """What a left click at `point` (graph coordinates) does: select the node, else the edge."""
        node = self.node_at(point)
        if node is not None:
            self.state.select_node(node)
            return
        edge = self.edge_at(point)
        if edge is not None:
            self.state.select_edge_named(*edge)

    def _on_scene_mouse_moved(self, scene_pos) -> None:
        if self._graph is None:
            return
        point = self.view.mapSceneToView(scene_pos)
        node = self.node_at(point)
        key = ("node", node) if node is not None else None
        if key is None:
            edge = self.edge_at(point)
            key = ("edge", edge) if edge is not None else None
        if key == self._hover_key:
            return
        self._hover_key = key
        if key is None:
            QToolTip.hideText()
            self.plot.viewport().unsetCursor()
            return
        text = self._node_tooltip(key[1]) if key[0] == "node" else self._edge_tooltip(key[1])
        self.plot.viewport().setCursor(Qt.CursorShape.PointingHandCursor)
        QToolTip.showText(QCursor.pos(), text, self.plot)

    def _show_context_menu(self, point: QPointF, screen_pos: QPointF) -> None:
        menu = QMenu(self)
        fit = QAction("Fit graph\tF", menu)
        fit.triggered.connect(self.fit)
        menu.addAction(fit)
        node = self.node_at(point)
        if node is not None:
            copy = QAction(f"Copy name “{short_name(node)}”", menu)
            copy.triggered.connect(lambda: QApplication.clipboard().setText(node))
            menu.addAction(copy)
        menu.addSeparator()
        export = QAction("Export graph…", menu)
        export.triggered.connect(self._on_export_action_triggered)
        menu.addAction(export)
        menu.popup(screen_pos.toPoint())

    def _on_export_action_triggered(self) -> None:
        if self._graph is None:
            return
        default = self._graph.title.replace("/", "_") + ".svg"
        path, _ = QFileDialog.getSaveFileName(self, "Export graph", default, EXPORT_FILTERS)
        if path:
            self.export(path)

    # -- loading --------------------------------------------------------------------------
    def _load_from_state(self, keep_range: bool = False) -> None:
        detail = self.state.detail()
        if detail is None:
            self.clear("Select a program to see its call graph." if self.state.workspace is not None
                       else "Open a dataset to see call graphs.")
            return
        places = {name: detail.place(name) for name in detail.overlay.nodes}
        groups = {name: node.file if node is not None else "" for name, node in places.items()}
        view_range = self.view.viewRect()
        self.show_overlay(detail.overlay, groups, places, detail.instance.key)
        if keep_range:
            self.view.setRange(view_range, padding=0.0)

    def _selection_focus(self) -> tuple[str, ...]:
        if self.state.edge is not None:
            return (self.state.edge.caller, self.state.edge.callee)
        return (self.state.node,) if self.state.node else ()

    def _effective_mode(self) -> tuple[str, str]:
        """(mode drawn, why it differs from the requested one)."""
        overlay, mode = self._graph.overlay, self.state.view_mode
        a, b = self.state.model, self.state.compare_model
        if mode == "model" and a not in overlay.models:
            return "truth", (f"{a or 'No model'} has no prediction for this program: showing the ground truth."
                             if a else "No model selected: showing the ground truth.")
        if mode == "compare":
            missing = [m for m in (a, b) if m not in overlay.models]
            if b is None:
                return "truth", "Choose model B to compare: showing the ground truth."
            if a == b:
                return "truth", "Model A and model B are the same: showing the ground truth."
            if missing:
                return "truth", (f"{', '.join(str(m) for m in missing)} has no prediction for this program: "
                                 "showing the ground truth.")
        if mode == "trace" and overlay.trace is None:
            return "truth", "No trace run for this program yet: showing the ground truth."
        return mode, ""

    # -- rebuilding (never the layout) ----------------------------------------------------
    def _reclassify(self) -> None:
        """The view mode or a model changed: classify the edges again, then filter and draw."""
        if self._graph is None:
            return
        self._classified_for = (self.state.view_mode, self.state.model, self.state.compare_model)
        mode, why = self._effective_mode()
        self._classes = classify_edges(self._graph.overlay, mode, self.state.model, self.state.compare_model)
        if mode != self._mode:
            self._mode = mode
            self._rebuild_chips(MODE_CLASSES[mode])
        self.banner.setText(why)
        self.banner.setVisible(bool(why))
        a, b = self.state.model or "none", self.state.compare_model or "none"
        self.models_label.setText({"model": f"A: {a}", "compare": f"A: {a} · B: {b}"}.get(self.state.view_mode, ""))
        counts = Counter(self._classes.values())
        for name, button in self.class_buttons.items():
            style = EDGE_STYLES[name]
            button.setText(f"{style.label} {counts.get(name, 0)}")
            button.blockSignals(True)
            button.setChecked(name not in self.state.hidden_classes)
            button.blockSignals(False)
        self._apply_filters()

    def _apply_filters(self) -> None:
        """Hidden classes, errors only and hops: choose the drawn edges and nodes, then draw them."""
        graph = self._graph
        if graph is None:
            return
        for name, button in self.class_buttons.items():
            button.blockSignals(True)
            button.setChecked(name not in self.state.hidden_classes)
            button.blockSignals(False)
        drawn = shown_edges(self._classes, self.state.hidden_classes, self.errors_check.isChecked())
        index = graph.index
        n = len(graph.layout.nodes)
        shown = np.ones(n, dtype=bool)
        focus = tuple(name for name in self._focus if name in index)
        if self.errors_check.isChecked():
            shown[:] = False
            for caller, callee in drawn:
                shown[index[caller]] = shown[index[callee]] = True
            shown[[index[name] for name in focus]] = True
        hops = self.hops_spin.value()
        if hops and focus:
            near = hop_nodes(drawn, focus, hops)
            around = np.zeros(n, dtype=bool)
            around[[index[name] for name in near if name in index]] = True
            shown &= around
            drawn = {e: c for e, c in drawn.items() if e[0] in near and e[1] in near}
        self._drawn = drawn
        self._shown = shown
        self._draw_edges()
        self._style_nodes()
        self._update_picture()
        hidden_nodes = n - int(shown.sum())
        parts = [f"{n - hidden_nodes:,} of {n:,} nodes" if hidden_nodes else f"{n:,} nodes",
                 f"{len(drawn):,} of {len(self._classes):,} edges" if len(drawn) != len(self._classes)
                 else f"{len(drawn):,} edges"]
        if hops and not focus:
            parts.append("select a node to focus")
        self.status.setText(" · ".join(parts))

    def _draw_edges(self) -> None:
        graph = self._graph
        geometry = graph.geometry
        by_class: dict[str, list[Edge]] = {}
        for edge, name in self._drawn.items():
            by_class.setdefault(name, []).append(edge)
        heads = []
        chosen_all = np.zeros(len(geometry.edges), dtype=bool)
        for name, item in self.edge_items.items():
            edges = by_class.get(name, ())
            chosen = geometry.mask(edges)
            chosen_all |= chosen
            polylines = geometry.polylines(chosen)
            item.set_segments(polylines.points)
            if len(polylines.tips):
                colour = QColor(EDGE_STYLES[name].colour)
                heads.append((polylines.tails, polylines.tips, colour))
        self._segments = geometry.segments(chosen_all)
        all_points = np.concatenate([graph.positions, geometry.curves.reshape(-1, 2)])
        self.arrows.set_groups(heads, bounds_of(all_points, NODE_GAP))
        self._draw_selection()

    def _style_nodes(self) -> None:
        graph = self._graph
        if graph is None:
            return
        n = len(graph.layout.nodes)
        by_file = self.file_check.isChecked()
        style = (by_file, self._shown.tobytes())
        if style == self._node_style:
            return
        self._node_style = style
        colours = {f: c for f, c in graph.colours.items() if f}
        brushes, pens, sizes = [], [], np.full(n, self._node_px)
        faint_brush = pg.mkBrush(QColor(176, 180, 186, 90))
        cache: dict[str, tuple] = {}
        for i, name in enumerate(graph.layout.nodes):
            if not self._shown[i]:
                brushes.append(faint_brush)
                pens.append(None)
                sizes[i] = min(FAINT_SIZE, self._node_px * 0.6)
                continue
            file = graph.groups.get(name, "")
            fill = (colours[file] if by_file else NODE_FILL) if file else UNPLACED_COLOUR
            if fill not in cache:
                colour = QColor(fill)
                pen = QPen(colour.darker(150), 1.2)
                pen.setCosmetic(True)
                cache[fill] = (pg.mkBrush(colour), pen)
            brushes.append(cache[fill][0])
            pens.append(cache[fill][1])
        self.nodes_item.setData(pos=graph.positions, brush=brushes, pen=pens, size=sizes, symbol="o")
        self._update_file_legend(colours if by_file else {})

    def _update_file_legend(self, colours: dict[str, str]) -> None:
        graph = self._graph
        shown_files = {graph.groups.get(graph.layout.nodes[i], "") for i in np.flatnonzero(self._shown)}
        chips = []
        if colours:
            names = _file_titles(list(colours))
            listed = [(file, colour) for file, colour in colours.items() if file in shown_files]
            chips += [f"<span style='color:{colour}'>●</span>&nbsp;{html.escape(names[file])}"
                      for file, colour in listed[:LEGEND_FILES]]
            if len(listed) > LEGEND_FILES:
                chips.append(f"<span style='color:{MUTED_TEXT}'>+{len(listed) - LEGEND_FILES} more files</span>")
        elif shown_files - {""}:
            chips.append(f"<span style='color:{NODE_FILL}'>●</span>&nbsp;defined in the program")
        if "" in shown_files:
            chips.append(f"<span style='color:{UNPLACED_COLOUR}'>●</span>&nbsp;"
                         f"<span style='color:{MUTED_TEXT}'>not defined in the program</span>")
        items = [f"<span style='white-space:nowrap'>{chip}</span>" for chip in chips]
        self.file_legend.setText(" &nbsp;&nbsp;".join(items))
        tip = "".join(f"<span style='color:{c}'>●</span>&nbsp;{html.escape(f)}<br>" for f, c in colours.items())
        self.file_legend.setToolTip(tip)

    def _draw_selection(self) -> None:
        graph = self._graph
        edge = self.state.edge
        pinned = set()
        if edge is not None and (edge.caller, edge.callee) in graph.geometry.index:
            chosen = graph.geometry.mask([(edge.caller, edge.callee)])
            polylines = graph.geometry.polylines(chosen)
            self.edge_halo.set_segments(polylines.points)
        else:
            self.edge_halo.set_segments(np.zeros((0, 2)))
        index = graph.index
        if edge is not None:
            pinned |= {index[n] for n in (edge.caller, edge.callee) if n in index}
        node = self.state.node
        if node in index:
            pinned.add(index[node])
            self.node_halo.setData(pos=graph.positions[[index[node]]], size=self._node_px + 13)
        else:
            self.node_halo.clear()
        self.labels.emphasised = pinned
        self.labels.update()

    def _update_picture(self) -> None:
        graph = self._graph
        a, b = self.state.model, self.state.compare_model
        title = f"{graph.title}: " + MODE_TITLES[self._mode].format(a=a or "model A", b=b or "model B")
        hidden = frozenset(self.state.hidden_classes) | (CORRECT_CLASSES if self.errors_check.isChecked()
                                                         else frozenset())
        self.picture = GraphPicture(title, self._mode, graph.layout, graph.groups, dict(self._drawn), graph.overlay,
                                    a, b, hidden & set(MODE_CLASSES[self._mode]))

    def _selection_changed(self) -> None:
        if self._graph is None:
            return
        if self.hops_spin.value() or self.errors_check.isChecked():
            self._apply_filters()  # the filters depend on the selection
        else:
            self._draw_selection()

    # -- labels ---------------------------------------------------------------------------
    def _choose_labels(self, rect: QRectF, _sx: float, sy: float) -> np.ndarray:
        graph = self._graph
        if graph is None or not len(graph.layout.nodes):
            return np.zeros(0, dtype=np.int64)
        pinned = np.array(sorted(i for i in self.labels.emphasised if self._shown[i]), dtype=np.int64)
        if NODE_GAP * sy < LABEL_ROW_PX:
            return pinned  # too far out to read: only the selection is named
        priority = self._priority()
        # nodes on screen only: a label whose node is off screen would show as a stub at the border
        chosen = pick_labels(graph.positions, self._shown, (rect.left(), rect.top(), rect.right(), rect.bottom() +
                                                            NODE_GAP * 0.3), priority, LABEL_LIMIT)
        return np.union1d(chosen, pinned).astype(np.int64)

    def _priority(self) -> np.ndarray:
        graph = self._graph
        if len(self._degree) != len(graph.layout.nodes) or self._degree_of is not self._drawn:
            index = graph.index
            degree = np.zeros(len(graph.layout.nodes))
            for caller, callee in self._drawn:
                degree[index[caller]] += 1
                degree[index[callee]] += 1
            self._degree, self._degree_of = degree, self._drawn
        return self._degree

    # -- chips ----------------------------------------------------------------------------
    def _rebuild_chips(self, classes) -> None:
        for button in self.class_buttons.values():
            self.chips_row.removeWidget(button)
            button.hide()
            button.deleteLater()
        self.class_buttons = {}
        for name in classes:
            style = EDGE_STYLES[name]
            button = QToolButton()
            button.setCheckable(True)
            button.setChecked(name not in self.state.hidden_classes)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setIcon(_line_icon(style.colour, style.dash))
            button.setIconSize(QSize(18, 10))
            button.setToolTip(f"<b>{html.escape(style.label)}</b>: {html.escape(style.description)}."
                              "<br>Click to show or hide these edges.")
            button.setStyleSheet(_chip_style(style.colour))
            button.toggled.connect(self._on_class_button_toggled)
            button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)  # never elided
            self.class_buttons[name] = button
            self.chips_row.addWidget(button)

    # -- tooltips -------------------------------------------------------------------------
    def _node_tooltip(self, name: str) -> str:
        graph = self._graph
        lines = [f"<b>{html.escape(name)}</b>"]
        place = graph.places.get(name)
        file = graph.groups.get(name, "")
        if place is not None:
            lines.append(f"{html.escape(place.file)}, line {place.start_line} ({html.escape(place.kind)})")
        elif file:
            lines.append(html.escape(file))
        else:
            lines.append(f"<span style='color:{MUTED_TEXT}'>not defined in the program source</span>")
        out = Counter(c for (a, _), c in self._classes.items() if a == name)
        into = Counter(c for (_, b), c in self._classes.items() if b == name)
        for title, counts in (("calls", out), ("called by", into)):
            if counts:
                parts = [f"<span style='color:{EDGE_STYLES[c].colour}'>{n} {html.escape(EDGE_STYLES[c].label)}</span>"
                         for c, n in sorted(counts.items(), key=lambda item: MODE_CLASSES[self._mode].index(item[0])
                                            if item[0] in MODE_CLASSES[self._mode] else 99)]
                lines.append(f"{title}: {', '.join(parts)}")
        return "<br>".join(lines)

    def _edge_tooltip(self, edge: Edge) -> str:
        graph = self._graph
        name = self._classes.get(edge)
        overlay_edge = graph.overlay.edge(*edge)
        lines = [f"<b>{html.escape(edge[0])}</b> → <b>{html.escape(edge[1])}</b>"]
        if name is not None:
            style = EDGE_STYLES[name]
            lines.append(f"<span style='color:{style.colour}'><b>{html.escape(style.label)}</b></span>: "
                         f"{html.escape(style.description)}")
        if overlay_edge is not None:
            models = ", ".join(m for m in graph.overlay.models if m in overlay_edge.models) or "no model"
            traced = "no trace run" if graph.overlay.trace is None else ("yes" if overlay_edge.traced else "no")
            lines.append(f"predicted by: {html.escape(models)}")
            lines.append(f"in the ground truth: {'yes' if overlay_edge.truth else 'no'}; traced: {traced}")
        return "<br>".join(lines)

    # -- helpers --------------------------------------------------------------------------
    def _show_placeholder(self, message: str) -> None:
        self.placeholder.setText(message)
        self.stack.setCurrentIndex(0)

    def _pixel_size(self) -> tuple[float, float]:
        """Scene units per pixel along x and y."""
        sx, sy = self.view.viewPixelSize()
        return (abs(float(sx)) or 1.0), (abs(float(sy)) or 1.0)

    def _ensure_visible(self, names: list[str]) -> None:
        """Pan so the nodes are on screen; zoom out only when they do not fit at the current zoom."""
        if self.stack.currentIndex() != 1:
            return
        points = np.array([self._graph.positions[self._graph.layout.index(n)] for n in names])
        x0, y0 = points.min(axis=0)
        x1, y1 = points.max(axis=0)
        px, py = self._pixel_size()
        view = self.view.viewRect()
        inner = view.adjusted(12 * px, 12 * py, -12 * px, -12 * py)  # on screen, not under the border
        if inner.contains(QPointF(x0, y0)) and inner.contains(QPointF(x1, y1)):
            return
        margin_x, margin_y = LAYER_GAP * 0.3, NODE_GAP * 1.2
        want = QRectF(QPointF(x0 - margin_x, y0 - margin_y), QPointF(x1 + margin_x, y1 + margin_y))
        if want.width() <= view.width() and want.height() <= view.height():
            view.moveCenter(want.center())
            self.view.setRange(view, padding=0.0)
        else:
            self.view.setRange(want, padding=0.05)


def _file_titles(files: list[str]) -> dict[str, str]:
    """File names for the legend: the base name where it is unique, else the whole relative path."""
    bases = Counter(f.rsplit("/", 1)[-1] for f in files)
    return {f: f.rsplit("/", 1)[-1] if bases[f.rsplit("/", 1)[-1]] == 1 else f for f in files}


def _xy(point) -> tuple[float, float]:
    if isinstance(point, QPointF):
        return point.x(), point.y()
    x, y = point
    return float(x), float(y)


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


class _FitOrHideLabel(QLabel):
    """A one-line label that shows its text whole or not at all (the class chips beside it win)."""

    def paintEvent(self, event) -> None:
        if self.fontMetrics().horizontalAdvance(self.text()) <= self.contentsRect().width():
            super().paintEvent(event)


def _chip_style(colour: str) -> str:
    tint = QColor(colour)
    base = QColor("white")
    mixed = QColor(round(base.red() * 0.88 + tint.red() * 0.12), round(base.green() * 0.88 + tint.green() * 0.12),
                   round(base.blue() * 0.88 + tint.blue() * 0.12))
    return (f"QToolButton {{ color: #80868b; border: 1px solid #d0d3d7; border-radius: 10px; "
            f"padding: 2px 6px; margin-left: 3px; background: #fafafa; }}"
            f"QToolButton:checked {{ color: {colour}; border-color: {colour}; background: {mixed.name()}; "
            f"font-weight: bold; }}")

