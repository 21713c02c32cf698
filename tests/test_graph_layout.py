"""The layered layout: callers left of callees, cycles broken, few crossings, stable pictures."""
import itertools
import math
import random

import networkx as nx
import numpy as np
import pytest

from core.dataset.indexing import open_dataset
from core.report import graph_layout
from core.report.graph_export import picture_for
from core.report.graph_layout import LAYER_GAP, NODE_GAP, GraphLayout, count_crossings, layered_layout
from core.report.overlay import build_overlay
from core.report.view_modes import view_mode
from core.scoring.normalise import MODES
from resources import DEMO_DATASET


def random_dag(n: int, m: int, seed: int) -> tuple[list[str], list[tuple[str, str]]]:
    rng = random.Random(seed)
    names = [f"pkg.mod{i % 5}.f{i}" for i in range(n)]
    rank = list(range(n))
    rng.shuffle(rank)
    edges = set()
    while len(edges) < m:
        a, b = rng.sample(range(n), 2)
        edges.add((names[a], names[b]) if rank[a] < rank[b] else (names[b], names[a]))
    return names, sorted(edges)


def random_graph(n: int, m: int, seed: int) -> tuple[list[str], list[tuple[str, str]]]:
    rng = random.Random(seed)
    names = [f"f{i}" for i in range(n)]
    edges = {(names[rng.randrange(n)], names[rng.randrange(n)]) for _ in range(m)}
    return names, sorted(edges)


def drawn_crossings(layout: GraphLayout, edges) -> int:
    """Pairs of straight edges (as drawn) that properly cross; a brute force independent of the module."""
    segments = [(layout.position(a), layout.position(b), {a, b}) for a, b in set(edges) if a != b]

    def side(p, q, r):
        return math.copysign(1, (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])) \
            if (q[0] - p[0]) * (r[1] - p[1]) != (q[1] - p[1]) * (r[0] - p[0]) else 0

    total = 0
    for (p1, p2, ends1), (q1, q2, ends2) in itertools.combinations(segments, 2):
        if ends1 & ends2:
            continue
        if side(p1, p2, q1) * side(p1, p2, q2) < 0 and side(q1, q2, p1) * side(q1, q2, p2) < 0:
            total += 1
    return total


def test_every_node_is_placed_and_foreign_duplicate_and_self_edges_are_ignored():
    nodes = ["a", "b", "c", "lonely"]
    edges = [("a", "b"), ("a", "b"), ("b", "c"), ("c", "c"), ("a", "ghost"), ("ghost", "c")]
    layout = layered_layout(nodes, edges)
    assert layout.nodes == tuple(nodes)
    assert layout.positions.shape == (4, 2) and layout.positions.dtype == np.float64
    assert np.isfinite(layout.positions).all()
    assert list(layout.layers) == [0, 1, 2, 0]
    assert layout.position("c") == (2 * LAYER_GAP, layout.positions[2, 1])
    assert layout.reversed_edges == frozenset()
    assert layout.index("lonely") == 3
    with pytest.raises(KeyError):
        layout.index("ghost")
    assert layout.width == 2 * LAYER_GAP and layout.height == NODE_GAP


def test_empty_and_single_node_layouts():
    empty = layered_layout([], [("a", "b")])
    assert empty.nodes == () and empty.positions.shape == (0, 2) and empty.width == empty.height == 0
    single = layered_layout(["only"], [("only", "only")])
    assert single.position("only") == (0.0, 0.0) and single.width == single.height == 0


@pytest.mark.parametrize("seed", range(5))
def test_an_acyclic_graph_runs_strictly_left_to_right(seed):
    nodes, edges = random_dag(60, 120, seed)
    layout = layered_layout(nodes, edges)
    assert layout.reversed_edges == frozenset()
    for caller, callee in edges:
        assert layout.position(caller)[0] < layout.position(callee)[0], (caller, callee)
    layers = dict(zip(layout.nodes, layout.layers))
    for name in nodes:  # longest path from the sources: each node sits right after its deepest caller
        callers = [layers[a] for a, b in edges if b == name]
        assert layers[name] == (max(callers) + 1 if callers else 0)


