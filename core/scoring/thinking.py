"""A model's thinking written into its answer: a leading `<think>...</think>` block.

Servers without a reasoning parser (vLLM or llama.cpp without `--reasoning-parser`, plain Ollama) leave a
reasoning model's thinking inside `content`; some models (DeepSeek-R1 distills, QwQ) omit the opening tag,
so the content starts with the thinking and `</think>` ends it. The paper's parser reads `content` as it
is, thinking included; the opt-in "paper-nothink" rule set (`core.scoring.rules`) reads it with the block
blanked out. `thinking_span` finds the block; `blank_thinking` keeps every line break of it, so the
remaining answer lines keep their line numbers and the paper's parser reads exactly what it would read
with the block removed (blank lines are never answer lines).
"""
from __future__ import annotations

import re

OPEN, CLOSE = "<think>", "</think>"
_LEADING_OPEN = re.compile(r"\s*<think>")


def thinking_span(text: str | None) -> tuple[int, int, bool] | None:
    """(start, end, closed) of the leading thinking in `text`, `end` just after `</think>`, or None.

    A thinking block leads the text: `<think>` after nothing but whitespace, up to the first `</think>`
    (to the end of the text when it never closes: an answer cut off while thinking); or, with no
    `<think>` before it, everything up to the first `</think>` (the opening tag omitted)."""
    if not text:
        return None
    opened = _LEADING_OPEN.match(text)
    close = text.find(CLOSE)
    if opened is not None:
        if close < opened.end():
            close = text.find(CLOSE, opened.end())
        return (0, len(text), False) if close < 0 else (0, close + len(CLOSE), True)
    if close >= 0 and OPEN not in text[:close]:
        return 0, close + len(CLOSE), True
    return None


def thinking_text(text: str | None) -> str | None:
    """The thinking of a leading block, without its tags and surrounding whitespace; None without one."""
    span = thinking_span(text)
    if span is None or text is None:
        return None
    block = text[span[0]:span[1]].strip()
    block = block.removeprefix(OPEN)
    return block.removesuffix(CLOSE).strip() if span[2] else block.strip()


def blank_thinking(text: str) -> str:
    """`text` with its leading thinking block replaced by the block's line breaks only."""
    span = thinking_span(text)
    if span is None:
        return text
    start, end, _ = span
    return text[:start] + "\n" * text.count("\n", start, end) + text[end:]
