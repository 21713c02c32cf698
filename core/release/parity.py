"""`traceeval parity`: this tool's table, prompts and answer readings against the user's TraceEval release.

The release's own functions run in the tracer sandbox, never in this process: a `ReleaseRunner` (the CLI and the
window hand over `tracers.release_sandbox.run_release`) runs `tracers/release_runtime/parity_driver.py` with a
copy of the release's `scripts/` first on its path, on a job written here into a folder the runner shows it
read-only:
- the paper table: the workspace's predictions for the selection, written in the released format beside copies of
  the programs' `callgraph.json`, scored per (model, language) by `compute_metrics.score_one` with all of
  `normalize_edges.ALL_MODES`, then compared cell by cell (programs, TP, FP, FN, P, R, F1 and the Average) with
  this tool's table under the paper's rules;
- prompts: a seeded sample of programs per language (their dataset folders shown read-only),
  `run_llm.build_prompt` against this tool's prompt in the release's wording, byte for byte;
- answers: the sampled programs' raw answers, `run_llm.parse_llm_response` against this tool's paper parser.
What comes back is hostile input: read with bounds, its shape checked, each result matched to the item kept
here. Every difference is named; the report agrees only when there is none.
"""
from __future__ import annotations

import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from core.dataset.workspace import Workspace
from core.errors import ReleaseError
from core.languages import registry
from core.llm.prompts import build_prompt
from core.payloads import json_document
from core.release.checkout import Release, read_release_wording, release_checkout
from core.safe_files import MAX_GROUND_TRUTH_BYTES, inside, is_call_mapping, parse_json, read_bytes, why_unreadable
from core.scoring.answers import answer_mapping
from core.scoring.metrics import Counts, micro_scores
from core.scoring.normalise import MODES
from core.scoring.rules import PAPER
from core.scoring.scores import ScoreTable, Selection, score_table

JOB_FILE = "job.json"
QUANTITIES = ("programs", "tp", "fp", "fn", "precision", "recall", "f1")
COUNTS = ("programs", "tp", "fp", "fn")
AVERAGE = "average"
TIMEOUT_S = 1800.0
SHOWN_CHARS = 300  # of any text the release returned that a report line quotes
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class DriverRun:
    """What a `ReleaseRunner` runs: the release's functions on the job that `write_job(folder)` writes into a fresh
    folder (`JOB_FILE` and its files; it returns the dataset folders to show read-only too)."""

    release: Release
    python: str | None  # the interpreter asked for; None: the one traced programs run with
    write_job: Callable[[Path], list[Path]]
    timeout_s: float


@dataclass(frozen=True)
class DriverOutput:
    document: str  # what the driver wrote: its JSON report
    sandbox: str  # what isolated the run, in words
    notes: tuple[str, ...] = ()  # what the copy of the release's scripts left out, one line each


ReleaseRunner = Callable[[DriverRun], DriverOutput]


@dataclass(frozen=True)
class CellCheck:
    model: str
    language: str  # a language or AVERAGE
    ours: dict[str, float]
    theirs: dict[str, float]
    differs: tuple[str, ...]  # the quantities that differ (empty: the cell agrees)
    error: str = ""  # the release could not score this file

    @property
    def agrees(self) -> bool:
        return not (self.differs or self.error)


@dataclass(frozen=True)
class ItemCheck:
    """One prompt (model "") or one answer reading compared; `detail` says where they first differ."""

    key: str
    model: str
    agrees: bool
    detail: str = ""


@dataclass
class ParityReport:
    release: str  # the release's run_llm.py
    sha256: str  # of run_llm.py (the prompts' wording tag)
    python: str
    python_version: str
    selection: Selection
    cells: list[CellCheck] = field(default_factory=list)
    prompts: list[ItemCheck] = field(default_factory=list)
    answers: list[ItemCheck] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    scripts_sha256: str = ""  # of the scripts folder that ran (`core.release.confirmed`)
    sandbox: str = ""  # what isolated the release's run

    @property
    def differences(self) -> int:
        checks: list[CellCheck | ItemCheck] = [*self.cells, *self.prompts, *self.answers]
        return sum(not check.agrees for check in checks)

    @property
    def counts_text(self) -> str:
        """In words: 8 of 8 table cells, 7 of 7 prompts, 13 of 13 answers agree."""
        return (f"{_agreeing(self.cells)} table cells, {_agreeing(self.prompts)} prompts, "
                f"{_agreeing(self.answers)} answers agree")

    @property
    def agrees(self) -> bool:
        return self.differences == 0


