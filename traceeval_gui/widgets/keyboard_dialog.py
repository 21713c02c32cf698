"""Help > Keyboard: every shortcut of the window, read from its actions so the list never lies."""
from __future__ import annotations

import html

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMenu, QTextBrowser, QVBoxLayout, QWidget


def menu_actions(menus: list[QMenu]) -> list[tuple[str, QAction]]:
    """(menu path, action) for every action of `menus`, submenus walked (not listed), in menu order."""
    found = []

    def walk(menu: QMenu, title: str) -> None:
        for action in menu.actions():
            if action.menu() is not None:
                walk(action.menu(), f"{title} › {plain_text(action.text())}")
            elif not action.isSeparator():
                found.append((title, action))

    for menu in menus:
        walk(menu, plain_text(menu.title()))
    return found


def shortcut_text(action: QAction) -> str:
    return ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts())


def shortcut_rows(menus: list[QMenu]) -> list[tuple[str, str, str]]:
    """(menu, action, keys) for every action with a shortcut, submenus included, in menu order."""
    rows = [(title, plain_text(action.text()), shortcut_text(action))
            for title, action in menu_actions(menus) if action.shortcuts()]
    first = {}
    for index, (group, _, _) in enumerate(rows):
        first.setdefault(group, index)
    return sorted(rows, key=lambda row: first[row[0]])  # one heading per menu (stable within it)


def plain_text(text: str) -> str:
    """A menu text without its mnemonic ampersands and trailing ellipsis."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…").strip()


class KeyboardDialog(QDialog):
    def __init__(self, menus: list[QMenu], extra: list[tuple[str, str, str]] = (), parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.resize(560, 620)
        self.rows = shortcut_rows(menus) + list(extra)
        browser = QTextBrowser()
        browser.setHtml(self._html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(browser)
        layout.addWidget(buttons)

    def _html(self) -> str:
        parts, current = [], None
        for group, action, keys in self.rows:
            if group != current:
                if current is not None:
                    parts.append("</table>")
                parts.append(f"<h4 style='margin:10px 0 4px 0'>{html.escape(group)}</h4>"
                             "<table cellspacing='0' cellpadding='3' width='100%'>")
                current = group
            parts.append(f"<tr><td>{html.escape(action)}</td><td align='right'><code>{html.escape(keys)}</code>"
                         "</td></tr>")
        if current is not None:
            parts.append("</table>")
        return "".join(parts)


def action(parent: QWidget, text: str, slot, shortcut: str | QKeySequence.StandardKey | None = None,
           tip: str = "", checkable: bool = False) -> QAction:
    """A window-wide action (shortcuts work whatever has focus).

    `triggered` carries a `checked` flag: only a checkable action passes it on (`slot(checked)`); any
    other slot is called without arguments, so a slot with an optional first parameter (a path, a
    count) never receives `False` in its place."""
    item = QAction(text, parent)
    if shortcut is not None:
        item.setShortcut(QKeySequence(shortcut))
    if tip:
        item.setStatusTip(tip)
        item.setToolTip(tip)
    if checkable:
        item.setCheckable(True)
        item.triggered.connect(lambda checked: slot(checked))
    else:
        item.triggered.connect(lambda _checked=False: slot())
    parent.addAction(item)
    return item
