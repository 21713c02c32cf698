"""`JsonPieces`, which reads a results file a piece at a time, gives what `parse_json` gives (the same value, or an
error on the same line) for any text, valid or not, wherever the pieces end."""
from __future__ import annotations

import io
import json

import pytest

from core.results import json_pieces
from core.results.json_pieces import JsonError, JsonPieces
from core.safe_files import MAX_JSON_DEPTH, MAX_NUMBER_DIGITS, Refused, parse_json, refusal

ENTRY = {"raw_response": "calls:\n main -> f", "prediction": {"main": ["f", "g"]}, "tokens": [1, 2.5, None, True]}
RELEASED = {"metadata": {"model": "m", "language": "python"}, "results": {f"p{n}": ENTRY for n in range(5)}}
DEEP = "[" * (MAX_JSON_DEPTH + 50) + "]" * (MAX_JSON_DEPTH + 50)
DEEPER_THAN_THE_PARSER = "[" * 100_000 + "]" * 100_000

TEXTS = [
    json.dumps(RELEASED),
    json.dumps(RELEASED, indent=4),
    json.dumps(RELEASED, separators=(",", ":")),
    ' \n\t{ "results" : { } , "metadata" : {}\r\n} \n',
    "{}", "{ }", "[]", '"text"', "3", "null", "[1, {\"a\": 2}]", '{"a": 12345678}', '{"a": [1.5e3, -0.25]}',
    '{"results": {"a": 1, "a": 2, "b": 3}, "results": {"c": 4}}',  # duplicates: the last value, the first place
    '{"results": {"p1": {"n": 1' + "2" * (MAX_NUMBER_DIGITS + 5) + "}}}",  # a number past the bound
    '{"results": {"p1": ' + DEEP + "}}",
    '{"results": {"p1": ' + DEEPER_THAN_THE_PARSER + "}}",
    '{"results": {"p1": "\\ud800"}}',  # a lone surrogate
    # not JSON: each must fail with parse_json's own message and position
    "", " ", "{", '{"a"', '{"a" 1}', '{"a": 1,}', '{"a": 1 "b": 2}', '{"results": {"a": 1,}}', '{"a": 1}}',
    '{"a": 1} x', "\ufeff{}", '{a: 1}', '{"results": {"a": [1, 2}}', '{"a": "\x01"}', "{'a': 1}",
]


def _by_pieces(text: str):
    """The value read as the importer reads a released file: the members of two levels of objects one by one."""
    pieces = JsonPieces(io.BytesIO(text.encode("utf-8", "surrogatepass")), 1 << 30)

    def read(levels: int):
        if levels and pieces.peek() == "{":
            return {name: read(levels - 1) for name in pieces.members()}
        return pieces.value()

    value = read(2)
    if not pieces.at_end():
        raise pieces.error("extra data", pieces.at)
    return value


def _outcome(parse, text: str):
    try:
        value = parse(text)
    except json.JSONDecodeError as error:
        return ("error", error.lineno)
    except JsonError as error:
        return ("error", error.line)
    reason = refusal(value)  # a cut value is cut at the bound counted from where decoding ran out: same refusal
    return ("refused", reason) if reason else ("value", _comparable(value), type(value))


def _comparable(value):
    """`value` with each Refused marker (which compares by identity) as its reason."""
    if isinstance(value, Refused):
        return ("refused", value.reason)
    if isinstance(value, dict):
        return [(key, _comparable(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    return value


@pytest.mark.parametrize("piece", [1, 7, 1 << 20])
@pytest.mark.parametrize("text", TEXTS, ids=[f"text{n}" for n in range(len(TEXTS))])
def test_the_same_value_or_an_error_on_the_same_line(text, piece, monkeypatch):
    monkeypatch.setattr(json_pieces, "PIECE", piece)
    assert _outcome(_by_pieces, text) == _outcome(parse_json, text)


def test_member_order_and_a_duplicate_member_follow_json():
    value = _by_pieces('{"results": {"b": 1, "a": 2, "b": 3}}')
    assert list(value["results"].items()) == [("b", 3), ("a", 2)]


def test_bytes_that_are_not_utf8_are_found_across_pieces(monkeypatch):
    monkeypatch.setattr(json_pieces, "PIECE", 3)  # "é" (two bytes) is cut between pieces, and read whole
    data = b'{"results": {"a": "\xc3\xa9", "b": "\xff"}}'
    pieces = JsonPieces(io.BytesIO(data), 1 << 30)
    read = []
    offset = data.index(b"\xff")
    with pytest.raises(json_pieces.NotUtf8, match=f"byte {offset}"):
        for _ in pieces.members():
            for name in pieces.members():
                read.append((name, pieces.value()))
    assert read == [("a", "é")]


def test_a_file_that_grows_past_its_bound_is_refused():
    pieces = JsonPieces(io.BytesIO(b'{"results": {"a": "' + b"x" * 5000 + b'"}}'), 4096)
    with pytest.raises(OSError, match="grew past the bound"):
        for _ in pieces.members():
            for _ in pieces.members():
                pieces.value()


@pytest.mark.parametrize("piece", [1, 3, 1 << 20])
def test_lines_of_a_jsonl_file_across_pieces(piece, monkeypatch):
    monkeypatch.setattr(json_pieces, "PIECE", piece)
    text = '{"a": 1}\n\n  \n{"b": "é"}\r\n{"c": [1,\n' + "x" * 50 + "\n"
    pieces = JsonPieces(io.BytesIO(text.encode()), 1 << 30)
    lines = []
    while (line := pieces.next_line()) is not None:
        lines.append(line)
    assert lines == [(1, '{"a": 1}'), (4, '{"b": "é"}\r'), (5, '{"c": [1,'), (6, "x" * 50)]
