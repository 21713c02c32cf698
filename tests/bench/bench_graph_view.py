"""Graph view timings: showing an instance, toggling a class, and repainting after a pan at scale.

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/bench_graph_view.py

Targets (the issue): switching to a 300-node instance <= ~60 ms for the graph's part (layout +
paths + labels); a 2,000-node / 6,000-edge graph lays out in <= 2 s and repaints after a pan in
<= 50 ms. The baseline is the naive drawing docs/design.md forbids (one QGraphicsItem per node and per
edge) in the same process, same view size, same pans.
"""
from __future__ import annotations

import os
import random
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.report.overlay import InstanceOverlay, OverlayEdge  # noqa: E402
from core.traces import TraceRun  # noqa: E402

MODELS = ("synthetic-strong", "synthetic-weak")


def synthetic_overlay(nodes: int, edges: int, files: int = 12, seed: int = 0,
                      key: str = "python/synthetic_0001") -> tuple[InstanceOverlay, dict[str, str]]:
    """A call-graph overlay shaped like a big program: mostly downward calls between nearby functions,
    some back edges and recursion, the truth, two models that err differently, and a trace.

    Returns the overlay and node -> file (a few names are left undefined, like library calls)."""
    rng = random.Random(seed)
    names = [f"pkg{i % files}.mod{i % files}.Class{i // 40}.method{i}" for i in range(nodes)]
    groups = {name: f"pkg{i % files}/mod{i % files}.py" for i, name in enumerate(names) if i % 23 != 7}
    pairs: set[tuple[int, int]] = set()
    for callee in range(1, nodes):  # a backbone: every function but a few entry points has a caller
        if callee % 97:
            pairs.add((max(0, callee - 1 - int(rng.expovariate(1 / 12))), callee))
    while len(pairs) < edges:
        caller = rng.randrange(nodes)
        roll = rng.random()
        if roll < 0.01:
            callee = caller  # recursion
        elif roll < 0.08:
            callee = max(0, caller - rng.randint(1, 60))  # a call back up: a cycle
        else:
            callee = min(nodes - 1, caller + 1 + int(rng.expovariate(1 / 25)))
        if callee != caller or roll < 0.01:
            pairs.add((caller, callee))
    overlay_edges = []
    for caller, callee in sorted(pairs):
        truth = rng.random() < 0.75
        if truth:
            models = frozenset(m for m, p in zip(MODELS, (0.85, 0.6)) if rng.random() < p)
            traced = rng.random() < 0.9
        else:
            models = frozenset(rng.sample(MODELS, rng.randint(1, 2)))
            traced = rng.random() < 0.05
        if not truth and not models and not traced:
            traced = True
        overlay_edges.append(OverlayEdge(names[caller], names[callee], truth, models, traced))
    overlay_edges.sort(key=lambda e: e.edge)
    trace = TraceRun(key, "python", "synthetic", "0", "2026-01-01T00:00:00Z", 0.0, "ok", "")
    overlay = InstanceOverlay(key, "python", frozenset(), MODELS, tuple(overlay_edges), tuple(names), trace)
    return overlay, groups


