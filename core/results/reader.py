"""Read model results: the released `<slug>_<language>_t0.0_r0.json` files and a simple JSONL.

Run `i` > 0 of a released model (metadata `run_id`, else the file name's `_r<i>`) is stored as `<slug>@r<i>`, a
member of the model's run family (`core.scoring.run_family`), so `score --over-runs` groups the runs.

In a released file the stored `prediction` is what counts, as in the paper's metric (a record
without one scores as empty). JSONL lines are `{"instance_id", "model", "prediction": {caller:
[callees]}}` or with `"raw_response"` instead (parsed with the paper's answer parser); `"language"` is optional
(needed only when an id exists in two languages), as are `prompt_hash`, `prompt_wording`, `tokens_in`,
`tokens_out`, `latency_s`, `cost_usd`, `reasoning` (a reasoning model's thinking) and `reasoning_tokens`.
A malformed record is kept with its problem and scores as an empty prediction, as the paper does; an
unreadable line or file is a Problem.
Files are read through `core.safe_files` (regular files only, bounded size, nesting and number
length): a record holding a value beyond those bounds or a lone surrogate is kept with that
problem and nothing of its content, so one hostile record never stops the others.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import BinaryIO

from core.errors import ResultsError
from core.languages import registry
from core.problems import Problem
from core.records import CallGraph, Prediction
from core.results.json_pieces import JsonError, JsonPieces, NotUtf8
from core.safe_files import (
    INT64,
    MAX_RESULTS_BYTES,
    is_call_mapping,
    may_hold_surrogate,
    open_bytes,
    parse_json,
    refusal,
    why_unreadable,
)
from core.scoring.answers import parse_answer
from core.scoring.run_family import member_name


@cache
def _released_name(languages: tuple[str, ...]) -> re.Pattern[str]:
    """The release's results file name, "<model>_<language>_t<temperature>_r<run>.json", for these languages."""
    return re.compile(rf"^(?P<slug>.+?)_(?P<language>{'|'.join(map(re.escape, languages))})"
                      r"_t(?P<temperature>[0-9.]+)_r(?P<run>\d+)\.json$")
OPTIONAL_NUMBERS = ("tokens_in", "tokens_out", "latency_s", "cost_usd", "reasoning_tokens")
OPTIONAL_TEXTS = ("prompt_hash", "prompt_wording", "reasoning")
# What is read of a record (the release's also hold the ground truth, metrics and input, never read here).
USED_FIELDS = ("prediction", "raw_response", *OPTIONAL_NUMBERS, *OPTIONAL_TEXTS)


@dataclass(frozen=True)
class ResultRecord:
    """One answer as found in a file, before it is matched to an instance."""

    instance_id: str
    model: str
    language: str | None
    prediction: object = None  # the stored {caller: [callees]}, unchecked
    raw_response: str | None = None
    extras: dict = field(default_factory=dict)
    where: str = ""  # file (and line) it came from
    problem: str = ""  # why the record itself is malformed
    released: bool = False  # from a released results file, where only `prediction` is scored


@dataclass
class ResultsFile:
    """One results file being read: `records` is read lazily (a piece of the file at a time), and `problems` grows
    while it is read; `metadata` is known before the first record comes."""

    path: Path
    records: Iterable[ResultRecord]
    metadata: dict
    problems: list[Problem]


