"""The window's longest stalls on a TraceEval-sized dataset. Run: python tests/bench/bench_window_stalls.py
[--scale 1.0] [--keep DIR] [--run-programs 400] [--why]

A synthetic 10,583-program dataset (tests/bench/synthetic.py, the real split ids when
/work/shared/traceeval_split or ../shared/traceeval_split exists) with 4 models' results is opened in
the real MainWindow (offscreen, 1400x900). A 5 ms timer on the GUI thread records every gap between
its ticks: a gap is how long the event loop could not run (no repaint, no input). Phases:
- open: index the dataset into a new workspace and show it;
- import: import the 4 models' 12 results files (4 x 2,129 answers) through the window's import
  path, up to the dataset shown again with the new models;
- rescore: the Metrics tab's stdlib mode unticked (re-scores every model), the studio rules picked,
  then the paper's setting again (from the panel's cache);
- model run: a model answering `--run-programs` programs from a local fake endpoint in its own process
  (tests/llm_server.py), up to the Metrics table re-scored with the new model;
- switching: Go > Next Program, 50 times, 120 ms apart (a held-down key).
Prints per phase: its duration, the worst gap, the gaps over 100 ms and over 50 ms, and how much of
the worst gap the GUI thread spent on the CPU (the rest it waited: for the GIL a worker held, or for a
core on a busy machine; so a figure measured beside other work can still tell work from waiting).
Target (issue #19): no gap over 100 ms in any phase.
"""
from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

from tests.bench.common import private_user_folders  # noqa: E402

SHARED_SPLITS = next((p for p in (ROOT.parent / "shared" / "traceeval_split", Path("/work/shared/traceeval_split"))
                      if p.is_dir()), None)
TICK_MS = 5
SETTLE_S = 0.5  # the window counts as settled after this long idle (no job running)
MODELS = 4


@dataclass
class PhaseFigures:
    name: str
    seconds: float = 0.0
    gaps_ms: list[float] = field(default_factory=list)
    gaps_cpu_ms: list[float] = field(default_factory=list)  # the GUI thread's CPU time in each gap

    @property
    def worst_ms(self) -> float:
        return max(self.gaps_ms, default=0.0)

    @property
    def worst_cpu_ms(self) -> float:
        """The GUI thread's CPU time during the worst gap."""
        if not self.gaps_ms:
            return 0.0
        return self.gaps_cpu_ms[self.gaps_ms.index(self.worst_ms)]

    def over(self, ms: float) -> int:
        return sum(gap > ms for gap in self.gaps_ms)


class StallSampler:
    """With --why: a thread that, while the GUI thread is late for its tick, samples where it is (the
    innermost frames of this project), so a stall can be traced to its code."""

    def __init__(self, meter: StallMeter) -> None:
        import collections
        import threading

        self.meter = meter
        self.gui_thread = threading.get_ident()
        self.samples: collections.Counter[str] = collections.Counter()
        self.collections: collections.Counter[str] = collections.Counter()  # slow garbage collections
        self._collecting = 0.0
        gc.callbacks.append(self._on_gc)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._collecting = time.perf_counter()
        elif self.meter.running:
            ms = (time.perf_counter() - self._collecting) * 1000
            if ms > 20:
                what = f"[{self.meter.phase_name}] generation {info['generation']}"
                self.collections[f"{what} over 20 ms"] += 1
                self.collections[f"{what} longest ms"] = max(self.collections[f"{what} longest ms"], round(ms))

    def _run(self) -> None:
        while not self._stop.wait(0.01):
            if self.meter.running and time.perf_counter() - self.meter.last > 0.04:
                frames = sys._current_frames()
                where = _project_frames(frames.get(self.gui_thread))
                if not where:  # the GUI thread waits in Qt, maybe for the GIL: what holds it?
                    others = [_innermost(frame) + " < " + " < ".join(_project_frames(frame, 2))
                              for ident, frame in frames.items()
                              if ident not in (self.gui_thread, self._thread.ident) and _project_frames(frame)]
                    where = ["(in Qt) while: " + " | ".join(others)]
                self.samples[f"[{self.meter.phase_name}] " + " < ".join(where)] += 1

    def report(self, top: int = 40) -> None:
        self._stop.set()
        print("\nwhere the GUI thread was during stalls (10 ms samples):")
        for where, count in self.samples.most_common(top):
            print(f"{count:6d}  {where}")
        print("garbage collections (any thread) over 20 ms:")
        for what, count in sorted(self.collections.items()):
            print(f"{count:6d}  {what}")


