"""What a graph picture is (layout + drawn edges by class) and its export formats: DOT, GraphML, JSON, SVG.

The layout always covers every node and edge of the overlay, whatever the view mode and hidden
classes, so switching a mode or hiding a class never moves a node in the window or in an export.
"""
from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import networkx as nx
import numpy as np

from core.payloads import json_document
from core.records import Edge
from core.report.graph_layout import GraphLayout, layered_layout
from core.report.graph_routes import route_legs, svg_path
from core.report.overlay import InstanceOverlay, classify_edges
from core.report.palette import EDGE_STYLES, FILE_COLOURS, UNPLACED_COLOUR
from core.report.view_modes import effective_mode, view_mode

UNPLACED_LABEL = "not in the program"  # the legend's name for the "" group
DOT_STYLES = {"solid": "solid", "dash": "dashed", "dot": "dotted", "dashdot": "dashed,bold"}  # Graphviz has no dashdot
SVG_DASHES = {"solid": None, "dash": "7 4", "dot": "2.5 2.5", "dashdot": "9 3 2.5 3"}


@dataclass(frozen=True, eq=False)
class GraphPicture:
    title: str
    mode: str  # one of core.report.view_modes.VIEW_MODES
    layout: GraphLayout  # over ALL nodes and edges of the overlay
    groups: Mapping[str, str]  # node -> file it is defined in; "" when not in the program source
    edges: Mapping[Edge, str]  # drawn edges -> class (a key of EDGE_STYLES), hidden classes removed
    overlay: InstanceOverlay
    model_a: str | None = None
    model_b: str | None = None
    hidden: frozenset[str] = frozenset()
    # edges of the overlay not drawn (over core.report.overlay.SHOWN_EDGE_LIMIT); the title says so
    omitted_edges: int = 0


def picture_for(overlay: InstanceOverlay, mode: str, model_a: str | None = None, model_b: str | None = None,
                groups: Mapping[str, str] | None = None, hidden: Iterable[str] = (), title: str = "") -> GraphPicture:
    """The picture of one view mode; `groups` maps node -> file (missing nodes count as unplaced)."""
    hidden = frozenset(hidden)
    shown = overlay.shown()  # beyond the bound a picture draws a part and says how much it leaves out
    groups = {name: (groups or {}).get(name, "") for name in shown.nodes}
    classes = classify_edges(overlay, mode, model_a, model_b, shown.edges)
    edges = {edge: cls for edge, cls in classes.items() if cls not in hidden}
    layout = _layout(shown.nodes, tuple(e.edge for e in shown.edges), tuple(sorted(groups.items())))
    if not title:
        drawn, _ = effective_mode(mode, model_a, model_b, overlay.models, overlay.trace is not None)
        title = f"{overlay.instance_key}: " + view_mode(drawn).heading.format(a=model_a, b=model_b)
    if shown.summary():
        title = f"{title} ({shown.summary()})"
    return GraphPicture(title, mode, layout, groups, edges, overlay, model_a, model_b, hidden, shown.omitted_edges)


@lru_cache(maxsize=16)
def _layout(nodes: tuple[str, ...], edges: tuple[Edge, ...], groups: tuple[tuple[str, str], ...]) -> GraphLayout:
    """Toggling classes or modes re-uses the same layout object (and costs nothing)."""
    return layered_layout(nodes, edges, dict(groups))


# -- shared by every format (and the window's legend) ---------------------------------------------
def file_colours(picture: GraphPicture) -> dict[str, str]:
    """File -> fill colour, FILE_COLOURS cycled in order of first appearance; "" -> UNPLACED_COLOUR."""
    out: dict[str, str] = {}
    for name in picture.layout.nodes:
        group = picture.groups.get(name, "")
        if group not in out:
            placed = sum(1 for g in out if g)
            out[group] = FILE_COLOURS[placed % len(FILE_COLOURS)] if group else UNPLACED_COLOUR
    return out


