"""A tool's graph of one program as a `Prediction` of model `static:<tool>`.

The graph is written as the numbered answer a model would give (`core.scoring.answers.answer_text`, one line per
ground-truth key in question order) and read back with the paper's parser, so the stored answer, the Answer tab
and the score all hold exactly the same edges. A run that failed (the tool crashed, hung, or wrote nothing
usable) is stored too, with no answer and the failure as its problem, so it counts as a program the tool got
nothing right on rather than a program left out.
"""
from __future__ import annotations

from core.baselines import static_model_name
from core.baselines.naming import NamedGraph, name_graph
from core.baselines.tool_graph import ToolGraph
from core.languages import get
from core.records import CallGraph, Instance, Prediction
from core.scoring.answers import answer_text, parse_answer
from core.symbols.table import SymbolTable


def tool_source(tool: str, version: str) -> str:
    """The prediction's source field: which tool and version made it."""
    return f"{tool} {version}".strip()


def static_prediction(instance: Instance, table: SymbolTable, graph: ToolGraph) -> tuple[Prediction, NamedGraph]:
    keys = instance.ground_truth.keys
    named = name_graph(graph, table, keys, get(instance.language).self_edges_allowed)
    raw = answer_text(keys, named.answers)
    parsed = parse_answer(raw, keys)
    problems = (*graph.warnings[:5], *named.problems, *parsed.problems)
    prediction = Prediction(instance.id, static_model_name(graph.tool), instance.language, parsed.graph, raw,
                            problems, source=tool_source(graph.tool, graph.version))
    return prediction, named


def failed_prediction(instance: Instance, tool: str, version: str, problem: str) -> Prediction:
    """No answer: every ground-truth edge is a false negative, and the problem says why."""
    no_answer = CallGraph(tuple(instance.ground_truth.keys), ())
    return Prediction(instance.id, static_model_name(tool), instance.language, no_answer, "", (problem,),
                      source=tool_source(tool, version))
