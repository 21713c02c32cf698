"""What the graph view draws, prepared once per layout: edge polylines, filters and short labels.

Everything here is numpy and plain Python (no Qt), so it is cheap to test. One `EdgeGeometry`
holds the polyline of every edge of an instance's layout (the union of the truth, every model and
the trace). View modes, hidden classes and filters only choose which polylines are drawn;
nothing here ever moves a node.

Edges are straight lines from caller to callee when the callee lies to the right (the normal
case in the left-to-right layout); an edge spanning several layers follows the points the layout
routed it along (`GraphLayout.routes`), clear of the nodes between, drawn as core.report.graph_routes says
(level through each layer, curving across the gaps, as the SVG export draws it). Back edges (the ones
the layout reversed to break cycles, and edges within one layer) are cubic curves bowing to the left
of their direction, so a back edge never hides under the forward edge of a two-cycle; self-loops
bulge into the gap right of their node. A back edge with a route follows it too, unless its reverse
is also drawn (a two-cycle: the two would overlap).
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from core.records import Edge
from core.report.graph_labels import distinct_labels, short_name  # noqa: F401 (short_name: for the views)
from core.report.graph_layout import LAYER_GAP, NODE_GAP, GraphLayout
from core.report.graph_routes import route_legs, sample_legs
from core.report.view_modes import CORRECT_CLASSES  # "Errors only" hides them

CURVE_POINTS = 13  # samples of a back edge or a self-loop (12 segments)
LOOP_WIDTH = LAYER_GAP * 0.3  # scene units: a self-loop bulges this far right of its node (into the gap,
LOOP_HEIGHT = NODE_GAP * 0.55  # where no node or label is) and this far above and below its centre
ROUTE_THROUGH = LAYER_GAP * 0.12  # half the level run of a routed edge through a layer (core.report.graph_routes)
ROUTE_SAMPLES = 6  # segments per curve of a routed edge ...
ROUTE_SMOOTH_LIMIT = 4000  # ... up to this many route points in a graph; beyond, the curves are chords


@dataclass(frozen=True)
class Segments:
    """Line segments of some drawn edges, for hit tests: segment i runs a[i] -> b[i] of edges[owner[i]]."""

    a: np.ndarray  # (m, 2)
    b: np.ndarray  # (m, 2)
    owner: np.ndarray  # (m,) index into EdgeGeometry.edges


@dataclass(frozen=True)
class Polylines:
    """Line segments as point pairs for `arrayToQPath(x, y, connect="pairs")`, and where the arrowheads go.

    Curves are drawn as separate segments too: Qt strokes a path of independent antialiased
    segments tens of times faster than the same segments joined into polylines.
    """

    points: np.ndarray  # (2 * segments, 2): start, end, start, end, ...
    tails: np.ndarray  # (e, 2): a point on the approach to each callee
    tips: np.ndarray  # (e, 2): the callee's centre
    owners: np.ndarray  # (e,) edge indices, in the order of tails / tips


@dataclass
class EdgeGeometry:
    """The polyline of every edge of a layout, straight edges and curves kept in separate arrays."""

    edges: tuple[Edge, ...]
    index: dict[Edge, int]
    line_ids: np.ndarray  # (s,) edge indices of straight edges
    lines: np.ndarray  # (s, 2, 2)
    curve_ids: np.ndarray  # (c,) edge indices of curves (back edges, same-layer edges, self-loops)
    curves: np.ndarray  # (c, CURVE_POINTS, 2)
    routes: RoutedEdges = field(default_factory=lambda: RoutedEdges.build([], []))
    curved: np.ndarray = field(init=False)  # (e,) bool

    def __post_init__(self) -> None:
        self.curved = np.zeros(len(self.edges), dtype=bool)
        self.curved[self.curve_ids] = True

    @classmethod
    def build(cls, layout: GraphLayout, edges: Iterable[Edge]) -> EdgeGeometry:
        index_of = {name: i for i, name in enumerate(layout.nodes)}
        kept = tuple(e for e in dict.fromkeys(edges) if e[0] in index_of and e[1] in index_of)
        count = len(kept)
        src = np.fromiter((index_of[a] for a, _ in kept), dtype=np.int64, count=count)
        dst = np.fromiter((index_of[b] for _, b in kept), dtype=np.int64, count=count)
        p0 = layout.positions[src].reshape(-1, 2)
        p1 = layout.positions[dst].reshape(-1, 2)
        reversed_edges = layout.reversed_edges
        back = np.fromiter((e in reversed_edges for e in kept), dtype=bool, count=count)
        back |= p1[:, 0] <= p0[:, 0]  # same-layer edges and self-loops curve too
        kept_set = set(kept)
        routed = np.fromiter((e in layout.routes and not (back[i] and (e[1], e[0]) in kept_set)
                              for i, e in enumerate(kept)), dtype=bool, count=count)
        route_ids = np.flatnonzero(routed)
        route_points = sum(len(layout.routes[kept[i]]) for i in route_ids.tolist())
        samples = ROUTE_SAMPLES if route_points <= ROUTE_SMOOTH_LIMIT else 1
        routes = RoutedEdges.build(route_ids, [
            sample_legs(route_legs(tuple(p0[i]), layout.routes[kept[i]].tolist(), tuple(p1[i]), ROUTE_THROUGH),
                        samples) for i in route_ids.tolist()])
        line_ids = np.flatnonzero(~back & ~routed)
        curve_ids = np.flatnonzero(back & ~routed)
        lines = np.stack([p0[line_ids], p1[line_ids]], axis=1)
        curves = _curves(p0[curve_ids], p1[curve_ids])
        return cls(kept, {e: i for i, e in enumerate(kept)}, line_ids, lines, curve_ids, curves, routes)

    def mask(self, edges: Iterable[Edge]) -> np.ndarray:
        chosen = np.zeros(len(self.edges), dtype=bool)
        ids = [self.index[e] for e in edges if e in self.index]
        chosen[ids] = True
        return chosen

    def polylines(self, chosen: np.ndarray) -> Polylines:
        """The drawing of the edges where `chosen` (a bool mask over `edges`) is set."""
        line_sel = chosen[self.line_ids]
        curve_sel = chosen[self.curve_ids]
        lines = self.lines[line_sel]
        curves = self.curves[curve_sel]
        curve_pairs = np.stack([curves[:, :-1], curves[:, 1:]], axis=2)  # (c, k - 1, 2, 2)
        routes = self.routes
        route_sel = chosen[routes.ids]
        segment_sel = chosen[routes.owner]
        route_pairs = np.stack([routes.a[segment_sel], routes.b[segment_sel]], axis=1)
        points = np.concatenate([lines.reshape(-1, 2), curve_pairs.reshape(-1, 2), route_pairs.reshape(-1, 2)])
        tails = np.concatenate([lines[:, 0], curves[:, -3], routes.tails[route_sel]])
        tips = np.concatenate([lines[:, 1], curves[:, -1], routes.tips[route_sel]])
        owners = np.concatenate([self.line_ids[line_sel], self.curve_ids[curve_sel], routes.ids[route_sel]])
        return Polylines(points, tails, tips, owners)

    def segments(self, chosen: np.ndarray) -> Segments:
        line_sel = chosen[self.line_ids]
        curve_sel = chosen[self.curve_ids]
        lines = self.lines[line_sel]
        curves = self.curves[curve_sel]
        routes = self.routes
        segment_sel = chosen[routes.owner]
        a = np.concatenate([lines[:, 0], curves[:, :-1].reshape(-1, 2), routes.a[segment_sel]])
        b = np.concatenate([lines[:, 1], curves[:, 1:].reshape(-1, 2), routes.b[segment_sel]])
        owner = np.concatenate([self.line_ids[line_sel], np.repeat(self.curve_ids[curve_sel], CURVE_POINTS - 1),
                                routes.owner[segment_sel]])
        return Segments(a, b, owner)

    def points(self) -> np.ndarray:
        """Every point drawn off the straight lines between nodes (curves and routes), for bounds."""
        return np.concatenate([self.curves.reshape(-1, 2), self.routes.a])


@dataclass(frozen=True)
class RoutedEdges:
    """Edges drawn as polylines through their routes, as segments: segment i runs a[i] -> b[i] of edge owner[i]."""

    ids: np.ndarray  # (r,) edge indices
    tails: np.ndarray  # (r, 2): the last route point, where the arrowhead's approach starts
    tips: np.ndarray  # (r, 2): the callee's centre
    a: np.ndarray  # (m, 2)
    b: np.ndarray  # (m, 2)
    owner: np.ndarray  # (m,) edge indices

    @classmethod
    def build(cls, ids, polylines: list[np.ndarray]) -> RoutedEdges:
        """`polylines[i]`: caller, route points..., callee of edge `ids[i]`."""
        if not polylines:
            empty = np.zeros((0, 2))
            return cls(np.zeros(0, dtype=np.int64), empty, empty, empty, empty, np.zeros(0, dtype=np.int64))
        ids = np.asarray(ids, dtype=np.int64)
        a = np.concatenate([p[:-1] for p in polylines])
        b = np.concatenate([p[1:] for p in polylines])
        owner = np.repeat(ids, [len(p) - 1 for p in polylines])
        tails = np.array([p[-2] for p in polylines])
        tips = np.array([p[-1] for p in polylines])
        return cls(ids, tails, tips, a, b, owner)


def _curves(p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
    """Cubic Bézier samples from p0 to p1 bowing to the left of the direction of travel; loops when p0 == p1."""
    t = np.linspace(0.0, 1.0, CURVE_POINTS)[None, :, None]
    d = p1 - p0
    length = np.hypot(d[:, 0], d[:, 1])
    loop = length < 1e-9
    safe = np.where(loop, 1.0, length)
    normal = np.stack([d[:, 1], -d[:, 0]], axis=1) / safe[:, None]  # left of travel with y down
    bow = np.clip(0.22 * length, NODE_GAP * 0.6, NODE_GAP * 3.0)[:, None]
    c1 = p0 + d / 3.0 + normal * bow
    c2 = p0 + 2.0 * d / 3.0 + normal * bow
    # self-loops: out to the upper right, back in from the lower right
    c1[loop] = p0[loop] + np.array([LOOP_WIDTH, -LOOP_HEIGHT])
    c2[loop] = p0[loop] + np.array([LOOP_WIDTH, LOOP_HEIGHT])
    u = 1.0 - t
    return ((u ** 3) * p0[:, None] + 3 * (u ** 2) * t * c1[:, None] + 3 * u * (t ** 2) * c2[:, None]
            + (t ** 3) * p1[:, None])


# -- filters --------------------------------------------------------------------------------------
def shown_edges(classes: Mapping[Edge, str], hidden: Iterable[str] = (), errors_only: bool = False) -> dict[Edge, str]:
    """The classified edges left after hiding classes (and every correct class with `errors_only`)."""
    off = set(hidden) | (CORRECT_CLASSES if errors_only else set())
    return {edge: cls for edge, cls in classes.items() if cls not in off}


def hop_nodes(edges: Iterable[Edge], centres: Iterable[str], hops: int) -> set[str]:
    """Nodes within `hops` steps of any centre, following edges both ways (an undirected ego graph)."""
    neighbours: dict[str, set[str]] = {}
    for caller, callee in edges:
        neighbours.setdefault(caller, set()).add(callee)
        neighbours.setdefault(callee, set()).add(caller)
    seen = dict.fromkeys(centres, 0)
    queue = deque(seen)
    while queue:
        node = queue.popleft()
        depth = seen[node]
        if depth >= hops:
            continue
        for other in neighbours.get(node, ()):
            if other not in seen:
                seen[other] = depth + 1
                queue.append(other)
    return set(seen)


def filter_graph(classes: Mapping[Edge, str], rows: Mapping[str, int], hidden: Iterable[str] = (),
                 errors_only: bool = False, hops: int = 0,
                 focus: Iterable[str] = ()) -> tuple[dict[Edge, str], np.ndarray]:
    """The edges to draw and the nodes to draw in full (a mask over `rows`: node -> row of the layout).

    `errors_only` keeps the nodes of the edges left and the `focus` (the selected node, or an edge's
    two ends; all in `rows`); `hops` > 0 keeps only what is within that many calls of the focus.
    """
    drawn = shown_edges(classes, hidden, errors_only)
    shown = np.ones(len(rows), dtype=bool)
    focus = list(focus)
    if errors_only:
        shown[:] = False
        for caller, callee in drawn:
            shown[rows[caller]] = shown[rows[callee]] = True
        shown[[rows[name] for name in focus]] = True
    if hops and focus:
        near = hop_nodes(drawn, focus, hops)
        around = np.zeros(len(rows), dtype=bool)
        around[[rows[name] for name in near if name in rows]] = True
        shown &= around
        drawn = {e: c for e, c in drawn.items() if e[0] in near and e[1] in near}
    return drawn, shown


# -- labels ---------------------------------------------------------------------------------------
short_names = distinct_labels  # the name the graph views have used; labels live in core.report.graph_labels


def pick_labels(positions: np.ndarray, shown: np.ndarray, rect: tuple[float, float, float, float]) -> np.ndarray:
    """Indices of the nodes that may be labelled: shown and inside `rect` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = rect
    inside = shown & (positions[:, 0] >= x0) & (positions[:, 0] <= x1) & \
        (positions[:, 1] >= y0) & (positions[:, 1] <= y1)
    return np.flatnonzero(inside)


