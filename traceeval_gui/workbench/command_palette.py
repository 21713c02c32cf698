"""Ctrl+Shift+P: find any menu action by typing part of its name or menu path, then Enter runs it."""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from traceeval_gui.widgets.keyboard_dialog import menu_actions, plain_text, shortcut_text

MAX_WIDTH, LIST_ROWS = 640, 14


@dataclass(frozen=True)
class Command:
    action: QAction
    name: str  # the action's text
    path: str  # its menu, e.g. "View › Graph Shows"
    keys: str  # its shortcuts, as the menus show them

    @property
    def label(self) -> str:
        return f"{self.path} › {self.name}"


def menu_commands(menus: list[QMenu]) -> list[Command]:
    """Every visible action of `menus` (the palette's own entry left out)."""
    return [Command(action, plain_text(action.text()), path, shortcut_text(action))
            for path, action in menu_actions(menus) if action.isVisible() and plain_text(action.text())]


def fuzzy_score(query: str, text: str) -> int | None:
    """How well `query`'s characters match `text` in order (higher is better), None when they don't.
    Runs of adjacent characters and matches at word starts count more, so "nxtprog" finds
    "Next Program" before a scattered match."""
    query, text = query.lower().replace(" ", ""), text.lower()
    if not query:
        return 0
    score, position, previous = 0, 0, -2
    for char in query:
        found = text.find(char, position)
        if found < 0:
            return None
        score += 1
        if found == previous + 1:
            score += 3
        if found == 0 or not text[found - 1].isalnum():
            score += 5
        previous, position = found, found + 1
    return score * 100 - len(text)  # ties: the shorter text


def starts_words(query: str, text: str) -> bool:
    """Every word of `query` begins a word of `text` ("exp tab" in "File › Export › Table as CSV")."""
    words = _words(text)
    return bool(query.split()) and all(any(w.startswith(q) for w in words) for q in _words(query))


def _words(text: str) -> list[str]:
    return "".join(c if c.isalnum() else " " for c in text.lower()).split()


def rank(commands: list[Command], query: str) -> list[Command]:
    """Commands matching `query`, best first: its words starting words of the name, then of the menu path
    and name, then a scattered match on the name, then on the path and name."""
    scored = []
    for index, command in enumerate(commands):
        tiers = ((starts_words(query, command.name), command.name), (starts_words(query, command.label), command.label),
                 (True, command.name), (True, command.label))
        for tier, (eligible, text) in enumerate(tiers):
            score = fuzzy_score(query, text) if eligible else None
            if score is not None:
                scored.append((tier, -score, index, command))
                break
    return [command for *_, command in sorted(scored, key=lambda item: item[:3])]


class CommandPaletteDialog(QDialog):
    def __init__(self, menus: list[QMenu], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Command palette")
        self.commands = menu_commands(menus)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Type to find an action (part of its name or menu), Enter runs it")
        self.filter_edit.setClearButtonEnabled(True)
        self.results = QListWidget()
        self.results.setUniformItemSizes(True)
        self.results.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # typing stays in the filter; arrows move here
        self.empty_label = QLabel("No action matches")
        self.empty_label.setContentsMargins(6, 2, 6, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.empty_label)
        layout.addWidget(self.results)
        self.filter_edit.textChanged.connect(self._on_filter_edit_changed)
        self.filter_edit.installEventFilter(self)
        self.results.itemActivated.connect(self._on_results_item_activated)
        self._on_filter_edit_changed("")
        row = self.results.sizeHintForRow(0) if self.results.count() else 20
        self.results.setMinimumHeight(row * LIST_ROWS // 2)
        self.resize(MAX_WIDTH, row * LIST_ROWS + self.filter_edit.sizeHint().height() + 30)

    def shown_commands(self) -> list[Command]:
        return [self.results.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.results.count())]

    def run_current(self) -> None:
        """Close the palette and trigger the highlighted action (nothing when none or it is disabled)."""
        item = self.results.currentItem()
        command: Command | None = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        self.accept()
        if command is not None and command.action.isEnabled():
            command.action.trigger()

    def _on_filter_edit_changed(self, text: str) -> None:
        self.results.clear()
        for command in rank(self.commands, text):
            keys = f"    {command.keys}" if command.keys else ""
            item = QListWidgetItem(f"{command.name}    — {command.path}{keys}")
            item.setData(Qt.ItemDataRole.UserRole, command)
            item.setToolTip(command.action.statusTip() or command.label)
            if not command.action.isEnabled():
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
            self.results.addItem(item)
        self.results.setCurrentRow(0)
        self.empty_label.setVisible(self.results.count() == 0)

    def _on_results_item_activated(self, _item: QListWidgetItem) -> None:
        self.run_current()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.filter_edit and event.type() == QEvent.Type.KeyPress:
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
                self.results.event(event)  # the list moves its current row
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.run_current()
                return True
        return super().eventFilter(watched, event)


def open_command_palette(window: QMainWindow) -> CommandPaletteDialog:
    """The palette over every action of `window`'s menus, centred under its menu bar, ready for typing."""
    palette = CommandPaletteDialog([a.menu() for a in window.menuBar().actions() if a.menu() is not None], window)
    palette.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    top = window.mapToGlobal(window.rect().topLeft())
    palette.move(top.x() + (window.width() - palette.width()) // 2, top.y() + window.menuBar().height() + 40)
    palette.show()
    palette.filter_edit.setFocus()
    return palette