def class_counts(picture: GraphPicture) -> dict[str, int]:
    """Drawn classes in palette order with how many edges each has."""
    counts = dict.fromkeys(EDGE_STYLES, 0)
    for cls in picture.edges.values():
        counts[cls] += 1
    return {cls: n for cls, n in counts.items() if n}


def text_colour(fill: str) -> str:
    """Black or white, whichever reads better on `fill` (#rrggbb)."""
    r, g, b = (int(fill[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "#ffffff"


def short_label(name: str, max_chars: int) -> str:
    """The last dotted segments of `name` that fit, parameter types cut to their last segment; if not
    even the last segment fits, it is cut at the end (the full name is in every tooltip)."""
    head, paren, params = name.partition("(")
    if paren:
        inner = params.rsplit(")", 1)[0]
        params = "(" + ",".join(p.strip().rsplit(".", 1)[-1] for p in inner.split(",")) + ")" if inner else "()"
    segments = head.split(".")
    best = segments[-1] + params
    for k in range(2, len(segments) + 1):
        candidate = ".".join(segments[-k:]) + params
        if len(candidate) > max_chars:
            break
        best = candidate
    return best if len(best) <= max_chars else best[:max(max_chars - 1, 1)] + "…"


def _edge_record(picture: GraphPicture, edge: Edge) -> tuple[bool, list[str], bool]:
    item = picture.overlay.edge(*edge)
    if item is None:
        return False, [], False
    return item.truth, [m for m in picture.overlay.models if m in item.models], item.traced


# -- DOT --------------------------------------------------------------------------------------------
def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "") + '"'


def _comment(text: str) -> str:
    return " ".join(text.split())


def to_dot(picture: GraphPicture) -> str:
    """Graphviz DOT: one cluster per file, edges coloured and dashed by class, the legend as comments."""
    colours = file_colours(picture)
    lines = [f"// {_comment(picture.title)}", f"// view mode: {picture.mode}",
             "// legend (class: label, colour, style, edges: meaning):"]
    for cls, count in class_counts(picture).items():
        style = EDGE_STYLES[cls]
        lines.append(f"//   {cls}: {style.label}, {style.colour}, {style.dash}, {count}: {_comment(style.description)}")
    lines += ["digraph traceeval {",
              f"  graph [rankdir=LR, label={_dot_string(picture.title)}, labelloc=t, "
              'fontname="Helvetica", nodesep=0.2];',
              '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
              "  edge [arrowsize=0.7];"]
    members: dict[str, list[str]] = {group: [] for group in colours}
    for name in picture.layout.nodes:
        members[picture.groups.get(name, "")].append(name)

    def node_line(name: str, group: str, indent: str) -> str:
        fill = colours[group]
        where = group or UNPLACED_LABEL
        return (f"{indent}{_dot_string(name)} [label={_dot_string(name)}, tooltip={_dot_string(f'{name} ({where})')}, "
                f"fillcolor=\"{fill}\", fontcolor=\"{text_colour(fill)}\"];")

    for number, group in enumerate(g for g in members if g):
        lines += [f"  subgraph cluster_{number} {{", f"    label={_dot_string(group)};",
                  f'    color="{colours[group]}";']
        lines += [node_line(name, group, "    ") for name in members[group]]
        lines.append("  }")
    lines += [node_line(name, "", "  ") for name in members.get("", [])]
    for (caller, callee), cls in picture.edges.items():
        style = EDGE_STYLES[cls]
        tip = f"{caller} -> {callee}: {style.label}"
        lines.append(f"  {_dot_string(caller)} -> {_dot_string(callee)} [color=\"{style.colour}\", "
                     f"style={_dot_string(DOT_STYLES[style.dash])}, class={_dot_string(cls)}, "
                     f"tooltip={_dot_string(tip)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- GraphML and JSON -----------------------------------------------------------------------------
def to_graphml(picture: GraphPicture) -> str:
    graph: nx.DiGraph[str] = nx.DiGraph(title=picture.title, mode=picture.mode)
    for name in picture.layout.nodes:
        x, y = picture.layout.position(name)
        graph.add_node(name, file=picture.groups.get(name, ""), x=x, y=y, layer=int(picture.layout.layers[
            picture.layout.index(name)]))
    for edge, cls in picture.edges.items():
        truth, models, traced = _edge_record(picture, edge)
        caller, callee = edge
        graph.add_edge(caller, callee, **{"class": cls, "truth": truth, "models": ",".join(models), "traced": traced})
    buffer = io.BytesIO()
    nx.write_graphml(graph, buffer, encoding="utf-8")
    return buffer.getvalue().decode("utf-8")


def to_json(picture: GraphPicture) -> str:
    layout = picture.layout
    nodes = [{"name": name, "file": picture.groups.get(name, ""), "x": float(layout.positions[i, 0]),
              "y": float(layout.positions[i, 1]), "layer": int(layout.layers[i])}
             for i, name in enumerate(layout.nodes)]
    edges = []
    for (caller, callee), cls in picture.edges.items():
        truth, models, traced = _edge_record(picture, (caller, callee))
        route = layout.routes.get((caller, callee))
        edges.append({"caller": caller, "callee": callee, "class": cls, "truth": truth, "models": models,
                      "traced": traced, "route": [] if route is None else route.tolist()})
    classes = {cls: {**EDGE_STYLES[cls]._asdict(), "count": count} for cls, count in class_counts(picture).items()}
    data = {"title": picture.title, "mode": picture.mode, "model_a": picture.model_a, "model_b": picture.model_b,
            "hidden": sorted(picture.hidden), "omitted_edges": picture.omitted_edges, "nodes": nodes, "edges": edges,
            "classes": classes}
    return json_document("graph", data)


# -- SVG --------------------------------------------------------------------------------------------
NODE_W, NODE_H = 184.0, 26.0  # scene units; LAYER_GAP leaves room for arrows between layers
FONT = "Helvetica, Arial, sans-serif"
CHAR_W = 6.3  # rough advance of an 11px sans-serif character, for fitting node labels
LEGEND_CHAR_W = 7.2  # ... and of a 12px one, generous so legend items never run into each other
MARGIN = 24.0
LOOP_ROOM = 24.0  # above the top row, for self-loops


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: object) -> ET.Element:
    element = ET.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): str(v) for k, v in attrs.items()
                                          if v is not None})
    if text is not None:
        element.text = text
    return element


