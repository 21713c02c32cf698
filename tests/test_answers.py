from collections import Counter

import pytest

from core.answers import (
    ANSWER,
    IGNORED,
    OUT_OF_RANGE,
    SUPERSEDED,
    answer_lines,
    parse_answer,
    question_answers,
    split_callees,
    unanswered_questions,
)
from core.model import CallGraph

KEYS = ("main", "main.a", "main.b", "pkg.C:m(int,int)")


def test_numbered_lines_map_to_keys_in_order():
    parsed = parse_answer("1. main.a, main.b\n2. main.b\n3. none\n4. pkg.C:m(int,int), pkg.D:<init>()", KEYS)
    assert parsed.graph.to_dict() == {"main": ["main.a", "main.b"], "main.a": ["main.b"], "main.b": [],
                                      "pkg.C:m(int,int)": ["pkg.C:m(int,int)", "pkg.D:<init>()"]}
    assert parsed.problems == ()


def test_prose_and_code_fences_are_ignored_but_missing_answers_reported():
    text = "Here are the calls:\n```\n1. main.a\n3. N/A\n```\nHope this helps."
    parsed = parse_answer(text, KEYS)
    assert parsed.graph.edges == (("main", "main.a"),)
    assert parsed.problems == ("no answer for questions 2, 4",)


def test_out_of_range_and_repeated_numbers():
    parsed = parse_answer("1. main.a\n1. main.b\n9. main.x", KEYS)
    assert parsed.graph.edges == (("main", "main.b"),)
    assert "answer 1 given twice (the last one is used)" in parsed.problems
    assert "answer 9 has no question (4 questions)" in parsed.problems


def test_empty_and_unparseable_responses():
    assert parse_answer("", KEYS).problems == ("empty response",)
    assert parse_answer(None, KEYS).graph == CallGraph(KEYS, ())
    garbage = parse_answer("I cannot answer this.", KEYS)
    assert garbage.graph.edges == () and garbage.problems == ("no numbered answer lines",)


def test_split_keeps_commas_inside_brackets():
    assert split_callees(" a.B:m(int, java.lang.String), Map<K, V>:get(), c ") == [
        "a.B:m(int, java.lang.String)", "Map<K, V>:get()", "c"]
    assert split_callees("None.") == [] and split_callees("no calls") == [] and split_callees("") == []
    assert split_callees("a,,b,") == ["a", "b"]


def test_prose_in_an_answer_line_is_kept_but_reported():
    parsed = parse_answer('1. main.a\n2. What are the function calls inside "main.a"?\n3. none\n4. x.Y:m(int, int)', KEYS)
    assert parsed.graph.edges[1] == ("main.a", 'What are the function calls inside "main.a"?')
    assert parsed.problems == ("answer 2: 'What are the function calls inside \"mai…' is not a function name "
                               "(prose?); scored as given",)


# -- answer_lines: every line of a response, for display --------------------------------------
WHOLE_RESPONSE_PROBLEMS = ("empty response", "no numbered answer lines", "no answer for question")

VARIED = [
    "",
    "   \n\n",
    "I cannot answer this.",
    "1. main.a, main.b\n2. main.b\n3. none\n4. pkg.C:m(int,int), pkg.D:<init>()",
    "Here are the calls:\n```\n1. main.a\n3. N/A\n```\nHope this helps.",
    "1. main.a\n1. main.b\n9. main.x\n0. main.y\n1. main.c, main.a",
    "1.\n2. no calls\n3. None.\n4. -\n  2 .  main.a , main.b ,",
    '1. main.a\n2. What are the function calls inside "main.a"?\n3. none\n4. x.Y:m(int, int), Map<K, V>:get(), z[0]',
    "**1.** main.a\n1) main.b\n- 2. main.c\n2: main.d\n(3) main.e\n4. main.f",
    "1. main.a\r\n2. main.b\r\n\r\n3. main.c\x0c4. main.d",
    "1. a, b (c, d), e <f, g>\n2. [h, i], j\n3. a b, c\n4. n/a",
    "12. main.a\n4. main.b\n4. main.b\n4. main.b",
]


