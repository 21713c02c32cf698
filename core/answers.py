"""The TraceEval answer parser: a model's numbered answer lines -> a `{caller: [callees]}` graph.

Rules (TRACEEVAL.md "The task prompt"): the answer is read line by line; `N. callee, callee`
answers the N-th question, i.e. the N-th ground-truth key; a missing line, an empty answer or
"none" / "n/a" / "no calls" means no callees; callees are split on commas outside parentheses
and angle brackets so `C:m(int,int)` and `Map<K,V>` survive. When a number is answered twice
the last line wins (as assigning into a dict would). Lines that are not numbered answers
(prose, code fences) are ignored. Everything unusual is reported as a parse problem (also a
"callee" with spaces outside brackets, e.g. an echoed question); the graph still holds
exactly what the paper's parser would read.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from core.model import CallGraph

ANSWER_LINE = re.compile(r"^\s*(\d+)\s*\.(.*)$")
NO_CALLS = {"", "none", "n/a", "na", "no calls", "no function calls", "nothing", "-", "[]"}


@dataclass(frozen=True)
class ParsedAnswer:
    graph: CallGraph
    problems: tuple[str, ...]


def parse_answer(text: str | None, keys: Sequence[str]) -> ParsedAnswer:
    """Parse a raw response against the question keys (ground-truth callers, in key order)."""
    if text is None or not text.strip():
        return ParsedAnswer(CallGraph(tuple(keys), ()), ("empty response",) if keys else ())
    answers: dict[int, str] = {}
    problems: list[str] = []
    for line in text.splitlines():
        match = ANSWER_LINE.match(line)
        if not match:
            continue
        number = int(match.group(1))
        if not 1 <= number <= len(keys):
            problems.append(f"answer {number} has no question ({len(keys)} questions)")
            continue
        if number in answers:
            problems.append(f"answer {number} given twice (the last one is used)")
        answers[number] = match.group(2)
    if not answers and keys:
        problems.append("no numbered answer lines")
    else:
        missing = [str(n) for n in range(1, len(keys) + 1) if n not in answers]
        if missing:
            problems.append(f"no answer for question{'s' if len(missing) > 1 else ''} {_short_list(missing)}")
    edges = []
    for number, answer in sorted(answers.items()):
        caller = keys[number - 1]
        for callee in split_callees(answer):
            if any(char.isspace() for char in callee.split("(", 1)[0]):
                problems.append(f"answer {number}: {_clip(callee)!r} is not a function name (prose?); scored as given")
            edges.append((caller, callee))
    return ParsedAnswer(CallGraph.from_edges(edges, keys), tuple(problems))


def split_callees(answer: str) -> list[str]:
    """Split one answer on commas outside (), <> and []; "none"-like answers give []."""
    if answer.strip().lower().rstrip(".") in NO_CALLS:
        return []
    if not any(bracket in answer for bracket in "(<["):  # the common case, and 10x faster
        return [part.strip() for part in answer.split(",") if part.strip()]
    parts, depth, current = [], 0, []
    for char in answer:
        if char in "(<[":
            depth += 1
        elif char in ")>]" and depth:
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _short_list(items: list[str], limit: int = 8) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")
