"""The pyqtgraph items of the graph view: one path per edge class, arrowheads and node labels.

Nodes are a single `pg.ScatterPlotItem` (built in graph_canvas). Edges of one class are one
`EdgePathItem`: one path from `arrayToQPath(..., connect="pairs")`. Edges, arrowheads and labels
are painted in device pixels at paint time from numpy arrays (culled to the visible range), one
item each, instead of one QGraphicsItem per node or edge.

None of these items takes part in Qt's item hit testing (their `shape()` is empty): the graph
canvas hit-tests nodes and edges itself with numpy, which stays fast for thousands of edges.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen

# isort: split
import pyqtgraph as pg  # after PySide6 (docs/design.md)

DASHES = {  # in pen widths; flat caps: round caps on dashed antialiased paths are ~100x slower to stroke
    "solid": None,  # at least half of every pattern is ink, so no class reads fainter than another
    "dash": [5.0, 3.0],
    "dot": [1.5, 1.5],
    "dashdot": [6.0, 2.0, 1.5, 2.0],
}
EDGE_WIDTH = 1.8  # pixels, every class alike


def edge_pen(colour: str, dash: str, width: float = EDGE_WIDTH, alpha: int = 255) -> QPen:
    """A pen in the palette's colour and line style (edge paths are drawn in pixels: a fixed width)."""
    qcolour = QColor(colour)
    qcolour.setAlpha(alpha)
    pen = QPen(qcolour, width)
    pen.setCosmetic(True)
    pattern = DASHES[dash]
    if pattern is not None:
        pen.setDashPattern(pattern)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    pen.setJoinStyle(Qt.PenJoinStyle.BevelJoin)
    return pen


def segments_path(points: np.ndarray) -> QPainterPath:
    """One path of independent segments from (start, end) point pairs."""
    if len(points) == 0:
        return QPainterPath()
    return pg.arrayToQPath(points[:, 0], points[:, 1], connect="pairs", finiteCheck=False)


