"""Pygments highlighting for a QTextDocument.

The whole file is lexed once (so multi-line strings and comments are right) and the token
formats are handed to Qt per line through `QSyntaxHighlighter`. Lexing is pure Python and
costs about 0.1 s per thousand lines, so files of more than `SYNC_LINES` are lexed on a worker thread: the text
shows at once and takes its colours a moment later. Results are kept for recently shown files.
Token colours come from a light or a dark pygments style, whichever reads on the view's background.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from functools import cache

from pygments.styles import get_style_by_name
from pygments.token import Token, _TokenType
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from core.languages import lexer_class

STYLES = {False: "default", True: "github-dark"}  # by whether the background is dark
SYNC_LINES = 250  # shorter files (every demo file) are lexed on the spot, at most ~25 ms: screenshots see colours
KEPT = 64

Runs = list[list[tuple[int, int, _TokenType]]]  # per line: (start column, length, token type)


def is_dark_background(colour: QColor) -> bool:
    return colour.lightness() < 128


@cache
def _format(token: _TokenType, dark: bool = False) -> QTextCharFormat | None:
    style = get_style_by_name(STYLES[dark]).style_for_token(token)
    if not (style["color"] or style["bold"] or style["italic"]):
        return None
    fmt = QTextCharFormat()
    if style["color"]:
        fmt.setForeground(QColor(f"#{style['color']}"))
    if style["bold"]:
        fmt.setFontWeight(QFont.Weight.Bold)
    if style["italic"]:
        fmt.setFontItalic(True)
    return fmt


@cache
def _styled(token: _TokenType) -> bool:
    return token is not Token.Text and (_format(token, False) is not None or _format(token, True) is not None)


def token_runs(text: str, language: str) -> Runs:
    """Per line (0-based): (start column, length, token type) of the styled tokens on it. Qt-free,
    so it can run on any thread."""
    lexer = lexer_class(language)(stripnl=False, ensurenl=False)
    lines: Runs = [[] for _ in range(text.count("\n") + 1)]
    line, column = 0, 0
    for _, token, value in lexer.get_tokens_unprocessed(text):
        styled = _styled(token)
        for part_index, part in enumerate(value.split("\n")):
            if part_index:
                line, column = line + 1, 0
            if part and styled and line < len(lines):
                lines[line].append((column, len(part), token))
            column += len(part)
    return lines


class _LexCache(QObject):
    """Lexed files by (language, text), and the signal that a background lex finished."""

    lexed = Signal(str, str)  # language, text

    def __init__(self) -> None:
        super().__init__()
        self._runs: OrderedDict[tuple[str, str], Runs] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, language: str, text: str) -> Runs | None:
        with self._lock:
            runs = self._runs.get((language, text))
            if runs is not None:
                self._runs.move_to_end((language, text))
            return runs

    def put(self, language: str, text: str, runs: Runs) -> None:
        with self._lock:
            self._runs[(language, text)] = runs
            while len(self._runs) > KEPT:
                self._runs.popitem(last=False)

    def lex_in_background(self, language: str, text: str) -> None:
        def work() -> None:
            self.put(language, text, token_runs(text, language))
            self.lexed.emit(language, text)  # queued to the highlighters in the GUI thread

        threading.Thread(target=work, name="lex", daemon=True).start()


_CACHE: _LexCache | None = None


def _cache() -> _LexCache:
    global _CACHE
    if _CACHE is None:
        _CACHE = _LexCache()
    return _CACHE


class PygmentsHighlighter(QSyntaxHighlighter):
    """`background`: the colour the code is shown on (default: the application palette's Base); the
    view calls `set_background` when its palette changes."""

    def __init__(self, document: QTextDocument, language: str, background: QColor | None = None) -> None:
        text = document.toPlainText()
        super().__init__(document)
        self.language, self._text = language, text
        if background is None:
            background = QGuiApplication.palette().color(QPalette.ColorRole.Base)
        self.dark = is_dark_background(background)
        self._lines: Runs = []
        cache = _cache()
        runs = cache.get(language, text)
        if runs is None and text.count("\n") < SYNC_LINES:
            runs = token_runs(text, language)
            cache.put(language, text, runs)
        if runs is not None:
            self._apply(runs)
        else:
            cache.lexed.connect(self._on_cache_lexed)
            cache.lex_in_background(language, text)

    @property
    def ready(self) -> bool:
        return bool(self._lines)

    def set_background(self, colour: QColor) -> None:
        dark = is_dark_background(colour)
        if dark != self.dark:
            self.dark = dark
            if self._lines:
                self.rehighlight()

    def _on_cache_lexed(self, language: str, text: str) -> None:
        if (language, text) == (self.language, self._text):
            _cache().lexed.disconnect(self._on_cache_lexed)
            runs = _cache().get(language, text)
            if runs is not None:
                self._apply(runs)

    def _apply(self, runs: Runs) -> None:
        self._lines = runs
        self.rehighlight()  # now, not on the next event loop turn: screenshots see colours

    def highlightBlock(self, text: str) -> None:
        number = self.currentBlock().blockNumber()
        if 0 <= number < len(self._lines):
            for start, length, token in self._lines[number]:
                fmt = _format(token, self.dark)
                if fmt is not None:
                    self.setFormat(start, length, fmt)


def lex_ahead(language: str, text: str) -> None:
    """Lex a file that is about to be shown, on the calling thread (any), unless it already is or is
    long enough to be lexed in the background when shown anyway."""
    cache = _cache()
    if text.count("\n") < SYNC_LINES and cache.get(language, text) is None:
        cache.put(language, text, token_runs(text, language))


def lexed(language: str, text: str) -> Runs | None:
    """The runs kept for this file's text, if it was lexed lately."""
    return _cache().get(language, text)