def check_parity(ws: Workspace, release: Release, selection: Selection, models: Sequence[str] | None = None,
                 prompts_per_language: int = 5, python: str | None = None, seed: int = 0,
                 timeout_s: float = TIMEOUT_S, progress: Progress | None = None, *,
                 runner: ReleaseRunner) -> ParityReport:
    """Compare (see the module's docstring); raises ReleaseError when the release cannot be run at all."""
    report_progress = progress or (lambda done, total, message: None)
    wording = read_release_wording(release.script)
    report_progress(0, 4, "scoring with the paper's rules")
    table = score_table(ws, models, selection, MODES, rules=PAPER)
    rows = selection.rows(ws)
    job = _Job(ws, table, rows, _sample(rows, prompts_per_language, seed))
    report_progress(1, 4, "running the release's functions in the sandbox")
    output = runner(DriverRun(release, python, job.write, timeout_s))
    done = job.results(output.document)
    report_progress(3, 4, "comparing")
    report = ParityReport(str(release.script), wording.sha256, _shown_text(done["python"]),
                          _shown_text(done["python_version"]), selection, scripts_sha256=release.digest.sha256,
                          sandbox=output.sandbox)
    report.notes += [f"the release's scripts folder: {note}" for note in output.notes]
    if done["python_version"].split(".")[:2] != [str(part) for part in sys.version_info[:2]]:
        report.notes.append(f"the release ran on Python {report.python_version} and this tool on "
                            f"{sys.version.split()[0]}: Python's standard-library names (the stdlib mode) come "
                            "from the running interpreter in both, and can differ between versions")
    if sorted(done["modes"]) != sorted(MODES):
        report.notes.append(f"the release's normalize_edges.ALL_MODES is {_shown_text(repr(done['modes']))}, not "
                            f"{list(MODES)}")
    report.cells = _compare_table(table, dict(zip(job.scores, done["scores"])))
    report.prompts = [_compare_prompt(ws, key, item, wording) for key, item in zip(job.prompts, done["prompts"])]
    report.answers = [_compare_answer(ws, asked, item) for asked, item in zip(job.answers, done["answers"])]
    report_progress(4, 4, "done")
    return report


def _sample(rows, per_language: int, seed: int) -> list:
    chosen = []
    rng = random.Random(seed)
    for language in registry.names():
        of_language = [row for row in rows if row.language == language]
        chosen += sorted(rng.sample(of_language, min(per_language, len(of_language))), key=lambda row: row.key)
    return chosen


class _Job:
    """The release's work: written into the folder the runner gives, its items kept here (in the order of the
    driver's results) to compare what comes back."""

    def __init__(self, ws: Workspace, table: ScoreTable, rows, sample) -> None:
        self.ws, self.table, self.rows, self.sample = ws, table, rows, sample
        self.root = Path(ws.setting("dataset_root") or ".")
        self.scores: list[tuple[str, str]] = []  # (model, language) of each results file
        self.prompts = [row.key for row in sample]
        self.answers: list[dict] = []  # key, model, response

    def write(self, work: Path) -> list[Path]:
        """Write the job into `work`; returns the sampled programs' dataset folders (the release reads them)."""
        self.scores, self.answers = [], []
        gt_dir = work / "gt"
        for row in self.rows:
            target = gt_dir / row.language / row.id
            target.mkdir(parents=True, exist_ok=True)
            source = self.root / row.folder / "callgraph.json"
            try:  # a regular file inside its program folder: never a FIFO, a device or a link to elsewhere
                (target / "callgraph.json").write_bytes(read_bytes(source, MAX_GROUND_TRUTH_BYTES,
                                                                   root=self.root / row.folder))
            except OSError as error:
                raise ReleaseError(f"{source}: cannot copy it for the release to score: {why_unreadable(error)}") \
                    from None
        selected = {row.key: row for row in self.rows}
        scores, answers = [], []
        for number, table_row in enumerate(self.table.rows):
            # read once: results and sampled answers (graphs and raw responses: the import's checks are not needed)
            predictions = self.ws.predictions(table_row.model, list(selected), checked=False)
            for language in self.table.languages:
                records = {selected[key].id: {"prediction": p.graph.to_dict(), "raw_response": p.raw_response or ""}
                           for key, p in predictions.items() if selected[key].language == language}
                if not records:
                    continue  # no results file: the release scores the language 0, as its main() does
                path = work / "results" / f"m{number}_{language}_t0.0_r0.json"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps({"metadata": {"model": table_row.model, "language": language},
                                            "results": records}), encoding="utf-8")
                scores.append({"language": language, "path": str(path)})
                self.scores.append((table_row.model, language))
            for row in self.sample:
                prediction = predictions.get(row.key)
                if prediction is not None and prediction.raw_response is not None:
                    answers.append({"dir": str(self.root / row.folder), "response": prediction.raw_response})
                    self.answers.append({"key": row.key, "model": table_row.model,
                                         "response": prediction.raw_response})
        prompts = [{"dir": str(self.root / row.folder), "language": row.language} for row in self.sample]
        (work / JOB_FILE).write_text(json.dumps({"gt_dir": str(gt_dir), "scores": scores, "prompts": prompts,
                                                 "answers": answers}), encoding="utf-8")
        folders = {self.root / row.folder for row in self.sample}
        return sorted(folder for folder in folders if inside(folder, self.root))

    def results(self, document: str) -> dict:
        """The driver's report, its shape checked against this job; ReleaseError when it is not the report."""
        try:
            data = parse_json(document)
        except ValueError as error:
            raise _not_the_report(f"not JSON ({error})") from None
        if not isinstance(data, dict) or not all(isinstance(data.get(name), str)
                                                 for name in ("python", "python_version")):
            raise _not_the_report("no python and python_version")
        modes = data.get("modes")
        if not isinstance(modes, list) or not all(isinstance(mode, str) for mode in modes):
            raise _not_the_report("modes is not a list of names")
        for name, asked in (("scores", self.scores), ("prompts", self.prompts), ("answers", self.answers)):
            items = data.get(name)
            if not isinstance(items, list) or len(items) != len(asked) or \
                    not all(isinstance(item, dict) for item in items):
                raise _not_the_report(f"{name} does not hold one result for each of the {len(asked):,} asked")
        return data


