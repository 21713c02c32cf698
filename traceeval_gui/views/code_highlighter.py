"""Pygments highlighting for a QTextDocument.

The whole file is lexed once (so multi-line strings and comments are right) and the token
formats are handed to Qt per line through `QSyntaxHighlighter`.
"""
from __future__ import annotations

from functools import lru_cache

from pygments.lexers import JavaLexer, JavascriptLexer, PythonLexer, TextLexer
from pygments.styles import get_style_by_name
from pygments.token import Token, _TokenType
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

LEXERS = {"python": PythonLexer, "javascript": JavascriptLexer, "java": JavaLexer}
STYLE = "default"


@lru_cache(maxsize=None)
def _format(token: _TokenType) -> QTextCharFormat | None:
    style = get_style_by_name(STYLE).style_for_token(token)
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


def line_formats(text: str, language: str) -> list[list[tuple[int, int, QTextCharFormat]]]:
    """Per line (0-based): (start column, length, format) runs for the tokens on it."""
    lexer = LEXERS.get(language, TextLexer)(stripnl=False, ensurenl=False)
    lines: list[list[tuple[int, int, QTextCharFormat]]] = [[] for _ in range(text.count("\n") + 1)]
    line, column = 0, 0
    for _, token, value in lexer.get_tokens_unprocessed(text):
        fmt = _format(token) if token is not Token.Text else None
        for part_index, part in enumerate(value.split("\n")):
            if part_index:
                line, column = line + 1, 0
            if part and fmt is not None and line < len(lines):
                lines[line].append((column, len(part), fmt))
            column += len(part)
    return lines


class PygmentsHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument, language: str) -> None:
        lines = line_formats(document.toPlainText(), language)
        super().__init__(document)
        self._lines = lines
        self.rehighlight()  # now, not on the next event loop turn: screenshots see colours

    def highlightBlock(self, text: str) -> None:
        number = self.currentBlock().blockNumber()
        if 0 <= number < len(self._lines):
            for start, length, fmt in self._lines[number]:
                self.setFormat(start, length, fmt)
