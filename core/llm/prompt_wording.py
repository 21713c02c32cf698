"""The words of a prompt: a system template, a user template and one worked example per language.

A wording comes from the user's TraceEval release (the authors' sentences, read at run time by
`core.release.checkout`; never copied into this project) or is this project's own, `STUDIO_WORDING`,
which every view and output labels "studio wording, not the paper's". Either way the templates
have the release's fields, filled by `str.format`: the system template `{language}`, the user
template `{language}`, `{example}`, `{code}` and `{questions}` (`core.llm.prompts` assembles them).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from string import Formatter

from core.errors import ReleaseError
from core.languages import get, names
from core.llm.prompt_examples import WorkedExample, worked_example

RELEASE, STUDIO = "release", "studio"
STUDIO_LABEL = "studio wording, not the paper's"
SYSTEM_FIELDS = frozenset({"language"})
USER_FIELDS = frozenset({"language", "example", "code", "questions"})


@dataclass(frozen=True)
class PromptWording:
    system: str
    user: str
    examples: Mapping[str, str] = field(default_factory=dict)  # language -> the release's worked example
    source: str = STUDIO  # RELEASE or STUDIO
    path: str = ""  # the release's scripts/run_llm.py
    sha256: str = ""  # of that file

    def example(self, language: str) -> str:
        """The language's worked example; the first language's (Python's) for a language without one (as the
        release does). The studio wording's are `core.llm.prompt_examples`, rendered."""
        text = self._example(language)
        if text is None:
            text = self._example(names()[0])
        if text is None:
            raise ReleaseError(f"no worked example for {language!r} and none to fall back on")
        return text

    def _example(self, language: str) -> str | None:
        if self.source != STUDIO:
            return self.examples.get(language)
        example = worked_example(language)
        return None if example is None else studio_example_text(language, example)

    @property
    def tag(self) -> str:
        """What predictions, runs and cached answers record: `release:<sha256>` or `studio`."""
        return f"{RELEASE}:{self.sha256}" if self.source == RELEASE else STUDIO

    @property
    def label(self) -> str:
        """One line for a person: which wording a prompt used."""
        return wording_label(self.tag, self.path)


def wording_label(tag: str, path: str = "") -> str:
    """The label of a stored wording tag (`release:<sha256>`, `studio` or "" for answers made before
    wordings were recorded)."""
    if tag.startswith(f"{RELEASE}:"):
        return f"the TraceEval release's wording ({path or 'run_llm.py'}, sha256 {tag.split(':', 1)[1][:12]})"
    return STUDIO_LABEL if tag == STUDIO else "wording not recorded"


def checked_fields(name: str, template: str, allowed: frozenset[str], where: str) -> None:
    """A template must name only the release's fields, or `str.format` would fail on every prompt."""
    try:
        fields = {parsed[1] for parsed in Formatter().parse(template) if parsed[1] is not None}
    except ValueError as error:
        raise ReleaseError(f"{where}: {name} is not a format template ({error})") from None
    unknown = sorted(fields - allowed)
    if unknown:
        raise ReleaseError(f"{where}: {name} has the field {{{unknown[0]}}}; a prompt template may use only "
                           + ", ".join(f"{{{f}}}" for f in sorted(allowed)))


@cache
def studio_example_text(language: str, example: WorkedExample) -> str:
    """A worked example as the studio wording shows it."""
    title = get(language).title
    questions = "\n".join(f"{n}. {q}" for n, q in enumerate(example.questions, start=1))
    answers = "\n".join(f"{n}. {a}".rstrip() for n, a in enumerate(example.answers, start=1))
    body = example.code if example.code.endswith("\n") else example.code + "\n"
    return (f"**Example {title} Code**:\n```{example.file}\n{body}```\n\n**Example Questions**:\n{questions}\n\n"
            f"**Example Answers**:\n{answers}\n\n{example.naming}")


STUDIO_INSTRUCTIONS = (
    "For each question, list every function that is called, as a comma-separated list on the line of the "
    "question's number.",
    "Do not include explanations, commentary or code in your answers.",
    "Include implicit calls as well as explicit ones, such as the constructor that runs when an object is created.",
    "If a function is called through an alias or a reference, resolve it and list the function actually called.",
    "Do not list functions that are only passed as arguments or assigned but never called in that scope.",
    "If a function makes no calls, leave its answer empty after the number.",
    "Always write fully qualified names, spelled as the questions and the example spell them.",
)

STUDIO_WORDING = PromptWording(
    system=("You are an expert in {language} programming and static program analysis. You identify the function "
            "calls a program makes: you resolve aliases, track assignments, follow return values, and understand "
            "inheritance and dynamic dispatch."),
    user=("## Task Description\n\n"
          "**Objective**: Examine the {language} program below and answer the questions about the function calls "
          "it makes when it runs.\n\n"
          "**Instructions**:\n" + "\n".join(f"{n}. {text}" for n, text in enumerate(STUDIO_INSTRUCTIONS, start=1))
          + "\n\n{example}\n\n**{language} Code Provided**:\n\n{code}\n\n**Questions**:\n{questions}\n\n**Answers**:"),
)
