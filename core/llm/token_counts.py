"""Counting a text's tokens: approximately from its characters (`core.llm.prompts.approximate_tokens`, the dry
run's rule), or exactly with a model's own tokenizer read from a local Hugging Face `tokenizer.json`.

Nothing is fetched: a tokenizer is a file the user has (it comes with every model's weights). The `tokenizers`
library is the `finetune` extra's and is imported only when a file is given. For OpenAI models, `tiktoken` counts
exactly when it is installed and its encoding is already in its cache (it downloads encodings at first use, and
nothing here downloads): `counter_for` picks the best way a model's tokens can be counted here.
"""
from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.errors import UsageError
from core.llm.prompts import CHARS_PER_TOKEN, approximate_tokens
from core.safe_files import MiB, read_bytes, why_unreadable

log = logging.getLogger(__name__)


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
        text = read_bytes(path, MAX_TOKENIZER_BYTES).decode("utf-8")
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


# The files tiktoken downloads at first use, by encoding; it keeps them in its cache folder under the sha1 of the URL.
TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
TIKTOKEN_ENCODINGS = ("o200k_base", "cl100k_base", "p50k_base", "r50k_base")
MAX_TOKENIZER_BYTES = 256 * MiB  # a tokenizer.json: the largest vocabularies are tens of MB


def tiktoken_cache_dir() -> Path | None:
    """Where tiktoken keeps its downloaded encodings (its own rule: $TIKTOKEN_CACHE_DIR, $DATA_GYM_CACHE_DIR, else
    the temporary folder's data-gym-cache); None when caching is turned off (an empty variable)."""
    import tempfile

    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            return Path(os.environ[variable]) if os.environ[variable] else None
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def tiktoken_counter(model: str) -> TokenCounter | None:
    """Exact counts for an OpenAI model with tiktoken, only when tiktoken is installed, knows the model, and already
    has the model's encoding in its cache (nothing is downloaded); else None."""
    try:
        import tiktoken
        from tiktoken.model import encoding_name_for_model
    except ImportError:
        return None
    try:
        name = encoding_name_for_model(model)
    except KeyError:
        return None
    folder = tiktoken_cache_dir()
    if name not in TIKTOKEN_ENCODINGS or folder is None:
        return None
    if not (folder / hashlib.sha1(TIKTOKEN_URL.format(name).encode()).hexdigest()).is_file():
        return None
    try:
        encoding = tiktoken.get_encoding(name)
    except Exception as error:  # noqa: BLE001 - a damaged cache makes tiktoken try the network, which fails here
        log.warning("tiktoken %s: cached encoding not usable (%s); counting approximately", name, error)
        return None
    return TokenCounter(lambda text: len(encoding.encode(text, disallowed_special=())), f"exact (tiktoken {name})",
                        exact=True)


def counter_for(model: str, tokenizer: Path | None = None) -> TokenCounter:
    """How a model's input tokens are counted: the tokenizer file given, else tiktoken for an OpenAI model whose
    encoding is cached here, else the approximation (each labelled)."""
    if tokenizer is not None:
        return tokenizer_counter(tokenizer)
    return tiktoken_counter(model) or APPROXIMATE
