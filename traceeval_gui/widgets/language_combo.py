"""Choosing a language to filter by: "All languages" (None), then each language of the registry."""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QWidget

from core.languages import registry


class LanguageCombo(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.addItem("All languages", None)
        for language in registry.names():
            self.addItem(registry.title(language), language)