def find_results_files(paths: Sequence[str | Path]) -> list[Path]:
    """Files given directly, and every *.json / *.jsonl inside folders given (recursively)."""
    found: list[Path] = []
    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():  # anything but a folder is read and, when not a regular file, reported
            found.extend(sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl") and not p.is_dir()))
        elif os.path.lexists(path):
            found.append(path)
        else:
            raise ResultsError(f"{path}: no such results file or folder")
    return found


def read_results_file(path: Path, model: str | None = None) -> ResultsFile:
    """Read one whole file; `model` overrides the model name found in it."""
    results = open_results_file(path, model)
    results.records = list(results.records)
    return results


def open_results_file(path: Path, model: str | None = None) -> ResultsFile:
    """A file whose records are read as they are taken (see `ResultsFile`); `model` overrides the model name."""
    results = ResultsFile(path, (), {}, [])
    try:
        handle = open_bytes(path, MAX_RESULTS_BYTES)
    except OSError as error:
        results.problems.append(Problem(str(path), why_unreadable(error)))
        return results
    results.records = _records(results, handle, model)
    return results


def _records(results: ResultsFile, handle: BinaryIO, model: str | None) -> Iterator[ResultRecord]:
    path = results.path
    with handle:
        pieces = JsonPieces(handle, MAX_RESULTS_BYTES)
        try:
            if path.suffix == ".jsonl":
                yield from _jsonl_records(results, pieces, model)
            elif pieces.peek() != "{":
                pieces.value()  # JSON or not: say which
                results.problems.append(Problem(str(path), NOT_RESULTS))
            else:
                yield from _released_records(results, pieces, model)
        except JsonError as error:
            results.problems.append(Problem(str(path), f"invalid JSON at line {error.line}: {error.message}"))
        except NotUtf8 as error:
            results.problems.append(Problem(str(path), str(error)))
        except OSError as error:
            results.problems.append(Problem(str(path), why_unreadable(error)))


NOT_RESULTS = 'not a results file: expected {"metadata": ..., "results": {...}} (or use .jsonl for one record per line)'


def to_prediction(record: ResultRecord, language: str, question_keys: Callable[[], Sequence[str]]) -> Prediction:
    """Build the Prediction for a record matched to an instance whose ground-truth keys `question_keys()` gives (it
    is called only for a record that needs them: one whose response is parsed now, or with no prediction).

    A stored `prediction` is used as is (that is what the released metric script scores); the raw
    response, when present, is parsed too, and any difference is reported as a problem (when the workspace reads
    the prediction back: `Prediction.raw_unchecked`, so an import does not parse every answer). A released
    record without `prediction` is scored as empty (as the paper's script scores it); elsewhere the
    raw response is parsed.
    """
    problems: list[str] = [record.problem] if record.problem else []
    raw_unchecked = False
    if record.prediction is not None:
        graph, shape_problems = _graph_from_stored(record.prediction)
        if record.raw_response is not None and shape_problems:
            problems.extend(parse_answer(record.raw_response, question_keys()).problems)
        problems.extend(shape_problems)
        # a well-formed stored prediction's raw response is checked when read back, not on the import's path
        raw_unchecked = record.raw_response is not None and not shape_problems
    elif record.raw_response is not None and record.released:
        graph = CallGraph(tuple(question_keys()), ())
        problems.extend(parse_answer(record.raw_response, question_keys()).problems)
        problems.append('no "prediction" in the record: scored as empty, as the paper\'s metric scores it (the raw '
                        "response is kept; the studio rules read it)")
    elif record.raw_response is not None:
        parsed = parse_answer(record.raw_response, question_keys())
        graph = parsed.graph
        problems.extend(parsed.problems)
    else:
        graph = CallGraph(tuple(question_keys()), ())
        if not record.problem:
            problems.append("record has neither prediction nor raw_response")
    extras = record.extras
    return Prediction(
        instance_id=record.instance_id, model=record.model, language=language, graph=graph,
        raw_response=record.raw_response, parse_problems=tuple(problems),
        prompt_hash=str(extras.get("prompt_hash") or ""), prompt_wording=str(extras.get("prompt_wording") or ""),
        tokens_in=extras.get("tokens_in"), tokens_out=extras.get("tokens_out"),
        latency_s=extras.get("latency_s"), cost_usd=extras.get("cost_usd"), source=record.where,
        reasoning=extras.get("reasoning"), reasoning_tokens=extras.get("reasoning_tokens"), raw_unchecked=raw_unchecked,
    )


def _released_records(results: ResultsFile, pieces: JsonPieces, model: str | None) -> Iterator[ResultRecord]:
    """The records of a released file, read one at a time. The release writes "metadata" first; a file that puts
    "results" first has its records held until the metadata is read (they are named after it)."""
    path, held, context = results.path, [], None
    found_results = False
    for name in pieces.members():
        if name == "results" and pieces.peek() == "{":
            found_results = True
            for number, program_id in enumerate(pieces.members(), 1):
                refused = pieces.refused
                entry = pieces.value()
                plain = pieces.refused == refused and not pieces.cut and not may_hold_surrogate(pieces.last_text())
                if context is None:
                    held.append((program_id, number, entry, plain))
                else:
                    yield from _released_record(results, context, program_id, number, entry, plain)
        elif name == "metadata" and context is None:
            metadata = pieces.value()
            context = _released_context(results, metadata if isinstance(metadata, dict) else {}, model)
        else:
            pieces.value()
    if not pieces.at_end():
        raise pieces.error("extra data after the results", pieces.at)
    if not found_results:
        results.problems.append(Problem(str(path), NOT_RESULTS))
        return
    context = context or _released_context(results, {}, model)
    for program_id, number, entry, plain in held:
        yield from _released_record(results, context, program_id, number, entry, plain)


def _released_context(results: ResultsFile, metadata: dict, model: str | None) -> tuple[str | None, str]:
    """(language, model name) of a released file, from its metadata and its name."""
    path = results.path
    unusable = refusal(metadata)
    if unusable:
        results.problems.append(Problem(str(path), f"metadata not read: {unusable}; the file name names the model",
                                        "warning"))
        metadata = {}
    results.metadata = metadata
    named = _released_name(registry.names()).match(path.name)
    language = metadata.get("language") or (named.group("language") if named else None)
    if not registry.is_known(language):
        results.problems.append(Problem(str(path), f"unknown language {language!r} in metadata and file name; "
                                        "records are matched by id alone", "warning"))
        language = None
    return language, model or _model_name(metadata, named, path)


def _released_record(results: ResultsFile, context: tuple[str | None, str], program_id: str, number: int,
                     entry: object, plain: bool) -> Iterator[ResultRecord]:
    """One record; `plain` when its text holds nothing `refusal` refuses but values nested deeper than
    MAX_JSON_DEPTH yet not too deep to decode (only a callee can be one, and a nested callee is left out), so
    checking it would be wasted."""
    language, model_name = context
    unusable = refusal(program_id)
    if unusable:
        results.problems.append(Problem(f"{results.path}#{number}", f"program id not read: {unusable}; skipped"))
        return
    where = f"{results.path.name}#{program_id}"
    used = {key: entry[key] for key in USED_FIELDS if key in entry} if isinstance(entry, dict) else entry
    unusable = "" if plain else refusal(used)  # the rest of a record is never read
    if unusable:
        yield ResultRecord(program_id, model_name, language, where=where, released=True,
                           problem=f"record not read: {unusable}; scored as empty")
    elif not isinstance(entry, dict):
        yield ResultRecord(program_id, model_name, language, where=where,
                           problem=f"record is {type(entry).__name__}, not an object")
    else:
        yield _record(program_id, model_name, language, entry, where, released=True)


def _jsonl_records(results: ResultsFile, pieces: JsonPieces, model: str | None) -> Iterator[ResultRecord]:
    path = results.path
    while (next_line := pieces.next_line()) is not None:
        line, text = next_line
        where = f"{path.name}:{line}"
        try:
            entry = parse_json(text)
        except json.JSONDecodeError as error:
            results.problems.append(Problem(f"{path}:{line}", f"invalid JSON: {error.msg}"))
            continue
        unusable = refusal(entry)
        if unusable:
            results.problems.append(Problem(f"{path}:{line}", f"not read: {unusable}; skipped"))
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("instance_id"), str):
            results.problems.append(Problem(f"{path}:{line}", 'expected an object with a string "instance_id"'))
            continue
        model_name = model or entry.get("model")
        if not isinstance(model_name, str) or not model_name:
            results.problems.append(Problem(f"{path}:{line}", 'no "model" (give one with --model)'))
            continue
        language = entry.get("language")
        if language is not None and not registry.is_known(language):
            results.problems.append(Problem(f"{path}:{line}", f"unknown language {language!r}"))
            continue
        yield _record(entry["instance_id"], model_name, language, entry, where)


