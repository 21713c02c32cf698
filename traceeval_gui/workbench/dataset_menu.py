"""File menu's opening items: Open Dataset, the demo, Open Workspace, New Workspace and Open Recent.

They choose what to open; the window opens it (`open_dataset`, a background job with its progress and failures)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMenu

from resources import DEMO_DATASET
from traceeval_gui.widgets.file_dialogs import existing_directory, open_file_name, save_file_name
from traceeval_gui.widgets.keyboard_dialog import action

if TYPE_CHECKING:
    from traceeval_gui.state.app_state import AppState
    from traceeval_gui.state.jobs import OpenDatasetJob
    from traceeval_gui.state.session import Session


class DatasetOpener(Protocol):
    """What the items need of the main window (also their dialogs' parent); a protocol, so this module does not
    import the window that creates it."""

    state: AppState
    session: Session | None

    def open_dataset(self, root: str | Path | None, workspace: str | Path | None = None,
                     splits: str | Path | None = None) -> OpenDatasetJob: ...


class DatasetMenu(QObject):
    message = Signal(str)  # for the status bar

    def __init__(self, window: DatasetOpener) -> None:
        super().__init__(window)
        self.window = window
        self.recent_menu: QMenu | None = None

    def add_to(self, menu: QMenu) -> None:
        parent = self.window
        menu.addAction(action(parent, "&Open Dataset…", self._on_open_triggered, QKeySequence.StandardKey.Open,
                              "Open a TraceEval dataset folder"))
        menu.addAction(action(parent, "Open &Demo Dataset", lambda: self.window.open_dataset(DEMO_DATASET)))
        menu.addAction(action(parent, "Open &Workspace…", self._on_open_workspace_triggered, "Ctrl+Shift+O",
                              "Open a workspace file (.sqlite) and the dataset it belongs to"))
        menu.addAction(action(parent, "&New Workspace…", self._on_new_workspace_triggered, None,
                              "Start a new workspace file for the open dataset"))
        self.recent_menu = menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self.fill_recent_menu)

    def start_folder(self) -> str:
        """Where file dialogs start: beside the open dataset, else the home folder."""
        opened = self.window.state.opened
        return str(opened.root.parent) if opened else str(Path.home())

    def new_workspace(self, path: str | Path) -> OpenDatasetJob | None:
        """Open the current dataset with a new, empty workspace file (None when the file exists)."""
        if Path(path).exists():
            self.message.emit(f"{path} exists: use Open Workspace to reuse it")
            return None
        return self.window.open_dataset(self.window.state.opened.root, path)

    def fill_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        session = self.window.session
        recent = session.recent() if session is not None else []
        for item in recent:
            entry = menu.addAction(item.title)
            entry.setToolTip(item.dataset)
            entry.setEnabled(item.exists())
            entry.triggered.connect(lambda _=False, i=item: self.window.open_dataset(i.dataset, i.workspace or None,
                                                                                    i.splits or None))
        if not recent:
            menu.addAction("No recent datasets").setEnabled(False)

    def _on_open_triggered(self) -> None:
        folder = existing_directory(self.window, "Open a TraceEval dataset", self.start_folder())
        if folder:
            self.window.open_dataset(folder)

    def _on_open_workspace_triggered(self) -> None:
        path = open_file_name(self.window, "Open a workspace", self.start_folder(),
                              "TraceEval workspaces (*.sqlite *.db);;All files (*)")
        if path:
            self.window.open_dataset(None, path)

    def _on_new_workspace_triggered(self) -> None:
        opened = self.window.state.opened
        if opened is None:
            self.message.emit("Open a dataset first: a workspace belongs to one dataset")
            return
        path = save_file_name(self.window, f"New workspace for {opened.name}",
                              str(Path(self.start_folder()) / f"{opened.name}.sqlite"),
                              "TraceEval workspaces (*.sqlite)")
        if path:
            self.new_workspace(path)
