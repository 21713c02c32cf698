"""Rule sets: how names are normalised, answers parsed and prompts assembled before anything is scored.

"paper" is the TraceEval release's own reading (TRACEEVAL.md "The task prompt: exact assembly",
"The answer parser: exact rules", "Metric (paper parity)") and the default for every number this
project shows. "studio" is this project's own reading, chosen explicitly; every table, export and
view that uses it says so, and every cache keys on the rule set, so the two never mix.

Each feature keeps its per-rule-set implementation beside it (`core.normalise`, `core.answers`,
`core.prompts`) and looks it up by the name defined here.
"""
from __future__ import annotations

from dataclasses import dataclass

PAPER = "paper"
STUDIO = "studio"


@dataclass(frozen=True)
class RuleSet:
    name: str
    title: str  # for a table header or a window title: "paper rules"
    differences: tuple[str, ...]  # what it reads differently from the paper (empty for the paper)


RULE_SETS = {
    PAPER: RuleSet(PAPER, "paper rules", ()),
    STUDIO: RuleSet(STUDIO, "studio rules, not the paper's", (
        "names are stripped of surrounding whitespace and an empty name is dropped",
        "Python/JavaScript: init and stdlib look only at the part before the first '('",
        "JavaScript stdlib: a global is dropped only where it can be one (main.Foo.Date is kept)",
        "Java: nested and anonymous classes keep their anonymous part (Outer$1:run() -> Outer$1:run()), "
        "bare JDK classes are looked up in a larger list",
        "answers: more no-call words (na, nothing, -, [], 'None.'), '2 . x' is an answer line, any line "
        "break splits lines, [] brackets keep commas together",
        "prompts: the question's file is the longest dotted module prefix, Java questions name the simple "
        "class and every key gets a question, fences grow past backticks in a file",
        "predictions are re-read from the raw response where there is one",
    )),
}
DEFAULT_RULES = PAPER


def parse_rules(text: str) -> str:
    """A rule-set name from an option value (case and spaces ignored); ValueError names the choices."""
    name = text.strip().lower()
    if name not in RULE_SETS:
        raise ValueError(f"unknown rule set {text!r} (choose from {', '.join(RULE_SETS)})")
    return name


def rules_title(name: str) -> str:
    return RULE_SETS[name].title