@pytest.mark.parametrize("edges", [
    [("a", "b"), ("b", "c"), ("c", "a")],
    [("even", "odd"), ("odd", "even"), ("main", "even")],
    [("main", "fact"), ("fact", "fact"), ("fact", "mul"), ("mul", "main")],
])
def test_cycles_are_broken_by_reversing_a_few_edges(edges):
    nodes = sorted({n for edge in edges for n in edge})
    layout = layered_layout(nodes, edges)
    assert np.isfinite(layout.positions).all()
    assert layout.reversed_edges and layout.reversed_edges <= set(edges)
    dag = nx.DiGraph()
    dag.add_nodes_from(nodes)
    for caller, callee in edges:
        if caller == callee:
            continue
        reverse = (caller, callee) in layout.reversed_edges
        dag.add_edge(*((callee, caller) if reverse else (caller, callee)))
        forward_x, back_x = layout.position(caller)[0], layout.position(callee)[0]
        assert (forward_x > back_x) if reverse else (forward_x < back_x)
    assert nx.is_directed_acyclic_graph(dag)


def test_random_cyclic_graphs_reverse_few_edges_and_leave_a_dag():
    nodes, edges = random_graph(200, 500, seed=3)
    layout = layered_layout(nodes, edges)
    proper = {e for e in edges if e[0] != e[1]}
    kept = nx.DiGraph(list(proper - layout.reversed_edges) + [(b, a) for a, b in layout.reversed_edges])
    assert nx.is_directed_acyclic_graph(kept)
    assert len(layout.reversed_edges) < len(proper) / 3  # the heuristic guarantees < 1/2 (m/2 - n/6)


def test_the_same_sets_in_any_order_give_the_same_picture():
    nodes, edges = random_graph(120, 260, seed=5)
    groups = {name: f"file{int(name[1:]) % 4}.py" for name in nodes}
    first = layered_layout(nodes, edges, groups)
    rng = random.Random(9)
    for _ in range(3):
        shuffled_nodes, shuffled_edges = nodes[:], edges + edges[:10]
        rng.shuffle(shuffled_nodes)
        rng.shuffle(shuffled_edges)
        again = layered_layout(shuffled_nodes, shuffled_edges, groups)
        assert again.reversed_edges == first.reversed_edges
        for name in nodes:
            assert again.position(name) == first.position(name)


def test_no_two_nodes_share_a_position_and_layers_are_centred():
    nodes, edges = random_graph(300, 600, seed=11)
    layout = layered_layout(nodes, edges)
    assert len({tuple(p) for p in layout.positions}) == len(nodes)
    everything = np.concatenate([layout.positions, *layout.routes.values()])  # nodes and route points
    middle = (everything[:, 1].min() + everything[:, 1].max()) / 2
    for x in set(everything[:, 0].tolist()):
        ys = everything[everything[:, 0] == x, 1]
        assert (ys.min() + ys.max()) / 2 == pytest.approx(middle)
        real = np.sort(layout.positions[layout.positions[:, 0] == x, 1])
        assert np.all(np.diff(real) >= NODE_GAP - 1e-9)


def test_long_edges_are_routed_through_every_layer_they_cross():
    nodes, edges = random_graph(150, 200, seed=3)
    layout = layered_layout(nodes, edges)
    real = {tuple(p) for p in layout.positions.tolist()}
    long_edges = [(a, b) for a, b in set(edges)
                  if a != b and abs(int(layout.layers[layout.index(a)]) - int(layout.layers[layout.index(b)])) > 1]
    assert long_edges and set(layout.routes) == set(long_edges)
    for (caller, callee), route in layout.routes.items():
        start, end = int(layout.layers[layout.index(caller)]), int(layout.layers[layout.index(callee)])
        step = 1 if end > start else -1
        assert route.shape == (abs(end - start) - 1, 2)
        assert route[:, 0].tolist() == [layer * LAYER_GAP for layer in range(start + step, end, step)]
        assert not real & {tuple(p) for p in route.tolist()}
        for x, y in route.tolist():  # half a row clear of every node of its layer
            assert np.all(np.abs(layout.positions[layout.positions[:, 0] == x, 1] - y) >= NODE_GAP / 2 - 1e-9)
        if (caller, callee) in layout.reversed_edges:
            assert step == -1
    again = layered_layout(list(reversed(nodes)), list(reversed(edges)))
    assert again.routes.keys() == layout.routes.keys()
    for edge, route in layout.routes.items():
        assert np.array_equal(again.routes[edge], route)
    assert np.array_equal(again.positions[[again.index(n) for n in nodes]],
                          layout.positions[[layout.index(n) for n in nodes]])


def test_graphs_with_many_long_edges_draw_them_straight_at_the_same_ordering():
    nodes, edges = random_graph(150, 320, seed=3)  # about 14 route points per node
    layout = layered_layout(nodes, edges)
    assert layout.routes == {}
    for layer in set(layout.layers.tolist()):  # rows exactly one gap apart: no room kept for routes
        rows = np.sort(layout.positions[layout.layers == layer, 1])
        assert np.allclose(np.diff(rows), NODE_GAP)


