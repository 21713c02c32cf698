"""The window's menus as a person reaches them."""
from __future__ import annotations


def menu_action(window, menu_title: str, text: str):
    """The QAction a person picks in the window's menu bar (`menu_title` ▸ `text`, without the &s)."""
    menu = next(a.menu() for a in window.menuBar().actions() if a.menu() and a.text().replace("&", "") == menu_title)
    return next(a for a in menu.actions() if a.text().replace("&", "") == text)
