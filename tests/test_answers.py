from core.answers import parse_answer, split_callees
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
