"""The static analyzers' table on the demo and on ~300 generated real programs (tests/bench/real_programs.py).

    .venv/bin/python -m tests.bench.bench_baselines [--count 300] [--out DIR]

Generates the programs (ground truth from this project's tracers), runs every available analyzer on them in the
sandbox as model static:<tool>, and prints the paper table (paper rules, all normalisation modes); the demo's
table, with its illustrative models, first.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from core.dataset.indexing import open_dataset
from core.scoring.scores import Selection, score_table
from core.scoring.tables import render_table
from resources import DEMO_DATASET
from tests.bench.real_programs import write_dataset
from tracers.static import TOOLS, tool_status
from tracers.static.runner import run_baseline


def table_for(dataset: Path, workspace: Path, jobs: int) -> str:
    ws, _ = open_dataset(dataset, workspace)
    with ws:
        keys = [row.key for row in Selection().rows(ws)]
        for name in TOOLS:
            if tool_status(name).available:
                started = time.monotonic()
                report = run_baseline(ws, name, keys, jobs=jobs)
                print(f"{name}: {report.analysed} programs, {report.failed} failed, "
                      f"{time.monotonic() - started:.1f} s")
        return render_table(score_table(ws, selection=Selection()), "text")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, help="where the generated dataset goes (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch) / "generated"
        print(table_for(DEMO_DATASET, Path(scratch) / "demo.sqlite", args.jobs))
        started = time.monotonic()
        statuses = write_dataset(out, args.count)
        print(f"generated {args.count} programs in {time.monotonic() - started:.1f} s; traced: {statuses}")
        print(table_for(out, Path(scratch) / "generated.sqlite", args.jobs))


if __name__ == "__main__":
    main()
