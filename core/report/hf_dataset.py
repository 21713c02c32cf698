"""A dataset folder that Hugging Face `datasets.load_dataset(folder, config)` loads as it is, offline.

```
<folder>/README.md                      the dataset card: YAML front matter (configs and their data files per split,
                                        features, licence, task) and what the data is, for a person
<folder>/data/<kind>/<split>.parquet    one config per export kind (core.report.export_rows), one file per split
```

Splits are the programs' `test` / `train`; programs no split file names are in `unassigned`. Data files are Parquet
with the kinds' fixed schemas, or JSON Lines when pyarrow is not installed (the card's features still type them).

Licences come from provenance: each program's README `Licence:` line (what `traceeval build` records from the
repository). A program whose README names none is listed as unknown, never given a guessed licence; the card's
`license` field is that licence only when every program has the same known one, else `other`.
"""
from __future__ import annotations

import json
import re
import shutil
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from core.dataset.layout import read_provenance
from core.dataset.workspace import InstanceRow, Workspace
from core.errors import UsageError
from core.languages import registry
from core.report.export_rows import BOOL, COLUMNS, FILES, FLOAT, GRAPH, INT, KINDS, STRING, STRINGS, rows_of
from core.report.exports import RowFile, batches, parquet_available
from core.safe_files import MAX_README_BYTES, read_text
from core.scoring.normalise import MODES
from core.scoring.rules import DEFAULT_RULES, rules_title
from core.scoring.scores import Selection

CARD = "README.md"
MARK = "<!-- written by traceeval export --format hf -->"  # a folder holding this card may be written over
UNASSIGNED = "unassigned"
SPLIT_ORDER = ("test", "train", UNASSIGNED)
PAPER = "arXiv:2605.11006"
_UNKNOWN_WORDS = ("", "none found", "unrecognised", "unrecognized", "unknown")


@dataclass
class HFExport:
    """What was written: rows per config and split, and the licence of each (repository, licence) group."""

    folder: Path
    data_format: str
    rows: dict[str, dict[str, int]] = field(default_factory=dict)  # kind -> split -> rows
    licence: str = "other"  # the card's `license`

    @property
    def card(self) -> Path:
        return self.folder / CARD


def write_hf_folder(ws: Workspace, out: str | Path, kinds: Sequence[str] = KINDS,
                    models: Sequence[str] | None = None, selection: Selection | None = None,
                    modes: Iterable[str] = MODES, rules: str = DEFAULT_RULES,
                    data_format: str | None = None) -> HFExport:
    """Write the selected programs (default: all) and models (default: all) as a Hugging Face dataset folder
    (see the module's docstring). `data_format`: parquet or jsonl (default: parquet when pyarrow is installed).
    `out` must not exist, be empty, or hold an earlier export (which is replaced once the new one is complete)."""
    folder = Path(out).expanduser()
    _check_target(folder)
    data_format = data_format or ("parquet" if parquet_available() else "jsonl")
    selection = selection or Selection()
    programs = selection.rows(ws)
    fresh = folder.with_name(f".{folder.name}.partial")
    shutil.rmtree(fresh, ignore_errors=True)
    report = HFExport(folder, data_format)
    try:
        for kind in dict.fromkeys(kinds):
            report.rows[kind] = _write_config(ws, fresh, kind, models, selection, modes, rules, data_format)
        licences = program_licences(ws, programs)
        report.licence = card_licence(licences)
        (fresh / CARD).write_text(dataset_card(ws, report, programs, licences, models, modes, rules),
                                  encoding="utf-8")
        if folder.exists():
            shutil.rmtree(folder)
        fresh.rename(folder)
    except OSError as error:
        raise UsageError(f"{folder}: cannot write: {error.strerror or error}") from None
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return report


def _check_target(folder: Path) -> None:
    if not folder.exists():
        return
    if not folder.is_dir():
        raise UsageError(f"{folder}: exists and is not a folder")
    if not any(folder.iterdir()):
        return
    card = folder / CARD
    try:
        ours = MARK in read_text(card, MAX_README_BYTES, errors="replace")
    except OSError:
        ours = False
    if not ours:
        raise UsageError(f"{folder}: exists, is not empty and is not an earlier export; choose another folder")


def _write_config(ws: Workspace, root: Path, kind: str, models, selection: Selection, modes, rules,
                  data_format: str) -> dict[str, int]:
    (root / "data" / kind).mkdir(parents=True, exist_ok=True)
    files: dict[str, RowFile] = {}
    try:
        for batch in batches(rows_of(kind, ws, models, selection, modes, rules)):
            by_split: dict[str, list] = defaultdict(list)
            for row in batch:
                by_split[row["split"] or UNASSIGNED].append(row)
            for split, rows in by_split.items():
                if split not in files:
                    files[split] = RowFile(kind, root / "data" / kind / f"{split}.{data_format}", data_format)
                files[split].add(rows)
        if not files:  # a config with no rows still loads: an empty file of the first split there is
            split = _splits_of(selection.rows(ws))[0]
            files[split] = RowFile(kind, root / "data" / kind / f"{split}.{data_format}", data_format)
        for sink in files.values():
            sink.close()
    finally:
        for sink in files.values():
            sink.discard()
    return {split: files[split].count for split in sorted(files, key=_split_rank)}


