"""The workbench's shared state: the open workspace, the current instance, model and edge.

Views change the state only through the `select_*` methods and follow it through the signals,
so a selection made anywhere (a table row, a command-line option, later a graph node) shows
everywhere. The workspace held here belongs to the GUI thread; jobs open their own.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from core.workspace import ModelRow, Workspace
from traceeval_gui.jobs import JobRunner, OpenedDataset
from traceeval_gui.models.instance_detail import ClassifiedEdge, InstanceDetail, InstanceDetailLoader


class AppState(QObject):
    dataset_opened = Signal()  # `opened` and `workspace` are new; instance and edge are cleared
    instance_selected = Signal(str)  # instance key ("" = none)
    model_selected = Signal(str)  # model name ("" = none)
    edge_selected = Signal(object)  # ClassifiedEdge or None

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.jobs = JobRunner(self)
        self.opened: OpenedDataset | None = None
        self.workspace: Workspace | None = None
        self.instance_key: str | None = None
        self.model: str | None = None
        self.edge: ClassifiedEdge | None = None
        self._loader = InstanceDetailLoader()
        self._detail: InstanceDetail | None = None

    # -- the dataset ----------------------------------------------------------------------
    def adopt(self, opened: OpenedDataset) -> None:
        """Take over a dataset opened by `OpenDatasetJob`, reopening its workspace in this thread."""
        workspace = Workspace(opened.workspace_path)
        self.close()
        self.opened, self.workspace = opened, workspace
        names = [m.name for m in opened.models]
        self.model = self.model if self.model in names else (names[0] if names else None)
        self.dataset_opened.emit()  # views read `model` from here; no separate model_selected

    def close(self) -> None:
        if self.workspace is not None:
            self.workspace.close()
        self.workspace = self.opened = None
        self.instance_key = self.edge = self._detail = None
        self._loader.clear()

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
        self.instance_key, self.edge, self._detail = key, None, None
        self.instance_selected.emit(key or "")

    def select_model(self, name: str | None) -> None:
        name = name or None
        if name == self.model:
            return
        self.model, self.edge, self._detail = name, None, None
        self.model_selected.emit(name or "")

    def select_edge(self, edge: ClassifiedEdge | None) -> None:
        if edge == self.edge:
            return
        self.edge = edge
        self.edge_selected.emit(edge)

    def detail(self) -> InstanceDetail | None:
        """The current instance under the current model (built once per selection)."""
        if self.workspace is None or self.instance_key is None:
            return None
        if self._detail is None or self._detail.instance.key != self.instance_key or self._detail.model != self.model:
            self._detail = self._loader.load(self.workspace, self.instance_key, self.model)
        return self._detail
