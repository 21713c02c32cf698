"""The graph view: a fixed layout of the union of all edge sources, edges by class, filters,
selection both ways, level-of-detail labels and exports."""
import json
import xml.etree.ElementTree as ET

import networkx as nx
import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest

from core.report.graph_layout import NODE_GAP, layered_layout
from core.report.overlay import SHOWN_EDGE_LIMIT, classify_edges
from core.report.palette import EDGE_STYLES
from core.report.view_modes import CORRECT_CLASSES, VIEW_MODES, view_mode
from tests.bench.bench_graph_view import MODELS, synthetic_overlay
from traceeval_gui.graph.graph_view import LABEL_LIMIT, GraphPanel
from traceeval_gui.item_models.graph_scene import CURVE_POINTS, ROUTE_THROUGH, EdgeGeometry

KNOWN = "python/calcpad_0001"
JAVA = "java/ledgerj_0001"
WEAK, STRONG = "illustrative-weak", "illustrative-strong"


@pytest.fixture
def panel(state, qtbot):
    panel = GraphPanel(state)
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def _show(state, key=KNOWN, model=WEAK, compare=STRONG):
    state.select_model(model)
    state.select_compare_model(compare)
    state.select_instance(key)
    assert state.instance_key == key


def _show_whole(panel, overlay, groups):
    """Show a big synthetic program, then every node of it (it opens on a neighbourhood): the Show all button."""
    panel.show_overlay(overlay, groups)
    if not panel.show_all:
        assert panel.show_all_button.isVisible()
        panel.show_all_button.click()
    assert len(panel.picture.layout.nodes) == len(overlay.shown().nodes)


def _positions(panel):
    return {name: panel.node_position(name) for name in panel.picture.layout.nodes}


def _screen_point(panel, x, y) -> QPoint:
    """Where graph point (x, y) is in the plot's viewport."""
    return panel.plot.mapFromScene(panel.view.mapViewToScene(QPointF(x, y)))


def _ink_box(image: QImage) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the non-white pixels."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine() // 4, 4)
    ink = np.argwhere((pixels[:, :image.width(), :3] < 235).any(axis=2))
    (top, left), (bottom, right) = ink.min(axis=0), ink.max(axis=0)
    return int(left), int(top), int(right), int(bottom)


def _ego(edges, centres, hops):
    graph = nx.Graph()
    graph.add_edges_from(edges)
    graph.add_nodes_from(centres)
    return set().union(*(nx.ego_graph(graph, c, radius=hops).nodes for c in centres))


def test_without_a_dataset_the_panel_says_what_to_do(state, panel):
    assert panel.picture is None and panel.stack.currentWidget() is panel.placeholder
    assert "Open a dataset" in panel.placeholder.text()


def test_without_a_program_the_panel_says_what_to_do(window, state, panel):
    _show(state)
    assert panel.stack.currentIndex() == 1
    state.select_instance(None)
    assert panel.picture is None and panel.stack.currentWidget() is panel.placeholder
    assert "Select a program" in panel.placeholder.text()
    assert panel.visible_nodes() == set() and panel.drawn_edges() == {} and panel.label_nodes() == []


def test_the_layout_is_the_union_of_all_sources_laid_out_once(window, state, panel):
    _show(state)
    detail = state.detail()
    overlay = detail.overlay
    groups = {n: (p.file if (p := detail.place(n)) is not None else "") for n in overlay.nodes}
    expected = layered_layout(overlay.nodes, [e.edge for e in overlay.edges], groups)
    assert panel.picture.layout.nodes == expected.nodes
    np.testing.assert_array_equal(panel.picture.layout.positions, expected.positions)
    for name, (x, y) in _positions(panel).items():  # what the scatter item holds
        assert (x, y) == expected.position(name)
    assert len(panel.nodes_item.data) == len(overlay.nodes)


def test_no_node_moves_when_modes_models_or_classes_change(window, state, panel):
    _show(state)
    layout = panel.picture.layout
    before = _positions(panel)
    for mode in VIEW_MODES:
        state.set_view_mode(mode)
        for name in view_mode(mode).classes:
            state.set_class_shown(name, False)
            assert _positions(panel) == before
            state.set_class_shown(name, True)
        assert panel.picture.layout is layout  # never laid out again
        assert _positions(panel) == before
    state.set_view_mode("compare")
    state.select_model(STRONG)
    state.select_compare_model(WEAK)
    assert panel.picture.layout is layout and _positions(panel) == before
    panel.errors_check.setChecked(True)
    state.select_node("main.evaluate")
    panel.hops_spin.setValue(1)
    assert panel.picture.layout is layout and _positions(panel) == before


