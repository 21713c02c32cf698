"""`retrace` throughput per language, against the release's serial tracers. Run:
python tests/bench/bench_retrace.py [--programs 300] [--jobs 2] [--languages python,javascript,java]

Builds a dataset of N small programs per language (copies of the demo programs and of the
feature-corpus cases that run to completion, under new ids), then re-traces each language with
`--jobs` workers exactly as `traceeval retrace` does (the full sandbox in force), and prints
programs/s against the target. Measured in the same process on the same programs: one worker on
the first 20% of them, and the release's serial tracers as written in `serial_tracers` (no
sandbox; a settrace recorder for Python, plain node and javac + java runs for the others), with
our speed over theirs. Targets: issue #3's, and issue #24's Python >= 45 programs/s with 2 jobs
and faster than the stand-in in every language. Note the machine's load (`uptime`) with the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from itertools import cycle
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.dataset.indexing import open_dataset  # noqa: E402
from core.languages import registry  # noqa: E402
from tests.bench.serial_tracers import run_serially  # noqa: E402
from tracers.python_interpreter import find_interpreter  # noqa: E402
from tracers.retrace import retrace  # noqa: E402

TARGETS = {"python": 45.0, "javascript": 8.0, "java": 3.0}
DEMO = ROOT / "resources" / "demo" / "benchmark"
CORPUS = ROOT / "tests" / "tracer_corpus"


def sample_programs(language: str) -> list[Path]:
    """Demo programs plus corpus cases expected to run to completion."""
    programs = sorted(p for p in (DEMO / language).iterdir() if p.is_dir())
    for case in sorted((CORPUS / language).glob("*/expected.json")):
        if json.loads(case.read_text()).get("status", "ok") == "ok":
            programs.append(case.parent)
    return programs


def build_dataset(root: Path, per_language: int) -> None:
    for language in registry.names():
        for number, source in zip(range(1, per_language + 1), cycle(sample_programs(language)), strict=False):
            target = root / "benchmark" / language / f"bench{language[:2]}_{number:04d}"
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("expected.json", "__pycache__"))
            if not (target / "callgraph.json").exists():
                (target / "callgraph.json").write_text("{}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--programs", type=int, default=300, help="programs per language (default 300)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--languages", default=",".join(registry.names()))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="traceeval-bench-") as folder:
        root = Path(folder) / "data"
        build_dataset(root, args.programs)
        ws, _ = open_dataset(root, Path(folder) / "w.sqlite")
        with ws:
            print(f"{'language':<11}{'programs':>9}{'jobs':>5}{'seconds':>9}{'programs/s':>11}{'target':>8}"
                  f"{'1 job/s':>9}{'speed-up':>9}{'stand-in/s':>11}{'ours/theirs':>12}  statuses")
            for language in args.languages.split(","):
                keys = [row.key for row in ws.instance_rows([language])]
                baseline_keys = keys[: max(1, len(keys) // 5)]
                one = retrace(ws, baseline_keys, batch=f"baseline-{language}", jobs=1)
                many = retrace(ws, keys, batch=f"bench-{language}", jobs=args.jobs)
                instances = [instance for key in keys if (instance := ws.instance(key)) is not None]
                theirs = run_serially(language, instances, find_interpreter().path)
                statuses = ", ".join(f"{n} {s}" for s, n in sorted(many.statuses.items()))
                failed = sum(n for code, n in theirs.exit_codes.items() if code != 0)
                ratio = many.per_second / theirs.per_second if theirs.per_second else 0.0
                verdict = "meets" if many.per_second >= TARGETS[language] and ratio > 1 else "BELOW"
                print(f"{language:<11}{many.traced:>9}{args.jobs:>5}{many.seconds:>9.1f}{many.per_second:>11.1f}"
                      f"{TARGETS[language]:>8.0f}{one.per_second:>9.1f}{many.per_second / one.per_second:>8.1f}x"
                      f"{theirs.per_second:>11.1f}{ratio:>11.2f}x  {statuses}; stand-in: {failed} failed"
                      f" ({verdict} target)")
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min)")

if __name__ == "__main__":
    main()