def _not_the_report(problem: str) -> ReleaseError:
    return ReleaseError(f"the release's functions wrote something that is not the driver's report: {problem}")


def _compare_table(table: ScoreTable, scores: dict[tuple[str, str], dict]) -> list[CellCheck]:
    """Our table against the release's result for each (model, language) results file written."""
    cells = []
    for row in table.rows:
        per_language = {}
        for language in table.languages:
            result = row.languages[language]
            ours = {"programs": result.programs, "tp": result.counts.tp, "fp": result.counts.fp,
                    "fn": result.counts.fn, "precision": result.scores.precision, "recall": result.scores.recall,
                    "f1": result.scores.f1}
            item = scores.get((row.model, language))
            if item is None:  # no results file: the release scores the language 0, as its main() does
                item = {"programs": 0, "tp": 0, "fp": 0, "fn": 0, **_zero_scores()}
            given, error = _their_cell(item)
            per_language[language] = given
            cells.append(CellCheck(row.model, language, ours, given, () if error else _differs(ours, given), error))
        ours_average = {"precision": row.average.precision, "recall": row.average.recall, "f1": row.average.f1}
        if all(per_language.values()):
            count = len(table.languages) or 1  # the release's main(): the plain mean over its languages
            theirs_average = {metric: sum(per_language[lang][metric] for lang in table.languages) / count
                              for metric in ("precision", "recall", "f1")}
            cells.append(CellCheck(row.model, AVERAGE, ours_average, theirs_average,
                                   _differs(ours_average, theirs_average)))
    return cells


def _their_cell(item: dict) -> tuple[dict[str, float], str]:
    """(the release's quantities, "") or ({}, why it gave none)."""
    if "error" in item:
        return {}, _first_line(item["error"])
    given: dict[str, float] = {}
    for quantity in QUANTITIES:
        value = item.get(quantity)
        if not (type(value) is int or (quantity not in COUNTS and type(value) is float)):
            return {}, "score_one and prf1 returned something other than counts and scores"
        given[quantity] = value
    return given, ""


def _zero_scores() -> dict[str, float]:
    scores = micro_scores(Counts())
    return {"precision": scores.precision, "recall": scores.recall, "f1": scores.f1}


def _differs(ours: dict, theirs: dict) -> tuple[str, ...]:
    return tuple(q for q in ours if q not in theirs or not _same(ours[q], theirs[q]))


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=0, abs_tol=1e-12)
    return a == b


def _compare_prompt(ws: Workspace, key: str, item: dict, wording) -> ItemCheck:
    if "error" in item:
        return ItemCheck(key, "", False, f"the release failed: {_first_line(item['error'])}")
    theirs = item.get("messages")
    if not isinstance(theirs, list) or not all(isinstance(m, dict) and isinstance(m.get("content"), str)
                                               for m in theirs):
        return ItemCheck(key, "", False, "the release's build_prompt returned something other than messages")
    try:
        instance = ws.instance(key)
        if instance is None:
            raise ReleaseError(f"no program {key!r} in the workspace")
        ours = build_prompt(instance, wording=wording, rules=PAPER).messages
    except Exception as error:  # noqa: BLE001 (any failure to build is a difference to report)
        return ItemCheck(key, "", False, f"this tool cannot build it: {error}")
    return ItemCheck(key, "", ours == theirs, _first_difference(ours, theirs))