@pytest.mark.parametrize("mode", ["model", "compare", "truth"])
def test_drawn_edges_per_class_are_the_overlay_classification(window, state, panel, mode):
    _show(state)
    state.set_view_mode(mode)
    expected = classify_edges(state.detail().overlay, mode, WEAK, STRONG)
    assert panel.mode == mode and panel.drawn_edges() == expected
    layout = panel.picture.layout
    geometry = EdgeGeometry.build(layout, [e.edge for e in state.detail().overlay.edges])
    routed = {geometry.edges[i] for i in geometry.routes.ids.tolist()}

    def segments_of(edge):
        if edge in routed:
            return int(np.sum(geometry.routes.owner == geometry.index[edge]))
        return CURVE_POINTS - 1 if geometry.curved[geometry.index[edge]] else 1

    for name in view_mode(mode).classes:
        edges = [e for e, c in expected.items() if c == name]
        segments = sum(segments_of(e) for e in edges)
        assert len(panel.edge_items[name].starts) == segments, name
        button = panel.class_buttons[name]
        assert button.text() == f"{EDGE_STYLES[name].label} {len(edges)}"
    assert set(panel.class_buttons) == set(view_mode(mode).classes)
    assert dict(panel.picture.edges) == expected


def test_trace_mode_classes_edges_against_the_trace(state, panel):
    overlay, groups = synthetic_overlay(120, 300, seed=3)
    state.select_model(MODELS[0])
    state.set_view_mode("trace")
    _show_whole(panel, overlay, groups)
    assert panel.mode == "trace"
    assert panel.drawn_edges() == classify_edges(overlay, "trace")
    assert set(panel.drawn_edges().values()) == set(view_mode("trace").classes)


def test_a_mode_without_its_inputs_falls_back_to_the_truth_and_says_so(window, state, panel):
    _show(state, key="python/ledgerlite_0002")  # no answer from the weak model
    assert panel.mode == "truth" and not panel.banner.isHidden()
    assert panel.banner.text() == f"Showing the ground truth: {WEAK} has no result for this program."
    assert set(panel.drawn_edges().values()) == {"truth"}
    state.select_instance(KNOWN)
    state.set_view_mode("trace")  # the demo workspace has no trace runs
    assert panel.mode == "truth" and "no trace run is stored for this program" in panel.banner.text()
    state.set_view_mode("model")
    assert panel.mode == "model" and panel.banner.isHidden()


def test_class_chips_hide_and_show_a_class(window, state, panel):
    _show(state)
    panel.class_buttons["FP"].click()
    assert "FP" in state.hidden_classes
    assert "FP" not in panel.drawn_edges().values() and len(panel.edge_items["FP"].starts) == 0
    assert {"TP", "FN"} <= set(panel.drawn_edges().values())
    assert "FP" in panel.picture.hidden
    state.set_class_shown("FP", True)  # from elsewhere (keyboard)
    assert panel.class_buttons["FP"].isChecked()
    assert "FP" in panel.drawn_edges().values()


def test_the_mode_combo_follows_and_sets_the_state(window, state, panel):
    _show(state)
    state.set_view_mode("compare")
    assert panel.mode_combo.currentData() == "compare"
    assert panel.models_label.text() == f"A: {WEAK} · B: {STRONG}"
    panel.mode_combo.setCurrentIndex(panel.mode_combo.findData("truth"))
    assert state.view_mode == "truth" and panel.mode == "truth"


def test_errors_only_leaves_the_error_classes(window, state, panel):
    _show(state)
    for mode in ("model", "compare"):
        state.set_view_mode(mode)
        panel.errors_check.setChecked(True)
        classes = classify_edges(state.detail().overlay, mode, WEAK, STRONG)
        errors = {e: c for e, c in classes.items() if c not in CORRECT_CLASSES}
        assert errors and panel.drawn_edges() == errors
        assert panel.visible_nodes() == {n for edge in errors for n in edge}
        panel.errors_check.setChecked(False)
        assert panel.drawn_edges() == classes
        assert panel.visible_nodes() == set(panel.picture.layout.nodes)


