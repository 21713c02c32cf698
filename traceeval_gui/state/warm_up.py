"""Paying the once-per-process costs of showing a program on a worker thread, at start.

The first program shown in a session paid, on the GUI thread, for compiling the syntax lexers' patterns
(10-30 ms per language), importing each language's symbol rules and loading its tree-sitter grammar.
A thread started with the first `AppState` does all of it while the window is built and the dataset
opens, so the first program shows as quickly as the next.
"""
from __future__ import annotations

import threading

from core.languages import languages, lexer_class
from core.symbols.parsing import language as grammar
from traceeval_gui.state.collector import collect_young_garbage

_STARTED: threading.Thread | None = None


def warm_up_in_background() -> None:
    """Start the warm-up thread (once per process)."""
    global _STARTED
    if _STARTED is None:
        collect_young_garbage()  # its allocations must not collect Qt objects on its thread (see there)
        _STARTED = threading.Thread(target=_warm_up, name="warm-up", daemon=True)
        _STARTED.start()


def _warm_up() -> None:
    for language in languages():
        lexer_class(language.name)()  # a lexer compiles its patterns when the first one is made
        if language.grammar:
            grammar(language.name)
        for part in ("symbols", "paper_normalisation", "studio_normalisation"):
            if getattr(language, part):
                language.part(part)
