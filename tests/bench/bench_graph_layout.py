"""Graph layout and SVG export speed. Run: python tests/bench/bench_graph_layout.py [--repeat 5]

Prints, for seeded random call graphs with cycles (300 nodes / 600 edges and 2,000 / 6,000): the
layered layout time (median of --repeat runs), the same layout without crossing reduction and
networkx.multipartite_layout on the same layers (baselines, same process), the crossings each
leaves (straight lines as drawn), and the SVG export time of a 2,000-node model-view picture.
Targets: 300/600 <= 30 ms, 2,000/6,000 <= 2 s (aim under 1 s).
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.records import CallGraph, Instance, Prediction  # noqa: E402
from core.report.graph_export import picture_for, to_svg  # noqa: E402
from core.report.graph_layout import GraphLayout, layered_layout  # noqa: E402
from core.report.overlay import build_overlay  # noqa: E402


def random_call_graph(n: int, m: int, seed: int) -> tuple[list[str], list[tuple[str, str]], dict[str, str]]:
    """Mostly downhill calls (like a program: callers above helpers) plus ~10% that close cycles."""
    rng = random.Random(seed)
    names = [f"pkg.mod{i % 23}.func_{i}" for i in range(n)]
    edges: set[tuple[str, str]] = set()
    while len(edges) < m:
        a, b = rng.randrange(n), rng.randrange(n)
        if a == b:
            continue
        if (a > b) != (rng.random() < 0.1):
            a, b = b, a
        edges.add((names[a], names[b]))
    groups = {name: f"pkg/mod{name.split('.')[1][3:]}.py" for name in names}
    return names, sorted(edges), groups


def timed(function, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def drawn_crossings(positions: np.ndarray, index: dict[str, int], edges: list[tuple[str, str]]) -> int:
    """Pairs of straight edges that cross as drawn, excluding pairs sharing an end (chunked numpy)."""
    a = np.array([index[e[0]] for e in edges])
    b = np.array([index[e[1]] for e in edges])
    p, q = positions[a], positions[b]

    def orient(o, s, t):
        return np.sign((s[..., 0] - o[..., 0]) * (t[..., 1] - o[..., 1])
                       - (s[..., 1] - o[..., 1]) * (t[..., 0] - o[..., 0]))

    total = 0
    for start in range(0, len(edges), 1000):
        p1, p2 = p[start:start + 1000, None], q[start:start + 1000, None]
        a1, b1 = a[start:start + 1000, None], b[start:start + 1000, None]
        shared = (a1 == a) | (a1 == b) | (b1 == a) | (b1 == b)
        cross = (orient(p1, p2, p[None]) * orient(p1, p2, q[None]) < 0) \
            & (orient(p[None], q[None], p1) * orient(p[None], q[None], p2) < 0) & ~shared
        total += int(cross.sum())
    return total // 2


def multipartite(nodes: list[str], edges: list[tuple[str, str]], layout: GraphLayout) -> np.ndarray:
    graph = nx.DiGraph()
    for name in nodes:
        graph.add_node(name, layer=int(layout.layers[layout.index(name)]))
    graph.add_edges_from(edges)
    placed = nx.multipartite_layout(graph, subset_key="layer")
    return np.array([placed[name] for name in layout.nodes])


def bench_layout(n: int, m: int, repeat: int) -> None:
    nodes, edges, groups = random_call_graph(n, m, seed=n)
    ours_s, ours = timed(lambda: layered_layout(nodes, edges, groups), repeat)
    plain_s, plain = timed(lambda: layered_layout(nodes, edges, groups, sweeps=0), repeat)
    nx_s, nx_positions = timed(lambda: multipartite(nodes, edges, ours), repeat)
    index = {name: i for i, name in enumerate(ours.nodes)}
    proper = [e for e in edges if e[0] != e[1]]
    print(f"\n{n:,} nodes / {m:,} edges: {int(ours.layers.max()) + 1} layers, "
          f"{len(ours.reversed_edges)} edges reversed to break cycles")
    crossings = drawn_crossings(ours.positions, index, proper)
    print(f"  layered_layout              {ours_s * 1000:9.1f} ms   crossings {crossings:>10,}")
    print(f"  no crossing reduction       {plain_s * 1000:9.1f} ms   crossings "
          f"{drawn_crossings(plain.positions, index, proper):>10,}")
    print(f"  nx.multipartite_layout      {nx_s * 1000:9.1f} ms   crossings "
          f"{drawn_crossings(nx_positions, index, proper):>10,}   (on our layers)")
    print(f"  ratio layered / no-reduction {ours_s / plain_s:5.2f}x   layered / multipartite {ours_s / nx_s:5.2f}x")


def bench_svg(n: int, m: int, repeat: int) -> None:
    nodes, edges, groups = random_call_graph(n, m, seed=7)
    truth = CallGraph.from_edges(edges, keys=nodes)
    rng = random.Random(3)
    guessed = [e for e in edges if rng.random() < 0.8] + [(nodes[rng.randrange(n)], nodes[rng.randrange(n)])
                                                          for _ in range(m // 10)]
    instance = Instance("bench_0001", "python", ROOT, ("main.py",), "main.py", truth)
    model = Prediction("bench_0001", "model", "python", CallGraph.from_edges(guessed))
    overlay = build_overlay(instance, {"model": model}, modes=())
    picture_s, picture = timed(lambda: picture_for(overlay, "model", "model", groups=groups), 1)
    svg_s, svg = timed(lambda: to_svg(picture), repeat)
    print(f"\nSVG export, {len(picture.layout.nodes):,} nodes / {len(picture.edges):,} drawn edges: "
          f"{svg_s * 1000:.0f} ms ({len(svg) / 1e6:.1f} MB); picture_for (first, layout included) "
          f"{picture_s * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    layered_layout(["warm", "up"], [("warm", "up")])
    for n, m in ((300, 600), (2000, 6000)):
        bench_layout(n, m, args.repeat)
    bench_svg(2000, 6000, max(1, args.repeat // 2))


if __name__ == "__main__":
    main()
