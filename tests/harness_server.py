"""The test model that writes harnesses: a real OpenAI-compatible server (tests/llm_server.py)
answering each harness prompt with the canned harness of its target.

Canned harnesses live in tests/build_repos/harnesses/<language>/<repo>/<target>.txt and are
answered in a fenced block, as a model would. `special` replaces the answer for some targets
(a crash, a hang, no code...), keyed by target name.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from tests.llm_server import FakeChatServer, Reply, ok

BUILD_REPOS = Path(__file__).resolve().parent / "build_repos"
HARNESSES = BUILD_REPOS / "harnesses"
_TARGET = re.compile(r"^Target: (.+)$", re.M)
_FENCES = {"python": "python", "javascript": "javascript", "java": "java"}


def canned_harnesses() -> dict[str, tuple[str, str]]:
    """target -> (language, harness text)."""
    return {path.name[:-len(".txt")]: (path.parent.parent.name, path.read_text(encoding="utf-8"))
            for path in sorted(HARNESSES.glob("*/*/*.txt"))}


def prompt_target(body: dict) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    match = _TARGET.search(user)
    return match.group(1).strip() if match else ""


def harness_responder(special: Mapping[str, str | Reply] | None = None):
    canned = canned_harnesses()
    special = dict(special or {})

    def respond(body: dict, attempt: int) -> Reply:
        target = prompt_target(body)
        if target in special:
            answer = special[target]
            return answer if isinstance(answer, Reply) else ok(answer)
        if target not in canned:
            return ok("I cannot write a harness for this target.")
        language, text = canned[target]
        return ok(f"Here is the harness:\n\n```{_FENCES[language]}\n{text}```\n")
    return respond


def harness_server(special: Mapping[str, str | Reply] | None = None) -> FakeChatServer:
    return FakeChatServer(harness_responder(special))


def repo(language: str, name: str) -> Path:
    return BUILD_REPOS / language / name
