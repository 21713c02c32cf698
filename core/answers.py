"""The TraceEval answer parser: a model's numbered answer lines -> a `{caller: [callees]}` graph.

Rules (TRACEEVAL.md "The task prompt"): the answer is read line by line; `N. callee, callee`
answers the N-th question, i.e. the N-th ground-truth key; a missing line, an empty answer or
"none" / "n/a" / "no calls" means no callees; callees are split on commas outside parentheses
and angle brackets so `C:m(int,int)` and `Map<K,V>` survive. When a number is answered twice
the last line wins (as assigning into a dict would). Lines that are not numbered answers
(prose, code fences) are ignored. Everything unusual is reported as a parse problem (also a
"callee" with spaces outside brackets, e.g. an echoed question); the graph still holds
exactly what the paper's parser would read.

`answer_lines` describes every line of a response the same way for display (which question a
line answers, which lines are superseded, out of range or ignored, and their problems);
`question_answers` / `unanswered_questions` list the questions with and without an answer line.
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
            problems.append(_no_question(number, len(keys)))
            continue
        if number in answers:
            problems.append(_given_twice(number))
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
            if _looks_like_prose(callee):
                problems.append(_prose(number, callee))
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


# -- every line of a response, for display ---------------------------------------------------
ANSWER, SUPERSEDED, OUT_OF_RANGE, IGNORED = "answer", "superseded", "out_of_range", "ignored"
LINE_KINDS = (ANSWER, SUPERSEDED, OUT_OF_RANGE, IGNORED)
# Lines the parser does not read although a person would: "1) a", "**1.** a", "(1) a", "[1] a", "1: a".
_NUMBERED_LOOKALIKE = re.compile(r"^\s*(?:[-*_#>]+\s*)?[(\[]?\s*\d+\s*(?:[.)\]:]|[*_]+\s*[.):])")


@dataclass(frozen=True)
class AnswerLine:
    """One line of a raw response as `parse_answer` reads it.

    `kind`: ANSWER (numbered, read as the answer to question `number`), SUPERSEDED (numbered, but a
    later line answers the same question), OUT_OF_RANGE (numbered, no such question) or IGNORED
    (prose, code fences, blank lines). `callees` is what the line says (for every numbered line;
    only ANSWER lines are scored). `problems` are the parser's own problem strings that belong to
    this line; `note` explains the line to a person and is not a parse problem.
    """

    line: int  # 1-based, as `str.splitlines` counts
    text: str
    kind: str
    number: int | None = None
    key: str | None = None  # the question's key (ANSWER and SUPERSEDED lines)
    callees: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    note: str = ""
    superseded_by: int | None = None  # the line that answers the question instead


@dataclass(frozen=True)
class QuestionAnswer:
    """One question (ground-truth key) and the line that answers it (None: no answer line)."""

    number: int
    key: str
    line: AnswerLine | None

    @property
    def answered(self) -> bool:
        return self.line is not None

    @property
    def callees(self) -> tuple[str, ...]:
        return self.line.callees if self.line is not None else ()


def answer_lines(text: str | None, keys: Sequence[str]) -> list[AnswerLine]:
    """Every line of `text` with what `parse_answer` makes of it (an empty list for None).

    The edges of the ANSWER lines are exactly `parse_answer(text, keys).graph`'s edges, and the
    lines' problems are its problems except the ones about the whole response ("empty response",
    "no numbered answer lines", "no answer for question ...").
    """
    if text is None:
        return []
    rows = text.splitlines()
    last: dict[int, int] = {}  # question number -> index of the line that answers it
    numbered: dict[int, tuple[int, str]] = {}  # line index -> (number, answer text)
    for index, row in enumerate(rows):
        match = ANSWER_LINE.match(row)
        if match:
            numbered[index] = (int(match.group(1)), match.group(2))
            if 1 <= numbered[index][0] <= len(keys):
                last[numbered[index][0]] = index
    out = []
    for index, row in enumerate(rows):
        if index not in numbered:
            note = "not read: an answer line starts with its number and a dot, e.g. \"3. main.f\"" \
                if _NUMBERED_LOOKALIKE.match(row) else ""
            out.append(AnswerLine(index + 1, row, IGNORED, note=note))
            continue
        number, answer = numbered[index]
        callees = tuple(split_callees(answer))
        if not 1 <= number <= len(keys):
            out.append(AnswerLine(index + 1, row, OUT_OF_RANGE, number, None, callees,
                                  (_no_question(number, len(keys)),),
                                  f"there are {len(keys)} questions; this line is not scored"))
        elif last[number] != index:
            out.append(AnswerLine(index + 1, row, SUPERSEDED, number, keys[number - 1], callees,
                                  (_given_twice(number),), f"line {last[number] + 1} answers question {number} "
                                  "again and is used instead", superseded_by=last[number] + 1))
        else:
            problems = tuple(_prose(number, callee) for callee in callees if _looks_like_prose(callee))
            out.append(AnswerLine(index + 1, row, ANSWER, number, keys[number - 1], callees, problems))
    return out


def question_answers(lines: Sequence[AnswerLine], keys: Sequence[str]) -> list[QuestionAnswer]:
    """One entry per question, in key order, with its ANSWER line or None."""
    by_number = {line.number: line for line in lines if line.kind == ANSWER}
    return [QuestionAnswer(number, key, by_number.get(number)) for number, key in enumerate(keys, start=1)]


def unanswered_questions(lines: Sequence[AnswerLine], keys: Sequence[str]) -> list[int]:
    """The numbers (1-based) of the questions no line answers (scored as "no calls")."""
    return [question.number for question in question_answers(lines, keys) if not question.answered]


def _looks_like_prose(callee: str) -> bool:
    return any(char.isspace() for char in callee.split("(", 1)[0])


def _no_question(number: int, questions: int) -> str:
    return f"answer {number} has no question ({questions} questions)"


def _given_twice(number: int) -> str:
    return f"answer {number} given twice (the last one is used)"


def _prose(number: int, callee: str) -> str:
    return f"answer {number}: {_clip(callee)!r} is not a function name (prose?); scored as given"


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _short_list(items: list[str], limit: int = 8) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")
