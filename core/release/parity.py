"""`traceeval parity`: this tool's table, prompts and answer readings against the user's TraceEval release.

The release's own functions run in a subprocess (`core/release/parity_driver.py`, with the user's Python
and the release's `scripts/` first on its path; never in this process) on:
- the paper table: the workspace's predictions for the selection, written in the released format to a
  temporary folder beside copies of the programs' `callgraph.json`, scored per (model, language) by
  `compute_metrics.score_one` with all of `normalize_edges.ALL_MODES`, then compared cell by cell
  (programs, TP, FP, FN, P, R, F1 and the Average) with this tool's table under the paper's rules;
- prompts: a seeded sample of programs per language, `run_llm.build_prompt` against this tool's
  prompt in the release's wording, byte for byte;
- answers: the sampled programs' raw answers, `run_llm.parse_llm_response` against this tool's
  paper parser.
Every difference is named; the report agrees only when there is none.
"""
from __future__ import annotations

import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from core.dataset.workspace import Workspace
from core.errors import ReleaseError
from core.languages import registry
from core.llm.prompts import build_prompt
from core.payloads import json_document
from core.release.checkout import read_release_wording, release_checkout
from core.scoring.answers import answer_mapping
from core.scoring.metrics import Counts, micro_scores
from core.scoring.normalise import MODES
from core.scoring.rules import PAPER
from core.scoring.scores import ScoreTable, Selection, score_table
from core.user_python import NoPython, chosen_python

DRIVER = Path(__file__).with_name("parity_driver.py")
QUANTITIES = ("programs", "tp", "fp", "fn", "precision", "recall", "f1")
AVERAGE = "average"
TIMEOUT_S = 1800.0
Progress = Callable[[int, int, str], None]


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
    sha256: str
    python: str
    python_version: str
    selection: Selection
    cells: list[CellCheck] = field(default_factory=list)
    prompts: list[ItemCheck] = field(default_factory=list)
    answers: list[ItemCheck] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

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


def parity_python(given: str | None = None) -> str:
    """The interpreter that runs the release (`core.user_python`: the one given, `$TRACEEVAL_PYTHON`, this one,
    or in the packaged app `python3` from PATH)."""
    try:
        return chosen_python(given)
    except NoPython as problem:
        raise ReleaseError(f"no Python to run the release with: {problem} (give --python)") from None


def check_parity(ws: Workspace, script: Path, selection: Selection, models: Sequence[str] | None = None,
                 prompts_per_language: int = 5, python: str | None = None, seed: int = 0,
                 timeout_s: float = TIMEOUT_S, progress: Progress | None = None) -> ParityReport:
    """Compare (see the module's docstring); raises ReleaseError when the release cannot be run at all."""
    report_progress = progress or (lambda done, total, message: None)
    wording = read_release_wording(script)
    report_progress(0, 4, "scoring with the paper's rules")
    table = score_table(ws, models, selection, MODES, rules=PAPER)
    rows = selection.rows(ws)
    sample = _sample(rows, prompts_per_language, seed)
    with tempfile.TemporaryDirectory(prefix="traceeval-parity-") as work:
        report_progress(1, 4, "writing the results and ground truth for the release")
        job = _write_job(ws, Path(work), script, table, rows, sample)
        report_progress(2, 4, f"running the release's functions with {parity_python(python)}")
        done = _run_driver(Path(work) / "job.json", parity_python(python), timeout_s)
    report_progress(3, 4, "comparing")
    report = ParityReport(str(script), wording.sha256, done["python"], done["python_version"], selection)
    if done["python_version"].split(".")[:2] != [str(part) for part in sys.version_info[:2]]:
        report.notes.append(f"the release ran on Python {done['python_version']} and this tool on "
                            f"{sys.version.split()[0]}: Python's standard-library names (the stdlib mode) come "
                            "from the running interpreter in both, and can differ between versions")
    if sorted(done["modes"]) != sorted(MODES):
        report.notes.append(f"the release's normalize_edges.ALL_MODES is {done['modes']}, not {list(MODES)}")
    report.cells = _compare_table(table, done["scores"], job["files"])
    report.prompts = [_compare_prompt(ws, item, wording) for item in done["prompts"]]
    report.answers = [_compare_answer(ws, item) for item in done["answers"]]
    report_progress(4, 4, "done")
    return report


def _sample(rows, per_language: int, seed: int) -> list:
    chosen = []
    rng = random.Random(seed)
    for language in registry.names():
        of_language = [row for row in rows if row.language == language]
        chosen += sorted(rng.sample(of_language, min(per_language, len(of_language))), key=lambda row: row.key)
    return chosen


