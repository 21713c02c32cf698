"""Counting a text's tokens: approximately from its characters (`core.llm.prompts.approximate_tokens`, the dry
run's rule), or exactly with a model's own tokenizer read from a local Hugging Face `tokenizer.json`.

Nothing is fetched: a tokenizer is a file the user has (it comes with every model's weights). The `tokenizers`
library is the `finetune` extra's and is imported only when a file is given.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.errors import UsageError
from core.llm.prompts import CHARS_PER_TOKEN, approximate_tokens
from core.safe_files import why_unreadable


@dataclass(frozen=True)
class TokenCounter:
    """How many tokens a text is, and a phrase saying how that is known (shown beside every count)."""

    count: Callable[[str], int]
    label: str
    exact: bool


APPROXIMATE = TokenCounter(lambda text: approximate_tokens(len(text)),
                           f"approximate (characters / {CHARS_PER_TOKEN})", exact=False)


def tokenizer_counter(path: Path) -> TokenCounter:
    """Exact counts with the tokenizer in `path` (a Hugging Face tokenizer.json); a file that is not one is a
    UsageError naming it. Special tokens and the chat template's own tokens are not counted."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise UsageError("--tokenizer needs the tokenizers library: pip install 'traceeval-studio[finetune]'") \
            from None
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{path}: cannot read the tokenizer: {why_unreadable(error)}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a tokenizer.json (not UTF-8 text)") from None
    try:
        tokenizer = Tokenizer.from_str(text)
    except Exception as error:  # noqa: BLE001 - the library raises a bare Exception for any malformed file
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise UsageError(f"{path}: not a Hugging Face tokenizer.json: {first}") from None
    return TokenCounter(lambda value: len(tokenizer.encode(value, add_special_tokens=False).ids),
                        f"exact ({path.name})", exact=True)