def label_order(candidates: np.ndarray, pinned: Iterable[int], near: Iterable[int], degree: np.ndarray) -> np.ndarray:
    """`candidates` (node indices) in the order their labels are placed: the selection, then its neighbours,
    then the best connected nodes (ties: layout order)."""
    candidates = np.asarray(candidates, dtype=np.int64)
    rank = np.full(len(degree), 2, dtype=np.int64)
    rank[list(near)] = 1
    rank[list(pinned)] = 0
    return candidates[np.lexsort((candidates, -degree[candidates], rank[candidates]))]


def place_labels(anchors: np.ndarray, widths: np.ndarray, height: float, order: np.ndarray, limit: int,
                 always: int = 0, dots: np.ndarray | None = None, radius: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Greedy label placement in pixels. Each label is a box `widths[i]` x `height` centred on node i's
    centre `anchors[i]`, above the node (clear of its dot of `radius` pixels), or else below it. In
    `order`, a label is kept where its box overlaps no kept box and covers none of the `dots` (node
    indices) but its own, up to `limit` labels; the first `always` of `order` are kept above their node
    whatever they overlap (the selection). Returns the kept indices in `order`'s order, and which of them
    went below."""
    order = np.asarray(order, dtype=np.int64)
    dots = np.zeros(0, dtype=np.int64) if dots is None else np.asarray(dots, dtype=np.int64)
    x, y = anchors[order, 0], anchors[order, 1]
    half = widths[order] / 2
    tops = np.stack([y - radius - height, y + radius], axis=1)  # (k, 2): above, below
    # which placements would cover another node's dot: all candidates at once (k x dots)
    dx = np.abs(anchors[dots, 0][None, :] - x[:, None]) < (half[:, None] + radius)
    not_own = dots[None, :] != order[:, None]
    covers = np.zeros((len(order), 2), dtype=bool)
    for side in (0, 1):
        dot_y = anchors[dots, 1][None, :]
        dy = (dot_y > tops[:, side:side + 1] - radius) & (dot_y < tops[:, side:side + 1] + height + radius)
        covers[:, side] = (dx & dy & not_own).any(axis=1)
    kept: list[int] = []
    below: list[bool] = []
    boxes = np.empty((len(order), 4))  # x0, y0, x1, y1 of the kept labels, the first len(kept) rows
    for position in range(len(order)):
        if len(kept) >= limit and position >= always:
            break
        x0, x1 = x[position] - half[position], x[position] + half[position]
        placed = boxes[:len(kept)]
        side = 0
        if position >= always:
            beside = (placed[:, 0] < x1) & (x0 < placed[:, 2])
            for side in (0, 1):
                top = tops[position, side]
                if covers[position, side] or np.any(beside & (placed[:, 1] < top + height) & (top < placed[:, 3])):
                    continue
                break
            else:
                continue  # no room above or below
        boxes[len(kept)] = (x0, tops[position, side], x1, tops[position, side] + height)
        kept.append(int(order[position]))
        below.append(bool(side))
    return np.array(kept, dtype=np.int64), np.array(below, dtype=bool)