@pytest.mark.parametrize("hops", [1, 2])
def test_hops_show_the_undirected_neighbourhood_of_the_selected_node(window, state, panel, hops):
    _show(state)
    classes = classify_edges(state.detail().overlay, "model", WEAK)
    centre = "main.Parser.parse_expr"
    state.select_node(centre)
    panel.hops_spin.setValue(hops)
    near = _ego(classes, [centre], hops)
    assert panel.visible_nodes() == near
    assert panel.drawn_edges() == {e: c for e, c in classes.items() if e[0] in near and e[1] in near}
    assert len(near) < len(panel.picture.layout.nodes)
    panel.hops_spin.setValue(0)
    assert panel.visible_nodes() == set(panel.picture.layout.nodes)


def test_hops_around_a_selected_edge_take_both_ends(window, state, panel):
    _show(state)
    classes = classify_edges(state.detail().overlay, "model", WEAK)
    panel.hops_spin.setValue(1)
    state.select_edge_named("main.evaluate_all", "main.evaluate")
    assert panel.visible_nodes() == _ego(classes, ["main.evaluate_all", "main.evaluate"], 1)
    state.select_node("main.tokenize")  # the latest selection is the centre
    assert panel.visible_nodes() == _ego(classes, ["main.tokenize"], 1)


def test_clicking_a_node_selects_it(window, state, panel, qtbot):
    _show(state)
    name = "main.Parser.parse_term"
    x, y = panel.node_position(name)
    assert panel.node_at((x, y)) == name
    assert panel.node_at((x + NODE_GAP / 2, y + NODE_GAP / 2)) is None
    with qtbot.waitSignal(state.node_selected) as blocker:
        QTest.mouseClick(panel.plot.viewport(), Qt.MouseButton.LeftButton, pos=_screen_point(panel, x, y))
    assert blocker.args == [name] and state.node == name
    assert len(panel.node_halo.data) == 1
    assert (panel.node_halo.data["x"][0], panel.node_halo.data["y"][0]) == (x, y)
    assert name in panel.label_nodes() and panel.picture.layout.index(name) in panel.labels.emphasised


def test_clicking_an_edge_selects_it(window, state, panel, qtbot):
    _show(state)
    layout = panel.picture.layout
    for edge in sorted(panel.drawn_edges()):
        (x1, y1), (x2, y2) = layout.position(edge[0]), layout.position(edge[1])
        middle = ((x1 + x2) / 2, (y1 + y2) / 2)
        if x2 > x1 and panel.edge_at(middle) == edge and panel.node_at(middle) is None:
            break
    else:
        pytest.fail("no edge can be clicked at its middle")
    with qtbot.waitSignal(state.edge_selected) as blocker:
        QTest.mouseClick(panel.plot.viewport(), Qt.MouseButton.LeftButton, pos=_screen_point(panel, *middle))
    selected = blocker.args[0]
    assert (selected.caller, selected.callee) == edge
    assert selected.kind == panel.drawn_edges()[edge]  # model mode: TP / FP / FN of model A
    assert len(panel.edge_halo.starts) >= 1
    assert panel.edge_at((middle[0], middle[1] + NODE_GAP * 5)) != edge


