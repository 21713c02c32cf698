"""The main window's Problems dock (View > Problems): the list of what indexing found wrong, and opening
a problem's file, in the source view when its program was read, else as read-only text; and the status
bar's problem count, which opens it."""
from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDockWidget, QLabel, QToolButton, QWidget

from core.problems import Problem
from core.wording import count
from traceeval_gui.program.source_view import SourceView
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import MUTED_TEXT, error_text_colour, warning_text_colour
from traceeval_gui.workbench.instance_browser import InstanceBrowserPanel
from traceeval_gui.workbench.problems_view import FileTextDialog, ProblemsPanel, problem_path

PROBLEMS_SHOWN = 12  # in the count's tooltip


class ProblemsDock(QDockWidget):
    message = Signal(str)  # what opening a problem did, for the status bar

    def __init__(self, state: AppState, browser: InstanceBrowserPanel, source_view: SourceView,
                 parent: QWidget | None = None) -> None:
        super().__init__("Problems", parent)
        self.state, self.browser, self.source_view = state, browser, source_view
        self.setObjectName("problems_dock")
        self.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.panel = ProblemsPanel()
        self.panel.open_requested.connect(self.open_problem)
        self.setWidget(self.panel)

    def show_and_focus(self) -> None:
        """Shown and focused on its first row (the status bar's problem count opens it)."""
        self.show()
        self.raise_()
        table = self.panel.table
        if not table.currentIndex().isValid() and table.model().rowCount():
            table.setCurrentIndex(table.model().index(0, 0))
        table.setFocus()

    def open_problem(self, problem: Problem) -> None:
        """A problem's file: in the source view when its program was read, else its text read-only."""
        root = self.state.opened.root if self.state.opened else None
        path = problem_path(problem, root)
        key = self.state.resolve_instance(problem.instance_id) if problem.instance_id else None
        if key is not None and self.browser.select_key(key):
            instance = self.state.detail().instance
            relative = path.relative_to(instance.root).as_posix() if path.is_relative_to(instance.root) else ""
            if relative in instance.files and self.source_view.show_file(relative):
                self.message.emit(f"{key}: {relative}")
                return
            if not path.is_file():
                self.message.emit(f"{key} selected ({problem.path} is not a file)")
                return
        if path.is_file():
            dialog = FileTextDialog(path, root, self.parentWidget())
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.show()
            return
        what = "a folder" if path.is_dir() else "not there any more"
        self.message.emit(f"No file to open: {problem.path} is {what}")


class ProblemCount(QToolButton):
    """"3 problems" in the status bar, red for errors, amber for warnings; the first ones in its tooltip."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAutoRaise(True)
        self.setMaximumHeight(QLabel("0").sizeHint().height() + 2)  # no taller than the status bar's labels
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def show_problems(self, problems: Sequence[Problem]) -> None:
        errors = sum(p.severity == "error" for p in problems)
        self.setText(count(len(problems), "problem"))
        colour = error_text_colour().name() if errors else warning_text_colour().name() if problems else MUTED_TEXT
        self.setStyleSheet(f"color: {colour};")
        shown = "<br>".join(html.escape(str(p)) for p in problems[:PROBLEMS_SHOWN])
        more = f"<br>… and {len(problems) - PROBLEMS_SHOWN} more (traceeval validate)" \
            if len(problems) > PROBLEMS_SHOWN else ""
        self.setToolTip((shown + more + "<br><i>Click for the list (View ▸ Problems)</i>") if problems
                        else "No problems found while indexing")
