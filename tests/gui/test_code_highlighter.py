"""Short files take their colours at once; longer ones show at once and take them a moment later."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from PySide6.QtGui import QTextDocument

from traceeval_gui.widgets.code_highlighter import SYNC_LINES, PygmentsHighlighter


def _python(lines: int, tag: str) -> str:
    return "\n".join(f"def f_{tag}_{n}(x):  # {n}" if n % 2 == 0 else f"    return x + {n}" for n in range(lines))


def _keyword_formatted(document: QTextDocument) -> bool:
    layout = document.firstBlock().layout()
    return any(r.start == 0 and r.length == 3 for r in layout.formats())  # "def"


def test_a_short_file_is_coloured_at_once(qtbot):
    document = QTextDocument(_python(SYNC_LINES - 10, "short"))
    highlighter = PygmentsHighlighter(document, "python")
    assert highlighter.ready and _keyword_formatted(document)


def test_a_long_file_is_lexed_in_the_background_then_coloured(qtbot):
    document = QTextDocument(_python(SYNC_LINES + 10, "long"))
    highlighter = PygmentsHighlighter(document, "python")
    assert not highlighter.ready  # the text is there; its colours come later
    qtbot.waitUntil(lambda: highlighter.ready, timeout=10_000)
    assert _keyword_formatted(document)


def test_the_source_view_has_the_lexers_compiled_off_the_gui_thread():
    """In a fresh process (here every lexer was made long ago): none is compiled until the source view
    is made, then all are, by another thread."""
    script = textwrap.dedent("""
        from PySide6.QtWidgets import QApplication
        from traceeval_gui.widgets import code_highlighter
        from core.languages import lexer_class, names
        from traceeval_gui.state.app_state import AppState
        from traceeval_gui.program.source_view import SourceView
        lexers = [lexer_class(name) for name in names()]
        compiled = lambda: [lexer.__name__ for lexer in lexers if "_tokens" in vars(lexer)]
        assert compiled() == [], compiled()
        app = QApplication([])
        view = SourceView(AppState())
        assert code_highlighter._WARMING is not None, "the source view started no warm-up"
        code_highlighter._WARMING.join(30)
        assert len(compiled()) == len(lexers), compiled()
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.stdout.strip().endswith("ok"), done.stderr[-2000:]