def main() -> None:
    import numpy as np
    from PySide6.QtCore import QLineF, QRectF
    from PySide6.QtGui import QPen
    from PySide6.QtWidgets import QApplication, QGraphicsEllipseItem, QGraphicsLineItem

    # isort: split
    import pyqtgraph as pg

    from core.report.graph_layout import layered_layout
    from traceeval_gui.graph.graph_view import GraphPanel
    from traceeval_gui.state.app_state import AppState

    app = QApplication.instance() or QApplication([])

    def settle() -> None:
        for _ in range(3):
            app.processEvents()

    def timed(action, repeat: int = 1) -> list[float]:
        out = []
        for _ in range(repeat):
            start = time.perf_counter()
            action()
            out.append((time.perf_counter() - start) * 1000)
        return out

    def fmt(samples: list[float]) -> str:
        return (f"median {statistics.median(samples):7.1f} ms  "
                f"(min {min(samples):.1f}, max {max(samples):.1f}, n={len(samples)})")

    state = AppState()
    state.select_model(MODELS[0])
    state.select_compare_model(MODELS[1])
    panel = GraphPanel(state)
    panel.resize(1000, 700)
    panel.show()
    panel.show_all = True  # the whole graph (what "Show all" draws), not the neighbourhood big programs open on
    settle()

    print("== 300-node instance (about 900 edges) ==")
    small = [synthetic_overlay(300, 900, seed=s, key=f"python/small_{s:04d}") for s in range(6)]

    def show(i: int) -> None:
        overlay, groups = small[i]
        panel.show_overlay(overlay, groups)
        settle()  # the paint happens here, as in the app

    first = [timed(lambda i=i: show(i))[0] for i in range(len(small))]
    layout_only = [timed(lambda o=o, g=g: layered_layout(o.nodes, [e.edge for e in o.edges], g))[0]
                   for o, g in small]
    again = [timed(lambda i=i: show(i))[0] for i in range(len(small))]
    print(f"  show, new instance (layout + paths + labels + paint): {fmt(first)}")
    print(f"    of which the layout alone:                        {fmt(layout_only)}")
    print(f"  show again (layout cached):                          {fmt(again)}")
    panel.show_all = False
    focused = [timed(lambda i=i: show(i))[0] for i in range(len(small))]
    print(f"  show, the neighbourhood it opens on (layout cached):  {fmt(focused)}  "
          f"{len(panel.picture.layout.nodes)} nodes drawn")
    panel.show_all = True

    def toggle(name: str, shown: bool) -> None:
        state.set_class_shown(name, shown)
        settle()

    toggles = []
    for _ in range(10):
        toggles += timed(lambda: toggle("FP", False)) + timed(lambda: toggle("FP", True))
    print(f"  toggle a class (rebuild paths, paint):               {fmt(toggles)}")
    modes = []
    for mode in ("compare", "trace", "truth", "model") * 3:
        modes += timed(lambda m=mode: (state.set_view_mode(m), settle()))
    print(f"  switch view mode (reclassify, paths, paint):         {fmt(modes)}")

    print("== 2,000 nodes / 6,000 edges ==")
    big, big_groups = synthetic_overlay(2000, 6000, files=20, seed=7, key="python/big_0001")
    layout_big = timed(lambda: layered_layout(big.nodes, [e.edge for e in big.edges], big_groups), repeat=2)
    print(f"  layout:                                              {fmt(layout_big)}")
    shown_big = timed(lambda: (panel.show_overlay(big, big_groups), settle()))
    print(f"  show (layout + everything, first time):             {fmt(shown_big)}")

    def pan_repaints(view: pg.ViewBox, count: int = 30) -> list[float]:
        """A drag step of 40 pixels, then the event loop until the view has repainted."""
        samples = []
        for k in range(count):
            dx = 40.0 if (k // 5) % 2 == 0 else -40.0
            start = time.perf_counter()
            view.translateBy(x=dx * view.viewPixelSize()[0], y=0)
            settle()
            samples.append((time.perf_counter() - start) * 1000)
        return samples

    def zoomed_in(view: pg.ViewBox, factor: float) -> None:
        rect = view.viewRect()
        view.setRange(QRectF(rect.center().x() - rect.width() / factor / 2,
                             rect.center().y() - rect.height() / factor / 2,
                             rect.width() / factor, rect.height() / factor), padding=0)
        settle()

    panel.fit()
    settle()
    ours_out = pan_repaints(panel.view)
    zoomed_in(panel.view, 8)
    ours_mid = pan_repaints(panel.view)
    mid_labels = len(panel.label_nodes())
    mid_arrows = "on" if panel.arrows.isVisible() else "off"
    zoomed_in(panel.view, 30 / 8)
    ours_in = pan_repaints(panel.view)
    print(f"  pan + repaint, whole graph in view (ours):           {fmt(ours_out)}")
    print(f"  pan + repaint, zoomed in x8 (ours):                  {fmt(ours_mid)}  labels {mid_labels}, "
          f"arrowheads {mid_arrows}")
    print(f"  pan + repaint, zoomed in x30, labels on (ours):      {fmt(ours_in)}  labels {len(panel.label_nodes())}")
    state.set_class_shown("FP", False)
    toggle_big = timed(lambda: toggle("FP", True)) + timed(lambda: toggle("FP", False)) + timed(lambda: toggle("FP",
                                                                                                               True))
    print(f"  toggle a class at 2,000 nodes:                       {fmt(toggle_big)}")

    # The naive baseline: one QGraphicsItem per node and per edge, in the same kind of view.
    layout = panel.picture.layout
    naive = pg.GraphicsView(background="w")
    naive.setRenderHints(panel.plot.renderHints())
    naive_view = pg.ViewBox(lockAspect=True, invertY=True, enableMenu=False)
    naive.setCentralItem(naive_view)
    naive_view.sigRangeChanged.connect(lambda *_: naive_view.updateMatrix())  # one paint per pan, as in the panel
    naive.resize(panel.plot.size())
    naive.show()
    build = time.perf_counter()
    index = {name: i for i, name in enumerate(layout.nodes)}
    pen = QPen(pg.mkColor("#2e7d32"), 1.6)
    pen.setCosmetic(True)
    for caller, callee in panel.drawn_edges():
        (x1, y1), (x2, y2) = layout.positions[index[caller]], layout.positions[index[callee]]
        line = QGraphicsLineItem(QLineF(x1, y1, x2, y2))
        line.setPen(pen)
        naive_view.addItem(line)
    for x, y in np.asarray(layout.positions):
        dot = QGraphicsEllipseItem(x - 6, y - 6, 12, 12)
        dot.setBrush(pg.mkBrush("#546e7a"))
        naive_view.addItem(dot)
    naive_view.setRange(panel.view.viewRect(), padding=0)
    settle()
    print(f"  baseline build ({len(panel.drawn_edges()):,} line items + {len(layout.nodes):,} ellipses): "
          f"{(time.perf_counter() - build) * 1000:.0f} ms")
    naive_view.autoRange(padding=0)
    settle()
    naive_out = pan_repaints(naive_view)
    zoomed_in(naive_view, 8)
    naive_mid = pan_repaints(naive_view)
    zoomed_in(naive_view, 30 / 8)
    naive_in = pan_repaints(naive_view)
    print(f"  pan + repaint, whole graph (baseline, items):        {fmt(naive_out)}")
    print(f"  pan + repaint, zoomed in x8 (baseline, items):       {fmt(naive_mid)}")
    print(f"  pan + repaint, zoomed in x30 (baseline, items):      {fmt(naive_in)}")
    ratios = [statistics.median(a) / statistics.median(b)
              for a, b in ((naive_out, ours_out), (naive_mid, ours_mid), (naive_in, ours_in))]
    print("  ratio baseline / ours: whole graph {:.1f}x, x8 {:.1f}x, x30 {:.1f}x".format(*ratios))
    naive.close()
    panel.close()


if __name__ == "__main__":
    main()