def to_svg(picture: GraphPicture, width: int | None = None) -> str:
    """A standalone SVG: title, legend (classes with counts, files), nodes by file colour, edges by class."""
    layout = picture.layout
    colours = file_colours(picture)
    counts = class_counts(picture)
    ys = np.concatenate([layout.positions[:, 1], *(layout.routes[e][:,
                                                                    1] for e in picture.edges if e in layout.routes)])
    top, graph_h = (float(ys.min()), float(np.ptp(ys))) if len(ys) else (0.0, 0.0)  # routes may pass above or below
    graph_w = layout.width + NODE_W if layout.nodes else 0.0
    content_w = max(graph_w, 520.0)
    legend = _legend_rows(picture, colours, counts, content_w)
    header_h = 40.0 + 22.0 * len(legend)
    total_w = content_w + 2 * MARGIN
    total_h = header_h + LOOP_ROOM + (graph_h + NODE_H if layout.nodes else 0.0) + MARGIN + 30.0
    scale = (width / total_w) if width else 1.0
    root = ET.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "version": "1.1",
                              "width": _fmt(total_w * scale), "height": _fmt(total_h * scale),
                              "viewBox": f"0 0 {_fmt(total_w)} {_fmt(total_h)}", "font-family": FONT})
    _sub(root, "title", picture.title)
    defs = _sub(root, "defs")
    for cls in counts:
        marker = _sub(defs, "marker", id=f"arrow-{cls}", viewBox="0 0 10 10", refX="9", refY="5",
                      markerUnits="userSpaceOnUse", markerWidth="9", markerHeight="9", orient="auto")
        _sub(marker, "path", d="M0,1 L10,5 L0,9 z", fill=EDGE_STYLES[cls].colour)
    _sub(root, "rect", x=0, y=0, width=_fmt(total_w), height=_fmt(total_h), fill="#ffffff")
    _sub(root, "text", picture.title, x=_fmt(MARGIN), y="26", font_size="16", font_weight="bold", fill="#212121")
    _draw_legend(root, legend, counts, colours)
    ox = MARGIN + NODE_W / 2 - (float(layout.positions[:, 0].min()) if layout.nodes else 0.0)
    oy = header_h + LOOP_ROOM + NODE_H / 2 - top
    centres = {name: (float(x) + ox, float(y) + oy) for name, (x, y) in zip(layout.nodes, layout.positions)}
    routes = {edge: [(float(x) + ox, float(y) + oy) for x, y in layout.routes[edge].tolist()]
              for edge in picture.edges if edge in layout.routes}
    _draw_edges(_sub(root, "g", class_="edges"), picture, centres, routes)
    _draw_nodes(_sub(root, "g", class_="nodes"), picture, centres, colours)
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _legend_rows(picture: GraphPicture, colours: Mapping[str, str], counts: Mapping[str, int],
                 content_w: float) -> list[list[tuple[str, str, float]]]:
    """Rows of legend items (kind "class" or "file", key, width), wrapped to the content width."""
    items = [("class", cls, 40 + LEGEND_CHAR_W * len(f"{EDGE_STYLES[cls].label} ({n})") + 18)
             for cls, n in counts.items()]
    if not counts:
        items.append(("class", "", LEGEND_CHAR_W * 16))
    rows: list[list[tuple[str, str, float]]] = []
    for kind_items in (items, [("file", g, 20 + LEGEND_CHAR_W * len(g or UNPLACED_LABEL) + 18) for g in colours]):
        row: list[tuple[str, str, float]] = []
        used = 0.0
        for item in kind_items:
            if row and used + item[2] > content_w:
                rows.append(row)
                row, used = [], 0.0
            row.append(item)
            used += item[2]
        if row:
            rows.append(row)
    return rows


