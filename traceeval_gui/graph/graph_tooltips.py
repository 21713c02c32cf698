"""The graph view's hover text: what a node or an edge is, as rich text."""
from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence

from core.records import Edge, Node
from core.report.overlay import InstanceOverlay
from core.report.palette import EDGE_STYLES
from core.report.view_modes import view_mode
from traceeval_gui.theme.style import MUTED_TEXT


def node_tooltip(name: str, place: Node | None, file: str, classes: Mapping[Edge, str], mode: str) -> str:
    """Where the node is defined, and its calls either way counted by class (`classes`: the edges of `mode`)."""
    lines = [f"<b>{html.escape(name)}</b>"]
    if place is not None:
        lines.append(f"{html.escape(place.file)}, line {place.start_line} ({html.escape(place.kind)})")
    elif file:
        lines.append(html.escape(file))
    else:
        lines.append(f"<span style='color:{MUTED_TEXT}'>not defined in the program source</span>")
    order = view_mode(mode).classes
    out = Counter(c for (a, _), c in classes.items() if a == name)
    into = Counter(c for (_, b), c in classes.items() if b == name)
    for title, counts in (("calls", out), ("called by", into)):
        if counts:
            parts = [f"<span style='color:{EDGE_STYLES[c].colour}'>{n} {html.escape(EDGE_STYLES[c].label)}</span>"
                     for c, n in sorted(counts.items(), key=lambda item: order.index(item[0])
                                        if item[0] in order else 99)]
            lines.append(f"{title}: {', '.join(parts)}")
    return "<br>".join(lines)


def edge_tooltip(edge: Edge, edge_class: str | None, overlay: InstanceOverlay) -> str:
    """The edge's class, which models predicted it, and whether the ground truth and the trace have it."""
    lines = [f"<b>{html.escape(edge[0])}</b> → <b>{html.escape(edge[1])}</b>"]
    if edge_class is not None:
        style = EDGE_STYLES[edge_class]
        lines.append(f"<span style='color:{style.colour}'><b>{html.escape(style.label)}</b></span>: "
                     f"{html.escape(style.description)}")
    overlay_edge = overlay.edge(*edge)
    if overlay_edge is not None:
        models = ", ".join(m for m in overlay.models if m in overlay_edge.models) or "no model"
        traced = "no trace run" if overlay.trace is None else ("yes" if overlay_edge.traced else "no")
        lines.append(f"predicted by: {html.escape(models)}")
        lines.append(f"in the ground truth: {'yes' if overlay_edge.truth else 'no'}; traced: {traced}")
    return "<br>".join(lines)


def folded_tooltip(label: str, file: str, members: Sequence[str], shown: int = 12) -> str:
    """A folded file node (`label`, e.g. "3 callers in parser.py"): which nodes it stands for."""
    where = html.escape(file) if file else "names not defined in the program"
    names = "<br>".join(html.escape(m) for m in members[:shown])
    more = f"<br>… and {len(members) - shown:,} more" if len(members) > shown else ""
    return (f"<b>{html.escape(label)}</b> ({where}), folded: outside the neighbourhood drawn<br>{names}{more}"
            f"<br><span style='color:{MUTED_TEXT}'>Select one elsewhere, or Show all, to draw them.</span>")


def folded_edge_tooltip(edge: Edge, edge_class: str | None, real: Sequence[Edge], classes: Mapping[Edge, str]) -> str:
    """An edge into or out of a folded file node: the calls it stands for, by class."""
    counts = Counter(classes[e] for e in real if e in classes)
    parts = [f"<span style='color:{EDGE_STYLES[c].colour}'>{n} {html.escape(EDGE_STYLES[c].label)}</span>"
             for c, n in counts.items()]
    lines = [f"<b>{html.escape(edge[0])}</b> → <b>{html.escape(edge[1])}</b>",
             f"{len(real):,} calls: {', '.join(parts)}" if parts else f"{len(real):,} calls"]
    if edge_class is not None:
        lines.append(f"drawn as the worst of them: {html.escape(EDGE_STYLES[edge_class].label)}")
    lines += [f"{html.escape(a)} → {html.escape(b)}" for a, b in real[:8]]
    if len(real) > 8:
        lines.append(f"… and {len(real) - 8:,} more")
    return "<br>".join(lines)
