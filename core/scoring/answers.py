"""The TraceEval answer parser: a model's numbered answer lines -> a `{caller: [callees]}` graph.

Under the paper's rules (docs/benchmark.md "The answer parser: exact rules"; `tests/parity/parse.json`
holds the release's reading of 800 answers) the response is split on "\\n" only; each line is
stripped and read as an answer when it starts with `N.` (N any digits, no space before the dot);
answer N belongs to the N-th ground-truth key, a later line with the same number replaces an
earlier one; "", "none", "n/a", "no calls" and "no function calls" (any case) mean no callees,
anything else is split on commas outside `()` and `<>`. The studio rule set (opt-in) reads more
loosely: any line break splits lines, `2 . x` is an answer line, more words mean "no calls"
(na, nothing, -, [], a trailing dot) and `[]` keep commas together too.

Everything unusual is reported as a parse problem (repeated or out-of-range numbers, missing
answers, prose where a name should be, a "no calls" word the paper reads as a callee); the graph
still holds exactly what the rule set's parser reads. `answer_lines` describes every line of the
scan (for display) and `parse_answer` is built from its lines, so the two cannot disagree.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from core.records import CallGraph, Prediction
from core.scoring.rules import DEFAULT_RULES, PAPER, STUDIO, base_rules, without_thinking
from core.scoring.thinking import blank_thinking, thinking_span
from core.wording import short_list

PAPER_NO_CALLS = frozenset({"none", "n/a", "no function calls", "no calls"})  # and "", compared lower-cased
NO_CALLS = "none"  # what `answer_text` writes for a question with no callees
STUDIO_NO_CALLS = frozenset({"", "none", "n/a", "na", "no calls", "no function calls", "nothing", "-", "[]"})
REPLACEMENT_CHARACTER = "\ufffd"  # what stands for text that was not valid Unicode (a lone surrogate)
_PAPER_LINE = re.compile(r"(\d+)\.\s*(.*)")  # matched at the start of the stripped line
_STUDIO_LINE = re.compile(r"^\s*(\d+)\s*\.(.*)$")
_PROSE = re.compile(r"[^(\s]*\s")  # white space before the first "(": a callee that reads as prose


@dataclass(frozen=True)
class ParsedAnswer:
    graph: CallGraph
    problems: tuple[str, ...]


@dataclass(frozen=True)
class _Reading:
    """How one rule set reads a response: its lines, an answer line (number, answer, where the answer
    starts in the line), "no calls", and the split of an answer into callees."""

    lines: Callable[[str], list[str]]
    numbered: Callable[[str], tuple[str, str, int] | None]
    no_calls: Callable[[str], bool]
    split: Callable[[str], list[str]]


def _paper_numbered(line: str) -> tuple[str, str, int] | None:
    stripped = line.strip()
    match = _PAPER_LINE.match(stripped)
    if match is None:
        return None
    return match.group(1), match.group(2).strip(), len(line) - len(line.lstrip()) + match.start(2)


def _studio_numbered(line: str) -> tuple[str, str, int] | None:
    match = _STUDIO_LINE.match(line)
    return None if match is None else (match.group(1), match.group(2), match.start(2))


def _split_at_depth_zero(answer: str, opening: str, closing: str) -> list[str]:
    """Split on commas outside brackets; the depth never drops below 0."""
    if not any(bracket in answer for bracket in opening):  # the common case, and 10x faster
        return answer.split(",")
    parts, depth = [], 0
    current: list[str] = []
    for char in answer:
        if char in opening:
            depth += 1
        elif char in closing and depth:
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


_READINGS = {
    PAPER: _Reading(
        lines=lambda text: text.split("\n"),
        numbered=_paper_numbered,
        no_calls=lambda answer: answer == "" or answer.lower() in PAPER_NO_CALLS,
        split=lambda answer: [part.strip() for part in _split_at_depth_zero(answer, "(<", ")>") if part.strip()]),
    STUDIO: _Reading(
        lines=str.splitlines,
        numbered=_studio_numbered,
        no_calls=lambda answer: answer.strip().lower().rstrip(".") in STUDIO_NO_CALLS,
        split=lambda answer: [part.strip() for part in _split_at_depth_zero(answer, "(<[", ")>]") if part.strip()]),
}


def answer_text(keys: Sequence[str], answers: Mapping[str, Sequence[str]]) -> str:
    """The numbered answer this parser reads back to `answers`: `N. callee, callee` for each answered question
    (N counts the keys from 1), "none" for no callees; a key missing from `answers` gets no line (unanswered).
    The human baseline, fine-tuning sets and static analyzers write their answers with it."""
    return "".join(f"{number}. {', '.join(answers[key]) or NO_CALLS}\n"
                   for number, key in enumerate(keys, 1) if key in answers)


def split_callees(answer: str, rules: str = DEFAULT_RULES) -> list[str]:
    """One answer's callees as the rule set reads them ([] for a "no calls" answer)."""
    reading = _READINGS[base_rules(rules)]
    return [] if reading.no_calls(answer) else reading.split(answer)


