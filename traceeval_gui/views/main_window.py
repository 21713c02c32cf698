"""The workbench window: instance browser | source view over the edge table and metrics."""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QComboBox, QFileDialog, QLabel, QMainWindow, QMessageBox, QProgressBar, QSizePolicy, \
    QSplitter, QTabWidget, QToolBar, QWidget

from core.errors import TraceEvalError
from resources import DEMO_DATASET
from traceeval_gui.app_state import AppState
from traceeval_gui.jobs import OpenDatasetJob, OpenedDataset
from traceeval_gui.views.edge_table import EdgePanel
from traceeval_gui.views.instance_browser import InstanceBrowserPanel
from traceeval_gui.views.legend import EdgeLegendView
from traceeval_gui.views.metrics_panel import MetricsPanel
from traceeval_gui.views.source_view import SourceView
from traceeval_gui.views.style import MUTED_TEXT, model_label, model_tooltip

APP_TITLE = "TraceEval Studio"
PROBLEMS_SHOWN = 12


class MainWindow(QMainWindow):
    dataset_failed = Signal(str)  # opening a dataset failed; the message is one line

    def __init__(self, state: AppState, settings: QSettings | None = None, interactive: bool = True) -> None:
        super().__init__()
        self.state = state
        self.settings = settings
        self.interactive = interactive  # False: report failures by signal only, no dialogs
        self._open_job: OpenDatasetJob | None = None  # the latest; results of older ones are dropped
        self._closing = False
        self.setWindowTitle(APP_TITLE)
        self.resize(1400, 900)

        self.browser = InstanceBrowserPanel(state)
        self.source_view = SourceView(state)
        self.edge_panel = EdgePanel(state)
        self.metrics_panel = MetricsPanel(state)
        self.bottom_tabs = QTabWidget()
        self.bottom_tabs.setDocumentMode(True)
        self.bottom_tabs.addTab(self.edge_panel, "Edges")
        self.bottom_tabs.addTab(self.metrics_panel, "Metrics")
        self.right_splitter = QSplitter(Qt.Orientation.Vertical)
        self.right_splitter.addWidget(self.source_view)
        self.right_splitter.addWidget(self.bottom_tabs)
        self.right_splitter.setStretchFactor(0, 3)
        self.right_splitter.setStretchFactor(1, 2)
        self.right_splitter.setSizes([520, 330])
        self.main_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.main_splitter.addWidget(self.browser)
        self.main_splitter.addWidget(self.right_splitter)
        self.main_splitter.setStretchFactor(0, 0)
        self.main_splitter.setStretchFactor(1, 1)
        self.main_splitter.setSizes([650, 750])
        for splitter in (self.main_splitter, self.right_splitter):
            splitter.setChildrenCollapsible(False)
            splitter.setHandleWidth(6)
        self.setCentralWidget(self.main_splitter)

        self._build_toolbar()
        self._build_menus()
        self._build_status_bar()
        self.metrics_panel.copied.connect(self._on_metrics_panel_copied)
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.model_selected.connect(self._on_state_model_selected)
        self._restore_layout()

    # -- building -------------------------------------------------------------------------
    def _build_toolbar(self) -> None:
        toolbar = QToolBar("Main")
        toolbar.setObjectName("main_toolbar")
        toolbar.setMovable(False)
        toolbar.setFloatable(False)
        toolbar.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)
        model_label_widget = QLabel("Model:")
        model_label_widget.setContentsMargins(6, 0, 4, 0)
        self.model_combo = QComboBox()
        self.model_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.model_combo.setMinimumContentsLength(24)
        self.model_combo.setToolTip("The model whose edges are shown in the source view and edge table")
        self.model_combo.currentIndexChanged.connect(self._on_model_combo_changed)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        toolbar.addWidget(model_label_widget)
        toolbar.addWidget(self.model_combo)
        toolbar.addWidget(spacer)
        toolbar.addWidget(EdgeLegendView())
        self.addToolBar(toolbar)

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        open_action = QAction("&Open Dataset…", self, shortcut=QKeySequence.StandardKey.Open)
        open_action.triggered.connect(self._on_open_action_triggered)
        demo_action = QAction("Open &Demo Dataset", self)
        demo_action.triggered.connect(self._on_demo_action_triggered)
        quit_action = QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addActions([open_action, demo_action])
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        view_menu = self.menuBar().addMenu("&View")
        for index, (title, key) in enumerate((("&Edges", "Ctrl+1"), ("&Metrics", "Ctrl+2"))):
            action = QAction(title, self, shortcut=QKeySequence(key))
            action.setData(index)
            action.triggered.connect(self._on_view_action_triggered)
            view_menu.addAction(action)
        help_menu = self.menuBar().addMenu("&Help")
        about_action = QAction(f"&About {APP_TITLE}", self)
        about_action.triggered.connect(self._on_about_action_triggered)
        help_menu.addAction(about_action)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.progress_bar = QProgressBar()
        self.progress_bar.setMaximumWidth(160)
        self.progress_bar.setMaximumHeight(14)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.hide()
        self.workspace_label = QLabel()
        self.programs_label = QLabel()
        self.problems_label = QLabel()
        bar.addWidget(self.progress_bar)
        for label in (self.workspace_label, self.programs_label, self.problems_label):
            label.setContentsMargins(8, 0, 8, 0)
            bar.addPermanentWidget(label)
        self.workspace_label.setStyleSheet(f"color: {MUTED_TEXT};")

    # -- opening --------------------------------------------------------------------------
    def open_dataset(self, root: str | Path, workspace: str | Path | None = None,
                     splits: str | Path | None = None) -> OpenDatasetJob:
        """Index and open a dataset in the background; the window stays usable meanwhile."""
        job = OpenDatasetJob(root, workspace, splits)
        job.signals.progressed.connect(self._on_open_job_progressed)
        job.signals.finished.connect(self._on_open_job_finished)
        job.signals.failed.connect(self._on_open_job_failed)
        job.signals.cancelled.connect(self._on_open_job_cancelled)
        name = "the demo dataset" if job.root == DEMO_DATASET else job.root.name
        self.statusBar().showMessage(f"Opening {name}…")
        self.progress_bar.setRange(0, 0)
        self.progress_bar.show()
        if self._open_job is not None:
            self._open_job.cancel()
        self._open_job = job
        self.state.jobs.start(job)
        return job

    def _is_current_open_job(self) -> bool:
        return not self._closing and self._open_job is not None and self.sender() is self._open_job.signals

    def _on_open_job_progressed(self, done: int, total: int, message: str) -> None:
        if not self._is_current_open_job():
            return
        self.progress_bar.setRange(0, total)
        self.progress_bar.setValue(done)
        self.statusBar().showMessage(f"{message[:1].upper()}{message[1:]}…")

    def _on_open_job_finished(self, opened: OpenedDataset) -> None:
        if not self._is_current_open_job():
            return
        self._open_job = None
        self.progress_bar.hide()
        try:
            self.state.adopt(opened)
        except TraceEvalError as error:
            self._report_open_failure(str(error))
            return
        report = opened.report
        self.statusBar().showMessage(
            f"Opened {opened.name}: {report.instances:,} programs ({report.loaded:,} read, "
            f"{report.reused:,} unchanged) in {report.seconds:.2f} s", 8000)

    def _on_open_job_failed(self, message: str) -> None:
        if self._is_current_open_job():
            self._open_job = None
            self._report_open_failure(message)

    def _report_open_failure(self, message: str) -> None:
        self.progress_bar.hide()
        self.statusBar().showMessage(f"Could not open the dataset: {message}")
        if self.interactive:
            QMessageBox.critical(self, "Cannot open the dataset", message)
        self.dataset_failed.emit(message)

    def _on_open_job_cancelled(self) -> None:
        if not self._is_current_open_job():
            return
        self._open_job = None
        self.progress_bar.hide()
        self.statusBar().showMessage("Opening cancelled", 5000)

    # -- state ----------------------------------------------------------------------------
    def _on_state_dataset_opened(self) -> None:
        opened = self.state.opened
        self.setWindowTitle(f"{APP_TITLE} — {opened.name}")
        self.workspace_label.setText(f"workspace {opened.workspace_path.name}")
        self.workspace_label.setToolTip(str(opened.workspace_path))
        self.programs_label.setText(f"{len(opened.rows):,} programs")
        problems = opened.report.problems
        errors = sum(p.severity == "error" for p in problems)
        self.problems_label.setText(f"{len(problems):,} problem{'s' if len(problems) != 1 else ''}")
        colour = "#c62828" if errors else "#8a5a00" if problems else MUTED_TEXT
        self.problems_label.setStyleSheet(f"color: {colour};")
        shown = "<br>".join(html.escape(str(p)) for p in problems[:PROBLEMS_SHOWN])
        more = f"<br>… and {len(problems) - PROBLEMS_SHOWN} more (traceeval validate)" \
            if len(problems) > PROBLEMS_SHOWN else ""
        self.problems_label.setToolTip(shown + more if problems else "No problems found while indexing")
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        for model in opened.models:
            self.model_combo.addItem(model_label(model), model.name)
            self.model_combo.setItemData(self.model_combo.count() - 1, model_tooltip(model),
                                         Qt.ItemDataRole.ToolTipRole)
        if not opened.models:
            self.model_combo.addItem("no model results imported", None)
        self.model_combo.setEnabled(bool(opened.models))
        self.model_combo.blockSignals(False)
        self._on_state_model_selected(self.state.model or "")

    def _on_state_model_selected(self, model: str) -> None:
        index = self.model_combo.findData(model) if model else -1
        if index >= 0 and index != self.model_combo.currentIndex():
            self.model_combo.blockSignals(True)
            self.model_combo.setCurrentIndex(index)
            self.model_combo.blockSignals(False)

    def _on_model_combo_changed(self, _index: int) -> None:
        self.state.select_model(self.model_combo.currentData())

    def _on_metrics_panel_copied(self, message: str) -> None:
        self.statusBar().showMessage(message, 4000)

    # -- actions --------------------------------------------------------------------------
    def _on_open_action_triggered(self) -> None:
        start = str(self.state.opened.root.parent) if self.state.opened else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Open a TraceEval dataset", start)
        if folder:
            self.open_dataset(folder)

    def _on_demo_action_triggered(self) -> None:
        self.open_dataset(DEMO_DATASET)

    def _on_view_action_triggered(self) -> None:
        self.bottom_tabs.setCurrentIndex(self.sender().data())

    def _on_about_action_triggered(self) -> None:
        QMessageBox.about(self, f"About {APP_TITLE}",
                          f"<b>{APP_TITLE}</b><p>A workbench for the TraceEval call-graph benchmark: browse "
                          "programs, compare predicted call graphs with the execution-verified ground truth, "
                          "and reproduce the paper's scores.</p><p>Everything here is also a "
                          "<code>traceeval</code> command.</p>")

    # -- layout persistence ---------------------------------------------------------------
    def _restore_layout(self) -> None:
        if self.settings is None:
            return
        for key, restore in (("geometry", self.restoreGeometry), ("state", self.restoreState),
                             ("main_splitter", self.main_splitter.restoreState),
                             ("right_splitter", self.right_splitter.restoreState)):
            value = self.settings.value(f"window/{key}")
            if value is not None:
                restore(value)

    def _save_layout(self) -> None:
        if self.settings is None:
            return
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.setValue("window/main_splitter", self.main_splitter.saveState())
        self.settings.setValue("window/right_splitter", self.right_splitter.saveState())

    def closeEvent(self, event: QCloseEvent) -> None:
        self._closing = True
        self._save_layout()
        self.state.jobs.cancel_all()
        self.state.jobs.wait()
        self.state.close()
        super().closeEvent(event)
