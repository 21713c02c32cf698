"""Every JSON document this project prints or writes names its schema and version (issue #21), so a script
reading `traceeval ... --format json` can check what it got before it reads a field.

A schema is `traceeval.<what>` (`traceeval.score-table`, `traceeval.diff`, ...). Its version goes up when a
field changes meaning or goes away; adding a field keeps the version. JSONL output is one plain record per
line, so it loads as a table (pandas, `datasets`); its schema is the command's and is named in docs/.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

SCHEMA_PREFIX = "traceeval."


def payload(schema: str, body: Mapping[str, Any], version: int = 1) -> dict[str, Any]:
    """`body` with `schema` and `version` first; a key of `body` named like them is an error, not overwritten."""
    clash = {"schema", "version"} & body.keys()
    if clash:
        raise ValueError(f"a payload's body may not hold {', '.join(sorted(clash))}")
    return {"schema": SCHEMA_PREFIX + schema, "version": version, **body}


def json_document(schema: str, body: Mapping[str, Any], version: int = 1) -> str:
    """The payload as indented JSON text ending in a newline (non-ASCII kept as is)."""
    return json.dumps(payload(schema, body, version), indent=2, ensure_ascii=False) + "\n"


def json_lines(records) -> str:
    """One compact JSON object per line (JSON Lines), each ending in a newline."""
    return "".join(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n" for record in records)
