"""Graph pictures of real demo overlays and their DOT / GraphML / JSON / SVG exports."""
import json
import re
import xml.etree.ElementTree as ET

import networkx as nx
import pytest

from core.dataset.indexing import open_dataset
from core.records import CallGraph, Instance, Prediction
from core.report.graph_export import (
    NODE_W,
    SVG_DASHES,
    UNPLACED_LABEL,
    GraphPicture,
    file_colours,
    picture_for,
    short_label,
    to_dot,
    to_graphml,
    to_json,
    to_svg,
)
from core.report.overlay import build_overlay
from core.report.palette import EDGE_STYLES, FILE_COLOURS, UNPLACED_COLOUR
from core.scoring.normalise import MODES
from core.symbols import extract_symbols
from core.traces import EdgeEvidence, TraceRun
from resources import DEMO_DATASET

SVG = "{http://www.w3.org/2000/svg}"
WEIRD = ['main.say "hi"', "main.<lambda1>", "main.Ünïcødé.日本", "main.a&b<c>", "main.back\\slash", "main.it's"]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """(workspace, model names) over the demo dataset with its illustrative results."""
    ws, _ = open_dataset(DEMO_DATASET, tmp_path_factory.mktemp("ws") / "demo.sqlite")
    yield ws, [m.name for m in ws.models()]
    ws.close()


def overlay_and_groups(ws, key, trace=None):
    instance = ws.instance(key)
    predictions = {}
    for model in (m.name for m in ws.models()):
        prediction = ws.predictions(model, [key]).get(key)
        if prediction is not None:
            predictions[model] = prediction
    overlay = build_overlay(instance, predictions, trace, MODES)
    table = extract_symbols(instance.language, {f: instance.read_source(f) for f in instance.files})
    groups = {name: node.file for name in overlay.nodes if (node := table.place(name)) is not None}
    return overlay, groups


@pytest.fixture(scope="module")
def pictures(demo):
    """One picture per language and mode flavour, all from real demo instances."""
    ws, models = demo
    out = {}
    for key in ("python/ledgerlite_0001", "java/exprtree_0001", "javascript/eventide_0001"):
        overlay, groups = overlay_and_groups(ws, key)
        out[(key, "model")] = picture_for(overlay, "model", models[1], groups=groups)
        out[(key, "compare")] = picture_for(overlay, "compare", models[0], models[1], groups=groups)
    return out


def weird_picture(hidden=()) -> GraphPicture:
    """Names with quotes, angle brackets, ampersands, backslashes and non-ASCII letters."""
    a, b, c, d, e, f = WEIRD
    truth = CallGraph.from_edges([(a, b), (b, c), (c, d), (d, a), (e, f)], keys=WEIRD)
    instance = Instance("odd_0001", "python", DEMO_DATASET, ("main.py",), "main.py", truth)
    guess = Prediction("odd_0001", 'model "q"<&>', "python", CallGraph.from_edges([(a, b), (a, f), (f, f)]))
    overlay = build_overlay(instance, {guess.model: guess})
    groups = {a: 'dir/"quoted" <file>.py', b: 'dir/"quoted" <file>.py', c: "ünï.py", e: "ünï.py"}
    return picture_for(overlay, "model", guess.model, groups=groups, hidden=hidden, title='odd "title" <&>')


# -- the picture --------------------------------------------------------------------------------------
def test_picture_draws_the_mode_classes_and_groups_every_node(pictures):
    for (key, mode), picture in pictures.items():
        assert set(picture.groups) == set(picture.overlay.nodes) == set(picture.layout.nodes)
        assert set(picture.edges) <= {e.edge for e in picture.overlay.edges}
        expected = {"model": {"TP", "FP", "FN"}, "compare": {"both_right", "only_a_right", "only_b_right",
                                                             "both_wrong"}}[mode]
        assert set(picture.edges.values()) <= expected and len(set(picture.edges.values())) >= 2, key
        assert key.split("/")[1] in picture.title
    python = pictures[("python/ledgerlite_0001", "model")]
    assert {"main.py", ""} <= set(python.groups.values())


