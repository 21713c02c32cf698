"""The rows of every open export, one kind at a time, with their columns named and typed once.

Four kinds (docs/exports.md lists every column): `instances` (the programs: files, ground truth, provenance),
`predictions` (each model's answer, parsed, with its problems and costs), `scores` (per program and model: TP, FP,
FN and P/R/F1 by the per-program rule `core.scoring.metrics.INSTANCE_RULE`) and `edges` (every edge of the union of
the truth and a model's answer with its class TP / FP / FN). JSONL, Parquet, the Hugging Face folder and the data
frames (`core.report.frames`) are all made from these rows, so they hold the same values under the same names.

A graph is a list of `{"caller", "callees"}` in the ground truth's key order (a JSON object's key order is lost in
Parquet and in most data-frame tools), so it is typed and round-trips to `callgraph.json` exactly.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from core.dataset.layout import read_provenance
from core.dataset.workspace import InstanceRow, Workspace
from core.errors import UsageError
from core.records import CallGraph
from core.scoring.metrics import instance_scores
from core.scoring.normalise import MODES
from core.scoring.rules import DEFAULT_RULES
from core.scoring.scores import NormalisedTruths, Selection, instance_counts, instance_diffs

Row = dict[str, Any]

# Column types: each becomes a pyarrow type (core.report.exports) and a Hugging Face feature (core.report.hf_card).
STRING, INT, FLOAT, BOOL, STRINGS, GRAPH, FILES = "string", "int64", "float64", "bool", "list<string>", "graph", "files"


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # one of the column types above
    doc: str  # one line for docs/exports.md and the dataset card


_PROGRAM = (Column("program", STRING, "program id, e.g. calcpad_0001 (unique within its language)"),
            Column("language", STRING, "python, javascript or java"),
            Column("split", STRING, 'test, train, or "" when no split file names the program'),
            Column("repo", STRING, "repository name: the id without its last _NNNN"))

COLUMNS: dict[str, tuple[Column, ...]] = {
    "instances": _PROGRAM + (
        Column("entry_point", STRING, "the file that runs the program"),
        Column("files", FILES, "every source file: path, text (null when unreadable) and problem (why, else \"\")"),
        Column("ground_truth", GRAPH, "callgraph.json: every defined function (caller) with the callees the "
                                      "tracer saw, in the file's key order"),
        Column("functions", INT, "callers in the ground truth (the prompt's questions)"),
        Column("edges", INT, "(caller, callee) pairs in the ground truth"),
        Column("source_url", STRING, "the README's Source: line"),
        Column("original_file", STRING, "the README's Original file: line"),
        Column("licence", STRING, 'the README\'s Licence: line, "" when it has none (licence unknown)'),
    ),
    "predictions": (Column("model", STRING, "model name as stored in the workspace"),) + _PROGRAM + (
        Column("illustrative", BOOL, "true for the demo's hand-written answers (not real model output)"),
        Column("raw_response", STRING, "the model's answer text (null when imported without one)"),
        Column("prediction", GRAPH, "the graph the paper's answer parser reads from the answer"),
        Column("parse_problems", STRINGS, "what the parser could not read"),
        Column("prompt_hash", STRING, "hash of the prompt sent (\"\" for imported results)"),
        Column("prompt_wording", STRING, 'release:<sha256> (the release\'s words), studio, or "" unknown'),
        Column("tokens_in", INT, "prompt tokens (null when unknown)"),
        Column("tokens_out", INT, "answer tokens (null when unknown)"),
        Column("reasoning", STRING, "a reasoning model's thinking, kept beside the answer (null when none)"),
        Column("reasoning_tokens", INT, "how many of tokens_out were thinking (null when not reported)"),
        Column("latency_s", FLOAT, "seconds the request took (null when unknown)"),
        Column("cost_usd", FLOAT, "cost in US dollars (null when unknown)"),
        Column("source", STRING, "the results file it was imported from (\"\" for a model run)"),
    ),
    "scores": (Column("model", STRING, "model name"),) + _PROGRAM + (
        Column("tp", INT, "true positives: predicted edges in the ground truth, after normalisation"),
        Column("fp", INT, "false positives: predicted edges not in the ground truth"),
        Column("fn", INT, "false negatives: ground-truth edges not predicted"),
        Column("p", FLOAT, "precision (1 when nothing is predicted)"),
        Column("r", FLOAT, "recall (1 when the ground truth has no edge)"),
        Column("f1", FLOAT, "harmonic mean of p and r (0 when both are 0)"),
    ),
    "edges": (Column("model", STRING, "model name"),) + _PROGRAM + (
        Column("caller", STRING, "the calling function's TraceEval name, normalised"),
        Column("callee", STRING, "the called function's TraceEval name, normalised"),
        Column("class", STRING, "TP (predicted and true), FP (predicted, not true) or FN (true, missed)"),
    ),
}
KINDS = tuple(COLUMNS)


def rows_of(kind: str, ws: Workspace, models: Sequence[str] | str | None = None, selection: Selection | None = None,
            modes: Iterable[str] = MODES, rules: str = DEFAULT_RULES) -> Iterator[Row]:
    """The rows of one kind over the selected programs (default: every program, every split) and models (default:
    every model in the workspace; instances ignore models); `modes` and `rules` read scores and edges."""
    if kind not in COLUMNS:
        raise UsageError(f"unknown export {kind!r} (choose from {', '.join(KINDS)})")
    selection = selection or Selection()
    if kind == "instances":
        return instance_records(ws, selection)
    names = ws.model_names(models)
    if kind == "predictions":
        return prediction_records(ws, names, selection)
    if kind == "scores":
        return score_records(ws, names, selection, modes, rules)
    return edge_records(ws, names, selection, modes, rules)


def instance_records(ws: Workspace, selection: Selection) -> Iterator[Row]:
    for row in selection.rows(ws):
        instance = ws.instance(row.key)
        if instance is None:  # removed since the rows were read
            continue
        sources, unreadable = instance.read_sources()
        files = [{"path": path, "text": sources.get(path), "problem": unreadable.get(path, "")}
                 for path in instance.files]
        provenance = read_provenance(instance.root)
        yield {**_program(row), "entry_point": instance.entry_point, "files": files,
               "ground_truth": graph_rows(instance.ground_truth), "functions": len(instance.ground_truth.keys),
               "edges": len(instance.ground_truth.edges), "source_url": row.source_url,
               "original_file": row.original_file, "licence": provenance.licence}


def prediction_records(ws: Workspace, models: Sequence[str], selection: Selection) -> Iterator[Row]:
    rows = selection.rows(ws)
    illustrative = {m.name: m.illustrative for m in ws.models()}
    for model in models:
        predictions = ws.predictions(model, [r.key for r in rows])
        for row in rows:
            prediction = predictions.get(row.key)
            if prediction is None:
                continue
            yield {"model": model, **_program(row), "illustrative": illustrative.get(model, False),
                   "raw_response": prediction.raw_response, "prediction": graph_rows(prediction.graph),
                   "parse_problems": list(prediction.parse_problems), "prompt_hash": prediction.prompt_hash,
                   "prompt_wording": prediction.prompt_wording, "tokens_in": prediction.tokens_in,
                   "tokens_out": prediction.tokens_out, "reasoning": prediction.reasoning,
                   "reasoning_tokens": prediction.reasoning_tokens, "latency_s": prediction.latency_s,
                   "cost_usd": prediction.cost_usd, "source": prediction.source}


def score_records(ws: Workspace, models: Sequence[str], selection: Selection, modes: Iterable[str] = MODES,
                  rules: str = DEFAULT_RULES) -> Iterator[Row]:
    return _over_truths(_score_rows, ws, models, selection, modes, rules)


def _score_rows(ws: Workspace, models: Sequence[str], rows, truths: NormalisedTruths) -> Iterator[Row]:
    for model in models:
        counts = instance_counts(ws, model, rows, truths.modes, truths, truths.rules)
        for row in rows:
            if row.key in counts:
                c = counts[row.key]
                scores = instance_scores(c)
                yield {"model": model, **_program(row), "tp": c.tp, "fp": c.fp, "fn": c.fn,
                       "p": scores.precision, "r": scores.recall, "f1": scores.f1}


def edge_records(ws: Workspace, models: Sequence[str], selection: Selection, modes: Iterable[str] = MODES,
                 rules: str = DEFAULT_RULES) -> Iterator[Row]:
    return _over_truths(_edge_rows, ws, models, selection, modes, rules)


def _over_truths(records, ws: Workspace, models: Sequence[str], selection: Selection, modes: Iterable[str],
                 rules: str) -> Iterator[Row]:
    """`records(ws, models, rows, truths)` over the selection, the truths normalised once for every model."""
    rows = selection.rows(ws)
    truths = NormalisedTruths(ws, frozenset(modes), rules)
    try:
        yield from records(ws, models, rows, truths)
    finally:
        truths.release()


def _edge_rows(ws: Workspace, models: Sequence[str], rows, truths: NormalisedTruths) -> Iterator[Row]:
    for model in models:
        diffs = instance_diffs(ws, model, rows, truths.modes, truths.rules, truths)
        for row in rows:
            diff = diffs.get(row.key)
            if diff is None:
                continue
            program = _program(row)
            for label, edges in (("TP", diff.tp), ("FP", diff.fp), ("FN", diff.fn)):
                for caller, callee in edges:
                    yield {"model": model, **program, "caller": caller, "callee": callee, "class": label}


def graph_rows(graph: CallGraph) -> list[Row]:
    """`{caller: [callees]}` as a list of `{"caller", "callees"}`, keys in order (see the module's docstring)."""
    return [{"caller": caller, "callees": callees} for caller, callees in graph.to_dict().items()]


def _program(row: InstanceRow) -> Row:
    return {"program": row.id, "language": row.language, "split": row.split, "repo": row.repo}
