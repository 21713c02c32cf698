"""The harness prompt (an editable template in resources/), the answer's code, and asking a model.

The template is Markdown with a "## system" and a "## user" section and `{{placeholder}}` fields
(the list is at the top of resources/build/harness_prompt.md); HTML comments are not sent.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from core.errors import BuildError
from core.instances.program_files import imports_of
from core.instances.records import Candidate, Harness
from core.languages import get
from core.llm.answer_cache import AnswerCache
from core.llm.chat import ask
from core.llm.endpoints import RunSettings
from core.llm.prompts import fenced_file
from core.safe_files import MAX_CONFIG_BYTES, read_text, why_unreadable
from core.symbols.parsing import parser
from resources import HARNESS_PROMPT

PLACEHOLDERS = ("language", "language_title", "target", "target_kind", "target_file", "entry_file", "entry_rules",
                "files", "timeout_s", "min_edges")
_FIELD = re.compile(r"\{\{\s*([A-Za-z_]+)\s*\}\}")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SECTION = re.compile(r"^## (system|user)\s*$", re.M)
_FENCE = re.compile(r"^(```+|~~~+)[ \t]*([\w+#.-]*)[^\n]*\n(.*?)^\1[ \t]*$", re.S | re.M)


@dataclass(frozen=True)
class HarnessTemplate:
    system: str
    user: str
    source: str  # the file it came from, for messages

    @classmethod
    def load(cls, path: str | Path | None = None) -> HarnessTemplate:
        """The bundled template, or `path`; BuildError naming the file when it cannot be used."""
        path = Path(path) if path is not None else HARNESS_PROMPT
        try:
            text = read_text(path, MAX_CONFIG_BYTES)
        except OSError as error:
            raise BuildError(f"{path}: cannot read the prompt template: {why_unreadable(error)}") from None
        return cls.parse(text, str(path))

    @classmethod
    def parse(cls, text: str, source: str) -> HarnessTemplate:
        text = _COMMENT.sub("", text)
        parts = _SECTION.split(text)
        sections = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
        missing = [name for name in ("system", "user") if not sections.get(name)]
        if missing:
            raise BuildError(f"{source}: the prompt template has no '## {missing[0]}' section (or it is empty)")
        unknown = sorted({name for name in _FIELD.findall(text) if name not in PLACEHOLDERS})
        if unknown:
            raise BuildError(f"{source}: unknown placeholder {{{{{unknown[0]}}}}} in the prompt template "
                             f"(known: {', '.join(PLACEHOLDERS)})")
        if "{{target}}" not in sections["user"].replace(" ", ""):
            raise BuildError(f"{source}: the prompt template's user message never names {{{{target}}}}")
        return cls(sections["system"], sections["user"], source)

    def messages(self, values: Mapping[str, str]) -> list[dict[str, str]]:
        def fill(text: str) -> str:
            return _FIELD.sub(lambda match: str(values[match.group(1)]), text)
        return [{"role": "system", "content": fill(self.system)}, {"role": "user", "content": fill(self.user)}]


def prompt_values(language: str, candidate: Candidate, files: Mapping[str, str], entry_file: str,
                  timeout_s: float, min_edges: int) -> dict[str, str]:
    """The placeholders' values for one candidate; `files` maps program paths to text."""
    fenced = "\n\n".join(fenced_file(language, path, text) for path, text in files.items())
    return {"language": language, "language_title": get(language).title, "target": candidate.name,
            "target_kind": candidate.kind, "target_file": candidate.file, "entry_file": entry_file,
            "entry_rules": imports_of(language).entry_rules(entry_file, files),
            "files": fenced, "timeout_s": f"{timeout_s:g}", "min_edges": str(min_edges)}


def code_from_answer(text: str | None, language: str) -> str | None:
    """The harness in a model's answer: the first fenced block labelled with the language, else the
    first fenced block, else the whole answer when it has no fence and parses as the language
    (so prose is never run); None when there is no code."""
    if not text or not text.strip():
        return None
    blocks = [(match.group(2).lower(), match.group(3)) for match in _FENCE.finditer(text)]
    if not blocks:
        whole = text.strip() + "\n"
        parsed = parser(language).parse(whole.encode("utf-8"))
        return None if "```" in text or parsed.root_node.has_error else whole
    labelled = [code for label, code in blocks if label in get(language).fence_names]
    code = (labelled or [code for _, code in blocks])[0]
    return code if code.strip() else None


def ask_for_harness(settings: RunSettings, messages: list[dict[str, str]], entry_file: str, language: str, *,
                    api_key: str | None = None, cache: AnswerCache | None = None,
                    cancel: threading.Event | None = None, label: str = "harness") -> tuple[Harness | None, str]:
    """(the harness, "") or (None, why there is none: the answer held no code). Raises ChatFailure."""
    answer, _ = ask(settings, messages, api_key=api_key, cache=cache, label=label, cancel=cancel)
    code = code_from_answer(answer.content, language)
    if code is None:
        shown = " ".join((answer.content or "").split())[:80]
        return None, f"the answer held no code ({shown!r})" if shown else "the answer was empty"
    return Harness(entry_file, code, settings.model, answer.tokens_in, answer.tokens_out), ""

