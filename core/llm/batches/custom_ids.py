"""The `custom_id` of each batch request: the program key and the start of the prompt hash, in the 64 characters of
`[A-Za-z0-9_-]` Anthropic allows (OpenAI and vLLM take any string; one form serves all three).

Forms (the hash prefix is 16 lower-case hex digits, the language a registry name, lower-case letters):
- `<hash16>_<language>_<id>`: the program id as it is, when it is made of allowed characters;
- `<hash16>-<language>-<base64url(id)>`: any other id, unpadded URL-safe base64 of its UTF-8;
- `<hash16>Z<language>Z<sha256(key)[:24]>`: an id too long for either, found through the workspace's request
  rows (`decode` gives no key for it).
Every form fits in 64 characters for a language name of up to 21 letters.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass

from core.records import instance_key

MAX_LENGTH = 64
HASH_CHARS = 16
_ALLOWED = re.compile(r"[A-Za-z0-9_-]+")
_FORM = re.compile(r"(?P<hash>[0-9a-f]{16})(?P<mark>[-_Z])(?P<language>[a-z]+)(?P=mark)(?P<rest>[A-Za-z0-9_-]+)")


@dataclass(frozen=True)
class CustomId:
    """What a custom_id says: the program (None when only its digest fits) and the prompt hash's first digits."""

    prompt_hash_prefix: str
    language: str
    key: str | None
    key_digest: str = ""


def encode(key: str, prompt_hash: str) -> str:
    """The custom_id for program `key` ("language/id") asked with the prompt of `prompt_hash` (hex)."""
    language, _, program = key.partition("/")
    head = prompt_hash[:HASH_CHARS]
    if not re.fullmatch(r"[0-9a-f]{16}", head) or not re.fullmatch(r"[a-z]+", language) or not program:
        raise ValueError(f"cannot make a custom_id for {key!r} with prompt hash {prompt_hash!r}")
    plain = f"{head}_{language}_{program}"
    if _ALLOWED.fullmatch(program) and len(plain) <= MAX_LENGTH:
        return plain
    encoded = base64.urlsafe_b64encode(program.encode("utf-8")).decode("ascii").rstrip("=")
    coded = f"{head}-{language}-{encoded}"
    if len(coded) <= MAX_LENGTH:
        return coded
    return f"{head}Z{language}Z{key_digest(key)}"


def decode(custom_id: str) -> CustomId | None:
    """What `encode` put in a custom_id; None for a string it cannot have made."""
    match = _FORM.fullmatch(custom_id) if len(custom_id) <= MAX_LENGTH else None
    if match is None:
        return None
    head, mark, language, rest = match["hash"], match["mark"], match["language"], match["rest"]
    if mark == "_":
        return CustomId(head, language, instance_key(language, rest))
    if mark == "Z":
        return CustomId(head, language, None, rest) if re.fullmatch(r"[0-9a-f]{24}", rest) else None
    try:
        program = base64.urlsafe_b64decode(rest + "=" * (-len(rest) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return CustomId(head, language, instance_key(language, program)) if program else None


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]
