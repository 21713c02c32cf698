"""Keys a running job stored, handed to `AppState` in small batches (at most every `REFRESH_MS`).

The Programs table grows the model's F1 column and the current program's views update while a run goes on,
without the window reloading 10,000 rows per answer. Shared by Run Model and Run Static Analyzer.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

if TYPE_CHECKING:
    from traceeval_gui.state.app_state import AppState

REFRESH_MS = 400


class StoredKeysHandover(QObject):
    def __init__(self, state: AppState, parent: QObject) -> None:
        super().__init__(parent)
        self.state = state
        self.model = ""
        self._keys: set[str] = set()  # stored keys not yet handed to the state
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.flush)

    def begin(self, model: str) -> None:
        self.model = model
        self._keys.clear()

    def add(self, key: str) -> None:
        self._keys.add(key)
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        if self._keys:
            keys, self._keys = self._keys, set()
            self.state.predictions_stored(self.model, keys)

    def finish(self) -> None:
        """Hand over what is left, now (the job ended)."""
        self._timer.stop()
        self.flush()