def answer_mapping(text: str | None, keys: Sequence[str], rules: str = DEFAULT_RULES) -> dict[str, list[str]]:
    """Exactly what the rule set's parser returns: every key, in key order, with its callees as listed
    (a callee named twice stays twice here; edges are a set everywhere they are counted)."""
    reading = _READINGS[base_rules(rules)]
    answers = {} if text is None else _Scan(_readable(text, rules), len(keys), reading).answers
    return {key: split_callees(answers[number], rules) if number in answers else []
            for number, key in enumerate(keys, start=1)}


def parse_answer(text: str | None, keys: Sequence[str], rules: str = DEFAULT_RULES) -> ParsedAnswer:
    """Parse a raw response against the question keys (ground-truth callers, in key order): the graph of
    its ANSWER lines (`answer_lines`) and the problems of its lines and of the response as a whole."""
    if text is None or not text.strip():
        return ParsedAnswer(CallGraph(tuple(keys), ()), ("empty response",) if keys else ())
    if without_thinking(rules) and not _readable(text, rules).strip():
        span = thinking_span(text)
        unclosed = span is not None and not span[2]
        return ParsedAnswer(CallGraph(tuple(keys), ()), (THINKING_NEVER_ENDS if unclosed else THINKING_ONLY,)
                            if keys else ())
    lines = answer_lines(text, keys, rules)
    answers = sorted((line for line in lines if line.kind == ANSWER), key=_question_number)
    problems: list[str] = []
    if REPLACEMENT_CHARACTER in text:
        problems.append(_not_unicode(text.count(REPLACEMENT_CHARACTER)))
    problems.extend(problem for line in lines if line.kind != ANSWER for problem in line.problems)
    if not answers and keys:
        problems.append("no numbered answer lines")
    else:
        missing = [str(n) for n in unanswered_questions(lines, keys)]
        if missing:
            problems.append(f"no answer for question{'s' if len(missing) > 1 else ''} {short_list(missing)}")
    problems.extend(problem for line in answers for problem in line.problems)
    mapping = {line.key: list(line.callees) for line in answers}
    return ParsedAnswer(CallGraph.from_dict({key: mapping.get(key, ()) for key in keys}), tuple(problems))


def given_graph_problems(raw: str, graph: CallGraph, keys: Sequence[str]) -> list[str]:
    """The problems of a raw response given with its graph (a released record's stored prediction, which is what
    the paper scores): the response's own parse problems, and how far its edges differ from the graph."""
    parsed = parse_answer(raw, keys)
    problems = list(parsed.problems)
    if parsed.graph.edge_set != graph.edge_set:
        problems.append(f"stored prediction differs from the parsed raw_response in "
                        f"{len(parsed.graph.edge_set ^ graph.edge_set)} edge(s); the stored one is scored")
    return problems