def test_file_colours_cycle_in_order_of_first_appearance(pictures):
    picture = pictures[("java/exprtree_0001", "model")]
    colours = file_colours(picture)
    first_seen = list(dict.fromkeys(picture.groups[n] for n in picture.layout.nodes))
    assert list(colours) == first_seen
    placed = [g for g in first_seen if g]
    assert [colours[g] for g in placed] == [FILE_COLOURS[i % len(FILE_COLOURS)] for i in range(len(placed))]
    assert colours.get("", UNPLACED_COLOUR) == UNPLACED_COLOUR


def test_short_labels_keep_the_last_segments_that_fit():
    assert short_label("ledger.accounts.Account.deposit", 27) == "accounts.Account.deposit"
    assert short_label("ledger.accounts.Account.deposit", 12) == "deposit"
    assert short_label("com.demo.bank.Ledger:open(com.demo.bank.Account)", 27) == "bank.Ledger:open(Account)"
    assert short_label("Main:main(java.lang.String[])", 27) == "Main:main(String[])"
    assert short_label("Env:<init>()", 27) == "Env:<init>()"
    label = short_label("main.an_extremely_long_function_name_indeed", 20)
    assert len(label) == 20 and label.endswith("…") and label.startswith("an_extremely")


# -- DOT --------------------------------------------------------------------------------------------
QUOTED = r'"((?:[^"\\]|\\.)*)"'


def unquote(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), text)


def dot_attrs(text: str) -> dict[str, str]:
    return {k: unquote(q) if q is not None and v == "" else v
            for k, q, v in ((m.group(1), m.group(2), m.group(3) or "")
                            for m in re.finditer(rf'(\w+)=(?:{QUOTED}|([^,\]\s]+))', text))}


def parse_dot(text: str):
    """A small reader for the subset of DOT we write: clusters, node and edge statements."""
    clusters, nodes, edges = {}, {}, []
    cluster = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//") or not stripped:
            continue
        if m := re.fullmatch(r"subgraph (cluster_\d+) \{", stripped):
            cluster = m.group(1)
            clusters[cluster] = {"label": None, "nodes": []}
        elif stripped == "}":
            cluster = None
        elif cluster and (m := re.fullmatch(rf"label={QUOTED};", stripped)):
            clusters[cluster]["label"] = unquote(m.group(1))
        elif m := re.fullmatch(rf"{QUOTED} -> {QUOTED} \[(.*)\];", stripped):
            edges.append((unquote(m.group(1)), unquote(m.group(2)), dot_attrs(m.group(3))))
        elif m := re.fullmatch(rf"{QUOTED} \[(.*)\];", stripped):
            name = unquote(m.group(1))
            nodes[name] = dot_attrs(m.group(2))
            if cluster:
                clusters[cluster]["nodes"].append(name)
    return clusters, nodes, edges


def test_dot_has_every_drawn_edge_once_with_its_style_and_a_cluster_per_file(pictures):
    for picture in pictures.values():
        text = to_dot(picture)
        assert text.count("digraph") == 1 and "rankdir=LR" in text and text.count("{") == text.count("}")
        clusters, nodes, edges = parse_dot(text)
        assert set(nodes) == set(picture.layout.nodes)
        assert len(edges) == len(picture.edges)
        assert {(a, b): attrs["class"] for a, b, attrs in edges} == dict(picture.edges)
        for _, _, attrs in edges:
            style = EDGE_STYLES[attrs["class"]]
            assert attrs["color"] == style.colour
            assert attrs["style"] == {"solid": "solid", "dash": "dashed", "dot": "dotted", "dashdot": "dashed,bold"}[
                style.dash]
        files = {g for g in picture.groups.values() if g}
        assert sorted(c["label"] for c in clusters.values()) == sorted(files)
        for cluster in clusters.values():
            assert {picture.groups[n] for n in cluster["nodes"]} == {cluster["label"]}
        clustered = {n for c in clusters.values() for n in c["nodes"]}
        assert clustered == {n for n, g in picture.groups.items() if g}
        colours = file_colours(picture)
        assert all(nodes[n]["fillcolor"] == colours[picture.groups[n]] for n in nodes)
        for cls in set(picture.edges.values()):
            assert f"//   {cls}: {EDGE_STYLES[cls].label}" in text  # the legend