def test_a_routed_edge_is_drawn_and_hit_along_its_route(window, state, panel, qtbot):
    _show(state)
    layout = panel.picture.layout
    drawn = panel.drawn_edges()
    routed = sorted(e for e in drawn if e in layout.routes and (e[1], e[0]) not in drawn)
    edge = max(routed, key=lambda e: (len(layout.routes[e]), e))
    route = layout.routes[edge]
    assert len(route) >= 2, "calcpad has edges spanning three layers or more"
    runs = np.concatenate([[p - (ROUTE_THROUGH, 0), p + (ROUTE_THROUGH, 0)] for p in route])  # level, clear of nodes
    points = np.concatenate([[layout.position(edge[0])], runs, [layout.position(edge[1])]])
    item = panel.edge_items[drawn[edge]]
    drawn_points = {tuple(p) for p in np.concatenate([item.starts, item.ends]).tolist()}
    assert {tuple(p) for p in points.tolist()} <= drawn_points
    on_middle = route[len(route) // 2]  # on a level run that does not touch either end
    panel.view.setRange(QRectF(on_middle[0] - 200, on_middle[1] - 150, 400, 300), padding=0.0)
    assert panel.edge_at(tuple(on_middle)) == edge
    with qtbot.waitSignal(state.edge_selected) as blocker:
        QTest.mouseClick(panel.plot.viewport(), Qt.MouseButton.LeftButton, pos=_screen_point(panel, *on_middle))
    assert (blocker.args[0].caller, blocker.args[0].callee) == edge
    halo = {tuple(p) for p in np.concatenate([panel.edge_halo.starts, panel.edge_halo.ends]).tolist()}
    assert halo == drawn_points & halo and {tuple(p) for p in points.tolist()} <= halo


def test_hover_text_names_the_node_or_edge(window, state, panel):
    _show(state)
    x, y = panel.node_position("main.tokenize")
    text = panel.tooltip_at((x, y))
    assert "main.tokenize" in text and "main.py, line" in text and "called by" in text
    edge = next(e for e, c in panel.drawn_edges().items() if c == "FP")
    (x1, y1), (x2, y2) = panel.node_position(edge[0]), panel.node_position(edge[1])
    found = panel.edge_at(((x1 + x2) / 2, (y1 + y2) / 2))
    text = panel.tooltip_at(((x1 + x2) / 2, (y1 + y2) / 2))
    assert found is not None and found[0] in text and found[1] in text
    assert "predicted by:" in text and "traced: no trace run" in text
    assert panel.tooltip_at((x1, y1 - NODE_GAP * 40)) == ""


def test_a_selection_made_elsewhere_is_highlighted_and_scrolled_into_view(window, state, panel):
    _show(state)
    layout = panel.picture.layout
    panel.view.setRange(QRectF(-5000, -5000, 900, 600), padding=0)
    far = panel.view.viewRect()
    state.select_edge_named("main.Parser.parse_factor", "main.Parser.advance")
    view = panel.view.viewRect()
    for name in ("main.Parser.parse_factor", "main.Parser.advance"):
        assert view.contains(QPointF(*layout.position(name)))
    assert abs(view.width() - far.width()) < 1e-6 and abs(view.height() - far.height()) < 1e-6  # panned only
    assert len(panel.edge_halo.starts) == 1
    state.select_node("main.main")
    assert panel.view.viewRect().contains(QPointF(*layout.position("main.main")))
    panel.view.setRange(QRectF(-5000, -5000, 90, 60), padding=0)  # too close for the edge to fit: zoom out
    state.select_edge_named("main.main", "main.evaluate_all")
    view = panel.view.viewRect()
    assert view.width() > 90 and all(view.contains(QPointF(*layout.position(n)))
                                     for n in ("main.main", "main.evaluate_all"))


def test_fit_and_the_f_key_show_the_whole_graph(window, state, panel, qtbot):
    _show(state)
    positions = panel.picture.layout.positions
    panel.view.setRange(QRectF(0, 0, 50, 50), padding=0)
    panel.plot.setFocus()
    panel.activateWindow()
    qtbot.waitUntil(panel.plot.hasFocus)
    QTest.keyClick(panel.plot, Qt.Key.Key_F)
    view = panel.view.viewRect()
    assert all(view.contains(QPointF(x, y)) for x, y in positions)


def test_labels_are_shown_zoomed_in_and_limited_zoomed_out(window, state, panel):
    _show(state)
    state.select_edge(None)  # the edge table selects its first row; labels of a selection always show
    state.select_node(None)
    labels = panel.label_nodes()
    assert 0 < len(labels) <= LABEL_LIMIT and set(labels) <= set(panel.picture.layout.nodes)
    panel.grab()  # paints: the item labels what the view reports
    assert {panel.picture.layout.nodes[i] for i in panel.labels.last_drawn} == set(labels)
    centre = panel.view.viewRect().center()
    panel.view.setRange(QRectF(centre.x() - 20000, centre.y() - 20000, 40000, 40000), padding=0)
    assert panel.label_nodes() == []  # far out: nothing is readable
    state.select_node("main.evaluate")
    assert panel.label_nodes() == ["main.evaluate"]  # ... but the selection keeps its name


def test_labels_at_two_thousand_nodes_stay_few_and_in_view(state, panel):
    overlay, groups = synthetic_overlay(2000, SHOWN_EDGE_LIMIT, files=20, seed=7)  # the most the view draws
    state.select_model(MODELS[0])
    _show_whole(panel, overlay, groups)
    assert panel.label_nodes() == []  # the whole graph: too dense to label
    x, y = panel.node_position(overlay.nodes[1000])
    panel.view.setRange(QRectF(x - 600, y - 400, 1200, 800), padding=0)
    labels = panel.label_nodes()
    view = panel.view.viewRect()
    assert 0 < len(labels) <= LABEL_LIMIT
    assert all(view.adjusted(-300, -60, 300, 60).contains(QPointF(*panel.node_position(n))) for n in labels)
    panel.grab()  # the label item paints exactly these (it follows the view as it moves)
    assert {overlay.nodes[i] for i in panel.labels.last_drawn} == set(labels)
    panel.view.translateBy(x=500)
    panel.grab()
    assert {overlay.nodes[i] for i in panel.labels.last_drawn} == set(panel.label_nodes()) != set(labels)
    panel.view.setRange(QRectF(x - 6000, y - 4000, 12000, 8000), padding=0)
    assert len(panel.label_nodes()) <= LABEL_LIMIT


def test_two_thousand_nodes_render(state, panel):
    overlay, groups = synthetic_overlay(2000, SHOWN_EDGE_LIMIT, files=20, seed=7)  # the most the view draws
    state.select_model(MODELS[0])
    state.select_compare_model(MODELS[1])
    state.set_view_mode("compare")
    _show_whole(panel, overlay, groups)
    assert len(panel.nodes_item.data) == 2000
    assert panel.drawn_edges() == classify_edges(overlay, "compare", *MODELS)
    image = panel.plot.grab().toImage()
    assert not image.isNull()
    colours = {image.pixelColor(x, y).name() for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colours) > 5  # edges and nodes were drawn, not a blank canvas
    panel.errors_check.setChecked(True)
    assert set(panel.drawn_edges().values()) <= {"only_a_right", "only_b_right", "both_wrong"}
    assert panel.omitted.isHidden()


def test_beyond_the_bound_the_view_draws_the_shown_part_and_counts_every_edge(state, panel):
    overlay, groups = synthetic_overlay(2000, 6000, files=20, seed=7)
    shown = overlay.shown()
    state.select_model(MODELS[0])
    state.select_compare_model(MODELS[1])
    for mode in ("model", "compare", "trace"):
        state.set_view_mode(mode)
        _show_whole(panel, overlay, groups)
        assert panel.drawn_edges() == classify_edges(overlay, mode, *MODELS, shown.edges)
        assert len(panel.drawn_edges()) <= SHOWN_EDGE_LIMIT and len(panel.nodes_item.data) == len(shown.nodes)
        every = classify_edges(overlay, mode, *MODELS)
        assert all(overlay.edge(*e).truth or overlay.edge(*e).traced for e in panel.drawn_edges())  # theirs first
        for name, button in panel.class_buttons.items():  # the chips count every edge, drawn or not
            assert button.text() == f"{EDGE_STYLES[name].label} {sum(c == name for c in every.values()):,}"
    assert not panel.omitted.isHidden() and shown.summary() in panel.omitted.text()
    assert shown.summary() in panel.picture.title and panel.picture.omitted_edges == 6000 - len(shown.edges)


def test_exports_write_the_picture_as_drawn(window, state, panel, tmp_path):
    _show(state)
    panel.errors_check.setChecked(True)
    svg = panel.export(tmp_path / "graph.svg")
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    data = json.loads(panel.export(tmp_path / "graph.json").read_text())
    assert {(e["caller"], e["callee"]): e["class"] for e in data["edges"]} == panel.drawn_edges()
    assert {n["name"] for n in data["nodes"]} == panel.visible_nodes()
    for n in data["nodes"]:
        assert (n["x"], n["y"]) == panel.node_position(n["name"])
    dot = panel.export(tmp_path / "graph.dot").read_text()
    assert dot.startswith("//") and "digraph" in dot
    graphml = ET.parse(panel.export(tmp_path / "graph.graphml", "graphml")).getroot()
    assert graphml.tag.endswith("graphml")
    png = panel.export_png(tmp_path / "graph.png")
    image = QImage(str(png))
    viewport = panel.plot.viewport()
    assert image.width() == 2 * viewport.width() and image.height() == 2 * viewport.height()
    # the same picture as on screen, twice as sharp: what is drawn covers the same part of the frame
    exported, shown = _ink_box(image), _ink_box(viewport.grab().toImage())
    assert np.abs(np.array(exported) / 2 - np.array(shown)).max() < 8, (exported, shown)
    with pytest.raises(ValueError, match="unknown graph export format"):
        panel.export(tmp_path / "graph.gif")
