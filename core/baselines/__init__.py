"""Static call-graph analyzers scored as models: a tool's graph named in TraceEval's names, stored as `static:<tool>`.

`tool_graph` reads what a tool's driver wrote (hostile: bounded and checked), `naming` places each end on the
program's symbol table, and `predictions` writes the result as the numbered answer a model would give and reads
it back with the paper's parser, so a tool is scored, compared and audited by exactly the rules a model is. The
tools themselves run in the sandbox (`tracers.static`).
"""
from __future__ import annotations

MODEL_PREFIX = "static:"


def static_model_name(tool: str) -> str:
    """The model a tool's graphs are stored as: `static:pycg`."""
    return f"{MODEL_PREFIX}{tool}"
