"""What the window remembers between runs (QSettings): the last dataset and workspace, the
selection, and the recently opened datasets."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings

from core.report.view_modes import VIEW_MODES

if TYPE_CHECKING:
    from traceeval_gui.state.app_state import AppState

RECENT_LIMIT = 8


@dataclass(frozen=True)
class RecentDataset:
    dataset: str
    workspace: str = ""  # "" = the dataset's default workspace
    splits: str = ""

    @property
    def title(self) -> str:
        name = Path(self.dataset).name
        return f"{name}  ({self.workspace})" if self.workspace else name

    def exists(self) -> bool:
        return Path(self.dataset).is_dir()


@dataclass(frozen=True)
class SavedSelection:
    instance: str = ""
    model: str = ""
    compare_model: str = ""
    view_mode: str = "model"


class Session:
    def __init__(self, settings: QSettings) -> None:
        self.settings = settings

    def recent(self) -> list[RecentDataset]:
        size = self.settings.beginReadArray("recent")
        items = []
        for index in range(size):
            self.settings.setArrayIndex(index)
            items.append(RecentDataset(*(str(self.settings.value(key, "")) for key in ("dataset", "workspace",
                                                                                       "splits"))))
        self.settings.endArray()
        return [item for item in items if item.dataset]

    def remember(self, item: RecentDataset) -> None:
        """Put `item` first in the recent list (the last one opened is what the next start opens)."""
        items = [item] + [other for other in self.recent() if other.dataset != item.dataset]
        self.settings.beginWriteArray("recent", min(len(items), RECENT_LIMIT))
        for index, entry in enumerate(items[:RECENT_LIMIT]):
            self.settings.setArrayIndex(index)
            for key, value in asdict(entry).items():
                self.settings.setValue(key, value)
        self.settings.endArray()
        self.settings.sync()

    def last(self) -> RecentDataset | None:
        """The dataset to reopen at start, when it still exists."""
        recent = self.recent()
        return recent[0] if recent and recent[0].exists() else None

    def selection(self, dataset: str) -> SavedSelection:
        self.settings.beginGroup(f"selection/{_key(dataset)}")
        saved = SavedSelection(*(str(self.settings.value(field, default)) for field, default in
                                 asdict(SavedSelection()).items()))
        self.settings.endGroup()
        return saved

    def remember_selection(self, state: AppState) -> None:
        """What `state` shows in its open dataset (nothing when none is open)."""
        if state.opened is not None:
            self.save_selection(str(state.opened.root), SavedSelection(
                state.instance_key or "", state.model or "", state.compare_model or "", state.view_mode))

    def restore_selection(self, state: AppState) -> str | None:
        """The models and graph mode remembered for `state`'s open dataset, set again where they still exist;
        returns the program to select, if it still exists."""
        if state.opened is None:
            return None
        saved = self.selection(str(state.opened.root))
        names = {m.name for m in state.models}
        if saved.model in names:
            state.select_model(saved.model)
        if saved.compare_model in names:
            state.select_compare_model(saved.compare_model)
        if saved.view_mode in VIEW_MODES:
            state.set_view_mode(saved.view_mode)
        return saved.instance if saved.instance and state.resolve_instance(saved.instance) else None

    def save_selection(self, dataset: str, selection: SavedSelection) -> None:
        self.settings.beginGroup(f"selection/{_key(dataset)}")
        for field, value in asdict(selection).items():
            self.settings.setValue(field, value)
        self.settings.endGroup()
        self.settings.sync()


def _key(dataset: str) -> str:
    """QSettings groups cannot hold '/' in one segment: keep the path readable but flat."""
    return dataset.strip("/").replace("/", "|")
