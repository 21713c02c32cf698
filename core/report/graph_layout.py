"""Layered (Sugiyama-style) left-to-right layout of a call graph: callers left, callees right.

Steps: break cycles with the greedy Eades-Lin-Smyth feedback-arc-set heuristic, put every node on
its longest path from a source, split long edges into chains of dummy nodes, reduce crossings with
barycenter sweeps (keeping the best order seen), then stack every layer's nodes and dummies (dummies
packed closer) and centre it on the tallest one. The dummies' places are the routes of long edges.
Nodes are numbered by (group, name) before anything else, so the picture depends only on the node
and edge *sets*, never on the order they were given in.
"""
from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from core.records import Edge

LAYER_GAP = 260.0
NODE_GAP = 44.0
DUMMY_GAP = NODE_GAP / 4  # between two dummies of a layer; NODE_GAP / 2 between a dummy and a node
SWEEPS = 4  # down + up barycenter passes; more rarely helps on call graphs
# Dummy chains follow long edges through every layer they cross, which orders them better, but a
# deep random graph can need 100k+ of them; beyond this many, long edges pull on their far end directly.
ROUTED_DUMMIES_PER_NODE = 10  # above this many route points per node, long edges are drawn straight
_DUMMY_LIMIT = 100_000  # about 0.5 s of sweeps on this 2-core machine


@dataclass(frozen=True, eq=False)
class GraphLayout:
    """Scene positions (x right, y down) of `nodes`, row i of `positions` for `nodes[i]`."""

    nodes: tuple[str, ...]
    positions: np.ndarray  # float64, (n, 2)
    layers: np.ndarray  # int, (n,)
    reversed_edges: frozenset[Edge] = frozenset()  # drawn as back edges (right to left)
    # edge spanning several layers -> (k, 2) points it passes through, one per layer crossed, caller side
    # first; empty when there were too many long edges to route (_DUMMY_LIMIT)
    routes: Mapping[Edge, np.ndarray] = field(default_factory=dict)

    @cached_property
    def _indices(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.nodes)}

    def index(self, name: str) -> int:
        return self._indices[name]

    def position(self, name: str) -> tuple[float, float]:
        x, y = self.positions[self.index(name)]
        return float(x), float(y)

    @property
    def width(self) -> float:
        return float(np.ptp(self.positions[:, 0])) if len(self.nodes) else 0.0

    @property
    def height(self) -> float:
        return float(np.ptp(self.positions[:, 1])) if len(self.nodes) else 0.0


