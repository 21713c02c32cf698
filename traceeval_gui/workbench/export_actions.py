"""File > Export: the graph as an image or data, the metrics table, the Compare tab's paired statistics, and an
instance's evidence packet."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMenu, QMessageBox

from core.dataset.workspace import Workspace
from core.errors import TraceEvalError
from core.report.evidence import build_evidence
from traceeval_gui.state.jobs import Job, Progress
from traceeval_gui.widgets.file_dialogs import save_file_name

if TYPE_CHECKING:
    from traceeval_gui.graph.graph_view import GraphPanel
    from traceeval_gui.metrics.metrics_panel import MetricsPanel
    from traceeval_gui.program.compare_panel import ComparePanel
    from traceeval_gui.state.app_state import AppState

GRAPH_FORMATS = (("png", "PNG image"), ("svg", "SVG drawing"), ("dot", "Graphviz DOT"), ("graphml", "GraphML"),
                 ("json", "JSON"))
METRICS_FORMATS = (("csv", "CSV"), ("md", "Markdown"), ("latex", "LaTeX"))
PAIRED_FORMATS = (("csv", "CSV"), ("md", "Markdown"), ("json", "JSON"))
SUFFIXES = {"md": "md", "latex": "tex"}


class EvidenceJob(Job):
    title = "writing the evidence packet"

    def __init__(self, workspace_path: Path, key: str, models: list[str], mode: str, out: Path) -> None:
        super().__init__()
        self.workspace_path, self.key, self.models, self.mode, self.out = workspace_path, key, models, mode, out

    def work(self, progress: Progress) -> Path:
        progress(0, 0, f"writing the evidence packet for {self.key}")
        with Workspace(self.workspace_path) as ws:
            text = build_evidence(ws, self.key, self.models, mode=self.mode)
        try:
            self.out.write_text(text, encoding="utf-8")
        except OSError as error:
            raise OSError(f"{self.out}: cannot write: {error.strerror or error}") from None
        return self.out


class ExportSource(Protocol):
    """What the exports read from the main window (a QMainWindow, also their dialogs' parent); a protocol, so
    this module does not import the window that creates it."""

    state: AppState
    interactive: bool
    graph_panel: GraphPanel
    metrics_panel: MetricsPanel
    compare_panel: ComparePanel


class ExportActions(QObject):
    message = Signal(str)  # for the status bar

    def __init__(self, window: ExportSource) -> None:
        super().__init__(window)
        self.window = window

    def add_to(self, menu: QMenu) -> None:
        graph = menu.addMenu("&Graph")
        for fmt, title in GRAPH_FORMATS:
            graph.addAction(f"As {title}…").triggered.connect(lambda _=False, f=fmt: self._ask_graph(f))
        metrics = menu.addMenu("&Metrics Table")
        for fmt, title in METRICS_FORMATS:
            metrics.addAction(f"As {title}…").triggered.connect(lambda _=False, f=fmt: self._ask_metrics(f))
        paired = menu.addMenu("&Paired Statistics (Compare)")
        for fmt, title in PAIRED_FORMATS:
            paired.addAction(f"As {title}…").triggered.connect(lambda _=False, f=fmt: self.ask_paired(f))
        evidence = menu.addAction("&Evidence Packet (HTML)…")
        evidence.setShortcut("Ctrl+E")
        evidence.triggered.connect(self._ask_evidence)

    # -- without dialogs (tests, scripts) -------------------------------------------------
    def export_graph(self, path: str | Path, fmt: str) -> Path:
        path = Path(path)
        panel = self.window.graph_panel
        panel.export_png(path) if fmt == "png" else panel.export(path, fmt)
        self.message.emit(f"Saved the graph to {path}")
        return path

    def export_metrics(self, path: str | Path, fmt: str) -> Path:
        path = Path(path)
        self.window.metrics_panel.export_table(path, fmt)
        self.message.emit(f"Saved the metrics table to {path}")
        return path

    def export_paired(self, path: str | Path, fmt: str) -> Path:
        path = self.window.compare_panel.export_stats(path, fmt)
        self.message.emit(f"Saved the paired statistics to {path}")
        return path

    def export_evidence(self, path: str | Path) -> EvidenceJob | None:
        state = self.window.state
        if state.opened is None or state.instance_key is None:
            self.message.emit("Select a program first")
            return None
        models = [m for m in (state.model, state.compare_model) if m]
        mode = state.view_mode if state.view_mode != "compare" or len(models) == 2 else "model"
        job = EvidenceJob(state.opened.workspace_path, state.instance_key, models, mode, Path(path))
        job.signals.finished.connect(lambda out: self.message.emit(f"Saved the evidence packet to {out}"))
        job.signals.failed.connect(self._on_failed)
        state.jobs.start(job)
        return job

    # -- with dialogs ---------------------------------------------------------------------
    def _ask_graph(self, fmt: str) -> None:
        path = self._ask_path("Export the graph", f"{self._stem()}-graph", fmt)
        if path:
            self._guard(lambda: self.export_graph(path, fmt))

    def _ask_metrics(self, fmt: str) -> None:
        path = self._ask_path("Export the metrics table", "traceeval-metrics", fmt)
        if path:
            self._guard(lambda: self.export_metrics(path, fmt))

    def ask_paired(self, fmt: str) -> None:
        """Ask where, then write the Compare tab's paired statistics (its Export button and File > Export)."""
        if self.window.compare_panel.stats is None:
            self._on_failed("no paired statistics yet: choose model B in the Compare tab (and wait for them)")
            return
        path = self._ask_path("Export the paired statistics", "traceeval-paired-stats", fmt)
        if path:
            self._guard(lambda: self.export_paired(path, fmt))

    def _ask_evidence(self) -> None:
        path = self._ask_path("Export the evidence packet", f"{self._stem()}-evidence", "html")
        if path:
            self.export_evidence(path)

    def _ask_path(self, title: str, stem: str, fmt: str) -> str:
        suffix = SUFFIXES.get(fmt, fmt)
        start = Path.home() / f"{stem}.{suffix}"
        return save_file_name(self.window, title, str(start), f"{fmt.upper()} (*.{suffix})")

    def _stem(self) -> str:
        key = self.window.state.instance_key or "traceeval"
        return key.replace("/", "-")

    def _guard(self, export) -> None:
        try:
            export()
        except (OSError, ValueError, TraceEvalError) as error:
            self._on_failed(str(error))

    def _on_failed(self, message: str) -> None:
        self.message.emit(f"Export failed: {message}")
        if self.window.interactive:
            QMessageBox.warning(self.window, "Export failed", message)