class _PixelItem(pg.GraphicsObject):
    """An item painted partly in pixels: its bounds are its scene bounds plus a margin in pixels."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._bounds = QRectF()
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setAcceptHoverEvents(False)

    def pad_pixels(self) -> tuple[float, float]:
        return 2.0, 2.0

    def viewTransformChanged(self) -> None:
        super().viewTransformChanged()  # drops the cached view rect
        self.prepareGeometryChange()  # the pixel margin changed size in scene units

    def boundingRect(self) -> QRectF:
        if self._bounds.isNull():
            return QRectF()
        x_pixel, y_pixel = self.pixelVectors()
        if x_pixel is None:
            return QRectF(self._bounds)
        pad_x, pad_y = self.pad_pixels()
        pad_x *= x_pixel.length()
        pad_y *= y_pixel.length()
        return self._bounds.adjusted(-pad_x, -pad_y, pad_x, pad_y)

    def shape(self) -> QPainterPath:
        return QPainterPath()  # hit tests are done in numpy by the view (a stroked 6,000-edge path is slow)


class EdgePathItem(_PixelItem):
    """All edges of one class as one path of segments, drawn with one pen.

    The path is built in device pixels at paint time (numpy, about a millisecond for thousands of
    segments): Qt strokes a wide antialiased line under a non-uniform scale (rows stretched more
    than layers) a hundred times slower than the same line in pixels. Zoomed in, segments are
    first clipped to the view, since Qt dashes a line over its whole length before clipping it;
    clipped starts keep their dash phase, so dashes do not crawl while panning.
    """

    DENSE_INK = 300_000  # pixels of line on screen beyond which a class is drawn 1 pixel wide (a hairball anyway;
    # Qt strokes 1-pixel lines with a much faster path)

    def __init__(self, pen: QPen, parent=None) -> None:
        super().__init__(parent)
        self.pen = pen
        self.starts = np.zeros((0, 2))
        self.ends = np.zeros((0, 2))

    def set_segments(self, points: np.ndarray) -> None:
        """`points`: (start, end) pairs, as `Polylines.points`."""
        self.prepareGeometryChange()
        self.starts, self.ends = points[0::2], points[1::2]
        self._bounds = bounds_of(points, 0.0)
        self.update()

    def set_pen(self, pen: QPen) -> None:
        self.prepareGeometryChange()
        self.pen = pen
        self.update()

    def pad_pixels(self) -> tuple[float, float]:
        pad = self.pen.widthF() / 2 + 1
        return pad, pad

    def paint(self, painter: QPainter, _option, _widget=None) -> None:
        if not len(self.starts):
            return
        transform = painter.transform()
        matrix = np.array([[transform.m11(), transform.m12()], [transform.m21(), transform.m22()]])
        offset = np.array([transform.dx(), transform.dy()])
        view = self.viewRect()
        if view is None or view.contains(self._bounds):
            starts, ends = self.starts, self.ends
        else:
            starts, ends = self._clipped(view, matrix)
        if not len(starts):
            return
        points = np.stack([starts, ends], axis=1).reshape(-1, 2) @ matrix + offset
        pen = self.pen
        if pen.widthF() > 1.0 and np.hypot(*(points[1::2] - points[0::2]).T).sum() > self.DENSE_INK:
            pen = QPen(pen)
            pen.setWidthF(1.0)
        painter.save()
        painter.resetTransform()
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(segments_path(points))
        painter.restore()

    def _clipped(self, view: QRectF, matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pad_x, pad_y = view.width() * 0.02, view.height() * 0.02
        x0, x1 = view.left() - pad_x, view.right() + pad_x
        y0, y1 = view.top() - pad_y, view.bottom() + pad_y
        start, d = self.starts, self.ends - self.starts
        t0 = np.zeros(len(start))
        t1 = np.ones(len(start))
        keep = np.ones(len(start), dtype=bool)
        with np.errstate(divide="ignore", invalid="ignore"):  # Liang-Barsky, all segments at once
            for p, q in ((-d[:, 0], start[:, 0] - x0), (d[:, 0], x1 - start[:, 0]),
                         (-d[:, 1], start[:, 1] - y0), (d[:, 1], y1 - start[:, 1])):
                keep &= ~((p == 0) & (q < 0))
                r = q / p
                t0 = np.where(p < 0, np.maximum(t0, r), t0)
                t1 = np.where(p > 0, np.minimum(t1, r), t1)
        keep &= t0 <= t1
        start, d, t0, t1 = start[keep], d[keep], t0[keep], t1[keep]
        pattern = self.pen.dashPattern() if self.pen.style() != Qt.PenStyle.SolidLine else []
        if pattern:  # start each clipped segment on a whole dash period from its real start
            period = sum(pattern) * max(self.pen.widthF(), 1.0)
            length = np.hypot(*(d @ matrix).T)
            with np.errstate(divide="ignore", invalid="ignore"):
                t0 = np.where(length > 0, np.floor(t0 * length / period) * period / length, t0)
        return start + d * t0[:, None], start + d * t1[:, None]


class ArrowHeadsItem(_PixelItem):
    """Filled triangles at the callee end of edges, a fixed number of pixels, stopping at the node's rim."""

    LENGTH = 9.0  # pixels
    HALF_WIDTH = 3.8
    SMOOTH_LIMIT = 800  # antialiased up to this many heads in view: filling thousands smoothly takes ~70 ms

    def __init__(self, node_radius: float, parent=None) -> None:
        super().__init__(parent)
        self.node_radius = node_radius  # pixels: tips stop this far (plus one) before the node centre
        self.groups: list[tuple[np.ndarray, np.ndarray, QColor]] = []  # (tails, tips, colour)

    def set_groups(self, groups: Sequence[tuple[np.ndarray, np.ndarray, QColor]], bounds: QRectF) -> None:
        self.prepareGeometryChange()
        self.groups = [g for g in groups if len(g[1])]
        self._bounds = bounds
        self.update()

    def pad_pixels(self) -> tuple[float, float]:
        return self.LENGTH + 2, self.LENGTH + 2

    def paint(self, painter: QPainter, _option, _widget=None) -> None:
        if not self.groups:
            return
        view = self.viewRect()
        transform = painter.transform()
        matrix = np.array([[transform.m11(), transform.m12()], [transform.m21(), transform.m22()]])
        offset = np.array([transform.dx(), transform.dy()])
        visible = []
        for tails, tips, colour in self.groups:
            if view is not None:
                margin_x, margin_y = view.width() * 0.05, view.height() * 0.05
                inside = (tips[:, 0] >= view.left() - margin_x) & (tips[:, 0] <= view.right() + margin_x) & \
                         (tips[:, 1] >= view.top() - margin_y) & (tips[:, 1] <= view.bottom() + margin_y)
                tails, tips = tails[inside], tips[inside]
            visible.append((tails, tips, colour))
        smooth = sum(len(tips) for _, tips, _ in visible) <= self.SMOOTH_LIMIT
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, smooth)
        painter.setPen(Qt.PenStyle.NoPen)
        for tails, tips, colour in visible:
            path = self._triangles(tails @ matrix + offset, tips @ matrix + offset)
            if not path.isEmpty():
                painter.setBrush(QBrush(colour))
                painter.drawPath(path)
        painter.restore()

    def _triangles(self, tails: np.ndarray, tips: np.ndarray) -> QPainterPath:
        direction = tips - tails
        length = np.hypot(direction[:, 0], direction[:, 1])
        room = length - self.node_radius - 1.0
        size = np.minimum(self.LENGTH, room * 0.6)
        keep = size >= 3.0  # no arrowheads on edges a few pixels long (zoomed far out)
        if not keep.any():
            return QPainterPath()
        unit = direction[keep] / length[keep, None]
        size = size[keep, None]
        tip = tips[keep] - unit * (self.node_radius + 1.0)
        base = tip - unit * size
        normal = np.stack([-unit[:, 1], unit[:, 0]], axis=1) * (size / self.LENGTH) * self.HALF_WIDTH
        points = np.stack([tip, base + normal, base - normal, tip], axis=1).reshape(-1, 2)
        connect = np.tile(np.array([1, 1, 1, 0], dtype=np.int32), len(tip))
        path = pg.arrayToQPath(points[:, 0], points[:, 1], connect=connect, finiteCheck=False)
        path.setFillRule(Qt.FillRule.WindingFill)
        return path