def layered_layout(nodes: Sequence[str], edges: Iterable[Edge], groups: Mapping[str, str] | None = None,
                   *, sweeps: int = SWEEPS) -> GraphLayout:
    """Lay out `nodes` in layers; `groups` (node -> file) keeps a file's nodes together on ties.

    Edges with an end outside `nodes`, self-loops and duplicates are ignored. `sweeps=0` skips
    crossing reduction (the initial order by group, then name), which benchmarks compare against.
    """
    names = tuple(dict.fromkeys(nodes))
    n = len(names)
    if n == 0:
        return GraphLayout((), np.zeros((0, 2)), np.zeros(0, dtype=np.int64))
    groups = groups or {}
    canon = sorted(range(n), key=lambda i: (groups.get(names[i], ""), names[i]))
    cid = {names[i]: c for c, i in enumerate(canon)}
    group_index = {g: r for r, g in enumerate(sorted({groups.get(name, "") for name in names}))}
    group_rank = np.array([group_index[groups.get(names[i], "")] for i in canon], dtype=np.int64)

    pairs = sorted({(cid[a], cid[b]) for a, b in edges if a != b and a in cid and b in cid})
    src = np.array([p[0] for p in pairs], dtype=np.int64)
    dst = np.array([p[1] for p in pairs], dtype=np.int64)
    rank = _acyclic_order(n, src, dst)
    back = rank[src] > rank[dst]
    reversed_edges = frozenset((names[canon[s]], names[canon[d]]) for s, d in zip(src[back].tolist(),
                                                                                   dst[back].tolist()))
    up = np.where(back, dst, src)
    down = np.where(back, src, dst)
    unique_of = np.arange(up.size)
    if up.size:  # a 2-cycle becomes a duplicate once one of its edges is reversed
        stacked, unique_of = np.unique(np.stack([up, down], axis=1), axis=0, return_inverse=True)
        up, down = stacked.T
        unique_of = unique_of.reshape(-1)
    layer = _longest_path_layers(n, up, down, rank)
    node_layer, slot, routed = _order_layers(n, layer, up, down, group_rank, sweeps)
    if routed and node_layer.size - n > ROUTED_DUMMIES_PER_NODE * n:
        # So many long edges that routing them would stretch the layers and make every redraw
        # heavy: keep the ordering they gave, draw them straight.
        routed, node_layer, slot = False, node_layer[:n], slot[:n]

    x = node_layer * LAYER_GAP
    y = _stacked_rows(n, node_layer, slot)
    everywhere = np.stack([x, y], axis=1).astype(np.float64)  # real nodes (by number), then dummies
    given = np.array([cid[name] for name in names], dtype=np.int64)
    positions = everywhere[given]
    layers = layer[given].astype(np.int64)
    positions.setflags(write=False)
    layers.setflags(write=False)
    routes = {}
    if routed:
        dummies = _first_dummies(n, layer[down] - layer[up] - 1)
        for s, d, is_back, j in zip(src.tolist(), dst.tolist(), back.tolist(), unique_of.tolist()):
            start, stop = dummies[j], dummies[j + 1]
            if stop > start:
                points = everywhere[start:stop][::-1] if is_back else everywhere[start:stop].copy()
                points.setflags(write=False)
                routes[(names[canon[s]], names[canon[d]])] = points
    return GraphLayout(names, positions, layers, reversed_edges, routes)


def _first_dummies(n: int, extra: np.ndarray) -> np.ndarray:
    """Node number of each edge's first dummy (edge i owns numbers [out[i], out[i + 1])), dummies numbered from n."""
    return n + np.concatenate([[0], np.cumsum(extra)]).astype(np.int64)


def _stacked_rows(n: int, node_layer: np.ndarray, slot: np.ndarray) -> np.ndarray:
    """y of every node (the first n real, the rest dummies) stacked in slot order within its layer,
    NODE_GAP between real nodes, less next to dummies, each layer centred on the tallest."""
    order = np.lexsort((slot, node_layer))
    lay = node_layer[order]
    dummy = order >= n
    gap = np.where(dummy[1:] & dummy[:-1], DUMMY_GAP,
                   np.where(dummy[1:] | dummy[:-1], NODE_GAP / 2, NODE_GAP))
    gap[lay[1:] != lay[:-1]] = 0.0
    below = np.cumsum(np.concatenate([[0.0], gap]))
    first = np.searchsorted(lay, lay, side="left")
    last = np.searchsorted(lay, lay, side="right") - 1
    within = below - below[first]
    height = below[last] - below[first]
    y = np.empty(order.size)
    y[order] = within + (height.max() - height) / 2.0
    return y


