"""View > Theme: light, dark, or whatever the desktop uses (the default), applied as the application
palette so every widget, and every background painted from `style.py`'s helpers, follows it.

"System" reads Qt's colour scheme (QStyleHints.colorScheme) and follows it when the desktop switches.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtGui import QActionGroup, QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QMenu, QStyleFactory, QWidget

from traceeval_gui.widgets.keyboard_dialog import action

THEMES = {"system": "&System", "light": "&Light", "dark": "&Dark"}  # name -> menu text
THEME_SETTING = "view/theme"

_DARK = {  # role -> (active/inactive colour, disabled colour or None)
    QPalette.ColorRole.Window: ("#2b2d30", None),
    QPalette.ColorRole.WindowText: ("#e3e5e8", "#7d8187"),
    QPalette.ColorRole.Base: ("#1f2023", None),
    QPalette.ColorRole.AlternateBase: ("#27292c", None),
    QPalette.ColorRole.ToolTipBase: ("#34363a", None),
    QPalette.ColorRole.ToolTipText: ("#e3e5e8", None),
    QPalette.ColorRole.PlaceholderText: ("#8c9096", None),
    QPalette.ColorRole.Text: ("#e3e5e8", "#7d8187"),
    QPalette.ColorRole.Button: ("#36383c", None),
    QPalette.ColorRole.ButtonText: ("#e3e5e8", "#7d8187"),
    QPalette.ColorRole.BrightText: ("#ff8a80", None),
    QPalette.ColorRole.Light: ("#4a4d52", None),
    QPalette.ColorRole.Midlight: ("#3e4145", None),
    QPalette.ColorRole.Mid: ("#55585d", None),
    QPalette.ColorRole.Dark: ("#1a1b1e", None),
    QPalette.ColorRole.Shadow: ("#0c0c0d", None),
    QPalette.ColorRole.Highlight: ("#3a6fd0", "#4a4d52"),
    QPalette.ColorRole.HighlightedText: ("#ffffff", "#a0a4aa"),
    QPalette.ColorRole.Link: ("#8ab4f8", None),
    QPalette.ColorRole.LinkVisited: ("#c58af9", None),
}


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, (colour, disabled) in _DARK.items():
        palette.setColor(role, QColor(colour))
        if disabled is not None:
            palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled))
    return palette


def light_palette() -> QPalette:
    return QStyleFactory.create("Fusion").standardPalette()


def system_is_dark() -> bool:
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


class ThemeController(QObject):
    """Applies a theme to the application and remembers the choice (when given settings)."""

    changed = Signal(str)  # the theme chosen: one of THEMES

    def __init__(self, settings: QSettings | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        stored = settings.value(THEME_SETTING, "system") if settings is not None else "system"
        self.theme = stored if stored in THEMES else "system"
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_style_hints_scheme_changed)

    @property
    def dark(self) -> bool:
        return self.theme == "dark" or (self.theme == "system" and system_is_dark())

    def choose(self, theme: str, remember: bool = True) -> None:
        """Switch to `theme` (remembered in the settings unless `remember` is False: --theme)."""
        if theme not in THEMES:
            raise ValueError(f"unknown theme {theme!r} (known: {', '.join(THEMES)})")
        self.theme = theme
        if remember and self.settings is not None:
            self.settings.setValue(THEME_SETTING, theme)
        self.apply()
        self.changed.emit(theme)

    def fill_menu(self, menu: QMenu, window: QWidget) -> None:
        """View > Theme: one checkable item per theme, the current one checked (also after --theme)."""
        group = QActionGroup(menu)
        items = {}
        for name, text in THEMES.items():
            item = action(window, text, lambda _=False, n=name: self.choose(n), None,
                          "Follow the desktop's light or dark scheme" if name == "system" else "", checkable=True)
            item.setChecked(name == self.theme)
            group.addAction(item)
            menu.addAction(item)
            items[name] = item
        self.changed.connect(lambda name: items[name].setChecked(True))

    def apply(self) -> None:
        hints = QGuiApplication.styleHints()
        scheme = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}.get(self.theme, Qt.ColorScheme.Unknown)
        if hints.colorScheme() != scheme or scheme == Qt.ColorScheme.Unknown:
            hints.setColorScheme(scheme)  # Unknown: back to the desktop's own scheme
        QApplication.setPalette(dark_palette() if self.dark else light_palette())

    def _on_style_hints_scheme_changed(self, _scheme: Qt.ColorScheme) -> None:
        if self.theme == "system":
            QApplication.setPalette(dark_palette() if self.dark else light_palette())