# -- GraphML and JSON -----------------------------------------------------------------------------
def test_graphml_round_trips_with_every_attribute(pictures, tmp_path):
    for picture in pictures.values():
        path = tmp_path / "g.graphml"
        path.write_text(to_graphml(picture), encoding="utf-8")
        graph = nx.read_graphml(path)
        assert set(graph.nodes) == set(picture.layout.nodes)
        assert set(graph.edges) == set(picture.edges)
        for name, data in graph.nodes(data=True):
            assert data["file"] == picture.groups[name]
            assert (data["x"], data["y"]) == picture.layout.position(name)
            assert data["layer"] == picture.layout.layers[picture.layout.index(name)]
        for caller, callee, data in graph.edges(data=True):
            item = picture.overlay.edge(caller, callee)
            assert data["class"] == picture.edges[(caller, callee)]
            assert data["truth"] is item.truth and data["traced"] is item.traced
            assert set(filter(None, data["models"].split(","))) == set(item.models)
        assert graph.graph["mode"] == picture.mode and graph.graph["title"] == picture.title


def test_json_round_trips_and_matches_the_picture(pictures):
    for picture in pictures.values():
        text = to_json(picture)
        data = json.loads(text)
        assert list(data)[:4] == ["schema", "version", "title", "mode"] and text == to_json(picture)
        assert data["schema"] == "traceeval.graph"
        assert [n["name"] for n in data["nodes"]] == list(picture.layout.nodes)
        for node in data["nodes"]:
            assert (node["x"], node["y"]) == picture.layout.position(node["name"])
            assert node["file"] == picture.groups[node["name"]]
        assert {(e["caller"], e["callee"]): e["class"] for e in data["edges"]} == dict(picture.edges)
        for edge in data["edges"]:
            item = picture.overlay.edge(edge["caller"], edge["callee"])
            assert (edge["truth"], set(edge["models"]), edge["traced"]) == (item.truth, set(item.models), item.traced)
        drawn = set(picture.edges.values())
        assert set(data["classes"]) == drawn
        for cls, style in data["classes"].items():
            assert style["colour"] == EDGE_STYLES[cls].colour and style["dash"] == EDGE_STYLES[cls].dash
            assert style["count"] == sum(1 for c in picture.edges.values() if c == cls)


# -- SVG --------------------------------------------------------------------------------------------
def node_boxes(root):
    out = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "node":
            rect = group.find(f"{SVG}rect")
            name = group.find(f"{SVG}title").text.split("\n")[0]
            out[name] = tuple(float(rect.get(k)) for k in ("x", "y", "width", "height")) + (rect.get("fill"),)
    return out


def edge_paths(root):
    return [p for p in root.iter(f"{SVG}path") if (p.get("class") or "").startswith("edge ")]


def test_svg_is_valid_standalone_and_draws_one_styled_path_per_edge(pictures):
    for picture in pictures.values():
        text = to_svg(picture)
        root = ET.fromstring(text.encode("utf-8"))
        assert root.tag == f"{SVG}svg"
        assert "href" not in text and "<image" not in text and "http" not in text.replace(
            "http://www.w3.org/2000/svg", "")
        paths = edge_paths(root)
        assert len(paths) == len(picture.edges)
        markers = {m.get("id") for m in root.iter(f"{SVG}marker")}
        by_edge = {}
        for path in paths:
            cls = path.get("class").split()[1]
            style = EDGE_STYLES[cls]
            assert path.get("stroke") == style.colour
            assert path.get("stroke-dasharray") == SVG_DASHES[style.dash]
            assert path.get("marker-end") == f"url(#arrow-{cls})" and f"arrow-{cls}" in markers
            caller, callee = path.find(f"{SVG}title").text.rsplit(":", 1)[0].split(" \u2192 ")
            by_edge[(caller, callee)] = cls
        assert by_edge == dict(picture.edges)
        boxes = node_boxes(root)
        assert set(boxes) == set(picture.layout.nodes)
        colours = file_colours(picture)
        assert all(boxes[n][4] == colours[picture.groups[n]] for n in boxes)
        legend = "".join(t.text or "" for t in root.iter(f"{SVG}text"))
        for cls in set(picture.edges.values()):
            count = sum(1 for c in picture.edges.values() if c == cls)
            assert f"{EDGE_STYLES[cls].label} ({count})" in legend
        for group in colours:
            assert (group or UNPLACED_LABEL) in legend


