"""Reading the programs next to the selection before they are asked for.

Showing a program costs its parse (tree-sitter) and the colouring of its files (pygments), together
10-25 ms on the GUI thread; stepping through the list (F8, Go > Next Program, a held-down key) pays
them at every step. While the user looks at one program, a worker thread parses its neighbours in the
list and lexes their files, so the next step finds both done. The newest request replaces the
waiting ones: only the neighbours of the current program are worth reading.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence

from core.records import Instance
from core.report.program_view import parse_instance
from traceeval_gui.item_models.instance_detail import InstanceDetailLoader
from traceeval_gui.state.collector import collect_young_garbage
from traceeval_gui.widgets.code_highlighter import lex_ahead


class ReadAhead:
    def __init__(self, loader: InstanceDetailLoader) -> None:
        self._loader = loader
        self._waiting: list[tuple[Instance, int]] = []  # (instance, the loader's generation when asked)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def read(self, instances: Sequence[Instance]) -> None:
        """Parse and lex these instances next, instead of any still waiting."""
        generation = self._loader.generation
        with self._lock:
            self._waiting = [(instance, generation) for instance in instances]
            if self._waiting and self._thread is None:
                collect_young_garbage()
                self._thread = threading.Thread(target=self._work, name="read-ahead", daemon=True)
                self._thread.start()

    def idle(self) -> bool:
        """Nothing waiting (the last instance may still be in hand)."""
        with self._lock:
            return not self._waiting

    def _work(self) -> None:
        """Until nothing waits: the thread ends then, and the next `read` starts another."""
        while True:
            with self._lock:
                if not self._waiting:
                    self._thread = None
                    return
                instance, generation = self._waiting.pop(0)
            try:
                parsed = parse_instance(instance)
                for text in parsed.sources.values():
                    lex_ahead(instance.language, text)
            except Exception:  # noqa: BLE001 - a program that cannot be read ahead is read when shown, and fails there visibly
                continue
            self._loader.keep_parsed(parsed, generation)
