"""The neighbourhood picture of a big program: the nodes within a few calls of the selection, and the
nodes outside it that call into it or are called from it folded by file (one node for a file's callers,
one for its callees, so callers stay left and callees right), so a 200-node program opens on something
a person can read.

Pure Python (no Qt). The graph panel lays the focused graph out like any other (the union of every
edge source, so switching modes never moves a node) and draws edge classes folded with `fold_classes`.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from core.records import Edge
from traceeval_gui.item_models.graph_scene import hop_nodes

FOCUS_NODES = 60  # programs with more nodes than this open on the selection's neighbourhood
FOCUS_HOPS = 2  # calls either way around the selection; 1 when two would already be more than FOCUS_NODES
FOLDED_MARK = "\u22ef"  # starts every folded node's name, which no TraceEval name does


@dataclass(frozen=True)
class FocusedGraph:
    """A neighbourhood: its real nodes, one folded node per file for the rest, and the edges between."""

    centre: tuple[str, ...]  # the selection it is the neighbourhood of
    hops: int
    nodes: tuple[str, ...]  # real nodes, then folded ones
    edges: tuple[Edge, ...]  # drawn edges: real ones, and ones with a folded end standing for several
    groups: Mapping[str, str]  # node -> file ("" = not in the program), folded nodes included
    folded: Mapping[str, tuple[str, ...]]  # folded node -> the real nodes it stands for
    stands_for: Mapping[Edge, tuple[Edge, ...]]  # drawn edge -> the real edges it stands for
    total_nodes: int

    @property
    def real_nodes(self) -> frozenset[str]:
        return frozenset(n for n in self.nodes if n not in self.folded)


def focus_graph(nodes: Sequence[str], edges: Iterable[Edge], groups: Mapping[str, str], centre: Iterable[str],
                hops: int = FOCUS_HOPS, limit: int = FOCUS_NODES) -> FocusedGraph:
    """The neighbourhood of `centre` (nodes within `hops` calls either way; fewer hops when that is more
    than `limit` nodes, and past one hop only the `limit` best connected, those defined in the program
    first), every other node touching it folded into its file's callers or callees node."""
    edges = tuple(dict.fromkeys(edges))
    centre = tuple(c for c in centre if c in set(nodes))
    near = hop_nodes(edges, centre, hops)
    while hops > 1 and len(near) > limit:
        hops -= 1
        near = hop_nodes(edges, centre, hops)
    near |= set(centre)
    if len(near) > limit:  # a hub (10^4 made-up callees): its best connected neighbours, the rest folded
        degree = Counter(end for edge in edges for end in edge)
        others = sorted(near - set(centre), key=lambda n: (not groups.get(n), -degree[n], n))
        near = set(centre) | set(others[:max(limit - len(centre), 0)])

    stands_for: dict[Edge, list[Edge]] = {}
    members: dict[str, dict[str, None]] = {}
    for caller, callee in edges:
        if caller in near and callee in near:
            drawn = (caller, callee)
        elif callee in near:
            drawn = (fold_name(groups.get(caller, ""), CALLERS), callee)
            members.setdefault(drawn[0], {})[caller] = None
        elif caller in near:
            drawn = (caller, fold_name(groups.get(callee, ""), CALLEES))
            members.setdefault(drawn[1], {})[callee] = None
        else:
            continue  # between two folded files: left out
        stands_for.setdefault(drawn, []).append((caller, callee))
    order = {name: i for i, name in enumerate(nodes)}
    folded = {name: tuple(sorted(m, key=order.__getitem__)) for name, m in members.items()}
    real = tuple(n for n in nodes if n in near)
    out_groups = {n: groups.get(n, "") for n in real} | {name: groups.get(m[0], "") for name, m in folded.items()}
    return FocusedGraph(centre, hops, real + tuple(sorted(folded)), tuple(stands_for), out_groups, folded,
                        {e: tuple(v) for e, v in stands_for.items()}, len(nodes))


CALLERS, CALLEES = "callers", "callees"
UNPLACED = "not in the program"


def fold_name(file: str, side: str) -> str:
    """The folded node of a file's callers of the neighbourhood or callees from it (file "": the names not
    defined in the program)."""
    return f"{FOLDED_MARK} {side} {file or UNPLACED}"


def fold_classes(classes: Mapping[Edge, str], focused: FocusedGraph, worst_first: Sequence[str]) -> dict[Edge, str]:
    """Classes of the drawn edges: a real edge keeps its own; an edge standing for several takes the
    worst of theirs (the mode's `worst_first` order), so an error folded away still shows."""
    rank = {cls: i for i, cls in enumerate(worst_first)}
    out: dict[Edge, str] = {}
    for drawn, real in focused.stands_for.items():
        known = [classes[e] for e in real if e in classes]
        if known:
            out[drawn] = min(known, key=lambda c: rank.get(c, len(rank)))
    return out


def folded_label(name: str, members: Sequence[str]) -> str:
    """A folded node's label: how many callers or callees of which file it stands for."""
    side, _, file = name.removeprefix(FOLDED_MARK).strip().partition(" ")
    count = len(members)
    noun = side[:-1] if count == 1 else side
    return f"{count} {noun} ({file})" if file == UNPLACED else f"{count} {noun} in {file.rsplit('/', 1)[-1]}"


def default_centre(nodes: Sequence[str], edges: Iterable[Edge]) -> tuple[str, ...]:
    """Where a big program opens without a selection: the node with the most calls either way."""
    degree = Counter(end for edge in edges for end in edge)
    return (min(nodes, key=lambda n: (-degree[n], n)),) if nodes else ()