def test_svg_arrows_end_outside_the_boxes_and_back_edges_curve(pictures):
    numbers = re.compile(r"-?\d+(?:\.\d+)?")
    seen_back = seen_loop = False
    for picture in pictures.values():
        root = ET.fromstring(to_svg(picture))
        boxes = node_boxes(root)
        for path in edge_paths(root):
            caller, callee = path.find(f"{SVG}title").text.rsplit(":", 1)[0].split(" \u2192 ")
            values = [float(v) for v in numbers.findall(path.get("d"))]
            (sx, sy), (ex, ey) = values[:2], values[-2:]
            cx, cy, cw, ch, _ = boxes[caller]
            tx, ty, tw, th, _ = boxes[callee]
            inside_callee = tx < ex < tx + tw and ty < ey < ty + th
            assert not inside_callee, (caller, callee)  # the arrowhead is not hidden under the box
            if caller == callee:
                seen_loop = True
                assert "C" in path.get("d") and ey < ty + 1
            elif cx < tx:
                assert sx == pytest.approx(cx + cw) and cy <= sy <= cy + ch
                assert tx - 3 <= ex <= tx and ty <= ey <= ty + th
                assert values[3] == pytest.approx(sy) and values[-3] == pytest.approx(ey)  # leaves and enters level
            else:
                seen_back = True
                assert "C" in path.get("d")
                assert (caller, callee) in picture.layout.reversed_edges
    assert seen_loop and seen_back  # the demo has recursion and mutual calls


def test_json_and_svg_follow_the_routes_of_long_edges(pictures):
    seen_route = False
    for picture in pictures.values():
        routes = picture.layout.routes
        for edge in json.loads(to_json(picture))["edges"]:
            route = routes.get((edge["caller"], edge["callee"]))
            assert edge["route"] == ([] if route is None else route.tolist())
        root = ET.fromstring(to_svg(picture))
        boxes = node_boxes(root)
        for path in edge_paths(root):
            caller, callee = path.find(f"{SVG}title").text.rsplit(":", 1)[0].split(" \u2192 ")
            route = routes.get((caller, callee))
            if route is None or (caller, callee) in picture.layout.reversed_edges:
                continue
            seen_route = True
            runs = re.findall(r"C[^C]*? (-?[\d.]+),(-?[\d.]+) L(-?[\d.]+),(-?[\d.]+)", path.get("d"))
            assert len(runs) == len(route)  # level through every layer between the ends, curves between
            for ax, ay, bx, by in ([float(v) for v in run] for run in runs):
                assert ay == by and bx - ax == pytest.approx(NODE_W, abs=0.1)
                for x, y, _w, h, _ in boxes.values():  # the level run passes no box of its layer
                    assert not (abs(x - ax) < 1 and y <= ay <= y + h)
    assert seen_route


def test_svg_width_scales_the_drawing_not_the_scene(pictures):
    picture = pictures[("python/ledgerlite_0001", "model")]
    natural, scaled = ET.fromstring(to_svg(picture)), ET.fromstring(to_svg(picture, width=600))
    assert natural.get("viewBox") == scaled.get("viewBox")
    assert float(scaled.get("width")) == 600
    ratio = float(natural.get("width")) / float(natural.get("height"))
    assert float(scaled.get("width")) / float(scaled.get("height")) == pytest.approx(ratio, rel=1e-2)


