"""The neighbourhood a big program opens on: real nodes near the selection, the rest folded by file."""
from core.report.overlay import classify_edges
from core.report.view_modes import view_mode
from tests.bench.bench_graph_view import MODELS, synthetic_overlay
from traceeval_gui.item_models.graph_focus import CALLEES, CALLERS, default_centre, focus_graph, fold_classes, fold_name
from traceeval_gui.item_models.graph_scene import hop_nodes

EDGES = [("main", "a.run"), ("a.run", "b.step"), ("b.step", "c.leaf"), ("c.leaf", "c.deeper"),
         ("x.caller", "a.run"), ("y.other", "x.caller"), ("a.run", "lib.call")]
GROUPS = {"main": "main.py", "a.run": "a.py", "b.step": "b.py", "c.leaf": "c.py", "c.deeper": "c.py",
          "x.caller": "x.py", "y.other": "y.py"}  # lib.call: not defined in the program
NODES = sorted({n for e in EDGES for n in e})


def test_the_neighbourhood_keeps_nodes_within_the_hops_and_folds_callers_and_callees_by_file():
    focused = focus_graph(NODES, EDGES, GROUPS, ["a.run"], hops=1)
    assert focused.real_nodes == {"a.run", "main", "b.step", "x.caller", "lib.call"}
    assert set(focused.folded) == {fold_name("c.py", CALLEES), fold_name("y.py", CALLERS)}
    assert focused.folded[fold_name("c.py", CALLEES)] == ("c.leaf",)
    assert (fold_name("y.py", CALLERS), "x.caller") in focused.edges  # y.other -> x.caller, folded on the left
    assert ("b.step", fold_name("c.py", CALLEES)) in focused.edges
    assert ("c.leaf", "c.deeper") not in focused.stands_for  # between two folded nodes: left out
    assert focused.groups[fold_name("c.py", CALLEES)] == "c.py" and focused.total_nodes == len(NODES)


def test_fewer_hops_when_two_would_be_too_many_nodes():
    focused = focus_graph(NODES, EDGES, GROUPS, ["a.run"], hops=2, limit=5)
    assert focused.hops == 1 and len(focused.real_nodes) == 5


def test_a_folded_edge_takes_the_worst_class_of_the_calls_it_stands_for():
    edges = [("a", "f1"), ("a", "f2"), ("a", "b")]
    focused = focus_graph(["a", "b", "f1", "f2"], edges, {"a": "a.py", "b": "a.py", "f1": "f.py", "f2": "f.py"},
                          ["b"], hops=1)
    folded = (fold_name("f.py", CALLEES))
    assert focused.stands_for[("a", folded)] == (("a", "f1"), ("a", "f2"))
    classes = {("a", "f1"): "TP", ("a", "f2"): "FN", ("a", "b"): "TP"}
    assert fold_classes(classes, focused, view_mode("model").worst_first) == {("a", folded): "FN", ("a", "b"): "TP"}


def test_every_edge_touching_the_neighbourhood_of_a_200_node_program_is_drawn_once():
    overlay, groups = synthetic_overlay(200, 420, files=8, seed=3)
    edges = [e.edge for e in overlay.edges]
    centre = default_centre(overlay.nodes, edges)
    focused = focus_graph(overlay.nodes, edges, groups, centre)
    near = hop_nodes(edges, centre, focused.hops)
    assert focused.real_nodes == near and len(near) <= 60
    touching = [e for e in edges if e[0] in near or e[1] in near]
    assert sorted(e for real in focused.stands_for.values() for e in real) == sorted(touching)
    classes = classify_edges(overlay, "model", MODELS[0])
    folded = fold_classes(classes, focused, view_mode("model").worst_first)
    assert set(folded) == {e for e, real in focused.stands_for.items() if any(r in classes for r in real)}


def test_a_hub_keeps_its_best_connected_neighbours_defined_in_the_program_and_folds_the_rest():
    made_up = [f"lib.made_up_{i}" for i in range(5000)]
    edges = [("main", "a.run"), ("a.run", "b.step"), *[("main", m) for m in made_up]]
    groups = {"main": "main.py", "a.run": "a.py", "b.step": "b.py"}
    focused = focus_graph(["main", "a.run", "b.step", *made_up], edges, groups, ["main"], limit=60)
    assert len(focused.real_nodes) == 60 and {"main", "a.run"} <= focused.real_nodes
    folded = fold_name("", CALLEES)
    assert len(focused.folded[folded]) == 5000 - 58
    assert len(focused.nodes) < 70
