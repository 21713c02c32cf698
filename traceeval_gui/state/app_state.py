"""The workbench's shared state: the open workspace, the current instance, models, node and edge.

Views change the state only through the `select_*` / `set_*` methods and follow it through the
signals, so a selection made anywhere (a table row, a graph node, a command-line option) shows
everywhere. Selections are remembered for back / forward. The workspace held here belongs to
the GUI thread; jobs open their own.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from core.dataset.workspace import ModelRow, Workspace
from core.errors import ReleaseError, UnconfirmedRelease
from core.llm.prompt_wording import STUDIO_WORDING, PromptWording
from core.release.checkout import RELEASE_ENV, Confirm, Release, ReleaseLocation, prompt_wording, usable_release
from core.release.confirmed import ScriptsDigest
from core.report.view_modes import VIEW_MODES, view_mode
from core.scoring.normalise import MODES
from core.scoring.scores import instance_counts
from traceeval_gui.item_models.instance_detail import ClassifiedEdge, InstanceDetail, InstanceDetailLoader
from traceeval_gui.state.collector import IdleCollector
from traceeval_gui.state.jobs import JobRunner, OpenedDataset
from traceeval_gui.state.read_ahead import ReadAhead
from traceeval_gui.state.selection_history import Selection, SelectionHistory
from traceeval_gui.state.warm_up import warm_up_in_background

SETTLE_MS = 50  # after a model run ends, the wait before the dataset-wide tables re-score (see model_run_ended)


class AppState(QObject):
    dataset_opened = Signal()  # `opened` and `workspace` are new; instance and edge are cleared
    instance_selected = Signal(str)  # instance key ("" = none)
    model_selected = Signal(str)  # model name ("" = none)
    compare_model_selected = Signal(str)  # model B ("" = none)
    edge_selected = Signal(object)  # ClassifiedEdge or None
    node_selected = Signal(str)  # normalised name ("" = none)
    overlays_changed = Signal()  # the view mode or the hidden edge classes changed
    runs_changed = Signal(str)  # a trace run of this instance was stored
    predictions_changed = Signal(str, object)  # model, frozenset of instance keys it just answered
    answers_settled = Signal(str)  # a model run that stored answers ended: dataset-wide tables re-score
    verdicts_changed = Signal(str)  # an audit verdict on this instance was given, or the annotator changed ("")
    release_changed = Signal()  # the TraceEval release the prompts take their words from was set

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        warm_up_in_background()
        self.jobs = JobRunner(self)
        self.collector = IdleCollector.watch(self.jobs)  # full garbage collections only between jobs
        self.opened: OpenedDataset | None = None
        self.workspace: Workspace | None = None
        self.instance_key: str | None = None
        self.model: str | None = None
        self.compare_model: str | None = None
        self.edge: ClassifiedEdge | None = None
        self.node: str | None = None
        self.annotator: str | None = None  # while one audits, views show only their verdicts (None: everyone's)
        self.view_mode = "model"  # one of VIEW_MODES: how edges are classed in the graph
        self.hidden_classes: set[str] = set()  # edge classes (palette names) toggled off
        self.history = SelectionHistory()
        self.release_path = ""  # the user's TraceEval release ("": $TRACEEVAL_RELEASE or next to the dataset)
        self._wording: tuple[tuple[str, str, str], PromptWording, str] | None = None
        self._loader = InstanceDetailLoader()
        self._read_ahead = ReadAhead(self._loader)
        self._detail: InstanceDetail | None = None
        self._settled: set[str] = set()  # models whose run ended, for `answers_settled`
        self._settle_timer = QTimer(self, singleShot=True, interval=SETTLE_MS)
        self._settle_timer.timeout.connect(self._on_settle_timer_timeout)

    # -- the dataset ----------------------------------------------------------------------
    def adopt(self, opened: OpenedDataset) -> None:
        """Take over a dataset opened by `OpenDatasetJob`, reopening its workspace in this thread."""
        workspace = Workspace(opened.workspace_path)
        self.close()
        self.opened, self.workspace = opened, workspace
        names = [m.name for m in opened.models]
        self.model = self.model if self.model in names else (names[0] if names else None)
        others = [n for n in names if n != self.model]
        self.compare_model = self.compare_model if self.compare_model in others else (others[0] if others else None)
        self.history.clear()
        self.dataset_opened.emit()  # views read `model` from here; no separate model_selected

    def close(self) -> None:
        if self.workspace is not None:
            self.workspace.close()
        self.workspace = self.opened = None
        self.instance_key = self.edge = self.node = self._detail = None
        self._loader.clear()

    # -- the prompts' words -----------------------------------------------------------------
    def set_release_path(self, path: str) -> None:
        path = path.strip()
        if path != self.release_path:
            self.release_path, self._wording = path, None
            self.release_changed.emit()

    def prompt_wording(self) -> PromptWording:
        """The words prompts are built with: the usable release's (`core.release.checkout`: the one named, else one
        found next to the dataset and confirmed), else the studio's; a release that cannot be read, or is found
        and not confirmed, gives the studio's and `release_problem` says why."""
        root = str(self.opened.root) if self.opened else ""
        key = (self.release_path, root, os.environ.get(RELEASE_ENV, ""))
        if self._wording is None or self._wording[0] != key:
            try:
                wording, problem = prompt_wording(self.release_path or None, Path(root) if root else None), ""
            except ReleaseError as error:
                wording, problem = STUDIO_WORDING, release_problem_text(error)
            self._wording = (key, wording, problem)
        return self._wording[1]

    def confirmed_release(self, path: str, confirm: Confirm) -> Release | None:
        """The release at `path` ("": found by itself, as the window's setting says), a found one not confirmed
        before offered to `confirm`; None when there is none, ReleaseError when it cannot be used
        (UnconfirmedRelease: declined). Once confirmed, the window's prompts take its words."""
        root = Path(self.opened.root) if self.opened else None
        answers: list[bool] = []

        def asked(location: ReleaseLocation, digest: ScriptsDigest) -> bool:
            answers.append(confirm(location, digest))
            return answers[-1]

        release = usable_release(path.strip() or None, root, asked)
        if any(answers):  # remembered by now: the words are read again
            self._wording = None
            self.release_changed.emit()
        return release

    @property
    def release_problem(self) -> str:
        self.prompt_wording()
        return self._wording[2]

    @property
    def models(self) -> tuple[ModelRow, ...]:
        return self.opened.models if self.opened else ()

    def model_row(self, name: str | None) -> ModelRow | None:
        return next((m for m in self.models if m.name == name), None)

    def resolve_instance(self, given: str) -> str | None:
        """An instance key from a key or a bare id (None when unknown or ambiguous)."""
        rows = self.opened.rows if self.opened else ()
        keys = [r.key for r in rows if given in (r.key, r.id)]
        return keys[0] if len(keys) == 1 else None

    # -- selection ------------------------------------------------------------------------
    def select_instance(self, key: str | None) -> None:
        key = key or None
        if key == self.instance_key:
            return
        self.instance_key, self.edge, self.node, self._detail = key, None, None, None
        self._remember()
        self.instance_selected.emit(key or "")

    def select_model(self, name: str | None) -> None:
        name = name or None
        if name == self.model:
            return
        self.model, self._detail = name, None
        self.edge = self._reclassified(self.edge)
        self.model_selected.emit(name or "")

    def select_compare_model(self, name: str | None) -> None:
        name = name or None
        if name == self.compare_model:
            return
        self.compare_model = name  # the detail's overlay already holds every model
        self.compare_model_selected.emit(name or "")

    def select_edge(self, edge: ClassifiedEdge | None) -> None:
        if edge == self.edge:
            return
        self.edge = edge
        self._remember()
        self.edge_selected.emit(edge)

    def select_edge_named(self, caller: str, callee: str) -> None:
        """Select an edge by its names (graph clicks, history); its class comes from the current model."""
        detail = self.detail()
        self.select_edge(detail.classify(caller, callee) if detail is not None else None)

    def select_node(self, name: str | None) -> None:
        name = name or None
        if name == self.node:
            return
        self.node = name
        self._remember()
        self.node_selected.emit(name or "")

    def set_view_mode(self, mode: str) -> None:
        if mode not in VIEW_MODES:
            raise ValueError(f"unknown view mode {mode!r}")
        if mode != self.view_mode:
            self.view_mode = mode
            self.overlays_changed.emit()

    def set_class_shown(self, name: str, shown: bool) -> None:
        if (name not in self.hidden_classes) != shown:
            (self.hidden_classes.discard if shown else self.hidden_classes.add)(name)
            self.overlays_changed.emit()

    def toggle_class(self, index: int) -> None:
        """Toggle the view mode's `index`-th edge class (keyboard 1..4)."""
        classes = view_mode(self.view_mode).classes
        if 0 <= index < len(classes):
            self.set_class_shown(classes[index], classes[index] in self.hidden_classes)

    def run_stored(self, key: str) -> None:
        """A tracer run of `key` was stored: views showing its trace reload."""
        if key == self.instance_key:
            self._detail = None
        self.runs_changed.emit(key)

    def set_annotator(self, annotator: str | None) -> None:
        """Whose audit verdicts the views show: one annotator's own while they audit, so nobody sees
        another's verdicts; everyone's (the newest) when None."""
        if annotator != self.annotator:
            self.annotator = annotator
            self._detail = None
            self.verdicts_changed.emit("")

    def verdicts_stored(self, key: str) -> None:
        """An audit verdict on `key` was given or taken back: views showing verdicts reload."""
        if key == self.instance_key:
            self._detail = None
        self.verdicts_changed.emit(key)

    def predictions_stored(self, model: str, keys: Iterable[str]) -> None:
        """A model run stored answers for `keys`: take in the model list and their (cached) counts,
        so tables and the current program's views show them without reopening the dataset."""
        if self.opened is None or self.workspace is None:
            return
        keys = frozenset(keys)
        rows = [row for row in self.opened.rows if row.key in keys]
        counts = instance_counts(self.workspace, model, rows, frozenset(MODES))
        self.opened = replace(self.opened, models=tuple(self.workspace.models()))
        self.opened.counts.setdefault(model, {}).update(counts)
        first = self.model is None  # the workspace's first model: it becomes model A, as opening would make it
        if first:
            self.model = model
        if self.instance_key in keys or first:
            self._detail = None
        self.predictions_changed.emit(model, keys)
        if first:
            self.model_selected.emit(model)

    def model_run_ended(self, model: str) -> None:
        """A run of `model` that stored answers ended. Tables over the whole dataset (metrics, plots,
        compare) re-score in the background then, once, rather than after every batch of answers;
        reopening the dataset instead would rebuild every view on the GUI thread. They start a moment
        later, once the window has repainted the run's end: started at once, their threads took the
        GIL from that repaint (20 ms of work stretched to 60)."""
        self._settled.add(model)
        self._settle_timer.start()

    def _on_settle_timer_timeout(self) -> None:
        settled, self._settled = self._settled, set()
        if self.opened is not None:
            for model in sorted(settled):
                self.answers_settled.emit(model)

    # -- back / forward -------------------------------------------------------------------
    def go_back(self) -> bool:
        return self._restore(self.history.back())

    def go_forward(self) -> bool:
        return self._restore(self.history.forward())

    def _remember(self) -> None:
        if self.instance_key is not None:
            edge = (self.edge.caller, self.edge.callee) if self.edge is not None else None
            self.history.push(Selection(self.instance_key, edge, self.node))

    def _restore(self, selection: Selection | None) -> bool:
        if selection is None:
            return False
        with self.history.paused():
            self.select_instance(selection.instance_key)
            self.select_node(selection.node)
            if selection.edge is not None:
                self.select_edge_named(*selection.edge)
            else:
                self.select_edge(None)
        return True

    def _reclassified(self, edge: ClassifiedEdge | None) -> ClassifiedEdge | None:
        detail = self.detail()
        return detail.classify(edge.caller, edge.callee) if edge is not None and detail is not None else None

    def read_ahead(self, keys: Sequence[str]) -> None:
        """Parse these programs and colour their files on a worker thread, so that showing one of them
        next is quick (the programs next to the selection in a list)."""
        if self.workspace is not None:
            wanted = [key for key in keys if not self._loader.is_parsed(key)]  # not read from the workspace again
            self._read_ahead.read([i for i in map(self.workspace.instance, wanted) if i is not None])

    def detail(self) -> InstanceDetail | None:
        """The current instance under the current model, with every model and the latest trace in
        its overlay (built once per selection)."""
        if self.workspace is None or self.instance_key is None:
            return None
        if self._detail is None or self._detail.instance.key != self.instance_key or self._detail.model != self.model:
            self._detail = self._loader.load(self.workspace, self.instance_key, self.model,
                                             tuple(m.name for m in self.models), self.annotator)
        return self._detail


def release_problem_text(error: Exception) -> str:
    """An error's message in the window's terms (a found release not confirmed: what the window does about it)."""
    if not isinstance(error, UnconfirmedRelease):
        return str(error)
    return (f"A TraceEval release was found next to the dataset ({error.checkout}, scripts sha256 "
            f"{error.sha256[:16]}) and is not confirmed: prompts keep this project's wording. Run Model and Check "
            "Paper Parity ask you first; or name it in Model ▸ TraceEval Release…")
