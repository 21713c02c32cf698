"""Let one pane of a window fill it (the others hide) and give the old layout back when asked again.

A double-click on a pane's title or tab bar toggles it, as does View > Maximise Pane for the pane that
has the keyboard focus."""
from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QByteArray, QEvent, QObject, Signal
from PySide6.QtWidgets import QMainWindow, QSplitter, QWidget


@dataclass
class Pane:
    widget: QWidget  # what the user sees as the pane (focus inside it picks it for the shortcut)
    others: list[QWidget]  # hidden while it is maximised
    title: str = ""


@dataclass
class _Saved:
    pane: str
    hidden: list[QWidget] = field(default_factory=list)
    splitters: dict[QSplitter, QByteArray] = field(default_factory=dict)


class PaneMaximiser(QObject):
    changed = Signal(str)  # the maximised pane's name, or "" when the layout is back

    def __init__(self, window: QMainWindow, panes: dict[str, Pane], splitters: list[QSplitter]) -> None:
        super().__init__(window)
        self.window = window
        self.panes = panes
        self.splitters = splitters
        self._saved: _Saved | None = None
        self._double_click_targets: dict[QObject, str] = {}

    @property
    def maximised(self) -> str:
        return self._saved.pane if self._saved is not None else ""

    def toggle(self, name: str) -> None:
        """Maximise `name`, or restore the layout when it (or any pane) is maximised already."""
        if self._saved is not None:
            self.restore()
        else:
            self.maximise(name)

    def toggle_focused(self) -> None:
        """The shortcut: the pane holding the keyboard focus (the first pane when none does)."""
        focus = self.window.focusWidget()
        name = next((n for n, p in self.panes.items() if focus is not None and p.widget.isAncestorOf(focus)),
                    next(iter(self.panes)))
        self.toggle(name)

    def maximise(self, name: str) -> None:
        if self._saved is not None:
            self.restore()
        saved = _Saved(name, splitters={s: s.saveState() for s in self.splitters})
        for widget in self.panes[name].others:
            if widget.isVisible():
                widget.hide()
                saved.hidden.append(widget)
        self._saved = saved
        self.changed.emit(name)

    def restore(self) -> None:
        saved, self._saved = self._saved, None
        if saved is None:
            return
        for widget in saved.hidden:
            widget.show()
        for splitter, state in saved.splitters.items():
            splitter.restoreState(state)
        self.changed.emit("")

    def toggle_on_double_click(self, target: QObject, name: str) -> None:
        """A double-click on `target` itself (a dock's title, a toolbar's free space) toggles pane `name`."""
        self._double_click_targets[target] = name
        target.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MouseButtonDblClick and watched in self._double_click_targets:
            self.toggle(self._double_click_targets[watched])
            return True
        return False
