"""`retrace` throughput per language. Run: python tests/bench/bench_retrace.py [--programs 300] [--jobs 2]

Builds a dataset of N small programs per language (copies of the demo programs and of the
feature-corpus cases that run to completion, under new ids), then re-traces each language with
`--jobs` workers exactly as `traceeval retrace` does, and prints programs/s against the target.
The baseline, measured in the same process, is one worker on the first 20% of the programs.
Targets (issue #3): Python >= 15 programs/s, JavaScript >= 8/s, Java >= 3/s, on 2 cores.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from itertools import cycle
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.dataset.indexing import open_dataset  # noqa: E402
from core.languages import registry  # noqa: E402
from tracers.retrace import retrace  # noqa: E402

TARGETS = {"python": 15.0, "javascript": 8.0, "java": 3.0}
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
                  f"{'1 job/s':>9}{'speed-up':>9}  statuses")
            for language in args.languages.split(","):
                keys = [row.key for row in ws.instance_rows([language])]
                baseline_keys = keys[: max(1, len(keys) // 5)]
                one = retrace(ws, baseline_keys, batch=f"baseline-{language}", jobs=1)
                many = retrace(ws, keys, batch=f"bench-{language}", jobs=args.jobs)
                statuses = ", ".join(f"{n} {s}" for s, n in sorted(many.statuses.items()))
                verdict = "meets" if many.per_second >= TARGETS[language] else "BELOW"
                print(f"{language:<11}{many.traced:>9}{args.jobs:>5}{many.seconds:>9.1f}{many.per_second:>11.1f}"
                      f"{TARGETS[language]:>8.0f}{one.per_second:>9.1f}{many.per_second / one.per_second:>8.1f}x"
                      f"  {statuses} ({verdict} target)")


if __name__ == "__main__":
    main()
