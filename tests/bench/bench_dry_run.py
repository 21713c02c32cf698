"""The dry run of a model run at TraceEval scale. Run: python tests/bench/bench_dry_run.py [--scale 1.0]

Prints, on a synthetic dataset the size of the paper's (10,583 programs, generated first): the time of
`core.llm.dry_run.dry_run` over every program (it builds every prompt: the Run Model dialog's estimate for
"all programs", computed on a pool thread) and over the test split, with the figures it found. The
dialog never waits for it: it shows "Estimating…" and the estimate when it arrives.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.common import private_user_folders, timed  # noqa: E402

_SANDBOX = private_user_folders("dry-run")  # before anything reads the folders' variables

from core.dataset.indexing import open_dataset  # noqa: E402
from core.llm.dry_run import dry_run  # noqa: E402
from core.llm.endpoints import RunSettings  # noqa: E402
from core.llm.runner import pending_keys  # noqa: E402
from tests.bench.synthetic import generate, split_ids  # noqa: E402

SETTINGS = RunSettings("http://127.0.0.1:9/v1", "new-model")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the paper's program counts")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="traceeval-bench-dry-run-") as folder:
        root = Path(folder) / "dataset"
        timed("generate the synthetic dataset", lambda: generate(root, split_ids(None, args.scale), models=1))
        (ws, _), _ = timed("index it", lambda: open_dataset(root, Path(folder) / "ws.sqlite"))
        with ws:
            every = [row.key for row in ws.instance_rows()]
            test = [row.key for row in ws.instance_rows(split="test")]
            for label, keys in ((f"dry run, all {len(every):,} programs", every),
                                (f"dry run, the test split ({len(test):,})", test)):
                todo = pending_keys(ws, SETTINGS, keys)
                estimate, _ = timed(label, lambda k=todo: dry_run(ws, k, SETTINGS))
                print(f"    {estimate.prompts:,} prompts, ≈{estimate.input_tokens:,} input tokens, "
                      f"≈{estimate.output_tokens:,} output tokens ({estimate.output.basis})")


if __name__ == "__main__":
    main()
