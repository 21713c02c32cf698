"""The schema-and-version envelope of every JSON document (core.payloads)."""
import json

import pytest

from core.payloads import json_document, json_lines, payload


def test_payload_names_its_schema_and_version_first():
    document = payload("diff", {"model": "m", "tp": 1}, version=2)
    assert list(document) == ["schema", "version", "model", "tp"]
    assert document["schema"] == "traceeval.diff" and document["version"] == 2


def test_a_body_cannot_overwrite_the_envelope():
    with pytest.raises(ValueError, match="schema"):
        payload("diff", {"schema": "other"})


def test_json_document_and_lines_read_back():
    text = json_document("info", {"name": "Größe"})
    assert text.endswith("\n") and "Größe" in text
    assert json.loads(text) == {"schema": "traceeval.info", "version": 1, "name": "Größe"}
    lines = json_lines([{"a": 1}, {"a": "ü"}])
    assert [json.loads(line) for line in lines.splitlines()] == [{"a": 1}, {"a": "ü"}]
    assert json_lines([]) == ""
