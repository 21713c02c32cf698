"""Help > Keyboard: every shortcut of the window, read from its actions so the list never lies."""
from __future__ import annotations

import html

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMenu, QTextBrowser, QVBoxLayout, QWidget


def shortcut_rows(menus: list[QMenu]) -> list[tuple[str, str, str]]:
    """(menu, action, keys) for every action with a shortcut, submenus included, in menu order."""
    rows = []

    def walk(menu: QMenu, title: str) -> None:
        for action in menu.actions():
            if action.menu() is not None:
                walk(action.menu(), f"{title} › {_plain(action.text())}")
            elif not action.isSeparator() and action.shortcuts():
                keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts())
                rows.append((title, _plain(action.text()), keys))

    for menu in menus:
        walk(menu, _plain(menu.title()))
    first = {}
    for index, (group, _, _) in enumerate(rows):
        first.setdefault(group, index)
    return sorted(rows, key=lambda row: first[row[0]])  # one heading per menu (stable within it)


def _plain(text: str) -> str:
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
           tip: str = "") -> QAction:
    """A window-wide action (shortcuts work whatever has focus)."""
    item = QAction(text, parent)
    if shortcut is not None:
        item.setShortcut(QKeySequence(shortcut))
    if tip:
        item.setStatusTip(tip)
        item.setToolTip(tip)
    item.triggered.connect(slot)
    parent.addAction(item)
    return item