def _draw_legend(root: ET.Element, rows: list[list[tuple[str, str, float]]], counts: Mapping[str, int],
                 colours: Mapping[str, str]) -> None:
    group = _sub(root, "g", class_="legend")
    for number, row in enumerate(rows):
        y = 48.0 + 22.0 * number
        x = MARGIN
        for kind, key, item_w in row:
            if kind == "class" and key:
                style = EDGE_STYLES[key]
                _sub(group, "line", x1=_fmt(x), y1=_fmt(y), x2=_fmt(x + 30), y2=_fmt(y), stroke=style.colour,
                     stroke_width="2", stroke_dasharray=SVG_DASHES[style.dash], marker_end=f"url(#arrow-{key})")
                label = _sub(group, "text", f"{style.label} ({counts[key]})", x=_fmt(x + 38), y=_fmt(y + 4),
                             font_size="12", fill="#212121")
                _sub(label, "title", style.description)
            elif kind == "class":
                _sub(group, "text", "no edges drawn", x=_fmt(x), y=_fmt(y + 4), font_size="12", fill="#616161")
            else:
                _sub(group, "rect", x=_fmt(x), y=_fmt(y - 6), width="12", height="12", rx="3", fill=colours[key],
                     stroke="#424242", stroke_width="0.5")
                _sub(group, "text", key or UNPLACED_LABEL, x=_fmt(x + 18), y=_fmt(y + 4), font_size="12",
                     fill="#212121")
            x += item_w


def _ports(picture: GraphPicture, centres: Mapping[str, tuple[float, float]],
           routes: Mapping[Edge, list[tuple[float, float]]]) -> dict[tuple[Edge, bool], float]:
    """Vertical offset of each forward edge's end on its box side, so arrows into one node fan out."""
    sides: dict[tuple[str, bool], list[tuple[float, Edge]]] = {}
    for caller, callee in picture.edges:
        if caller != callee and centres[caller][0] < centres[callee][0]:
            route = routes.get((caller, callee))
            leaves_towards = route[0][1] if route else centres[callee][1]
            arrives_from = route[-1][1] if route else centres[caller][1]
            sides.setdefault((caller, False), []).append((leaves_towards, (caller, callee)))
            sides.setdefault((callee, True), []).append((arrives_from, (caller, callee)))
    out: dict[tuple[Edge, bool], float] = {}
    for (_, incoming), ends in sides.items():
        ends.sort()
        step = min(5.0, (NODE_H - 10) / max(len(ends) - 1, 1))
        for i, (_, edge) in enumerate(ends):
            out[(edge, incoming)] = (i - (len(ends) - 1) / 2) * step
    return out