def _splits_of(rows: Sequence[InstanceRow]) -> list[str]:
    return sorted({r.split or UNASSIGNED for r in rows}, key=_split_rank) or ["test"]


def _split_rank(split: str) -> tuple[int, str]:
    return (SPLIT_ORDER.index(split) if split in SPLIT_ORDER else len(SPLIT_ORDER), split)


# -- licences --------------------------------------------------------------------------------------------
def program_licences(ws: Workspace, programs: Sequence[InstanceRow]) -> dict[str, str]:
    """Each program's licence as its README's `Licence:` line names it ("" unknown), by key."""
    root = Path(ws.setting("dataset_root") or ".")
    return {row.key: licence_id(read_provenance(root / row.folder).licence) for row in programs}


def licence_id(line: str) -> str:
    """The licence a `Licence:` line names: its first word (an SPDX id as `traceeval build` writes it), "" when
    it names none (`none found`, `unrecognised`, empty)."""
    head = line.split(" (", 1)[0].strip()
    if head.lower() in _UNKNOWN_WORDS or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.+-]*", head):
        return ""
    return head


def card_licence(licences: dict[str, str]) -> str:
    """The card's `license`: the one licence every program has (as a lower-case Hugging Face id), else other."""
    found = set(licences.values())
    return found.pop().lower() if len(found) == 1 and "" not in found else "other"


# -- the card ----------------------------------------------------------------------------------------------
def dataset_card(ws: Workspace, report: HFExport, programs: Sequence[InstanceRow], licences: dict[str, str],
                 models: Sequence[str] | None, modes: Iterable[str], rules: str) -> str:
    return "---\n" + _front_matter(report, len(programs)) + "---\n" + MARK + "\n\n" + \
        _human_text(ws, report, programs, licences, models, frozenset(modes), rules)


def _front_matter(report: HFExport, programs: int) -> str:
    lines = [f"pretty_name: {_q('TraceEval call graphs')}", f"license: {_q(report.licence)}"]
    if report.licence == "other":
        lines += [f"license_name: {_q('per-program')}",
                  f"license_details: {_q('Each program keeps its repository licence; see Licences in the card.')}"]
    lines += ["task_categories:", "- text-generation", "tags:", "- code", "- call-graph", "- program-analysis",
              "- benchmark", "- traceeval", "size_categories:", f"- {_size_category(programs)}", "configs:"]
    for index, (kind, splits) in enumerate(report.rows.items()):
        lines += [f"- config_name: {kind}"] + (["  default: true"] if index == 0 else []) + ["  data_files:"]
        for split in splits:
            lines += [f"  - split: {split}", f"    path: {_q(f'data/{kind}/{split}.{report.data_format}')}"]
    lines.append("dataset_info:")
    for kind in report.rows:
        lines += [f"- config_name: {kind}", "  features:"]
        for column in COLUMNS[kind]:
            lines += _feature(column.name, column.type, "  ")
    return "\n".join(lines) + "\n"


def _feature(name: str, kind: str, indent: str) -> list[str]:
    head = f"{indent}- name: {name}"
    simple = {STRING: "string", INT: "int64", FLOAT: "float64", BOOL: "bool"}
    if kind in simple:
        return [head, f"{indent}  dtype: {simple[kind]}"]
    if kind == STRINGS:
        return [head, f"{indent}  list: string"]
    fields = (("caller", STRING), ("callees", STRINGS)) if kind == GRAPH else \
        (("path", STRING), ("text", STRING), ("problem", STRING))
    if kind not in (GRAPH, FILES):
        raise ValueError(f"no feature for column type {kind!r}")
    lines = [head, f"{indent}  list:"]
    for field_name, field_kind in fields:
        lines += _feature(field_name, field_kind, indent + "  ")
    return lines


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M"


def _q(text: str) -> str:
    """A YAML scalar: JSON's quoted string is valid YAML."""
    return json.dumps(text, ensure_ascii=False)


