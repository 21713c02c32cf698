"""The TraceEval prompt (docs/benchmark.md "The task prompt: exact assembly"): one caller-conditioned request
per program, a system message and a user message.

The words come from a wording (`core.llm.prompt_wording`: the user's TraceEval release, read at run time,
or this project's own, labelled "studio wording, not the paper's"); the rule set assembles them:
- paper (the default), the release's exact format: the program folder is walked with `os.walk`;
  `{code}` is every `.py` / `.js` / `.java` file, each folder's files sorted, as
  "```" + path + "\\n" + text + "\\n```\\n\\n"; `{questions}` are the release's questions (Java: only the
  keys holding a ':', naming the whole owner; Python/JS: the question's file from the release's file
  map, built in the folder's listing order), numbered from 1 and joined by "\\n"; `{language}` is
  `str.capitalize()` of the language ("Javascript").
- studio (opt-in): the files this project loads, each fenced longer than any backtick run in it,
  the longest dotted module prefix as a question's file, one question per key (Java names the
  simple class), "JavaScript".
The answer is read back by `core.scoring.answers.parse_answer` against the keys, by key position. The
prompt hash covers both messages and the release file's sha256 (when the words are a release's), so a
changed text or release never reuses an old answer.
"""
from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.errors import DatasetError
from core.languages import registry
from core.llm.prompt_wording import RELEASE, STUDIO_WORDING, PromptWording
from core.records import Instance
from core.safe_files import MAX_SOURCE_BYTES, read_text, why_unreadable
from core.scoring.rules import DEFAULT_RULES, PAPER, base_rules, rules_title

PROMPT_FORMAT = "traceeval-caller-conditioned-v1"
CHARS_PER_TOKEN = 4  # a rough rule for English and code, only for estimates shown with "≈"


@dataclass(frozen=True)
class Prompt:
    """The two chat messages for one program, the question keys in order, and where their words came from."""

    instance_key: str
    language: str
    system: str
    user: str
    keys: tuple[str, ...]
    rules: str = DEFAULT_RULES
    wording: str = STUDIO_WORDING.tag  # `PromptWording.tag`: "release:<sha256>" or "studio"
    wording_label: str = STUDIO_WORDING.label

    @property
    def messages(self) -> list[dict[str, str]]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]

    @property
    def release_sha256(self) -> str:
        """The sha256 of the release file the words came from ("" for the studio wording)."""
        return self.wording.split(":", 1)[1] if self.wording.startswith(f"{RELEASE}:") else ""

    @property
    def hash(self) -> str:
        """sha256 of both messages (and the release's sha256): what the answer cache and `predictions.prompt_hash`
        key on."""
        return prompt_hash(self.system, self.user, self.release_sha256)

    def render(self) -> str:
        """Both messages as one readable text (the prompt preview), under a line naming the wording."""
        return (f"[wording] {self.wording_label}; {rules_title(self.rules)}\n\n"
                f"[system]\n{self.system}\n\n[user]\n{self.user}")


def approximate_tokens(characters: int) -> int:
    return round(characters / CHARS_PER_TOKEN)


def prompt_hash(system: str, user: str, release_sha256: str = "") -> str:
    tail = f"\x00release:{release_sha256}" if release_sha256 else ""
    return hashlib.sha256(f"{system}\x00{user}{tail}".encode()).hexdigest()


def build_prompt(instance: Instance, sources: Mapping[str, str] | None = None, *,
                 wording: PromptWording = STUDIO_WORDING, rules: str = DEFAULT_RULES) -> Prompt:
    """The prompt for one program; `sources` (relative path -> text) saves re-reading the files.
    An unreadable source file is a DatasetError naming it: a prompt without it would be wrong."""
    keys = instance.ground_truth.keys
    if base_rules(rules) == PAPER:
        code_files, map_files = paper_program_files(instance.root, instance.language)
        code = paper_code_section(instance.root, code_files, sources or {})
        questions = paper_questions(instance.language, keys, map_files)
        language_word = instance.language.capitalize()
    else:
        if sources is None:
            sources = _readable_sources(instance)
        files = [path for path in instance.files if path in sources]
        code = "\n\n".join(fenced_file(instance.language, path, sources[path]) for path in files)
        questions = [f"{n}. {q}" for n, q in enumerate(studio_questions(instance.language, keys, files), start=1)]
        language_word = registry.get(instance.language).title
    system = wording.system.format(language=language_word)
    user = wording.user.format(language=language_word, example=wording.example(instance.language), code=code,
                               questions="\n".join(questions))
    return Prompt(instance.key, instance.language, system, user, keys, rules, wording.tag, wording.label)


# -- the paper's assembly ------------------------------------------------------------------------------------
def paper_program_files(folder: Path, language: str) -> tuple[list[str], list[str]]:
    """(files for the code section, files for the question file map), relative and '/'-separated, as the
    release's `os.walk` finds them: each folder's files sorted for the code, in listing order for the map."""
    suffix = registry.get(language).prompt_suffix
    code, listed = [], []
    for root, _dirs, files in os.walk(folder):
        relative = os.path.relpath(root, folder)
        paths = {name: name if relative == "." else f"{relative}/{name}".replace(os.sep, "/") for name in files}
        code += [paths[name] for name in sorted(files) if name.endswith(suffix)]
        listed += [paths[name] for name in files if name.endswith(suffix)]
    return code, listed


def paper_code_section(folder: Path, files: Sequence[str], sources: Mapping[str, str]) -> str:
    """Every file as "```" + path + newline + text + newline + "```" and a blank line (the fence never grows)."""
    return "".join(f"```{path}\n{sources[path] if path in sources else _read_program_file(folder, path)}\n```\n\n"
                   for path in files)


def paper_questions(language: str, keys: Sequence[str], map_files: Sequence[str]) -> list[str]:
    """The release's numbered questions for `keys` (in order), in the language's question style
    (`core.llm.prompt_questions`); `map_files` in walk order, listing order within a folder."""
    described = registry.get(language)
    asked = described.part("questions").paper(described, keys, map_files)
    return [f"{n}. {question}" for n, question in enumerate(asked, start=1)]


def _read_program_file(folder: Path, relative: str) -> str:
    """A file of the program as text with universal newlines (as the release's `open()` reads it), through
    the bounded reader: a link out of the folder, anything but a regular file or too large a file is a
    DatasetError naming the file."""
    path = folder / relative
    try:
        text = read_text(path, MAX_SOURCE_BYTES, root=folder)
    except OSError as error:
        raise DatasetError(f"{path}: cannot read source file for the prompt: {why_unreadable(error)}") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


# -- the studio assembly -------------------------------------------------------------------------------------
def studio_questions(language: str, keys: Sequence[str], files: Sequence[str]) -> list[str]:
    """One question per key, in key order (not numbered), in the language's question style."""
    described = registry.get(language)
    questions: list[str] = described.part("questions").studio(described, keys, files)
    return questions


def fenced_file(language: str, path: str, text: str) -> str:
    """A file as a fenced block labelled with its path; the fence is longer than any backtick run
    inside the file, so a file containing ``` cannot end its block early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"File: {path}\n{fence}{registry.get(language).fence_tag}\n{body}{fence}"


def _readable_sources(instance: Instance) -> dict[str, str]:
    sources, unreadable = instance.read_sources()
    if unreadable:
        path, why = next(iter(unreadable.items()))
        raise DatasetError(f"{instance.root / path}: cannot read source file for the prompt: {why}")
    return sources