def _write_job(ws: Workspace, work: Path, script: Path, table: ScoreTable, rows, sample) -> dict:
    root = Path(ws.setting("dataset_root") or ".")
    gt_dir = work / "gt"
    for row in rows:
        target = gt_dir / row.language / row.id
        target.mkdir(parents=True, exist_ok=True)
        source = root / row.folder / "callgraph.json"
        try:
            shutil.copyfile(source, target / "callgraph.json")  # refuses a FIFO rather than blocking on it
        except OSError as error:
            raise ReleaseError(f"{source}: cannot copy it for the release to score: {error.strerror or error}") \
                from None
    selected = {row.key: row for row in rows}
    scores, files, answers = [], {}, []
    for number, table_row in enumerate(table.rows):
        # read once: results and sampled answers (graphs and raw responses: the import's checks are not needed)
        predictions = ws.predictions(table_row.model, list(selected), checked=False)
        for language in table.languages:
            records = {selected[key].id: {"prediction": p.graph.to_dict(), "raw_response": p.raw_response or ""}
                       for key, p in predictions.items() if selected[key].language == language}
            if not records:
                continue  # no results file: the release scores the language 0, as its main() does
            path = work / "results" / f"m{number}_{language}_t0.0_r0.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"metadata": {"model": table_row.model, "language": language},
                                        "results": records}), encoding="utf-8")
            scores.append({"model": table_row.model, "language": language, "path": str(path)})
            files[(table_row.model, language)] = path
        for row in sample:
            prediction = predictions.get(row.key)
            if prediction is not None and prediction.raw_response is not None:
                answers.append({"key": row.key, "model": table_row.model, "dir": str(root / row.folder),
                                "language": row.language, "response": prediction.raw_response})
    prompts = [{"key": row.key, "dir": str(root / row.folder), "language": row.language} for row in sample]
    job = {"scripts": str(script.parent), "gt_dir": str(gt_dir), "scores": scores, "prompts": prompts,
           "answers": answers}
    (work / "job.json").write_text(json.dumps(job), encoding="utf-8")
    return {**job, "files": files}


def _run_driver(job: Path, python: str, timeout_s: float) -> dict:
    env = {name: value for name, value in os.environ.items() if not name.endswith(("_API_KEY", "_TOKEN"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave the user's checkout as it was
    try:
        done = subprocess.run([python, str(DRIVER), str(job)], cwd=job.parent, env=env, capture_output=True,
                              text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise ReleaseError(f"the release's functions did not finish within {timeout_s:g} s") from None
    except OSError as error:
        raise ReleaseError(f"{python}: cannot run the release with it: {error.strerror or error}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise ReleaseError(f"the release's functions could not run with {python}: {last}")
    try:
        return json.loads(done.stdout)
    except ValueError:
        raise ReleaseError(f"the release's functions printed something that is not the driver's JSON: "
                           f"{done.stdout[:120]!r}") from None


def _compare_table(table: ScoreTable, scores: list[dict], files: dict) -> list[CellCheck]:
    theirs = {(item["model"], item["language"]): item for item in scores}
    cells = []
    for row in table.rows:
        per_language = {}
        for language in table.languages:
            result = row.languages[language]
            ours = {"programs": result.programs, "tp": result.counts.tp, "fp": result.counts.fp,
                    "fn": result.counts.fn, "precision": result.scores.precision, "recall": result.scores.recall,
                    "f1": result.scores.f1}
            item = theirs.get((row.model, language))
            if item is None and (row.model, language) not in files:
                item = {"programs": 0, "tp": 0, "fp": 0, "fn": 0, **_zero_scores()}
            error = (item or {}).get("error", "")
            given = {} if error or item is None else {q: item[q] for q in QUANTITIES}
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


def _zero_scores() -> dict[str, float]:
    scores = micro_scores(Counts())
    return {"precision": scores.precision, "recall": scores.recall, "f1": scores.f1}


def _differs(ours: dict, theirs: dict) -> tuple[str, ...]:
    return tuple(q for q in ours if q not in theirs or not _same(ours[q], theirs[q]))


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=0, abs_tol=1e-12)
    return a == b


def _compare_prompt(ws: Workspace, item: dict, wording) -> ItemCheck:
    if "error" in item:
        return ItemCheck(item["key"], "", False, f"the release failed: {item['error'].splitlines()[0]}")
    try:
        instance = ws.instance(item["key"])
        if instance is None:
            raise ReleaseError(f"no program {item['key']!r} in the workspace")
        ours = build_prompt(instance, wording=wording, rules=PAPER).messages
    except Exception as error:  # noqa: BLE001 (any failure to build is a difference to report)
        return ItemCheck(item["key"], "", False, f"this tool cannot build it: {error}")
    return ItemCheck(item["key"], "", ours == item["messages"], _first_difference(ours, item["messages"]))


def _compare_answer(ws: Workspace, item: dict) -> ItemCheck:
    if "error" in item:
        return ItemCheck(item["key"], item["model"], False, f"the release failed: {item['error'].splitlines()[0]}")
    ours = answer_mapping(item["response"], ws.ground_truths([item["key"]])[item["key"]].keys)
    theirs = item["graph"]
    if ours == theirs:
        return ItemCheck(item["key"], item["model"], True)
    key = next((k for k in list(ours) + list(theirs) if ours.get(k) != theirs.get(k)), "")
    return ItemCheck(item["key"], item["model"], False,
                     f"{key}: this tool reads {ours.get(key)!r}, the release {theirs.get(key)!r}")


def _first_difference(ours: list[dict], theirs: list[dict]) -> str:
    for number, (mine, other) in enumerate(zip(ours, theirs)):
        if mine != other:
            a, b = mine.get("content", ""), other.get("content", "")
            at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            return (f"{mine.get('role', f'message {number + 1}')} message, character {at:,}: this tool "
                    f"{a[max(0, at - 30):at + 40]!r}, the release {b[max(0, at - 30):at + 40]!r}")
    return "" if len(ours) == len(theirs) else f"{len(ours)} messages here, {len(theirs)} from the release"


# -- the report in words ------------------------------------------------------------------------------------
def render_parity(report: ParityReport, fmt: str = "text") -> str:
    if fmt == "json":
        return json_document("parity", parity_to_dict(report))
    split = report.selection.split or "all splits"
    lines = [f"Paper parity against {release_checkout(Path(report.release))} (scripts/run_llm.py sha256 "
             f"{report.sha256[:12]}), run with {report.python} (Python {report.python_version})",
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
        "release": report.release, "sha256": report.sha256, "python": report.python,
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