class _Scan:
    """The numbered lines of a response: `numbered` (line index -> (number or None when it cannot be read
    as an int, answer)), `last` (question number -> the line index that answers it) and `answers`
    (question number -> the answer that counts), for questions 1..`questions`."""

    def __init__(self, text: str, questions: int, reading: _Reading):
        self.rows = reading.lines(text)
        self.numbered: dict[int, tuple[int | None, str]] = {}
        self.starts: dict[int, int] = {}
        self.last: dict[int, int] = {}
        for index, row in enumerate(self.rows):
            read = reading.numbered(row)
            if read is None:
                continue
            digits, answer, start = read
            try:
                number: int | None = int(digits)
            except ValueError:  # more digits than Python converts (4,300); the paper's script stops here
                number = None
            self.numbered[index] = (number, answer)
            self.starts[index] = start
            if number is not None and 1 <= number <= questions:
                self.last[number] = index
        self.answers = {number: self.numbered[index][1] for number, index in self.last.items()}


def scored_graph(prediction: Prediction, keys: Sequence[str], rules: str = DEFAULT_RULES) -> CallGraph:
    """The graph a rule set scores for a prediction: the stored one under the paper's rules (what the
    release scores), the rule set's own reading of the raw response otherwise (when there is one)."""
    if rules == PAPER or prediction.raw_response is None:
        return prediction.graph
    return parse_answer(prediction.raw_response, keys, rules).graph


# -- every line of a response, for display ---------------------------------------------------
ANSWER, SUPERSEDED, OUT_OF_RANGE, IGNORED = "answer", "superseded", "out_of_range", "ignored"
# Lines the parser does not read although a person would: "1) a", "**1.** a", "(1) a", "[1] a", "1: a", "2 . a".
_NUMBERED_LOOKALIKE = re.compile(r"^\s*(?:[-*_#>]+\s*)?[(\[]?\s*\d+\s*(?:[.)\]:]|[*_]+\s*[.):])")


@dataclass(frozen=True)
class AnswerLine:
    """One line of a raw response as `parse_answer` reads it.

    `kind`: ANSWER (numbered, read as the answer to question `number`), SUPERSEDED (numbered, but a
    later line answers the same question), OUT_OF_RANGE (numbered, no such question) or IGNORED
    (prose, code fences, blank lines). `callees` is what the line says (for every numbered line;
    only ANSWER lines are scored). `problems` are the parser's own problem strings that belong to
    this line; `note` explains the line to a person and is not a parse problem. `answer_start` is
    where the answer begins in `text` (after the number and its dot) for numbered lines.
    """

    line: int  # 1-based, counting the lines as the rule set splits them
    text: str
    kind: str
    number: int | None = None
    key: str | None = None  # the question's key (ANSWER and SUPERSEDED lines)
    callees: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    note: str = ""
    superseded_by: int | None = None  # the line that answers the question instead
    answer_start: int = 0


def _question_number(line: AnswerLine) -> int:
    if line.number is None:
        raise ValueError(f"line {line.line} is read as an answer without a question number")
    return line.number


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


def answer_lines(text: str | None, keys: Sequence[str], rules: str = DEFAULT_RULES) -> list[AnswerLine]:
    """Every line of `text` with what `parse_answer` makes of it (an empty list for None).

    `parse_answer` is built from these lines: its graph is the ANSWER lines' edges, and its problems are
    the lines' problems and the ones about the whole response ("empty response", "no numbered answer
    lines", "no answer for question ...", characters that were not valid Unicode).
    """
    if text is None:
        return []
    scan = _Scan(_readable(text, rules), len(keys), _READINGS[base_rules(rules)])
    thinking = _thinking_rows(text, rules, scan.rows)
    out = []
    for index, row in enumerate(scan.rows):
        if index in thinking:
            out.append(AnswerLine(index + 1, thinking[index], IGNORED, note=THINKING_NOTE))
            continue
        if index not in scan.numbered:
            note = "not read: an answer line starts with its number and a dot, e.g. \"3. main.f\"" \
                if _NUMBERED_LOOKALIKE.match(row) else ""
            out.append(AnswerLine(index + 1, row, IGNORED, note=note))
            continue
        number, answer = scan.numbered[index]
        callees = tuple(split_callees(answer, rules))
        start = scan.starts[index]
        if number is None:
            out.append(AnswerLine(index + 1, row, IGNORED, problems=(_unreadable_number(),),
                                  note="the number is too long to read"))
        elif not 1 <= number <= len(keys):
            out.append(AnswerLine(index + 1, row, OUT_OF_RANGE, number, None, callees,
                                  (_no_question(number, len(keys)),),
                                  f"there are {len(keys)} questions; this line is not scored", answer_start=start))
        elif scan.last[number] != index:
            out.append(AnswerLine(index + 1, row, SUPERSEDED, number, keys[number - 1], callees,
                                  (_given_twice(number),), f"line {scan.last[number] + 1} answers question {number} "
                                  "again and is used instead", superseded_by=scan.last[number] + 1,
                                  answer_start=start))
        else:
            problems = tuple(_answer_problems(number, answer, list(callees), rules))
            out.append(AnswerLine(index + 1, row, ANSWER, number, keys[number - 1], callees, problems,
                                  answer_start=start))
    return out