def test_too_many_long_edges_fall_back_to_no_routes(monkeypatch):
    monkeypatch.setattr(graph_layout, "_DUMMY_LIMIT", 0)
    nodes, edges = random_graph(150, 320, seed=3)
    layout = layered_layout(nodes, edges)
    assert layout.routes == {}
    for layer in set(layout.layers.tolist()):
        assert np.allclose(np.diff(np.sort(layout.positions[layout.layers == layer, 1])), NODE_GAP)


def test_barycenter_sweeps_remove_crossings_the_name_order_has():
    # the name order puts a1 over a2 over a3 but their callees the other way round, twice over
    nodes = ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3", "root"]
    edges = [("root", "a1"), ("root", "a2"), ("root", "a3"), ("a1", "b3"), ("a2", "b2"), ("a3", "b1"),
             ("b1", "c2"), ("b2", "c3"), ("b3", "c1"), ("a1", "c1")]
    naive = layered_layout(nodes, edges, sweeps=0)
    swept = layered_layout(nodes, edges)
    before, after = drawn_crossings(naive, edges), drawn_crossings(swept, edges)
    assert before >= 4
    assert after < before and after <= 1
    assert list(naive.layers) == list(swept.layers)


@pytest.mark.parametrize("dummy_limit", [graph_layout._DUMMY_LIMIT, 0])
def test_sweeps_reduce_crossings_on_random_graphs(monkeypatch, dummy_limit):
    """With dummy chains for long edges, and without them (the large-graph path)."""
    monkeypatch.setattr(graph_layout, "_DUMMY_LIMIT", dummy_limit)
    nodes, edges = random_dag(80, 160, seed=2)
    naive, swept = layered_layout(nodes, edges, sweeps=0), layered_layout(nodes, edges)
    assert drawn_crossings(swept, edges) < 0.8 * drawn_crossings(naive, edges)
    for caller, callee in edges:
        assert swept.position(caller)[0] < swept.position(callee)[0]


def test_count_crossings_matches_a_brute_force_count_between_adjacent_layers():
    nodes, edges = random_dag(70, 150, seed=4)
    layout = layered_layout(nodes, edges, sweeps=1)
    layer = dict(zip(layout.nodes, layout.layers))
    adjacent = [(a, b) for a, b in edges if abs(layer[a] - layer[b]) == 1]
    assert count_crossings(layout, edges) == drawn_crossings(layout, adjacent) > 0


def test_nodes_of_one_file_sit_together_when_barycenters_tie():
    leaves = ["a", "b", "c", "d", "e", "f"]
    groups = {"a": "z.py", "b": "y.py", "c": "z.py", "d": "y.py", "e": "z.py", "f": "y.py", "root": "main.py"}
    layout = layered_layout(["root", *leaves], [("root", leaf) for leaf in leaves], groups)
    column = sorted(leaves, key=lambda name: layout.position(name)[1])
    assert [groups[name] for name in column] == ["y.py"] * 3 + ["z.py"] * 3
    assert column == ["b", "d", "f", "a", "c", "e"]  # then by name


@pytest.fixture(scope="module")
def demo_overlay(tmp_path_factory):
    ws, _ = open_dataset(DEMO_DATASET, tmp_path_factory.mktemp("ws") / "demo.sqlite")
    try:
        key = "python/ledgerlite_0001"
        models = [m.name for m in ws.models()]
        predictions = {m: p for m in models if (p := ws.predictions(m, [key]).get(key)) is not None}
        yield build_overlay(ws.instance(key), predictions, None, MODES), models
    finally:
        ws.close()


def test_hiding_classes_or_switching_modes_never_moves_a_node(demo_overlay):
    overlay, models = demo_overlay
    assert len(models) >= 2
    shown = picture_for(overlay, "model", models[0])
    assert {"TP", "FP", "FN"} <= set(shown.edges.values())
    for hidden in (["FP"], ["TP", "FN"], view_mode("model").classes):
        other = picture_for(overlay, "model", models[0], hidden=hidden)
        assert not set(other.edges.values()) & set(hidden)
        assert np.array_equal(other.layout.positions, shown.layout.positions)
    for mode in ("compare", "truth", "trace"):
        other = picture_for(overlay, mode, models[0], models[1])
        assert other.layout.nodes == shown.layout.nodes
        assert np.array_equal(other.layout.positions, shown.layout.positions)
    fresh = layered_layout(overlay.nodes, [e.edge for e in overlay.edges])
    assert np.array_equal(fresh.positions, shown.layout.positions)  # the union, nothing else
