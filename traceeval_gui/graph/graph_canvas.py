"""The graph's drawing surface: a pyqtgraph view holding the node, edge, arrowhead and label items.

`GraphCanvasView` is given a layout and its edge geometry once per instance, then which edges to
draw (by class), which nodes to draw in full (the rest faint), the node fills and the selection,
and turns those into its items. Everything that depends on the zoom is its business: node size,
thin edges and which labels are readable (level of detail), fitting and panning, and finding the
node or edge under the mouse (numpy, measured in pixels). What a click or a hover means is up to
the graph panel, which it tells through signals in graph coordinates.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QCursor, QImage, QKeySequence, QPainter, QPalette, QPen, QShortcut
from PySide6.QtWidgets import QApplication, QToolTip, QWidget

# isort: split
import pyqtgraph as pg  # after PySide6 (docs/design.md)

from core.records import Edge
from core.report.graph_layout import LAYER_GAP, NODE_GAP, GraphLayout
from core.report.palette import EDGE_STYLES
from traceeval_gui.graph.graph_items import (
    EDGE_WIDTH,
    ArrowHeadsItem,
    EdgePathItem,
    NodeLabelsItem,
    bounds_of,
    edge_pen,
)
from traceeval_gui.item_models.graph_scene import EdgeGeometry, Segments, label_order, pick_labels, place_labels
from traceeval_gui.theme.style import on_page

NODE_SIZE = 11.0  # pixels, when rows are far enough apart; smaller zoomed out (level of detail)
MIN_NODE_SIZE = 4.0
FAINT_SIZE = 6.0
HALO_PX = 13.0  # the selected node's halo is this much wider than the node
THIN_LAYER_PX = 70.0  # below this many pixels between layers: thin translucent edges, no arrowheads
LABEL_LIMIT = 150  # labels drawn at most at once
LABEL_CANDIDATES = 4 * LABEL_LIMIT  # labels tried, best first, before giving up on the rest
LABEL_OBSTACLES = 3000  # nodes in view up to which labels are kept off every node (beyond: a hairball anyway)
HIT_PX = 5.0  # click / hover tolerance around edges, beyond the node's radius for nodes
MAX_STRETCH = 6.0  # "fit" may scale rows up to this many times more than layers (labels need row room)
HIGHLIGHT = "#ffc107"


class GraphCanvasView(pg.GraphicsView):
    clicked = Signal(QPointF)  # a left click, in graph coordinates
    menu_requested = Signal(QPointF, QPointF)  # a right click: graph coordinates, screen position
    hovered = Signal(object)  # what the mouse is now over: ("node", name), ("edge", edge) or None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, background=self._base_colour(parent))
        self._layout: GraphLayout | None = None
        self._geometry: EdgeGeometry | None = None
        self._rows: dict[str, int] = {}  # node -> row of the layout
        self._fills: list[str] = []  # per layout node
        self._drawn: dict[Edge, str] = {}
        self._shown = np.zeros(0, dtype=bool)  # per layout node: drawn in full (not faint)
        self._segments: Segments | None = None  # of the drawn edges, for hit tests
        self._degree = np.zeros(0)  # per layout node, of the drawn edges: the label priority
        self._degree_of: object = None  # the drawn-edge dict `_degree` was counted from
        self._node_style: bytes | None = None  # the shown mask the scatter item was last styled with
        self._folded = np.zeros(0, dtype=bool)  # per layout node: a folded file (see graph_focus)
        self._node_px = NODE_SIZE  # node diameter at the current zoom
        self._thin = False  # edges drawn thin (zoomed far out)
        self._hover_key: object = None
        self.describe: Callable[[tuple[str, object]], str] | None = None  # hover key -> tooltip text
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        # Not aspect-locked: layers are far apart and rows close, so "fit" may stretch rows (up to
        # MAX_STRETCH) to use the panel's height; the wheel zooms both axes alike.
        self.view = pg.ViewBox(lockAspect=False, invertY=True, enableMenu=False)
        self.view.disableAutoRange()
        self.setCentralItem(self.view)
        self.edge_halo = EdgePathItem(edge_pen(HIGHLIGHT, "solid", width=9.0, alpha=170))
        self.edge_halo.setZValue(0)
        self.node_halo = pg.ScatterPlotItem(pxMode=True, symbol="o", size=NODE_SIZE + HALO_PX, pen=None,
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
        for item in (self.edge_halo, self.node_halo, *self.edge_items.values(), self.arrows, self.nodes_item,
                     self.labels):
            self.view.addItem(item, ignoreBounds=True)
        # pyqtgraph moves the view's matrix only when painting, which makes Qt paint every pan twice;
        # moving it as soon as the range changes makes that one paint.
        self.view.sigRangeChanged.connect(self._on_view_range_changed)
        self.scene().sigMouseClicked.connect(self._on_scene_mouse_clicked)
        self.scene().sigMouseMoved.connect(self._on_scene_mouse_moved)
        self._apply_palette()
        fit_key = QShortcut(QKeySequence(Qt.Key.Key_F), self)
        fit_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        fit_key.activated.connect(self.fit)

    # -- colours --------------------------------------------------------------------------
    @staticmethod
    def _base_colour(parent: QWidget | None) -> QColor:
        palette = parent.palette() if parent is not None else QApplication.palette()
        return palette.color(QPalette.ColorRole.Base)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange) and \
                hasattr(self, "labels"):  # not while pyqtgraph's constructor sets things up
            self._apply_palette()

    def _apply_palette(self) -> None:
        """Background and label text from the widget's palette (a dark theme swaps them)."""
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Base)
        self.setBackground(base)
        self.labels.set_colours(palette.color(QPalette.ColorRole.Text), base)
        self._set_edge_pens()
        if self._drawn:
            self.draw(self._drawn, self._shown)  # arrowheads in the new colours

    # -- what to draw ---------------------------------------------------------------------
    def set_graph(self, layout: GraphLayout, geometry: EdgeGeometry, labels: list[str], fills: list[str],
                  folded: np.ndarray | None = None) -> None:
        """A new graph: its layout, the geometry of all its edges, node labels and fills, and which nodes
        are folded files (drawn as larger squares). `draw` draws it."""
        self._layout, self._geometry, self._fills = layout, geometry, fills
        self._folded = folded if folded is not None else np.zeros(len(layout.nodes), dtype=bool)
        self._rows = {name: i for i, name in enumerate(layout.nodes)}
        self._drawn, self._shown, self._segments = {}, np.ones(len(layout.nodes), dtype=bool), None
        self._node_style = None
        self._hover_key = None
        self.labels.set_labels(layout.positions, labels, bounds_of(layout.positions, LAYER_GAP * 0.5))

    def clear(self) -> None:
        self._layout, self._geometry = None, None
        self._folded = np.zeros(0, dtype=bool)
        self._rows, self._fills, self._drawn = {}, [], {}
        self._shown = np.zeros(0, dtype=bool)
        self._segments = None
        self._node_style = None
        for item in (*self.edge_items.values(), self.edge_halo):
            item.set_segments(np.zeros((0, 2)))
        self.nodes_item.clear()
        self.node_halo.clear()
        self.arrows.set_groups([], QRectF())
        self.labels.set_labels(np.zeros((0, 2)), [], QRectF())

    def draw(self, drawn: dict[Edge, str], shown: np.ndarray) -> None:
        """Draw these edges, by class, and the nodes where `shown` is set in full (the others faint)."""
        self._drawn, self._shown = drawn, shown
        geometry = self._geometry
        by_class: dict[str, list[Edge]] = {}
        for edge, name in drawn.items():
            by_class.setdefault(name, []).append(edge)
        heads = []
        chosen_all = np.zeros(len(geometry.edges), dtype=bool)
        for name, item in self.edge_items.items():
            chosen = geometry.mask(by_class.get(name, ()))
            chosen_all |= chosen
            polylines = geometry.polylines(chosen)
            item.set_segments(polylines.points)
            if len(polylines.tips):
                heads.append((polylines.tails, polylines.tips, self._class_colour(name)))
        self._segments = geometry.segments(chosen_all)
        all_points = np.concatenate([self._layout.positions, geometry.points()])
        self.arrows.set_groups(heads, bounds_of(all_points, NODE_GAP))
        self._style_nodes()

    def set_node_fills(self, fills: list[str]) -> None:
        """New node colours (one per layout node), drawn at once."""
        self._fills = fills
        self._node_style = None
        self._style_nodes()

    def show_selection(self, edge: Edge | None, node: str | None) -> None:
        """Highlight the selected edge and node (either may be None); their labels always show, in bold."""
        geometry, rows = self._geometry, self._rows
        if edge is not None and edge in geometry.index:
            self.edge_halo.set_segments(geometry.polylines(geometry.mask([edge])).points)
        else:
            self.edge_halo.set_segments(np.zeros((0, 2)))
        pinned = {rows[name] for name in edge or () if name in rows}
        if node in rows:
            pinned.add(rows[node])
            self.node_halo.setData(pos=self._layout.positions[[rows[node]]], size=self._node_px + HALO_PX)
        else:
            self.node_halo.clear()
        self.labels.emphasised = pinned
        self.labels.update()

    def _style_nodes(self) -> None:
        style = self._shown.tobytes()
        if self._layout is None or style == self._node_style:
            return
        self._node_style = style
        sizes = np.full(len(self._fills), self._node_px)
        brushes, pens = [], []
        faint_brush = pg.mkBrush(QColor(176, 180, 186, 90))
        styles: dict[str, tuple] = {}
        for i, fill in enumerate(self._fills):
            if not self._shown[i]:
                brushes.append(faint_brush)
                pens.append(None)
                sizes[i] = min(FAINT_SIZE, self._node_px * 0.6)
                continue
            if fill not in styles:
                colour = QColor(fill)
                pen = QPen(colour.darker(150), 1.2)
                pen.setCosmetic(True)
                styles[fill] = (pg.mkBrush(colour), pen)
            brushes.append(styles[fill][0])
            pens.append(styles[fill][1])
        symbols = np.where(self._folded, "s", "o").tolist() if self._folded.any() else "o"
        sizes = np.where(self._folded & self._shown, sizes * 1.35, sizes)
        self.nodes_item.setData(pos=self._layout.positions, brush=brushes, pen=pens, size=sizes, symbol=symbols)

    # -- where things are -----------------------------------------------------------------
    def node_position(self, name: str) -> tuple[float, float]:
        """Where the node is drawn (read from the scatter item)."""
        index = self._layout.index(name)
        return float(self.nodes_item.data["x"][index]), float(self.nodes_item.data["y"][index])

    def node_at(self, point) -> str | None:
        """The node under `point` (graph coordinates, as `view.mapSceneToView` gives), or None."""
        if self._layout is None or not self._shown.any():
            return None
        x, y = _xy(point)
        px, py = self._pixel_size()
        positions = self._layout.positions
        distance = np.hypot((positions[:, 0] - x) / px, (positions[:, 1] - y) / py)  # in pixels
        distance[~self._shown] = np.inf
        index = int(np.argmin(distance))
        return self._layout.nodes[index] if distance[index] <= self._node_px / 2 + 2.0 else None

    def edge_at(self, point) -> Edge | None:
        """The drawn edge passing within a few pixels of `point` (graph coordinates), or None."""
        segments = self._segments
        if self._layout is None or segments is None or not len(segments.owner):
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
        return self._geometry.edges[int(segments.owner[index])]

    def label_nodes(self) -> list[str]:
        """The nodes labelled at the current zoom and range (what the label item paints)."""
        if self._layout is None:
            return []
        px, py = self._pixel_size()
        return [self._layout.nodes[i] for i in self._choose_labels(self.view.viewRect(), 1 / px, 1 / py)[0]]

    # -- zoom and pan ---------------------------------------------------------------------
    def fit(self) -> None:
        """Zoom to what is shown (the whole graph, or the nodes left by the filters)."""
        if self._layout is None or not len(self._layout.nodes):
            return
        points = self._layout.positions[self._shown] if self._shown.any() else self._layout.positions
        x0, y0 = points.min(axis=0)
        x1, y1 = points.max(axis=0)
        rect = QRectF(QPointF(x0 - LAYER_GAP * 0.45, y0 - NODE_GAP * 1.1),
                      QPointF(x1 + LAYER_GAP * 0.45, y1 + NODE_GAP * 0.9))
        width, height = max(self.view.width(), 1.0), max(self.view.height(), 1.0)
        if len(self.labels.widths):  # room for the labels of the nodes at the left and right ends
            room = min(float(self.labels.widths.max()) / 2, width / 6)
            pad = room * rect.width() / max(width - 2 * room, 1.0)
            rect.adjust(-pad, 0, pad, 0)
        sx, sy = width / rect.width(), height / rect.height()
        centre = rect.center()
        if sy > sx * MAX_STRETCH:  # a wide, flat graph: rows spread out, but only so far
            rect.setHeight(height / (sx * MAX_STRETCH))
        elif sx > sy * MAX_STRETCH:  # a tall, narrow one
            rect.setWidth(width / (sy * MAX_STRETCH))
        rect.moveCenter(centre)
        self.view.setRange(rect, padding=0.0)

    def ensure_visible(self, names: list[str]) -> None:
        """Pan so the nodes are on screen; zoom out only when they do not fit at the current zoom."""
        points = np.array([self._layout.positions[self._layout.index(n)] for n in names])
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

    def _pixel_size(self) -> tuple[float, float]:
        """Scene units per pixel along x and y."""
        sx, sy = self.view.viewPixelSize()
        return (abs(float(sx)) or 1.0), (abs(float(sy)) or 1.0)

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
                self.node_halo.setSize(size + HALO_PX)
            self._node_style = None
            self._style_nodes()
        thin = LAYER_GAP / px < THIN_LAYER_PX
        if thin != self._thin:
            self._thin = thin
            self.arrows.setVisible(not thin)  # a few pixels per layer: arrowheads would only be noise
            self._set_edge_pens()

    def _set_edge_pens(self) -> None:
        width, alpha = (1.0, 150) if self._thin else (EDGE_WIDTH, 255)
        for name, item in self.edge_items.items():
            item.set_pen(edge_pen(self._class_colour(name).name(), EDGE_STYLES[name].dash, width=width, alpha=alpha))

    def _class_colour(self, name: str) -> QColor:
        """An edge class's colour, lifted on a dark background (the palette's colours are chosen for light)."""
        return on_page(EDGE_STYLES[name].colour, self.palette())

    # -- labels ---------------------------------------------------------------------------
    def _choose_labels(self, rect: QRectF, sx: float, sy: float) -> tuple[np.ndarray, np.ndarray]:
        """The labels to paint, placed so none overlaps another: the selection's first, then its
        neighbours', then the best connected nodes'. Zoomed out until rows are closer than a line of
        text, only the selection and its neighbours are named."""
        if self._layout is None or not len(self._layout.nodes):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
        pinned = [i for i in sorted(self.labels.emphasised) if self._shown[i]]
        near = self._neighbours(pinned)
        # nodes on screen only: a label whose node is off screen would show as a stub at the border
        in_view = pick_labels(self._layout.positions, self._shown, (rect.left(), rect.top(), rect.right(),
                                                                    rect.bottom() + NODE_GAP * 0.3))
        candidates = in_view
        _, height = self.labels.box_size(0)
        if NODE_GAP * sy < height:
            candidates = np.intersect1d(candidates, np.array(sorted(near), dtype=np.int64))
        candidates = np.union1d(candidates, np.array(pinned, dtype=np.int64)).astype(np.int64)
        order = label_order(candidates, pinned, near, self._priority())[:LABEL_CANDIDATES]
        anchors = (self._layout.positions - (rect.left(), rect.top())) * (sx, sy)
        dots = in_view if len(in_view) <= LABEL_OBSTACLES else None  # a label never hides a node
        return place_labels(anchors, self.labels.widths, height, order, LABEL_LIMIT, always=len(pinned),
                            dots=dots, radius=self.labels.node_radius + 2)

    def _neighbours(self, pinned: list[int]) -> set[int]:
        """Layout rows of the nodes one drawn edge away from the pinned ones."""
        if not pinned:
            return set()
        names = {self._layout.nodes[i] for i in pinned}
        rows = self._rows
        near = {rows[b] for a, b in self._drawn if a in names} | {rows[a] for a, b in self._drawn if b in names}
        return {i for i in near if self._shown[i]} - set(pinned)

    def _priority(self) -> np.ndarray:
        """Per node, how many drawn edges it has: the best connected nodes are labelled first."""
        if len(self._degree) != len(self._layout.nodes) or self._degree_of is not self._drawn:
            degree = np.zeros(len(self._layout.nodes))
            for caller, callee in self._drawn:
                degree[self._rows[caller]] += 1
                degree[self._rows[callee]] += 1
            self._degree, self._degree_of = degree, self._drawn
        return self._degree

    # -- mouse ----------------------------------------------------------------------------
    def _on_scene_mouse_clicked(self, event) -> None:
        if self._layout is None:
            return
        point = self.view.mapSceneToView(event.scenePos())
        if event.button() == Qt.MouseButton.RightButton:
            self.menu_requested.emit(point, event.screenPos())
        elif event.button() == Qt.MouseButton.LeftButton and event.double():
            if self.node_at(point) is None and self.edge_at(point) is None:
                self.fit()
        elif event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(point)

    def _on_scene_mouse_moved(self, scene_pos) -> None:
        if self._layout is None:
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
            self.viewport().unsetCursor()
        else:
            self.viewport().setCursor(Qt.CursorShape.PointingHandCursor)
        self._show_tooltip(QCursor.pos())
        self.hovered.emit(key)

    def viewportEvent(self, event: QEvent) -> bool:
        # Qt asks for a tooltip once the pointer rests; the scene would answer "none" (its items have no
        # tooltips) and hide the one shown on hover. Answer with what the pointer is on instead.
        if event.type() == QEvent.Type.ToolTip:
            self._show_tooltip(event.globalPos())
            return True
        return super().viewportEvent(event)

    def _show_tooltip(self, at: QPoint) -> None:
        """The hover text of what the pointer is on (`describe(key)`), shown until it leaves it."""
        text = self.describe(self._hover_key) if self._hover_key is not None and self.describe else ""
        if text:
            QToolTip.showText(at, text, self.viewport())
        else:
            QToolTip.hideText()

    # -- export ---------------------------------------------------------------------------
    def export_png(self, path: str | Path, scale: float = 2.0) -> Path:
        """The plot area as shown, at `scale` times the screen resolution."""
        path = Path(path)
        viewport = self.viewport().rect()
        image = QImage(QSize(round(viewport.width() * scale), round(viewport.height() * scale)),
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(scale)  # items sized in pixels (labels, arrowheads) scale with the rest
        image.fill(self.palette().color(QPalette.ColorRole.Base))
        use_cache = self.nodes_item.opts["useCache"]
        self.nodes_item.opts["useCache"] = False  # draw node symbols as paths: sharp at any scale
        painter = QPainter(image)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            source = self.mapToScene(viewport).boundingRect()
            self.scene().render(painter, QRectF(0, 0, viewport.width(), viewport.height()), source)
        finally:
            painter.end()
            self.nodes_item.opts["useCache"] = use_cache
        if not image.save(str(path), "PNG"):
            raise OSError(f"could not write {path}")
        return path


def _xy(point) -> tuple[float, float]:
    if isinstance(point, QPointF):
        return point.x(), point.y()
    x, y = point
    return float(x), float(y)