def _compare_answer(ws: Workspace, asked: dict, item: dict) -> ItemCheck:
    key, model = asked["key"], asked["model"]
    if "error" in item:
        return ItemCheck(key, model, False, f"the release failed: {_first_line(item['error'])}")
    theirs = item.get("graph")
    if not is_call_mapping(theirs):
        return ItemCheck(key, model, False, "the release's parse_llm_response returned something other than a "
                                            "{caller: [callees]} mapping")
    ours = answer_mapping(asked["response"], ws.ground_truths([key])[key].keys)
    if ours == theirs:
        return ItemCheck(key, model, True)
    differing = next((k for k in list(ours) + list(theirs) if ours.get(k) != theirs.get(k)), "")
    return ItemCheck(key, model, False, f"{_shown_text(differing)}: this tool reads "
                                        f"{_shown_text(repr(ours.get(differing)))}, the release "
                                        f"{_shown_text(repr(theirs.get(differing)))}")


def _first_difference(ours: list[dict], theirs: list[dict]) -> str:
    for number, (mine, other) in enumerate(zip(ours, theirs)):
        if mine != other:
            a, b = mine.get("content", ""), other.get("content", "")
            at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            return (f"{mine.get('role', f'message {number + 1}')} message, character {at:,}: this tool "
                    f"{a[max(0, at - 30):at + 40]!r}, the release {b[max(0, at - 30):at + 40]!r}")
    return "" if len(ours) == len(theirs) else f"{len(ours)} messages here, {len(theirs)} from the release"


def _first_line(value: object) -> str:
    lines = str(value).splitlines()
    return _shown_text(lines[0] if lines else "failed without a message")


def _shown_text(text: str) -> str:
    """Text from the release as a report line quotes it: at most SHOWN_CHARS, printable in any encoding."""
    cut = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"
    return cut.encode("utf-8", "backslashreplace").decode("utf-8")


# -- the report in words ------------------------------------------------------------------------------------
def render_parity(report: ParityReport, fmt: str = "text") -> str:
    if fmt == "json":
        return json_document("parity", parity_to_dict(report))
    split = report.selection.split or "all splits"
    lines = [f"Paper parity against {release_checkout(Path(report.release))} (scripts/run_llm.py sha256 "
             f"{report.sha256[:12]}, scripts sha256 {report.scripts_sha256[:12]}), run with {report.python} "
             f"(Python {report.python_version}) in the sandbox ({report.sandbox})",
             f"Table ({split}, paper rules, normalisation {', '.join(MODES)}): "
             f"{_agreeing(report.cells)} cells agree"]
    for cell in report.cells:
        if not cell.agrees:
            what = registry.title(cell.language, "Average")
            if cell.error:
                lines.append(f"  DIFFERS {cell.model} {what}: the release could not score it: "
                             f"{cell.error.splitlines()[0]}")
                continue
            shown = ", ".join(f"{q} {_shown(cell.ours.get(q))} vs {_shown(cell.theirs.get(q))}" for q in cell.differs)
            lines.append(f"  DIFFERS {cell.model} {what} (this tool vs the release): {shown}")
    for title, checks in (("Prompts", report.prompts), ("Answers read", report.answers)):
        lines.append(f"{title}: {_agreeing(checks)} agree"
                     + ("" if checks else " (none to compare)"))
        for check in checks:
            if not check.agrees:
                model = f" ({check.model})" if check.model else ""
                lines.append(f"  DIFFERS {check.key}{model}: {check.detail}")
    lines += [f"Note: {note}" for note in report.notes]
    lines.append("Result: full agreement" if report.agrees else
                 f"Result: {report.differences} difference{'s' if report.differences != 1 else ''}")
    return "\n".join(lines) + "\n"


def parity_to_dict(report: ParityReport) -> dict:
    return {
        "release": report.release, "sha256": report.sha256, "scripts_sha256": report.scripts_sha256,
        "sandbox": report.sandbox, "python": report.python,
        "python_version": report.python_version, "split": report.selection.split,
        "languages": list(report.selection.languages), "agrees": report.agrees,
        "differences": report.differences, "notes": report.notes,
        "cells": [{"model": c.model, "language": c.language, "agrees": c.agrees, "ours": c.ours,
                   "theirs": c.theirs, "differs": list(c.differs), "error": c.error} for c in report.cells],
        "prompts": [{"instance": p.key, "agrees": p.agrees, "detail": p.detail} for p in report.prompts],
        "answers": [{"instance": a.key, "model": a.model, "agrees": a.agrees, "detail": a.detail}
                    for a in report.answers],
    }


def _agreeing(checks) -> str:
    return f"{sum(check.agrees for check in checks):,} of {len(checks):,}"


def _shown(value) -> str:
    return "—" if value is None else f"{value * 100:.4f}%" if isinstance(value, float) else f"{value:,}"