def _acyclic_order(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Rank of every node in an order where few edges point backwards (Eades, Lin & Smyth 1993).

    Sinks go to the right end, sources to the left end; otherwise the node with the largest
    out-degree minus in-degree goes left. Ties go to the lowest node number.
    """
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    for s, d in zip(src.tolist(), dst.tolist()):
        succ[s].append(d)
        pred[d].append(s)
    outdeg = [len(x) for x in succ]
    indeg = [len(x) for x in pred]
    alive = [True] * n
    sinks = [v for v in range(n) if outdeg[v] == 0]
    sources = [v for v in range(n) if indeg[v] == 0 and outdeg[v] > 0]
    heap = [(indeg[v] - outdeg[v], v) for v in range(n)]
    heapq.heapify(heap)
    left: list[int] = []
    right: list[int] = []
    remaining = n

    def remove(v: int) -> None:
        nonlocal remaining
        alive[v] = False
        remaining -= 1
        for u in pred[v]:
            if alive[u]:
                outdeg[u] -= 1
                if outdeg[u] == 0:
                    sinks.append(u)
                else:
                    heapq.heappush(heap, (indeg[u] - outdeg[u], u))
        for w in succ[v]:
            if alive[w]:
                indeg[w] -= 1
                if indeg[w] == 0:
                    sources.append(w)
                else:
                    heapq.heappush(heap, (indeg[w] - outdeg[w], w))

    while remaining:
        while sinks or sources:
            while sinks:
                v = sinks.pop()
                if alive[v]:
                    right.append(v)
                    remove(v)
            while sources:
                v = sources.pop()
                if alive[v]:
                    left.append(v)
                    remove(v)
        if not remaining:
            break
        while True:
            key, v = heapq.heappop(heap)
            if alive[v] and key == indeg[v] - outdeg[v]:
                break
        left.append(v)
        remove(v)
    rank = np.empty(n, dtype=np.int64)
    rank[np.array(left + right[::-1], dtype=np.int64)] = np.arange(n)
    return rank


def _longest_path_layers(n: int, up: np.ndarray, down: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Layer = length of the longest path from a source; edges are relaxed in topological order."""
    layer = [0] * n
    by_rank = np.argsort(rank[up], kind="stable")
    for u, v in zip(up[by_rank].tolist(), down[by_rank].tolist()):
        layer[v] = max(layer[v], layer[u] + 1)
    return np.array(layer, dtype=np.int64)


def _order_layers(n: int, layer: np.ndarray, up: np.ndarray, down: np.ndarray, group_rank: np.ndarray,
                  sweeps: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """Layer and slot within it of every node after barycenter crossing reduction, real nodes first, then
    the dummies of long edges if they were split (the third value says so)."""
    span = layer[down] - layer[up]
    extra = span - 1
    routed = int(extra.sum()) <= _DUMMY_LIMIT
    if not routed:
        s, t, node_layer, node_group = up, down, layer, group_rank
    else:
        s, t, node_layer, node_group = _split_long_edges(n, layer, up, down, span, group_rank)
    total = node_layer.size
    by_layer = np.argsort(node_layer, kind="stable")  # initial order: node number (group, then name)
    counts = np.bincount(node_layer)
    members = np.split(by_layer, np.cumsum(counts)[:-1])
    pos = np.empty(total, dtype=np.float64)
    local = np.empty(total, dtype=np.int64)
    for nodes in members:
        pos[nodes] = np.arange(nodes.size)
        local[nodes] = np.arange(nodes.size)
    seg_in = _group_by(node_layer[t], counts.size)  # segments by the layer of their lower (callee) end
    seg_out = _group_by(node_layer[s], counts.size)  # ... and of their upper (caller) end

    def sweep(layer_range: range, segs: list[np.ndarray], here: np.ndarray, there: np.ndarray) -> None:
        for number in layer_range:
            nodes = members[number]
            chosen = segs[number]
            if nodes.size < 2 or chosen.size == 0:
                continue
            k = nodes.size
            where = local[here[chosen]]
            weight = np.bincount(where, minlength=k)
            total_pos = np.bincount(where, weights=pos[there[chosen]], minlength=k)
            current = pos[nodes]
            bary = np.where(weight > 0, total_pos / np.maximum(weight, 1), current)
            order = np.lexsort((current, node_group[nodes], bary))
            pos[nodes[order]] = np.arange(k)

    best = pos.copy()
    best_crossings = _crossings(s, t, node_layer, pos)
    for _ in range(sweeps):
        if best_crossings == 0:
            break
        sweep(range(1, counts.size), seg_in, t, s)
        sweep(range(counts.size - 2, -1, -1), seg_out, s, t)
        crossings = _crossings(s, t, node_layer, pos)
        if crossings >= best_crossings:
            break  # converged (or started to oscillate)
        best, best_crossings = pos.copy(), crossings
    return node_layer, best, routed and total > n


def _split_long_edges(n: int, layer: np.ndarray, up: np.ndarray, down: np.ndarray, span: np.ndarray,
                      group_rank: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Replace an edge spanning k layers by k one-layer segments through k - 1 dummy nodes."""
    extra = span - 1
    first_dummy = _first_dummies(n, extra)[:-1]  # per edge
    edge_of_seg = np.repeat(np.arange(span.size), span)
    step = np.arange(edge_of_seg.size) - np.repeat(np.cumsum(span) - span, span)
    s = np.where(step == 0, up[edge_of_seg], first_dummy[edge_of_seg] + step - 1)
    t = np.where(step == span[edge_of_seg] - 1, down[edge_of_seg], first_dummy[edge_of_seg] + step)
    edge_of_dummy = np.repeat(np.arange(span.size), extra)
    dummy_step = np.arange(edge_of_dummy.size) - np.repeat(first_dummy - n, extra)
    node_layer = np.concatenate([layer, layer[up[edge_of_dummy]] + dummy_step + 1])
    node_group = np.concatenate([group_rank, group_rank[up[edge_of_dummy]]])
    return s, t, node_layer, node_group


def _group_by(keys: np.ndarray, size: int) -> list[np.ndarray]:
    order = np.argsort(keys, kind="stable")
    return np.split(order, np.cumsum(np.bincount(keys, minlength=size))[:-1])


def _crossings(s: np.ndarray, t: np.ndarray, node_layer: np.ndarray, pos: np.ndarray) -> int:
    """Pairs of one-layer segments that cross (segments spanning more layers are not counted)."""
    proper = node_layer[t] - node_layer[s] == 1
    s, t = s[proper], t[proper]
    if s.size < 2:
        return 0
    width = int(pos.max()) + 2
    band = node_layer[s]
    lower = band * width + pos[t].astype(np.int64)  # crossings never span two bands
    order = np.argsort((band * width + pos[s].astype(np.int64)) * (width * int(band.max() + 1)) + lower,
                       kind="stable")
    return _inversions(lower[order])


def _inversions(values: np.ndarray) -> int:
    """Pairs i < j with values[i] > values[j] (values: small non-negative ints): a bottom-up merge
    sort, one numpy pass per level."""
    n = values.size
    if n < 2:
        return 0
    vals = values.astype(np.int64)
    top = int(vals.max())
    big = top + 1
    index = np.arange(n)
    total = 0
    width = 1
    while width < n:
        block = index // (2 * width)
        in_right = (index // width) % 2 == 1
        keys = block * big + vals
        left_keys = keys[~in_right]  # sorted: each half-block is sorted and blocks ascend
        above = np.searchsorted(left_keys, block[in_right] * big + top, side="right")
        upto = np.searchsorted(left_keys, keys[in_right], side="right")
        total += int((above - upto).sum())
        vals = np.sort(keys, kind="stable") - block * big  # timsort merges the two runs
        width *= 2
    return total


def count_crossings(layout: GraphLayout, edges: Iterable[Edge]) -> int:
    """Crossings between edges of adjacent layers as drawn (straight lines), for tests and benchmarks."""
    pairs = {(a, b) for a, b in edges if a != b and a in layout._indices and b in layout._indices}
    if not pairs:
        return 0
    a = np.array([layout.index(p[0]) for p in pairs])
    b = np.array([layout.index(p[1]) for p in pairs])
    left = np.where(layout.layers[a] <= layout.layers[b], a, b)
    right = np.where(layout.layers[a] <= layout.layers[b], b, a)
    y = layout.positions[:, 1]
    slots = np.unique(y, return_inverse=True)[1].reshape(-1).astype(np.float64)
    return _crossings(left, right, layout.layers, slots)
