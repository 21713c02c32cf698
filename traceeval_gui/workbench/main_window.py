"""The workbench window: programs on the left, source and graph side by side, and below them the
edge table, compare, metrics, plots and tracer tabs. Menus hold every action with its shortcut.

Every failure shows in the window: a status-bar message and an entry in View > Error Log. The layout
(size, position, docks, splitters) is saved on close and restored; any pane can fill the window."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QSizePolicy,
    QStyle,
    QTabWidget,
    QToolBar,
    QWidget,
)

from core.errors import TraceEvalError
from core.report.view_modes import VIEW_MODES, view_mode
from core.scoring.rules import PAPER
from core.wording import count
from resources import DEMO_DATASET
from traceeval_gui.app_options import TABS
from traceeval_gui.audit.audit_actions import AuditActions
from traceeval_gui.graph.graph_view import GraphPanel
from traceeval_gui.graph.legend import EdgeLegendView
from traceeval_gui.metrics.metrics_panel import MetricsPanel
from traceeval_gui.metrics.metrics_plots import MetricsPlotsPanel
from traceeval_gui.program.answer_panel import AnswerPanel
from traceeval_gui.program.compare_panel import ComparePanel
from traceeval_gui.program.edge_table import EdgePanel
from traceeval_gui.program.source_view import SourceView
from traceeval_gui.runs.model_runs import ModelRunActions
from traceeval_gui.runs.static_runs import StaticRunActions
from traceeval_gui.state.app_state import AppState
from traceeval_gui.state.jobs import ImportResultsJob, Job, OpenDatasetJob, OpenedDataset
from traceeval_gui.state.session import RecentDataset, Session
from traceeval_gui.theme.style import MUTED_TEXT, model_label, model_tooltip
from traceeval_gui.trace.tracer_console import TracerConsolePanel
from traceeval_gui.widgets.file_dialogs import open_files_or_folder
from traceeval_gui.widgets.form_parts import pane_splitter
from traceeval_gui.widgets.keyboard_dialog import KeyboardDialog, action
from traceeval_gui.workbench.command_palette import CommandPaletteDialog, open_command_palette
from traceeval_gui.workbench.dataset_menu import DatasetMenu
from traceeval_gui.workbench.error_log_view import ErrorLogDialog, WindowErrors
from traceeval_gui.workbench.export_actions import ExportActions
from traceeval_gui.workbench.instance_browser import InstanceBrowserPanel
from traceeval_gui.workbench.main_window_layout import MainWindowLayout
from traceeval_gui.workbench.parity_dialog import ParityDialog
from traceeval_gui.workbench.problems_dock import ProblemCount, ProblemsDock
from traceeval_gui.workbench.theme_menu import ThemeController

APP_TITLE = "TraceEval Studio"
TAB_TITLES = {"edges": "Edges", "compare": "Compare", "metrics": "Metrics", "plots": "Plots", "tracer": "Tracer",
              "answer": "Answer"}
NO_MODEL = "—"
PANE_MINIMUMS = {"source_view": (220, 120), "graph_panel": (260, 120), "bottom_tabs": (320, 120),
                 "views_splitter": (500, 160)}


class MainWindow(QMainWindow):
    dataset_failed = Signal(str)  # opening a dataset failed; the message is one line

    def __init__(self, state: AppState, settings: QSettings | None = None, interactive: bool = True,
                 theme: ThemeController | None = None) -> None:
        super().__init__()
        self.state = state
        self.settings = settings
        self.theme = theme if theme is not None else ThemeController(settings, self)
        self.errors = WindowErrors(self, state.jobs)
        self.error_log, self.error_indicator = self.errors.log, self.errors.indicator
        self.session = Session(settings) if settings is not None else None
        self.interactive = interactive  # False: report failures by signal only, no dialogs
        self._open_job: OpenDatasetJob | None = None  # the latest; results of older ones are dropped
        self._opening: RecentDataset | None = None
        self._restore_selection = False
        self._after_open_message = ""  # replaces "Opened …" once (e.g. what an import did)
        self._closing = False
        self._build_wizard: QWidget | None = None
        self._tracing: str | None = None  # the program a trace runs for: its stored run switches the graph
        self.setWindowTitle(APP_TITLE)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)

        self.browser = InstanceBrowserPanel(state)
        self.source_view = SourceView(state)
        self.graph_panel = GraphPanel(state)
        self.edge_panel = EdgePanel(state)
        self.compare_panel = ComparePanel(state)
        self.metrics_panel = MetricsPanel(state)
        self.plots_panel = MetricsPlotsPanel(state, self.metrics_panel)  # follows its modes and split
        self.tracer_panel = TracerConsolePanel(state)
        self.answer_panel = AnswerPanel(state)
        self.bottom_tabs = QTabWidget()
        self.bottom_tabs.setDocumentMode(True)
        for name in TABS:
            self.bottom_tabs.addTab(self.tab_widget(name), TAB_TITLES[name])
        self.views_splitter = pane_splitter(Qt.Orientation.Horizontal, (self.source_view, self.graph_panel), (1, 1))
        self.right_splitter = pane_splitter(Qt.Orientation.Vertical, (self.views_splitter, self.bottom_tabs), (3, 2))
        # Fixed minimums: a splitter otherwise follows its panes' minimum size hints, which change with
        # their content (the graph toolbar in compare mode) and make the handles jump.
        for pane, (width, height) in PANE_MINIMUMS.items():
            getattr(self, pane).setMinimumSize(width, height)
        self.setCentralWidget(self.right_splitter)
        self.browser_dock = QDockWidget("Programs", self)
        self.browser_dock.setObjectName("programs_dock")
        self.browser_dock.setWidget(self.browser)
        self.browser_dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                                      | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.browser_dock)
        self.problems_dock = ProblemsDock(state, self.browser, self.source_view, self)
        self.problems_panel = self.problems_dock.panel
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.problems_dock)
        self.problems_dock.hide()  # below everything, hidden until asked for
        self.layout_keeper = MainWindowLayout(self)
        self.maximiser = self.layout_keeper.maximiser

        self.dataset_menu = DatasetMenu(self)
        self.exports = ExportActions(self)
        self.model_runs = ModelRunActions(self)
        self.static_runs = StaticRunActions(self)
        self.audits = AuditActions(self)
        self._build_toolbar()
        self._build_menus()
        self._build_status_bar()
        self.metrics_panel.copied.connect(self._on_panel_message)
        self.metrics_panel.table_changed.connect(self._on_metrics_table_changed)
        self.dataset_menu.message.connect(self._on_panel_message)
        self.exports.message.connect(self._on_panel_message)
        self.compare_panel.export_requested.connect(self.exports.ask_paired)
        self.model_runs.message.connect(self._on_panel_message)
        self.static_runs.message.connect(self._on_panel_message)
        self.problems_dock.message.connect(self._on_panel_message)
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.model_selected.connect(self._on_state_model_selected)
        state.compare_model_selected.connect(self._on_state_compare_model_selected)
        state.predictions_changed.connect(self._on_state_predictions_changed)
        state.runs_changed.connect(self._on_state_runs_changed)
        self.tracer_panel.trace_started.connect(self._on_tracer_trace_started)
        self.tracer_panel.trace_ended.connect(self._on_tracer_trace_ended)
        state.instance_selected.connect(self._on_state_selection_changed)
        state.edge_selected.connect(self._on_state_selection_changed)
        state.node_selected.connect(self._on_state_selection_changed)
        if settings is not None:
            state.set_release_path(str(settings.value("release/path", "") or ""))
            state.release_changed.connect(self._on_state_release_changed)
        self.layout_keeper.start(settings)

    def tab_widget(self, name: str) -> QWidget:
        return {"edges": self.edge_panel, "compare": self.compare_panel, "metrics": self.metrics_panel,
                "plots": self.plots_panel, "tracer": self.tracer_panel, "answer": self.answer_panel}[name]

    def show_tab(self, name: str) -> None:
        self.bottom_tabs.setCurrentWidget(self.tab_widget(name))

    # -- building -------------------------------------------------------------------------
    def _build_toolbar(self) -> None:
        toolbar = QToolBar("Main")
        toolbar.setObjectName("main_toolbar")
        toolbar.setMovable(False)
        toolbar.setFloatable(False)
        toolbar.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)
        self.back_action = action(self, "&Back", self._on_back_triggered, QKeySequence.StandardKey.Back,
                                  "Back to the previous selection")
        self.forward_action = action(self, "&Forward", self._on_forward_triggered, QKeySequence.StandardKey.Forward,
                                     "Forward to the next selection")
        self.back_action.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_ArrowBack))
        self.forward_action.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_ArrowForward))
        toolbar.addAction(self.back_action)
        toolbar.addAction(self.forward_action)
        toolbar.addSeparator()
        self.model_combo = self._model_combo("Model A: the model whose edges are classed TP / FP / FN everywhere")
        self.model_combo.currentIndexChanged.connect(self._on_model_combo_changed)
        self.compare_combo = self._model_combo("Model B: compared with model A in the Compare tab, the edge "
                                               "table's Model B column and the graph's compare mode")
        self.compare_combo.currentIndexChanged.connect(self._on_compare_combo_changed)
        for title, combo in (("Model A:", self.model_combo), ("Model B:", self.compare_combo)):
            label = QLabel(title)
            label.setContentsMargins(8, 0, 4, 0)
            toolbar.addWidget(label)
            toolbar.addWidget(combo)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        toolbar.addWidget(spacer)
        toolbar.addWidget(EdgeLegendView())
        self.addToolBar(toolbar)

    @staticmethod
    def _model_combo(tip: str) -> QComboBox:
        combo = QComboBox()
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        combo.setMinimumContentsLength(18)
        combo.setToolTip(tip)
        return combo

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.dataset_menu.add_to(file_menu)
        file_menu.addSeparator()
        file_menu.addAction(action(self, "&Import Results…", self._on_import_action_triggered, "Ctrl+I",
                                   "Import released results files or JSONL predictions, or a folder of them, "
                                   "into this workspace"))
        self.exports.add_to(file_menu.addMenu("&Export"))
        file_menu.addSeparator()
        file_menu.addAction(action(self, "&Build Instances from Repository…", self.open_build_wizard, "Ctrl+Shift+B",
                                   "Turn a repository into new verified benchmark programs, one candidate at a time"))
        file_menu.addSeparator()
        file_menu.addAction(action(self, "&Quit", self.close, "Ctrl+Q"))  # the platform Quit key can be empty

        view_menu = bar.addMenu("&View")
        for index, name in enumerate(TABS):
            view_menu.addAction(action(self, f"&{TAB_TITLES[name]} tab", lambda _=False, n=name: self.show_tab(n),
                                       f"Ctrl+{index + 1}"))
        view_menu.addSeparator()
        view_menu.addAction(self.browser_dock.toggleViewAction())
        self.browser_dock.toggleViewAction().setShortcut(QKeySequence("Ctrl+B"))
        problems_action = self.problems_dock.toggleViewAction()
        problems_action.setText("P&roblems")
        problems_action.setShortcut(QKeySequence("Ctrl+Shift+D"))
        problems_action.setToolTip("What indexing the dataset found wrong: broken programs, unreadable files")
        view_menu.addAction(problems_action)
        view_menu.addSeparator()
        mode_menu = view_menu.addMenu("&Graph Shows")
        for mode in VIEW_MODES:
            mode_menu.addAction(action(self, view_mode(mode).title,
                                       lambda _=False, m=mode: self.state.set_view_mode(m)))
        view_menu.addAction(action(self, "Next Graph &Mode", self._on_next_mode_triggered, "Ctrl+G",
                                   "Cycle what the graph compares: model A, A vs B, trace, truth"))
        overlays = view_menu.addMenu("Toggle Edge &Classes")
        for index in range(4):
            overlays.addAction(action(self, f"Edge Class {index + 1} of the Legend",
                                      lambda _=False, i=index: self.state.toggle_class(i), f"Alt+{index + 1}"))
        view_menu.addAction(action(self, "&Fit Graph", self.graph_panel.fit, "Ctrl+0"))
        view_menu.addAction(action(self, "Whole Graph or &Neighbourhood", self._on_whole_graph_triggered,
                                   "Ctrl+Shift+G", "A program over 60 nodes: draw every node, or again only the "
                                   "selection's neighbourhood"))
        view_menu.addSeparator()
        view_menu.addAction(action(self, "&Maximise Pane", self.maximiser.toggle_focused, "Ctrl+Shift+Return",
                                   "The pane with the keyboard focus fills the window; again to restore "
                                   "(or double-click a pane's title or tabs)"))
        view_menu.addAction(action(self, "Reset &Layout", self.reset_layout, None,
                                   "Back to the first layout: programs on the left, source beside graph, tabs below"))
        self.theme.fill_menu(view_menu.addMenu("T&heme"), self)
        view_menu.addSeparator()
        view_menu.addAction(action(self, "Error &Log", self.errors.show_log, "Ctrl+Shift+E",
                                   "Everything that failed since the window opened, with the detail, copyable"))
        view_menu.addAction(action(self, "Command &Palette…", self.show_command_palette, "Ctrl+Shift+P",
                                   "Find any action by typing part of its name"))

        go_menu = bar.addMenu("&Go")
        go_menu.addAction(self.back_action)
        go_menu.addAction(self.forward_action)
        go_menu.addSeparator()
        go_menu.addAction(action(self, "&Next Program", lambda: self.browser.select_relative(1), "Ctrl+Down"))
        go_menu.addAction(action(self, "&Previous Program", lambda: self.browser.select_relative(-1), "Ctrl+Up"))
        go_menu.addAction(action(self, "Next &Error Edge", lambda: self._next_error(1), "F8",
                                 "The next missed or hallucinated edge of model A"))
        go_menu.addAction(action(self, "Previous E&rror Edge", lambda: self._next_error(-1), "Shift+F8"))
        go_menu.addSeparator()
        go_menu.addAction(action(self, "Filter &Programs", self._on_find_triggered,
                                 QKeySequence.StandardKey.Find, "Find in the source file when the code has the "
                                 "focus, else filter the programs"))
        go_menu.addAction(action(self, "Filter E&dges", self._on_filter_edges_triggered, "Ctrl+Shift+F"))

        trace_menu = bar.addMenu("&Trace")
        trace_menu.addAction(action(self, "&Trace This Program", self._on_trace_triggered, "F5",
                                    "Run the program under its tracer in the sandbox and show the run"))
        trace_menu.addAction(action(self, "&Cancel Trace", self.tracer_panel.cancel_trace, "Shift+F5"))

        model_menu = bar.addMenu("&Model")
        self.model_runs.add_to(model_menu)
        self.static_runs.add_to(model_menu)
        self.audits.add_to(bar.addMenu("&Audit"))

        help_menu = bar.addMenu("&Help")
        help_menu.addAction(action(self, "&Keyboard Shortcuts", self._on_keyboard_triggered,
                                   QKeySequence.StandardKey.HelpContents))
        help_menu.addAction(action(self, "Check &Paper Parity…", self._on_parity_triggered, None,
                                   "Run your TraceEval release's scripts in the sandbox against this tool's table, "
                                   "prompts and answer readings"))
        help_menu.addSeparator()
        help_menu.addAction(action(self, f"&About {APP_TITLE}", self._on_about_action_triggered))
        self._update_history_actions()

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.progress_bar = QProgressBar()
        self.progress_bar.setMaximumWidth(160)
        self.progress_bar.setMaximumHeight(14)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.hide()
        self.workspace_label = QLabel()
        self.programs_label = QLabel()
        self.problems_label = ProblemCount()  # a click opens the Problems list
        self.problems_label.clicked.connect(self.show_problems)
        bar.addWidget(self.progress_bar)
        bar.addPermanentWidget(self.error_indicator)
        bar.addPermanentWidget(self.model_runs.status)  # permanent: status messages do not hide it
        bar.addPermanentWidget(self.static_runs.status)
        for label in (self.workspace_label, self.programs_label, self.problems_label):
            label.setContentsMargins(8, 0, 8, 0)
            bar.addPermanentWidget(label)
        self.workspace_label.setStyleSheet(f"color: {MUTED_TEXT};")

    # -- opening --------------------------------------------------------------------------
    def open_dataset(self, root: str | Path | None, workspace: str | Path | None = None,
                     splits: str | Path | None = None) -> OpenDatasetJob:
        """Index and open a dataset (`root=None`: the one `workspace` belongs to) in the background;
        the window stays usable meanwhile."""
        job = OpenDatasetJob(root, workspace, splits)
        job.signals.progressed.connect(self._on_open_job_progressed)
        job.signals.finished.connect(self._on_open_job_finished)
        job.signals.failed.connect(self._on_open_job_failed)
        job.signals.cancelled.connect(self._on_open_job_cancelled)
        name = "the demo dataset" if job.root == DEMO_DATASET else job.root.name if job.root else Path(workspace).name
        self.statusBar().showMessage(f"Opening {name}…")
        self._show_busy(True)
        if self._open_job is not None:
            self._open_job.cancel()
        self._open_job = job
        self._opening = RecentDataset(str(job.root) if job.root else "", str(workspace or ""), str(splits or ""))
        self.state.jobs.start(job)
        return job

    def restore_session(self) -> bool:
        """Reopen the last dataset with its workspace and selection; False when there is none."""
        last = self.session.last() if self.session is not None else None
        if last is None:
            return False
        self._restore_selection = True
        self.open_dataset(last.dataset, last.workspace or None, last.splits or None)
        return True

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
        self._show_busy(False)
        self._save_selection()  # of the dataset being left
        try:
            self.state.adopt(opened)
        except TraceEvalError as error:
            self._report_open_failure(str(error))
            return
        if self.session is not None and self._opening is not None:
            self.session.remember(RecentDataset(str(opened.root), self._opening.workspace, self._opening.splits))
        report = opened.report
        self.statusBar().showMessage(self._after_open_message or (
            f"Opened {opened.name}: {count(report.instances, 'program')} ({report.loaded:,} read, "
            f"{report.reused:,} unchanged) in {report.seconds:.2f} s"), 8000)
        self._after_open_message = ""

    def _on_open_job_failed(self, message: str) -> None:
        if self._is_current_open_job():
            self._open_job = None
            self._restore_selection = False
            self._report_open_failure(message)

    def _report_open_failure(self, message: str) -> None:
        self._show_busy(False)
        self.statusBar().showMessage(f"Could not open the dataset: {message}")
        if self.interactive:
            QMessageBox.critical(self, "Cannot open the dataset", message)
        self.dataset_failed.emit(message)

    def _on_open_job_cancelled(self) -> None:
        if not self._is_current_open_job():
            return
        self._open_job = None
        self._show_busy(False)
        self.statusBar().showMessage("Opening cancelled", 5000)

    def _show_busy(self, busy: bool) -> None:
        self.progress_bar.setRange(0, 0)
        self.progress_bar.setVisible(busy)

    # -- state ----------------------------------------------------------------------------
    def _on_state_dataset_opened(self) -> None:
        opened = self.state.opened
        self.setWindowTitle(f"{APP_TITLE} — {opened.name}")
        self.workspace_label.setText(f"workspace {opened.workspace_path.name}")
        self.workspace_label.setToolTip(str(opened.workspace_path))
        self.programs_label.setText(count(len(opened.rows), "program"))
        self.problems_label.show_problems(opened.report.problems)
        self.problems_panel.set_problems(opened.report.problems, opened.root)
        self._fill_model_combos()
        if self._restore_selection:
            self._restore_selection = False
            self._apply_saved_selection()
        self._update_history_actions()

    def _fill_model_combos(self) -> None:
        models = self.state.models
        for combo, none_text in ((self.model_combo, "no model results imported"), (self.compare_combo, NO_MODEL)):
            combo.blockSignals(True)
            combo.clear()
            if combo is self.compare_combo:
                combo.addItem(NO_MODEL, None)
            for model in models:
                combo.addItem(model_label(model), model.name)
                combo.setItemData(combo.count() - 1, model_tooltip(model), Qt.ItemDataRole.ToolTipRole)
            if not models and combo is self.model_combo:
                combo.addItem(none_text, None)
            combo.setEnabled(bool(models))
            combo.blockSignals(False)
        self._on_state_model_selected(self.state.model or "")
        self._on_state_compare_model_selected(self.state.compare_model or "")

    def _on_state_predictions_changed(self, model: str, _keys: frozenset) -> None:
        """A running model stored answers: a model seen for the first time joins the combos and becomes
        model A (what the user just ran is what they want to see); later batches leave the choice alone."""
        if self.model_combo.findData(model) < 0:
            self._fill_model_combos()
            if self.state.model != model:
                self.state.select_model(model)
                self._on_panel_message(f"Model A is now {model}, the model just run (its first answers arrived)")
        elif self.state.model is None:
            self.state.select_model(model)

    def _on_tracer_trace_started(self, key: str) -> None:
        self._tracing = key

    def _on_tracer_trace_ended(self, _key: str) -> None:
        self._tracing = None

    def _on_state_runs_changed(self, key: str) -> None:
        """The trace just run was stored: the graph shows it against the truth (the user traced to see it)."""
        if key != self._tracing or key != self.state.instance_key:
            return
        self.state.set_view_mode("trace")
        self._on_panel_message(f"Graph: {view_mode('trace').title}, the run just stored (Ctrl+G: the next mode)")

    def _on_state_model_selected(self, model: str) -> None:
        _set_combo_data(self.model_combo, model or None)

    def _on_state_compare_model_selected(self, model: str) -> None:
        _set_combo_data(self.compare_combo, model or None)

    def _on_state_selection_changed(self, *_args) -> None:
        self._update_history_actions()

    def _on_model_combo_changed(self, _index: int) -> None:
        self.state.select_model(self.model_combo.currentData())

    def _on_compare_combo_changed(self, _index: int) -> None:
        self.state.select_compare_model(self.compare_combo.currentData())

    def _on_panel_message(self, message: str) -> None:
        self.statusBar().showMessage(message, 6000)

    def _update_history_actions(self) -> None:
        self.back_action.setEnabled(self.state.history.can_go_back())
        self.forward_action.setEnabled(self.state.history.can_go_forward())

    # -- actions --------------------------------------------------------------------------
    def open_build_wizard(self) -> QWidget:
        """The build wizard (non-modal, one at a time: asking again brings it to the front)."""
        from traceeval_gui.build.build_wizard import BuildWizard

        if self._build_wizard is None:
            self._build_wizard = BuildWizard(self.settings, jobs=self.state.jobs, workbench=self, parent=self)
            self._build_wizard.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self._build_wizard.destroyed.connect(lambda _=None: setattr(self, "_build_wizard", None))
        self._build_wizard.show()
        self._build_wizard.raise_()
        self._build_wizard.activateWindow()
        return self._build_wizard

    def _on_import_action_triggered(self) -> None:
        if self.state.opened is None:
            self._on_panel_message("Open a dataset first, then import results for it")
            return
        paths = open_files_or_folder(self, "Import results: files, or every results file in a folder",
                                     self.dataset_menu.start_folder(), "Results (*.json *.jsonl);;All files (*)",
                                     "Import Every Results File in This &Folder")
        if paths:
            self.import_results(paths)

    def import_results(self, paths: list[str], model: str | None = None) -> Job:
        """Import results into the open workspace, then reopen the dataset to show the new models."""
        opened = self.state.opened
        job = ImportResultsJob(opened.workspace_path, paths, model)
        job.signals.finished.connect(self._on_import_job_finished)
        job.signals.failed.connect(self._on_job_failed)
        folders = [Path(p).name for p in paths if Path(p).is_dir()]
        what = f"the results files in {folders[0]}" if folders and len(paths) == 1 else count(len(paths), "file")
        self.statusBar().showMessage(f"Importing {what}…")
        self._show_busy(True)
        self.state.jobs.start(job)
        return job

    def _on_import_job_finished(self, report) -> None:
        self._show_busy(False)
        stored = ", ".join(f"{model}: {stored:,}" for model, stored in report.stored.items()) or "nothing"
        problems = f"; {count(len(report.problems), 'problem')}, e.g. {report.problems[0]}" if report.problems else ""
        message = f"Imported {stored} from {count(report.files, 'file')}{problems}" if report.files else \
            "No results files (.json, .jsonl) there: nothing imported"
        if self.interactive and report.problems:
            QMessageBox.warning(self, "Import results", message)
        if not report.stored:
            self.statusBar().showMessage(message)
            return
        self.reopen(message)

    def reopen(self, message: str = "") -> OpenDatasetJob:
        """Open the dataset again with its workspace, keeping the selection (after new results);
        `message` replaces the usual "Opened …" once."""
        opened = self.state.opened
        self._restore_selection = True
        self._after_open_message = message
        self._save_selection()
        return self.open_dataset(opened.root, opened.workspace_path)

    def _on_job_failed(self, message: str) -> None:
        self._show_busy(False)
        self.statusBar().showMessage(message)
        if self.interactive:
            QMessageBox.warning(self, APP_TITLE, message)

    # -- errors and the palette ------------------------------------------------------------
    @property
    def _error_log_dialog(self) -> ErrorLogDialog | None:
        return self.errors.dialog

    def show_command_palette(self) -> CommandPaletteDialog:
        self.command_palette = open_command_palette(self)
        return self.command_palette

    def show_problems(self) -> None:
        self.problems_dock.show_and_focus()

    def _on_back_triggered(self) -> None:
        self.state.go_back()
        self._update_history_actions()

    def _on_forward_triggered(self) -> None:
        self.state.go_forward()
        self._update_history_actions()

    def _next_error(self, step: int) -> None:
        self.show_tab("edges")
        if not self.edge_panel.select_next_error(step):
            self._on_panel_message("No missed or hallucinated edges here")

    def _on_next_mode_triggered(self) -> None:
        modes = list(VIEW_MODES)
        self.state.set_view_mode(modes[(modes.index(self.state.view_mode) + 1) % len(modes)])
        self._on_panel_message(f"Graph: {view_mode(self.state.view_mode).title} "
                               f"(Alt+1…{len(view_mode(self.state.view_mode).classes)} toggle its classes)")

    def _on_find_triggered(self) -> None:
        focus = QApplication.focusWidget()
        if focus is not None and self.source_view.isAncestorOf(focus):
            self.source_view.open_find()
        else:
            self.browser.focus_filter()

    def _on_whole_graph_triggered(self) -> None:
        button = self.graph_panel.show_all_button
        if not button.isVisibleTo(self.graph_panel):
            self._on_panel_message("This graph is drawn whole: only programs over 60 nodes open on a neighbourhood")
            return
        button.click()

    def _on_filter_edges_triggered(self) -> None:
        self.show_tab("edges")
        self.edge_panel.focus_filter()

    def _on_trace_triggered(self) -> None:
        self.show_tab("tracer")
        self.tracer_panel.start_trace()

    def _on_keyboard_triggered(self) -> None:
        self.keyboard_dialog().exec()

    def keyboard_dialog(self) -> KeyboardDialog:
        extra = [("Graph", "Zoom", "mouse wheel"), ("Graph", "Pan", "drag"), ("Graph", "Fit", "F (graph focused)"),
                 ("Source", "Find in the file", "Ctrl+F (code focused)"), ("Source", "Next / previous match",
                                                                         "F3 / Shift+F3")]
        return KeyboardDialog([a.menu() for a in self.menuBar().actions() if a.menu() is not None], extra, self)

    def _on_parity_triggered(self) -> None:
        self.parity_dialog = ParityDialog(self.state, self)
        self.parity_dialog.show()  # the check runs in the background; the window stays usable

    def _on_about_action_triggered(self) -> None:
        QMessageBox.about(self, f"About {APP_TITLE}",
                          f"<b>{APP_TITLE}</b><p>A workbench for the TraceEval call-graph benchmark: browse "
                          "programs, compare predicted call graphs with the execution-verified ground truth, "
                          "re-trace programs, and reproduce the paper's scores.</p><p>Everything here is also a "
                          "<code>traceeval</code> command.</p>")

    # -- session ------------------------------------------------------------------------------
    def _apply_saved_selection(self) -> None:
        instance = self.session.restore_selection(self.state) if self.session is not None else None
        if instance:
            self.browser.select_key(instance)

    def _save_selection(self) -> None:
        if self.session is not None:
            self.session.remember_selection(self.state)

    def _on_metrics_table_changed(self) -> None:
        """The Metrics and Plots tabs name a rule set that is not the paper's in their titles."""
        table = self.metrics_panel.table
        note = f" ({table.rules_title})" if table is not None and table.rules != PAPER else ""
        for name in ("metrics", "plots"):
            self.bottom_tabs.setTabText(self.bottom_tabs.indexOf(self.tab_widget(name)), TAB_TITLES[name] + note)

    def _on_state_release_changed(self) -> None:
        self.settings.setValue("release/path", self.state.release_path)

    def apply_default_layout(self) -> None:
        self.layout_keeper.apply_default()

    def reset_layout(self) -> None:
        """View > Reset Layout."""
        self.layout_keeper.reset()
        self._on_panel_message("Layout reset")

    def closeEvent(self, event: QCloseEvent) -> None:
        self._closing = True
        self.layout_keeper.save(self.settings)
        self._save_selection()
        self.state.jobs.cancel_all()
        self.state.jobs.wait()
        self.state.close()
        super().closeEvent(event)


def _set_combo_data(combo: QComboBox, data) -> None:
    index = combo.findData(data)
    if index >= 0 and index != combo.currentIndex():
        combo.blockSignals(True)
        combo.setCurrentIndex(index)
        combo.blockSignals(False)