# -- hidden classes, odd names, traces ----------------------------------------------------------------
def test_hidden_classes_leave_every_export_and_no_node_moves(demo):
    ws, models = demo
    overlay, groups = overlay_and_groups(ws, "java/ledgerj_0001")
    full = picture_for(overlay, "model", models[1], groups=groups)
    part = picture_for(overlay, "model", models[1], groups=groups, hidden={"FP", "FN"})
    assert set(full.edges.values()) == {"TP", "FP", "FN"} and set(part.edges.values()) == {"TP"}
    full_json, part_json = json.loads(to_json(full)), json.loads(to_json(part))
    assert full_json["nodes"] == part_json["nodes"]
    assert {e["class"] for e in part_json["edges"]} == {"TP"} and set(part_json["classes"]) == {"TP"}
    _, _, dot_edges = parse_dot(to_dot(part))
    assert {a["class"] for _, _, a in dot_edges} == {"TP"}
    graph = nx.parse_graphml(to_graphml(part))
    assert {d["class"] for _, _, d in graph.edges(data=True)} == {"TP"}
    assert len(graph.nodes) == len(full.layout.nodes)
    svg = ET.fromstring(to_svg(part))
    assert {p.get("class") for p in edge_paths(svg)} == {"edge TP"}
    assert {m.get("id") for m in svg.iter(f"{SVG}marker")} == {"arrow-TP"}
    assert node_boxes(svg) == node_boxes(ET.fromstring(to_svg(full)))


def test_odd_names_survive_every_format():
    picture = weird_picture()
    assert set(picture.layout.nodes) == set(WEIRD)
    clusters, nodes, edges = parse_dot(to_dot(picture))
    assert set(nodes) == set(WEIRD)
    assert {(a, b) for a, b, _ in edges} == set(picture.edges)
    assert {c["label"] for c in clusters.values()} == {'dir/"quoted" <file>.py', "ünï.py"}
    assert 'label="odd \\"title\\" <&>"' in to_dot(picture)
    graph = nx.parse_graphml(to_graphml(picture))
    assert set(graph.nodes) == set(WEIRD) and set(graph.edges) == set(picture.edges)
    assert graph.nodes[WEIRD[0]]["file"] == 'dir/"quoted" <file>.py'
    assert {d["models"] for _, _, d in graph.edges(data=True)} >= {'model "q"<&>'}
    data = json.loads(to_json(picture))
    assert {n["name"] for n in data["nodes"]} == set(WEIRD) and data["title"] == 'odd "title" <&>'
    assert "Ünïcødé" in to_json(picture)  # readable, not \u-escaped
    root = ET.fromstring(to_svg(picture).encode("utf-8"))
    assert set(node_boxes(root)) == set(WEIRD)
    assert root.find(f"{SVG}title").text == 'odd "title" <&>'
    assert any(t.text == "main.a&b<c>" for t in root.iter(f"{SVG}text"))


def test_trace_mode_marks_what_the_latest_trace_saw(demo):
    ws, _ = demo
    instance = ws.instance("python/calcpad_0001")
    truth = sorted(build_overlay(instance, {}, None, MODES).truth_edges())  # normalised names
    assert len(truth) >= 3
    seen = [EdgeEvidence(a, b) for a, b in truth[1:]] + [EdgeEvidence(truth[0][0], "main.surprise")]
    run = TraceRun(instance.key, "python", "python", "1", "2026-01-01T00:00:00Z", 0.1, "ok", "")
    run = TraceRun(**{**run.__dict__, "edges": tuple(seen)})
    overlay, groups = overlay_and_groups(ws, instance.key, trace=run)
    picture = picture_for(overlay, "trace", groups=groups)
    assert "trace" in picture.title
    classes = dict(picture.edges)
    assert classes[(truth[0][0], "main.surprise")] == "trace_only"
    assert classes[truth[0]] == "truth_only"
    assert all(classes[e] == "agrees" for e in truth[1:])
    records = {(e["caller"], e["callee"]): e for e in json.loads(to_json(picture))["edges"]}
    assert records[truth[0]]["traced"] is False and records[truth[1]]["traced"] is True
    without_trace = picture_for(build_overlay(instance, {}, None, MODES), "trace")
    assert set(without_trace.edges.values()) == {"truth"}  # falls back to the ground truth ...
    assert without_trace.title.endswith(": ground truth") and without_trace.mode == "trace"  # ... and says so