def _project_frames(frame, most: int = 6) -> list[str]:
    where = []
    while frame is not None and len(where) < most:
        path = frame.f_code.co_filename
        if str(ROOT) in path and "bench_window_stalls" not in path and "llm_server" not in path:
            where.append(f"{Path(path).name}:{frame.f_code.co_name}")
        frame = frame.f_back
    return where


def _innermost(frame) -> str:
    return f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}:{frame.f_lineno}"


class StallMeter:
    """A precise timer ticking every TICK_MS on the GUI thread; each gap between ticks is kept."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_tick)
        self.last = self.last_cpu = 0.0
        self.running = False
        self.phase_name = ""
        self._figures: PhaseFigures | None = None

    def _on_tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        if self._figures is not None:
            self._figures.gaps_ms.append((now - self.last) * 1000)
            self._figures.gaps_cpu_ms.append((cpu - self.last_cpu) * 1000)
        self.last, self.last_cpu = now, cpu

    @contextmanager
    def phase(self, name: str):
        figures = PhaseFigures(name)
        self._figures = figures
        started = time.perf_counter()
        self.last, self.last_cpu = started, time.thread_time()
        self.running, self.phase_name = True, name.split()[0]
        self._timer.start()
        try:
            yield figures
        finally:
            self._on_tick()  # a stall at the very end counts too
            self._timer.stop()
            self.running = False
            self._figures = None
            figures.seconds = time.perf_counter() - started


def run_until(condition, timeout_s: float = 600.0) -> None:
    """Run the event loop (a real one: timers and paints go on) until `condition()` holds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    deadline = time.monotonic() + timeout_s
    poll = QTimer()
    poll.setInterval(10)

    def check() -> None:
        if condition():
            loop.quit()
        elif time.monotonic() > deadline:
            loop.quit()
            raise TimeoutError("the window did not get there in time")

    poll.timeout.connect(check)
    poll.start()
    loop.exec()
    poll.stop()


def run_for(seconds: float) -> None:
    until = time.monotonic() + seconds
    run_until(lambda: time.monotonic() >= until)


def settle(window) -> None:
    """Wait until no job runs, then for SETTLE_S more, so work the window defers is measured too."""
    run_until(lambda: not window.state.jobs.busy)
    run_for(SETTLE_S)
    run_until(lambda: not window.state.jobs.busy)


@contextmanager
def endpoint_process():
    """The fake endpoint (tests/llm_server.py) in a process of its own, as a real endpoint is: in this
    process its 8 request threads took the GIL from the window as much as the run did. Yields its URL."""
    import subprocess

    script = ("import sys; from tests.llm_server import FakeChatServer, ok; "
              "server = FakeChatServer(lambda request, attempt: ok('1. main')); "
              "print(server.base_url, flush=True); sys.stdin.read()")
    with subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True) as server:
        try:
            yield server.stdout.readline().strip()
        finally:
            server.stdin.close()  # it ends when its input does
            server.wait(30)


def menu_action(window, menu_title: str, text: str):
    from PySide6.QtWidgets import QMenu

    for menu in window.menuBar().findChildren(QMenu):
        if menu.title().replace("&", "") == menu_title:
            for item in menu.actions():
                if item.text().replace("&", "") == text:
                    return item
    raise LookupError(f"{menu_title} > {text} is not in the menu bar")


def prepare(work: Path, scale: float) -> Path:
    from tests.bench.synthetic import generate, split_ids

    root = work / "dataset"
    if not (root / "benchmark").is_dir():
        started = time.perf_counter()
        generate(root, split_ids(SHARED_SPLITS, scale), models=MODELS)
        print(f"generated the synthetic dataset in {time.perf_counter() - started:.1f} s", flush=True)
    return root


