"""`parse_json_gradually` gives exactly what `parse_json` gives (value or error) for any text, valid or not."""
from __future__ import annotations

import json

import pytest

from core.safe_files import MAX_JSON_DEPTH, MAX_NUMBER_DIGITS, Refused, parse_json, parse_json_gradually, refusal

ENTRY = {"raw_response": "calls:\n main -> f", "prediction": {"main": ["f", "g"]}, "tokens": [1, 2.5, None, True]}
RELEASED = {"metadata": {"model": "m", "language": "python"}, "results": {f"p{n}": ENTRY for n in range(5)}}
DEEP = "[" * (MAX_JSON_DEPTH + 50) + "]" * (MAX_JSON_DEPTH + 50)
DEEPER_THAN_THE_PARSER = "[" * 100_000 + "]" * 100_000

TEXTS = [
    json.dumps(RELEASED),
    json.dumps(RELEASED, indent=4),
    json.dumps(RELEASED, separators=(",", ":")),
    ' \n\t{ "results" : { } , "metadata" : {}\r\n} \n',
    "{}", "{ }", "[]", '"text"', "3", "null", "[1, {\"a\": 2}]",
    '{"results": {"a": 1, "a": 2, "b": 3}, "results": {"c": 4}}',  # duplicates: the last value, the first place
    '{"results": {"p1": {"n": 1' + "2" * (MAX_NUMBER_DIGITS + 5) + "}}}",  # a number past the bound
    '{"results": {"p1": ' + DEEP + "}}",
    '{"results": {"p1": ' + DEEPER_THAN_THE_PARSER + "}}",
    '{"results": {"p1": "\\ud800"}}',  # a lone surrogate
    # not JSON: each must fail with parse_json's own message and position
    "", " ", "{", '{"a"', '{"a" 1}', '{"a": 1,}', '{"a": 1 "b": 2}', '{"results": {"a": 1,}}', '{"a": 1}}',
    '{"a": 1} x', "\ufeff{}", '{a: 1}', '{"results": {"a": [1, 2}}', '{"a": "\x01"}', "{'a': 1}",
]


def _outcome(parse, text: str):
    try:
        value = parse(text)
    except json.JSONDecodeError as error:
        return ("error", error.msg, error.pos, error.lineno, error.colno)
    return ("value", _comparable(value), type(value), refusal(value))


def _comparable(value):
    """`value` with each Refused marker (which compares by identity) as its reason."""
    if isinstance(value, Refused):
        return ("refused", value.reason)
    if isinstance(value, dict):
        return [(key, _comparable(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    return value


@pytest.mark.parametrize("text", TEXTS, ids=[f"text{n}" for n in range(len(TEXTS))])
def test_the_same_value_or_the_same_error(text):
    assert _outcome(parse_json_gradually, text) == _outcome(parse_json, text)


def test_member_order_and_a_duplicate_member_follow_json():
    value = parse_json_gradually('{"results": {"b": 1, "a": 2, "b": 3}}')
    assert list(value["results"].items()) == [("b", 3), ("a", 2)]