class NodeLabelsItem(_PixelItem):
    """Node names over their nodes, painted at a fixed pixel size, only where they are readable.

    `chooser(view_rect, x_scale, y_scale)` (pixels per scene unit) returns the indices to label, in the
    order they were placed, and which go below their node rather than above (the graph view applies the
    level-of-detail rules and keeps labels from overlapping, with `box_size`); text and backdrop follow
    the widget palette (`set_colours`).
    """

    MAX_WIDTH = 440.0  # pixels: longer names are cut (the full name is in the tooltip and the selection line)

    def __init__(self, node_radius: float, parent=None) -> None:
        super().__init__(parent)
        self.node_radius = node_radius
        self.font = QFont()
        self.font.setPointSizeF(max(self.font.pointSizeF(), 9.0))
        self.bold = QFont(self.font)
        self.bold.setBold(True)
        self.metrics = QFontMetricsF(self.font)
        self.bold_metrics = QFontMetricsF(self.bold)
        self.positions = np.zeros((0, 2))
        self.texts: list[str] = []
        self.widths = np.zeros(0)  # pixels, per label, in bold (so a label keeps its room when selected)
        self.emphasised: set[int] = set()
        self.chooser = None
        self.last_drawn: list[int] = []
        self.text_colour = QColor("#1f2933")
        self.backdrop = QColor(255, 255, 255, 215)

    def set_colours(self, text: QColor, background: QColor) -> None:
        self.text_colour = QColor(text)
        self.backdrop = QColor(background)
        self.backdrop.setAlpha(215)
        self.update()

    def set_labels(self, positions: np.ndarray, texts: list[str], bounds: QRectF) -> None:
        self.prepareGeometryChange()
        self.positions = positions
        self.texts = texts
        self.widths = np.array([min(self.bold_metrics.horizontalAdvance(t), self.MAX_WIDTH) + 4 for t in texts])
        self._bounds = bounds
        self.update()

    def box_size(self, index: int) -> tuple[float, float]:
        """Pixels a label takes, with its margin."""
        return float(self.widths[index]), self.metrics.height() + 2

    def pad_pixels(self) -> tuple[float, float]:
        return self.MAX_WIDTH / 2 + 4, self.metrics.height() + self.node_radius + 4

    def paint(self, painter: QPainter, _option, _widget=None) -> None:
        self.last_drawn = []
        view = self.viewRect()
        if view is None or self.chooser is None or not len(self.positions):
            return
        transform = painter.transform()
        sx = float(np.hypot(transform.m11(), transform.m12()))
        sy = float(np.hypot(transform.m21(), transform.m22()))
        chosen, below = self.chooser(view, sx, sy)
        if not len(chosen):
            return
        matrix = np.array([[transform.m11(), transform.m12()], [transform.m21(), transform.m22()]])
        offset = np.array([transform.dx(), transform.dy()])
        anchors = self.positions[chosen] @ matrix + offset
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        text_pen = QPen(self.text_colour)
        height = self.metrics.height()
        for index, under, (x, y) in zip(chosen.tolist(), below.tolist(), anchors.tolist()):
            emphasised = index in self.emphasised
            metrics = self.bold_metrics if emphasised else self.metrics
            text = metrics.elidedText(self.texts[index], Qt.TextElideMode.ElideLeft, self.MAX_WIDTH)
            width = metrics.horizontalAdvance(text)
            top = y + self.node_radius + 2 if under else y - self.node_radius - 2 - height
            box = QRectF(x - width / 2 - 2, top, width + 4, height)
            painter.fillRect(box, self.backdrop)
            painter.setFont(self.bold if emphasised else self.font)
            painter.setPen(text_pen)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
            self.last_drawn.append(index)
        painter.restore()


def bounds_of(points: np.ndarray, pad: float) -> QRectF:
    if not len(points):
        return QRectF()
    x0, y0 = points.min(axis=0)
    x1, y1 = points.max(axis=0)
    return QRectF(QPointF(x0 - pad, y0 - pad), QPointF(x1 + pad, y1 + pad))
