"""Workbench responsiveness. Run: python tests/bench/bench_gui.py

Prints:
- cold start to a shown window (a new interpreter: imports, the window with every panel, first
  paint), and to the demo dataset shown in it, against a bare Qt window started the same way;
- switching instance on programs with 300-node call graphs (selection -> source view, edge
  table, graph layout + overlays, compare, metrics; repainted), median and worst of 12, against
  the same switch with the graph panel hidden (what the graph adds).
Targets (issue #4): cold start <= 1.5 s; instance switch with a 300-node graph <= 150 ms.
The 2,000-node graph figures are in bench_graph_view.py.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

COLD_WINDOW = """
import os, sys, time
from PySide6.QtWidgets import QApplication
from traceeval_gui.state.app_state import AppState
from traceeval_gui.workbench.main_window import MainWindow
app = QApplication([])
state = AppState()
window = MainWindow(state, settings=None, interactive=False)
window.resize(1400, 900)
window.show()
app.processEvents()
window.grab()
print(time.time(), flush=True)
if len(sys.argv) > 1:
    from resources import DEMO_DATASET
    state.dataset_opened.connect(lambda: (app.processEvents(), window.grab(), print(time.time(), flush=True),
                                          app.quit()))
    window.open_dataset(DEMO_DATASET, sys.argv[1])
    app.exec()
window.close()
"""
COLD_BARE = """
import time
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication([])
window = QMainWindow()
window.resize(1400, 900)
window.show()
app.processEvents()
window.grab()
print(time.time(), flush=True)
"""


def cold_start(code: str, *args: str, repeats: int = 5) -> list[float]:
    """Median seconds from launching the interpreter to each time the child prints."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    samples: list[list[float]] = []
    for _ in range(repeats):
        started = time.time()
        out = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True,
                             text=True, check=True).stdout.split()
        samples.append([float(stamp) - started for stamp in out])
    return [statistics.median(column) for column in zip(*samples)]


def switch_times(window, app, keys: list[str]) -> list[float]:
    times = []
    for key in keys:
        started = time.perf_counter()
        window.browser.select_key(key)
        app.processEvents()
        window.grab()
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    from PySide6.QtWidgets import QApplication

    from tests.bench.synthetic import generate

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        window_s, demo_s = cold_start(COLD_WINDOW, str(tmp / "demo.sqlite"))
        (bare_s,) = cold_start(COLD_BARE)
        print(f"cold start to a shown window: {window_s:.2f} s (target <= 1.5 s); with the demo dataset shown: "
              f"{demo_s:.2f} s; a bare Qt window: {bare_s:.2f} s (ratio {window_s / bare_s:.1f}x)")

        ids = {"test": {"python": [f"big_{i:04d}" for i in range(1, 13)]}, "train": {}}
        generate(tmp / "big", ids, models=2, min_nodes=300, max_nodes=300)
        from traceeval_gui.state.app_state import AppState
        from traceeval_gui.workbench.main_window import MainWindow

        app = QApplication.instance() or QApplication([])
        state = AppState()
        window = MainWindow(state, settings=None, interactive=False)
        window.resize(1400, 900)
        window.show()
        opened = []
        state.dataset_opened.connect(lambda: opened.append(True))
        window.open_dataset(tmp / "big", tmp / "big.sqlite")
        while not opened:
            app.processEvents()
            time.sleep(0.01)
        keys = [row.key for row in state.opened.rows]
        detail_sizes = []
        for key in keys[:1]:
            window.browser.select_key(key)
            app.processEvents()
            detail_sizes.append((len(state.detail().overlay.nodes), len(state.detail().overlay.edges)))
        window.browser.select_key(keys[-1])  # warm caches of the first program out of the way
        app.processEvents()
        with_graph = switch_times(window, app, keys)
        window.graph_panel.hide()
        without_graph = switch_times(window, app, list(reversed(keys)))
        window.close()
        nodes, edges = detail_sizes[0]
        median, worst = statistics.median(with_graph), max(with_graph)
        print(f"instance switch, {nodes}-node / {edges}-edge graphs: median {median * 1000:.0f} ms, worst "
              f"{worst * 1000:.0f} ms (target <= 150 ms); "
              f"without the graph panel {statistics.median(without_graph) * 1000:.0f} ms "
              f"(the graph adds {median / statistics.median(without_graph):.1f}x)")


if __name__ == "__main__":
    main()