def measure(root: Path, work: Path, run_programs: int, why: bool) -> list[PhaseFigures]:
    from PySide6.QtWidgets import QApplication

    from core.llm.endpoints import RunSettings
    from traceeval_gui.runs.run_model_dialog import ModelRunRequest
    from traceeval_gui.state.app_state import AppState
    from traceeval_gui.workbench.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    state = AppState()
    window = MainWindow(state, settings=None, interactive=False)
    window.resize(1400, 900)
    window.show()
    app.processEvents()
    meter = StallMeter()
    sampler = StallSampler(meter) if why else None
    opened: list[int] = []
    state.dataset_opened.connect(lambda: opened.append(1))
    figures = []
    workspace = work / "stalls.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{workspace}{suffix}").unlink(missing_ok=True)

    with meter.phase("open 10,583 programs") as phase:
        window.open_dataset(root, workspace)
        run_until(lambda: opened)
        settle(window)
    figures.append(phase)
    print(f"  {len(state.opened.rows):,} programs shown", flush=True)

    results = sorted(str(p) for p in (root / "results").glob("*.json"))
    before = len(opened)
    answers = sum(1 for row in state.opened.rows if row.split == "test")
    with meter.phase(f"import {MODELS} x {answers:,} answers ({len(results)} files)") as phase:
        window.import_results(results)
        run_until(lambda: len(opened) > before)
        settle(window)
    figures.append(phase)
    print(f"  models now: {', '.join(m.name for m in state.models)}; the status bar says: "
          f"{window.statusBar().currentMessage()}", flush=True)

    panel = window.metrics_panel
    window.show_tab("metrics")
    with meter.phase("re-score: stdlib off, studio rules, back") as phase:
        panel.mode_boxes["stdlib"].click()
        run_until(lambda: not panel.is_scoring())
        settle(window)
        panel.rules_combo.setCurrentIndex(panel.rules_combo.findData("studio"))
        run_until(lambda: not panel.is_scoring())
        settle(window)
        panel.rules_combo.setCurrentIndex(panel.rules_combo.findData("paper"))
        panel.mode_boxes["stdlib"].click()
        run_until(lambda: not panel.is_scoring())
        settle(window)
    figures.append(phase)

    keys = [row.key for row in state.opened.rows if row.split == "test"][:run_programs]
    window.show_tab("edges")
    with endpoint_process() as base_url, meter.phase(f"model run, {len(keys):,} programs") as phase:
        settings = RunSettings(base_url, "fake-model", concurrency=8, use_cache=False)
        job = window.model_runs.start(ModelRunRequest(settings, tuple(keys), "fake-key", False, False))
        assert job is not None, "the model run did not start"
        run_until(lambda: window.model_runs.job is None and not panel.is_scoring()
                  and "fake-model" in {row.model for row in panel.table.rows})
        settle(window)
    figures.append(phase)
    print(f"  the status bar says: {window.statusBar().currentMessage()}", flush=True)

    next_program = menu_action(window, "Go", "Next Program")
    window.browser.select_key(state.opened.rows[0].key)
    run_for(SETTLE_S)
    with meter.phase("next program x 50") as phase:
        for _ in range(50):
            next_program.trigger()
            run_for(0.12)
        settle(window)
    figures.append(phase)
    window.close()
    if sampler is not None:
        sampler.report()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the paper's program counts")
    parser.add_argument("--keep", type=Path, help="generate into (and reuse) this folder")
    parser.add_argument("--run-programs", type=int, default=400, help="programs the fake model answers")
    parser.add_argument("--why", action="store_true", help="sample where the GUI thread is during stalls")
    args = parser.parse_args()
    sandbox = private_user_folders("stalls")
    work = args.keep or Path(tempfile.mkdtemp(prefix="traceeval-bench-stalls-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        figures = measure(prepare(work, args.scale), work, args.run_programs, args.why)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
        sandbox.cleanup()
    print()
    print(f"{'phase':<42} {'seconds':>8} {'worst ms':>9} {'its CPU ms':>11} {'> 100 ms':>9} {'> 50 ms':>8}")
    for phase in figures:
        print(f"{phase.name:<42} {phase.seconds:8.1f} {phase.worst_ms:9.0f} {phase.worst_cpu_ms:11.0f} "
              f"{phase.over(100):9d} {phase.over(50):8d}")
    worst = max(figures, key=lambda p: p.worst_ms)
    print(f"worst stall: {worst.worst_ms:.0f} ms ({worst.name}); target <= 100 ms in every phase")
    return 0


if __name__ == "__main__":
    sys.exit(main())
