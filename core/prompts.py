"""The TraceEval prompt (TRACEEVAL.md "The task prompt"): one caller-conditioned request per program.

A system message naming the language and the skills asked for, then one user message: the task,
seven instructions, the language's worked example (`core.prompt_examples`), every source file
as a fenced block labelled with its relative path, and one numbered question per ground-truth
key in key order. The answer is read back by `core.answers.parse_answer` against `keys`.
Any change to the text changes every prompt hash, so cached answers are never reused for it.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from core.errors import DatasetError
from core.model import LANGUAGE_TITLES, Instance
from core.prompt_examples import EXAMPLES, WorkedExample
from core.symbols import javascript as js_symbols, python as py_symbols

PROMPT_FORMAT = "traceeval-caller-conditioned-v1"
CHARS_PER_TOKEN = 4  # a rough rule for English and code, only for estimates shown with "≈"

SYSTEM = ("You are an expert in {title} programming and static program analysis. You identify the function "
          "calls a program makes: you resolve aliases, track assignments, follow return values, and understand "
          "inheritance and dynamic dispatch.")

NAMING = {
    "python": 'the module prefix, e.g. "main.func" or "main.Class.method"; a constructor is "main.Class.__init__"',
    "javascript": 'the module prefix, e.g. "main.func" or "main.Class.method"; a constructor is '
                  '"main.Class.constructor" and arrow functions are "main.<arrowN>" as in the questions',
    "java": 'the package prefix and parameter types, e.g. "pkg.Class:method(int,java.lang.String)"; a '
            'constructor is "pkg.Class:<init>(...)"',
}

INSTRUCTIONS = (
    "For each question, list every function that is called, as a comma-separated list on the line of the "
    "question's number.",
    "Do not include explanations, commentary or code in your answers.",
    "Include implicit calls as well as explicit ones, such as the constructor that runs when an object is created.",
    "If a function is called through an alias or a reference, resolve it and list the function actually called.",
    "Do not list functions that are only passed as arguments or assigned but never called in that scope.",
    "If a function makes no calls, leave its answer empty after the number.",
    "Always write fully qualified names with {naming}.",
)

FENCE_TAGS = {"python": "python", "javascript": "javascript", "java": "java"}


@dataclass(frozen=True)
class Prompt:
    """The two chat messages for one program, the question keys in order, and their hash."""

    instance_key: str
    language: str
    system: str
    user: str
    keys: tuple[str, ...]

    @property
    def messages(self) -> list[dict[str, str]]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]

    @property
    def hash(self) -> str:
        """sha256 of both messages: what the answer cache and `predictions.prompt_hash` key on."""
        return prompt_hash(self.system, self.user)

    def render(self) -> str:
        """Both messages as one readable text (the prompt preview)."""
        return f"[system]\n{self.system}\n\n[user]\n{self.user}"


def approximate_tokens(characters: int) -> int:
    return round(characters / CHARS_PER_TOKEN)


def prompt_hash(system: str, user: str) -> str:
    return hashlib.sha256(f"{system}\x00{user}".encode("utf-8")).hexdigest()


def build_prompt(instance: Instance, sources: Mapping[str, str] | None = None) -> Prompt:
    """The prompt for one program; `sources` (relative path -> text) saves re-reading the files.
    An unreadable source file is a DatasetError naming it: a prompt without it would be wrong."""
    if sources is None:
        sources, unreadable = instance.read_sources()
        if unreadable:
            path, why = next(iter(unreadable.items()))
            raise DatasetError(f"{instance.root / path}: cannot read source file for the prompt: {why}")
    keys = instance.ground_truth.keys
    files = [path for path in instance.files if path in sources]
    system = SYSTEM.format(title=LANGUAGE_TITLES[instance.language])
    user = user_message(instance.language, [(path, sources[path]) for path in files],
                        questions(instance.language, keys, files))
    return Prompt(instance.key, instance.language, system, user, keys)


def user_message(language: str, files: Sequence[tuple[str, str]], question_lines: Sequence[str]) -> str:
    title = LANGUAGE_TITLES[language]
    example = EXAMPLES[language]
    instructions = "\n".join(f"{n}. {text.format(naming=NAMING[language])}"
                             for n, text in enumerate(INSTRUCTIONS, start=1))
    parts = [
        "## Task Description",
        f"**Objective**: Examine the {title} program below and answer the questions about the function calls "
        "it makes when it runs.",
        f"**Instructions**:\n{instructions}",
        _example_section(language, example),
        f"**{title} Code Provided**:\n\n" + "\n\n".join(fenced_file(language, path, text) for path, text in files),
        "**Questions**:\n" + "\n".join(f"{n}. {line}" for n, line in enumerate(question_lines, start=1)),
        "**Answers**:",
    ]
    return "\n\n".join(parts) + "\n"


def _example_section(language: str, example: WorkedExample) -> str:
    title = LANGUAGE_TITLES[language]
    questions_text = "\n".join(f"{n}. {q}" for n, q in enumerate(example.questions, start=1))
    answers_text = "\n".join(f"{n}. {a}".rstrip() for n, a in enumerate(example.answers, start=1))
    return (f"**Example {title} Code**:\n\n{fenced_file(language, example.file, example.code)}\n\n"
            f"**Example Questions**:\n{questions_text}\n\n**Example Answers**:\n{answers_text}")


def fenced_file(language: str, path: str, text: str) -> str:
    """A file as a fenced block labelled with its path; the fence is longer than any backtick run
    inside the file, so a file containing ``` cannot end its block early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"File: {path}\n{fence}{FENCE_TAGS[language]}\n{body}{fence}"


def questions(language: str, keys: Sequence[str], files: Sequence[str]) -> list[str]:
    """One question per key, in key order."""
    if language == "java":
        return [f"What are the target functions invoked by {key} in the {java_class(key)} class?" for key in keys]
    module_name = py_symbols.module_name if language == "python" else js_symbols.module_name
    modules = sorted(((module_name(path), path) for path in files), key=lambda pair: -len(pair[0]))
    out = []
    for key in keys:
        module, path = _module_of(key, modules, files)
        if key == module:
            out.append(f'What are the module-level function calls in the file "{path}"?')
        else:
            out.append(f'What are the function calls inside the "{key}" function in the file "{path}"?')
    return out


def _module_of(key: str, modules: Sequence[tuple[str, str]], files: Sequence[str]) -> tuple[str, str]:
    """The (module, file) whose module name is the longest prefix of `key` at a dot."""
    for module, path in modules:
        if key == module or key.startswith(module + "."):
            return module, path
    return "", (files[0] if files else "")


def java_class(key: str) -> str:
    """`pkg.Outer.Inner:m(int)` -> `Inner`: the simple name of the declaring class."""
    owner = key.split(":", 1)[0]
    return owner.rsplit(".", 1)[-1].split("$")[-1]
