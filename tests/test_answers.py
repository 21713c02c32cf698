import json
from pathlib import Path

import pytest

from core.records import CallGraph
from core.scoring.answers import (
    ANSWER,
    IGNORED,
    OUT_OF_RANGE,
    SUPERSEDED,
    answer_lines,
    answer_mapping,
    parse_answer,
    question_answers,
    split_callees,
    unanswered_questions,
)
from core.scoring.rules import PAPER, RULE_SETS, STUDIO, base_rules

KEYS = ("main", "main.a", "main.b", "pkg.C:m(int,int)")
PARSE_VECTORS = json.loads((Path(__file__).parent / "parity" / "parse.json").read_text(encoding="utf-8"))["vectors"]


def test_every_parse_vector_reads_as_the_release_reads_it():
    """800 answers with the graph the release's parser returns (duplicates and order included)."""
    wrong = [(vector["response"], answer_mapping(vector["response"], vector["keys"]), vector["expected"])
             for vector in PARSE_VECTORS if answer_mapping(vector["response"], vector["keys"]) != vector["expected"]]
    assert not wrong, f"{len(wrong)} of {len(PARSE_VECTORS)} differ, first: {wrong[0]!r}"
    for vector in PARSE_VECTORS:
        assert parse_answer(vector["response"], vector["keys"]).graph == CallGraph.from_dict(vector["expected"])


@pytest.mark.parametrize(("answer", "callees"), [
    ("na", ["na"]), ("nothing", ["nothing"]), ("-", ["-"]), ("[]", ["[]"]), ("None.", ["None."]),
    ("NONE", []), ("No Function Calls", []), ("n/a", []), ("", []), ("none, main.a", ["none", "main.a"]),
    ("a[0, 1], b", ["a[0", "1]", "b"]), ("m(int, int), Map<K, V>", ["m(int, int)", "Map<K, V>"]),
])
def test_the_paper_reads_only_five_answers_as_no_calls_and_splits_outside_round_and_angle_brackets(answer, callees):
    assert split_callees(answer) == callees


def test_paper_lines_split_on_newline_only_and_need_the_dot_right_after_the_number():
    text = "1. main.a\x0b2. main.b\u20283. main.c\r\n  2 . main.d\n\u0664. main.e\n**3.** main.f"
    assert answer_mapping(text, KEYS) == {"main": ["main.a\x0b2. main.b\u20283. main.c"], "main.a": [],
                                          "main.b": [], "pkg.C:m(int,int)": ["main.e"]}
    lines = answer_lines(text, KEYS)
    assert [line.kind for line in lines] == [ANSWER, IGNORED, ANSWER, IGNORED]
    assert lines[1].note and lines[3].note  # "2 . x" and "**3.**" look numbered but are not read


def test_a_no_calls_word_the_paper_reads_as_a_callee_is_a_parse_problem():
    parsed = parse_answer("1. nothing\n2. None.\n3. none\n4. -", KEYS)
    assert parsed.graph.edges == (("main", "nothing"), ("main.a", "None."), ("pkg.C:m(int,int)", "-"))
    assert [p.split(":")[0] for p in parsed.problems] == ["answer 1", "answer 2", "answer 4"]
    assert "read as a callee, not as 'no calls'" in parsed.problems[0]
    assert parse_answer("1. nothing\n2. None.\n3. none\n4. -", KEYS, STUDIO).problems == ()


def test_an_answer_number_too_long_for_int_is_a_problem_not_a_crash():
    parsed = parse_answer("9" * 5000 + ". main.a\n1. main.b", KEYS)
    assert parsed.graph.edges == (("main", "main.b"),)
    assert any("too long to read" in problem for problem in parsed.problems)
    assert answer_lines("9" * 5000 + ". main.a", KEYS)[0].kind == IGNORED


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
    for rules in RULE_SETS:
        assert split_callees(" a.B:m(int, java.lang.String), Map<K, V>:get(), c ", rules) == [
            "a.B:m(int, java.lang.String)", "Map<K, V>:get()", "c"]
        assert split_callees("no calls", rules) == [] and split_callees("", rules) == []
        assert split_callees("a,,b,", rules) == ["a", "b"]
    assert split_callees("None.", STUDIO) == [] and split_callees("a[0, 1]", STUDIO) == ["a[0, 1]"]


def test_prose_in_an_answer_line_is_kept_but_reported():
    parsed = parse_answer('1. main.a\n2. What are the function calls inside "main.a"?\n3. none\n4. x.Y:m(int, int)',
                          KEYS)
    assert parsed.graph.edges[1] == ("main.a", 'What are the function calls inside "main.a"?')
    assert parsed.problems == ("answer 2: 'What are the function calls inside \"mai…' is not a function name "
                               "(prose?); scored as given",)


# -- answer_lines: every line of a response, for display --------------------------------------
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


@pytest.mark.parametrize("rules", RULE_SETS)
@pytest.mark.parametrize("text", VARIED + [vector["response"] for vector in PARSE_VECTORS[:60]])
def test_answer_lines_are_the_rule_sets_lines_one_for_one(text, rules):
    lines = answer_lines(text, KEYS, rules)
    rows = text.split("\n") if base_rules(rules) == PAPER else text.splitlines()
    assert [line.line for line in lines] == list(range(1, len(rows) + 1))
    assert [line.text for line in lines] == rows


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
    assert [bool(line.note) for line in lines] == [True, True, True, True, False, False]  # the last line is ""


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