def _edges(lines):
    """The edges of the ANSWER lines, in question order (the order `parse_answer` builds them in)."""
    return [(line.key, callee) for line in sorted((l for l in lines if l.kind == ANSWER), key=lambda l: l.number)
            for callee in line.callees]


@pytest.mark.parametrize("text", VARIED)
def test_answer_lines_agree_with_parse_answer(text):
    lines = answer_lines(text, KEYS)
    parsed = parse_answer(text, KEYS)
    assert CallGraph.from_edges(_edges(lines), KEYS) == parsed.graph
    assert [line.line for line in lines] == list(range(1, len(text.splitlines()) + 1))
    assert [line.text for line in lines] == text.splitlines()
    line_problems = Counter(problem for line in lines for problem in line.problems)
    whole = Counter(p for p in parsed.problems if p.startswith(WHOLE_RESPONSE_PROBLEMS))
    assert line_problems + whole == Counter(parsed.problems)
    missing = unanswered_questions(lines, KEYS)
    if len(missing) < len(KEYS):  # the parser names the missing questions when anything was answered
        named = [p for p in parsed.problems if p.startswith("no answer for question")]
        assert named == ([f"no answer for question{'s' if len(missing) > 1 else ''} "
                          f"{', '.join(map(str, missing))}"] if missing else [])
    else:
        assert not any(line.kind == ANSWER for line in lines)


def test_each_line_is_marked_with_its_kind_question_and_key():
    text = "Sure:\n```\n1. main.a\n2. main.x\n9. main.z\n2. main.b, main.c\n```\n4. none"
    lines = answer_lines(text, KEYS)
    assert [(line.line, line.kind, line.number, line.key) for line in lines] == [
        (1, IGNORED, None, None), (2, IGNORED, None, None), (3, ANSWER, 1, "main"),
        (4, SUPERSEDED, 2, "main.a"), (5, OUT_OF_RANGE, 9, None), (6, ANSWER, 2, "main.a"),
        (7, IGNORED, None, None), (8, ANSWER, 4, "pkg.C:m(int,int)")]
    assert lines[3].superseded_by == 6 and lines[3].callees == ("main.x",)
    assert lines[3].problems == ("answer 2 given twice (the last one is used)",)
    assert lines[4].problems == ("answer 9 has no question (4 questions)",) and lines[4].callees == ("main.z",)
    assert lines[5].callees == ("main.b", "main.c") and lines[5].problems == ()
    assert lines[7].callees == ()  # "none"
    assert all(not line.problems and not line.note for line in lines if line.kind == IGNORED)


def test_prose_callees_are_problems_of_their_line():
    lines = answer_lines('1. main.a\n2. What are the calls inside "main.a"?\n3. C:m(int, int)', KEYS)
    assert lines[1].kind == ANSWER and len(lines[1].problems) == 1
    assert "is not a function name (prose?)" in lines[1].problems[0]
    assert lines[2].problems == ()  # spaces inside brackets are fine


def test_lines_that_look_numbered_but_are_not_read_get_a_note():
    lines = answer_lines("**1.** main.a\n1) main.b\n- 2. main.c\n(3) main.d\nThe 2 calls are:\n", KEYS)
    assert all(line.kind == IGNORED and not line.problems for line in lines)
    assert [bool(line.note) for line in lines] == [True, True, True, True, False]


def test_questions_list_their_answer_line_or_none():
    lines = answer_lines("intro\n1. main.a\n3. none\n3. main.b", KEYS)
    questions = question_answers(lines, KEYS)
    assert [(q.number, q.key, q.line.line if q.line else None, q.callees) for q in questions] == [
        (1, "main", 2, ("main.a",)), (2, "main.a", None, ()), (3, "main.b", 4, ("main.b",)),
        (4, "pkg.C:m(int,int)", None, ())]
    assert unanswered_questions(lines, KEYS) == [2, 4]
    assert not questions[1].answered and questions[2].answered


def test_no_text_has_no_lines_and_every_question_unanswered():
    assert answer_lines(None, KEYS) == []
    assert unanswered_questions([], KEYS) == [1, 2, 3, 4]
    assert [line.kind for line in answer_lines("1. a\n2. b", ())] == [OUT_OF_RANGE, OUT_OF_RANGE]