def _record(program_id: str, model: str, language: str | None, entry: dict, where: str,
            released: bool = False) -> ResultRecord:
    raw = entry.get("raw_response")
    problem = ""
    if raw is not None and not isinstance(raw, str):
        problem, raw = f"raw_response is {type(raw).__name__}, not a string", None
    extras = {key: entry[key] for key in OPTIONAL_NUMBERS if isinstance(entry.get(key), (int, float))}
    for key, value in list(extras.items()):
        if isinstance(value, int) and not INT64[0] <= value <= INT64[1]:
            del extras[key]
            problem = problem or f"{key} {value} does not fit a 64-bit integer; left out"
    if isinstance(extras.get("reasoning_tokens"), float) or (extras.get("reasoning_tokens") or 0) < 0:
        del extras["reasoning_tokens"]  # a count, or nothing
    for text in OPTIONAL_TEXTS:
        if isinstance(entry.get(text), str):
            extras[text] = entry[text]
    return ResultRecord(program_id, model, language, entry.get("prediction"), raw, extras, where, problem, released)


def _graph_from_stored(stored: object) -> tuple[CallGraph, list[str]]:
    """The edges the paper's metric reads from a stored `{caller: [callees]}`: every callee as written
    (blank ones too); a caller whose value is not a list has none; a callee that is a JSON number,
    boolean or null is an edge too (it can only be a false positive), kept as `NOT_A_STRING`."""
    if is_call_mapping(stored):  # the common case
        return CallGraph.from_dict(stored), []
    if not isinstance(stored, dict):
        return CallGraph(), [f"prediction is {type(stored).__name__}, not an object; scored as empty"]
    keys, edges = [], []
    problems: dict[str, str] = {}
    for caller, callees in stored.items():
        keys.append(caller)
        if not isinstance(callees, list):
            problems.setdefault("list", f'callees of "{caller}" are {type(callees).__name__}, not a list; that '
                                        "caller has no edges (as the paper scores it)")
            continue
        for callee in callees:
            if isinstance(callee, str):
                edges.append((caller, callee))
            elif isinstance(callee, (list, dict)):
                problems.setdefault("nested", f'a callee of "{caller}" is a JSON {type(callee).__name__}; left out '
                                              "(the paper's script stops with an error on such a record)")
            else:
                edges.append((caller, not_a_string(callee)))
                problems.setdefault("scalar", f'a callee of "{caller}" is {json.dumps(callee)}, not a string; '
                                              "scored as a wrong edge (as the paper does)")
    return CallGraph.from_edges(edges, keys), list(problems.values())


NOT_A_STRING = "{} (not a string)"


def not_a_string(value: object) -> str:
    """The name a JSON number, boolean or null stands as: equal values (1, 1.0, true) share one name,
    as they are one element of the paper's edge set."""
    if (isinstance(value, float) and value.is_integer()) or isinstance(value, bool):
        value = int(value)
    return NOT_A_STRING.format(json.dumps(value))


def _model_name(metadata: dict, named: re.Match | None, path: Path) -> str:
    slug = metadata.get("model") if isinstance(metadata.get("model"), str) else None
    slug = slug or (named.group("slug") if named else path.stem)
    run = str(metadata.get("run_id", named.group("run") if named else 0))
    if run in ("", "0"):
        return slug
    return member_name(slug, int(run)) if run.isdigit() and run.isascii() else f"{slug}-r{run}"