def _human_text(ws: Workspace, report: HFExport, programs: Sequence[InstanceRow], licences: dict[str, str],
                models: Sequence[str] | None, modes: frozenset[str], rules: str) -> str:
    names = [m for m in ws.models() if models is None or m.name in models]
    shown_splits = sorted({split for splits in report.rows.values() for split in splits}, key=_split_rank)
    out = [
        "# TraceEval call graphs",
        "",
        f"Programs in the layout of **TraceEval** ({PAPER}), a benchmark of runtime call graphs: a language model "
        "reads a program's source and names, for each function defined in it, the functions of the program that "
        "it calls when the program runs. The answer is scored against a graph recorded by running the program "
        "under a tracer. This folder was written by `traceeval export --format hf` (TraceEval Studio), from the "
        f"dataset `{Path(ws.setting('dataset_root') or '').name}`.",
        "",
        "## Configurations",
        "",
        "| config | " + " | ".join(shown_splits) + " | what a row is |",
        "| --- | " + " | ".join("---:" for _ in shown_splits) + " | --- |",
    ]
    what = {"instances": "one program: its files, ground-truth graph and provenance",
            "predictions": "one model's answer to one program, as text and as the graph the paper's parser reads",
            "scores": "one model on one program: TP, FP, FN and precision, recall, F1",
            "edges": "one edge of the truth or of a model's answer, classed TP, FP or FN"}
    for kind, splits in report.rows.items():
        out.append(f"| `{kind}` | " + " | ".join(f"{splits.get(s, 0):,}" for s in shown_splits) + f" | {what[kind]} |")
    out += ["", "```python", "import datasets", "", 'programs = datasets.load_dataset("path/to/this/folder", '
            '"instances", split="test")', "```", "",
            "Graphs are lists of `{caller, callees}` in the ground truth's key order (the order the prompt numbers "
            "its questions in). The columns of each configuration are described in TraceEval Studio's "
            "`docs/exports.md`.", "", "## Programs", "",
            "| language | split | programs | repositories | functions | edges |",
            "| --- | --- | ---: | ---: | ---: | ---: |"]
    groups: dict[tuple[str, str], list[InstanceRow]] = defaultdict(list)
    for row in programs:
        groups[(row.language, row.split or UNASSIGNED)].append(row)
    order = {name: i for i, name in enumerate(registry.names())}
    for (language, split), rows in sorted(groups.items(), key=lambda g: (order.get(g[0][0], 99), _split_rank(g[0][1]))):
        out.append(f"| {registry.title(language) if registry.is_known(language) else language} | {split} | "
                   f"{len(rows):,} | {len({r.repo for r in rows}):,} | {sum(r.functions for r in rows):,} | "
                   f"{sum(r.edges for r in rows):,} |")
    out += ["", "No repository is in both splits: programs are split by the repository they come from.", "",
            "## How the ground truth was witnessed", "",
            "Every edge of a program's ground truth was seen: the program was run under a tracer that recorded "
            "each call from one of the program's own functions to another. Calls into the standard library or "
            "third-party code are not edges. Every function the program defines is a caller, including those that "
            "never ran (with no callees). Only what the run exercised is recorded, so a call the code could make "
            "but the run never made is not in the ground truth, and a model that predicts it is scored a false "
            "positive; manual audits (TraceEval Studio's `traceeval audit`) can tell such calls apart.", ""]
    if {"scores", "edges"} & set(report.rows):
        out += [f"Scores and edge classes are read under {rules_title(rules)}, with names normalised by "
                f"{', '.join(sorted(modes)) or 'nothing'}. Per-program precision is 1 when a model predicts "
                "nothing and recall is 1 when the ground truth has no edge; the paper's table sums TP, FP and FN per "
                "language instead.", ""]
    if names and {"predictions", "scores", "edges"} & set(report.rows):
        out += ["## Models", ""]
        out += [f"- `{m.name}`: {m.predictions:,} answers" + (" (illustrative: written by hand, not real model "
                                                                  "output)" if m.illustrative else "") for m in names]
        out.append("")
    out += _licence_text(programs, licences)
    out += ["## Citation", "",
            f"TraceEval is described in Li et al., *TraceEval*, {PAPER} (2026). Cite the paper when you use the "
            "benchmark, and name the repositories of the programs you publish.", ""]
    return "\n".join(out)


def _licence_text(programs: Sequence[InstanceRow], licences: dict[str, str]) -> list[str]:
    out = ["## Licences", "",
           "Each program is code from a repository and keeps that repository's licence, as its "
           "provenance records it (the `Licence:` line of the program's README, written by `traceeval build`; "
           "the `licence` column of `instances`). Where no licence is recorded it is listed as unknown here: "
           "find the repository's licence before you redistribute its programs. When the split assignment comes "
           "from the TraceEval release, its split files are licensed CC-BY 4.0.", "",
           "| language | repository | source | licence | programs |", "| --- | --- | --- | --- | ---: |"]
    groups: Counter[tuple[str, str, str, str]] = Counter()
    for row in programs:
        groups[(row.language, row.repo, row.source_url, licences.get(row.key, ""))] += 1
    for (language, repo, source, licence), count in sorted(groups.items()):
        shown = licence or "unknown (no licence recorded)"
        out.append(f"| {language} | {repo} | {_cell(source) or '—'} | {shown} | {count:,} |")
    known = Counter(licences.values())
    out += ["", "In all: " + ", ".join(f"{count:,} {licence or 'unknown'}" for licence, count in
                                      sorted(known.items(), key=lambda item: (-item[1], item[0]))) + ".", ""]
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