def _edge_path(caller: tuple[float, float], callee: tuple[float, float], out_dy: float, in_dy: float,
               route: list[tuple[float, float]] | None = None) -> str:
    """`route`: the points a long forward edge passes through, one per layer between its ends; the path
    runs level through each layer (clear of its boxes) and curves across the gaps (core.report.graph_routes)."""
    (x1, y1), (x2, y2) = caller, callee
    half_w, half_h = NODE_W / 2, NODE_H / 2
    if (x1, y1) == (x2, y2):  # recursion: a loop over the box's top right corner
        left, right, top = x1 + half_w - 40, x1 + half_w - 14, y1 - half_h
        return f"M{_fmt(left)},{_fmt(top)} C{_fmt(left)},{_fmt(top - 22)} {_fmt(right)},{_fmt(top - 22)} " \
               f"{_fmt(right)},{_fmt(top - 1)}"
    if x1 < x2:  # forward: right side of the caller to the left side of the callee, around the boxes between
        legs = route_legs((x1 + half_w, y1 + out_dy), route or (), (x2 - half_w - 1, y2 + in_dy), half_w,
                          level_ends=True)
        return svg_path(legs, _fmt)
    # back edge (callee to the left): under both boxes, into the callee from below
    bulge = 16 + 0.06 * abs(x1 - x2)
    sx, sy, ex, ey = x1 - 24, y1 + half_h, x2 + 24, y2 + half_h + 1
    return f"M{_fmt(sx)},{_fmt(sy)} C{_fmt(sx)},{_fmt(sy + bulge)} {_fmt(ex)},{_fmt(ey + bulge)} {_fmt(ex)},{_fmt(ey)}"


def _draw_edges(group: ET.Element, picture: GraphPicture, centres: Mapping[str, tuple[float, float]],
                routes: Mapping[Edge, list[tuple[float, float]]]) -> None:
    ports = _ports(picture, centres, routes)
    for (caller, callee), cls in picture.edges.items():
        style = EDGE_STYLES[cls]
        d = _edge_path(centres[caller], centres[callee], ports.get(((caller, callee), False), 0.0),
                       ports.get(((caller, callee), True), 0.0), routes.get((caller, callee)))
        path = _sub(group, "path", d=d, fill="none", stroke=style.colour, stroke_width="1.4",
                    stroke_dasharray=SVG_DASHES[style.dash], marker_end=f"url(#arrow-{cls})", class_=f"edge {cls}")
        _sub(path, "title", f"{caller} \u2192 {callee}: {style.label}")


def _draw_nodes(group: ET.Element, picture: GraphPicture, centres: Mapping[str, tuple[float, float]],
                colours: Mapping[str, str]) -> None:
    max_chars = int((NODE_W - 12) / CHAR_W)
    for name in picture.layout.nodes:
        x, y = centres[name]
        file = picture.groups.get(name, "")
        fill = colours[file]
        node = _sub(group, "g", class_="node")
        _sub(node, "title", f"{name}\n{file or UNPLACED_LABEL}")
        _sub(node, "rect", x=_fmt(x - NODE_W / 2), y=_fmt(y - NODE_H / 2), width=_fmt(NODE_W), height=_fmt(NODE_H),
             rx="6", fill=fill, stroke="#37474f", stroke_width="0.8")
        _sub(node, "text", short_label(name, max_chars), x=_fmt(x), y=_fmt(y + 4), font_size="11",
             text_anchor="middle", fill=text_colour(fill))
