"""The main window as a feature sees it, so a feature's actions and windows never import the window back.

The window (`traceeval_gui.workbench.main_window.MainWindow`, a QMainWindow) creates each feature's actions
with itself; the feature keeps it as this protocol: the shared state, the settings, whether dialogs may be
shown, the program list, reopening the dataset, the status bar, and the window to parent dialogs on.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QStatusBar

    from traceeval_gui.state.app_state import AppState
    from traceeval_gui.state.jobs import Job


class ProgramList(Protocol):
    """The window's instance browser: the programs it shows now, and selecting one by key."""

    def shown_keys(self) -> list[str]: ...

    def select_key(self, key: str) -> bool: ...


class Workbench(Protocol):
    state: AppState
    settings: QSettings | None
    interactive: bool  # False in tests and screenshots: no modal message boxes
    browser: ProgramList

    def open_dataset(self, root: str | Path | None, workspace: str | Path | None = None,
                     splits: str | Path | None = None) -> Job: ...

    def reopen(self, message: str = "") -> Job: ...

    def statusBar(self) -> QStatusBar: ...

    def raise_(self) -> None: ...

    def activateWindow(self) -> None: ...
