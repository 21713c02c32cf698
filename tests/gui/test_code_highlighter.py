"""Short files take their colours at once; longer ones show at once and take them a moment later."""
from __future__ import annotations

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

