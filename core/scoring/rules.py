"""Rule sets: how names are normalised, answers parsed and prompts assembled before anything is scored.

"paper" is the TraceEval release's own reading (docs/benchmark.md "The task prompt: exact assembly",
"The answer parser: exact rules", "Metric (paper parity)") and the default for every number this
project shows. "studio" is this project's own reading, chosen explicitly; every table, export and
view that uses it says so, and every cache keys on the rule set, so they never mix. "paper-nothink" is the
paper's reading of an answer whose leading think block (`core.scoring.thinking`) is removed first: for a
reasoning model served without a reasoning parser, whose thinking lands in `content`; everything else
(prompts, names) is the paper's. `base_rules` names the rule set a variant builds on.

Each feature keeps its per-rule-set implementation beside it (`core.scoring.normalise`, `core.scoring.answers`,
`core.llm.prompts`) and looks it up by the name defined here.
"""
from __future__ import annotations

from dataclasses import dataclass

PAPER = "paper"
STUDIO = "studio"
PAPER_NOTHINK = "paper-nothink"


@dataclass(frozen=True)
class RuleSet:
    name: str
    title: str  # for a table header or a window title: "paper rules"
    differences: tuple[str, ...]  # what it reads differently from the paper (empty for the paper)
    base: str = ""  # the rule set this one reads as, apart from its differences ("" for itself)
    without_thinking: bool = False  # answers are read with their leading think block removed


RULE_SETS = {
    PAPER: RuleSet(PAPER, "paper rules", ()),
    STUDIO: RuleSet(STUDIO, "studio rules, not the paper's", (  # docs/paper-parity.md says the same, longer
        "names are stripped and an empty name is dropped",
        "Python/JavaScript init also cuts before an argument list (main.Foo.__init__(x) -> main.Foo(x))",
        "Python builtin-type attributes are dropped only as two segments (list.append.x is kept)",
        "JavaScript globals are dropped only where they can be one (main.Foo.Date is kept)",
        "Java nested_class keeps an anonymous part with its class (Outer$1:run() is kept) and flattens "
        "constructors; bare JDK classes come from this project's own list",
        "answers: any line break splits lines, '2 . x' is read, na, nothing, -, [] and a trailing dot mean no "
        "calls, [] keep commas together; predictions are re-read from the raw response",
        "prompts: the longest dotted module prefix picks a question's file, one question per key (Java names "
        "the simple class), fences grow past backticks, 'JavaScript'",
    )),
    PAPER_NOTHINK: RuleSet(PAPER_NOTHINK, "paper-nothink rules", (
        "answers: a leading <think>...</think> block (or everything up to a first </think> when the opening tag "
        "is missing) is removed before the paper's parser reads the answer",
    ), base=PAPER, without_thinking=True),
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


def base_rules(name: str) -> str:
    """The rule set whose prompts, names and answer lines `name` uses: "paper" for "paper-nothink"."""
    return RULE_SETS[name].base or name


def without_thinking(name: str) -> bool:
    return RULE_SETS[name].without_thinking