def _readable(text: str, rules: str) -> str:
    """The text the rule set's parser reads: the response, its leading think block blanked for "paper-nothink"."""
    return blank_thinking(text) if without_thinking(rules) else text


def _thinking_rows(text: str, rules: str, rows: list[str]) -> dict[int, str]:
    """Row index -> the original text of each row blanked as thinking (shown, never read)."""
    if not without_thinking(rules) or thinking_span(text) is None:
        return {}
    original = _READINGS[base_rules(rules)].lines(text)
    if len(original) != len(rows):
        return {}
    return {index: before for index, (before, after) in enumerate(zip(original, rows, strict=True))
            if before != after and not after}


THINKING_NOTE = "thinking: not read under the paper-nothink rules"
THINKING_ONLY = "the answer is only a think block: nothing after it to read"
THINKING_NEVER_ENDS = "the think block never ends (no </think>): the answer was cut off while thinking"


def question_answers(lines: Sequence[AnswerLine], keys: Sequence[str]) -> list[QuestionAnswer]:
    """One entry per question, in key order, with its ANSWER line or None."""
    by_number = {line.number: line for line in lines if line.kind == ANSWER}
    return [QuestionAnswer(number, key, by_number.get(number)) for number, key in enumerate(keys, start=1)]


def unanswered_questions(lines: Sequence[AnswerLine], keys: Sequence[str]) -> list[int]:
    """The numbers (1-based) of the questions no line answers (scored as "no calls")."""
    return [question.number for question in question_answers(lines, keys) if not question.answered]


def _answer_problems(number: int, answer: str, callees: list[str], rules: str) -> list[str]:
    problems = [_prose(number, callee) for callee in callees if _looks_like_prose(callee)]
    if base_rules(rules) == PAPER and callees and _READINGS[STUDIO].no_calls(answer):
        problems.append(f"answer {number}: {_clip(answer.strip())!r} is read as a callee, not as 'no calls' (the "
                        "paper reads only an empty answer, none, n/a, no calls and no function calls so)")
    return problems


def _looks_like_prose(callee: str) -> bool:
    """Whether the name has white space before its argument list (`\\s` is `str.isspace`'s white space)."""
    return _PROSE.match(callee) is not None


def _no_question(number: int, questions: int) -> str:
    return f"answer {number} has no question ({questions} questions)"


def _given_twice(number: int) -> str:
    return f"answer {number} given twice (the last one is used)"


def _unreadable_number() -> str:
    return "an answer number too long to read (over 4,300 digits); the line is not scored"


def _not_unicode(count: int) -> str:
    return f"{count:,} character{'s' if count > 1 else ''} of the answer {'were' if count > 1 else 'was'} not valid " \
           f"Unicode (shown as {REPLACEMENT_CHARACTER})"


def _prose(number: int, callee: str) -> str:
    return f"answer {number}: {_clip(callee)!r} is not a function name (prose?); scored as given"


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


