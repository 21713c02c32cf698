"""Choosing a split (None: every program), in the two forms the panels need.

A filter (the Programs and Compare lists) offers "All splits" and then each split present, "No split"
included; scoring (the Metrics and Plots tabs) offers the test and train splits the dataset has, then
all programs. Refilling never emits a change: the panel decides what a new dataset means for it.
"""
from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtWidgets import QComboBox, QWidget

SPLIT_TITLES = {"test": "Test", "train": "Train", "": "No split"}
SCORING_CHOICES = (("test", "Test split"), ("train", "Train split"), (None, "All splits"))


class SplitCombo(QComboBox):
    def __init__(self, scoring: bool = False, tooltip: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scoring = scoring
        self.setToolTip(tooltip)
        self.fill(())

    def fill(self, splits: Iterable[str], current: str | None = None) -> None:
        """Offer the choices for a dataset with these splits and select `current` (else the first)."""
        splits = set(splits)
        self.blockSignals(True)
        self.clear()
        if self.scoring:
            for split, title in SCORING_CHOICES:
                if split is None or split in splits:
                    self.addItem(title, split)
        else:
            self.addItem("All splits", None)
            for split in sorted(splits, key=lambda s: (s == "", s)):
                self.addItem(SPLIT_TITLES.get(split, split), split)
        self.setCurrentIndex(max(0, self.findData(current)))
        self.blockSignals(False)

    def split(self) -> str | None:
        return self.currentData()

    def set_split(self, split: str | None) -> None:
        """Select `split` when it is offered (a change is emitted as usual)."""
        index = self.findData(split)
        if index >= 0:
            self.setCurrentIndex(index)
