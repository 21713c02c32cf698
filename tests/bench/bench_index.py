"""Indexing as the dataset grows. Run: python tests/bench/bench_index.py [--sizes 1000,3000,10000,30000] [--keep DIR]

For each size, a synthetic dataset of about that many programs (a third each Python, JavaScript and Java, as
TraceEval; tests/bench/synthetic.py) is indexed into a new workspace, then reopened with nothing changed. Prints
seconds, programs per second and the growth ratio to the previous size (time ratio / size ratio: 1.0 is linear).
Targets (issue #24): index 10k programs <= 5 s, reopen <= 0.3 s. `bench_first_contact.py` reuses `index_figures`.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.dataset.indexing import open_dataset  # noqa: E402
from tests.bench.synthetic import PAPER_COUNTS, generate, split_ids  # noqa: E402


def index_figures(root: Path, workspace: Path) -> tuple[int, float, float]:
    """(programs indexed, seconds to index `root` into the new `workspace`, seconds to reopen it)."""
    started = time.perf_counter()
    ws, report = open_dataset(root, workspace)
    index_s = time.perf_counter() - started
    ws.close()
    started = time.perf_counter()
    ws, _ = open_dataset(root, workspace)
    reopen_s = time.perf_counter() - started
    ws.close()
    return report.instances, index_s, reopen_s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,3000,10000,30000", help="comma-separated program counts")
    parser.add_argument("--keep", type=Path, help="generate into (and keep, and reuse) this folder")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="traceeval-bench-index-"))
    paper_total = sum(sum(counts) for counts in PAPER_COUNTS.values())
    try:
        warm_up = work / "warm-up"  # imports and parsers made once, outside the figures
        generate(warm_up, split_ids(None, 30 / paper_total), models=0)
        index_figures(warm_up, work / "warm-up.sqlite")
        previous: tuple[int, float, float] | None = None
        print(f"{'programs':>9} {'index s':>8} {'per s':>7} {'growth':>7} {'reopen s':>9} {'growth':>7}")
        for size in (int(s) for s in args.sizes.split(",")):
            root = work / f"dataset-{size}"
            if not (root / "benchmark").is_dir():
                generate(root, split_ids(None, size / paper_total), models=0)
            workspace = work / f"index-{size}.sqlite"
            for suffix in ("", "-wal", "-shm"):
                Path(f"{workspace}{suffix}").unlink(missing_ok=True)
            programs, index_s, reopen_s = index_figures(root, workspace)
            growth = reopen_growth = ""
            if previous is not None:
                scale = programs / previous[0]
                growth = f"{index_s / previous[1] / scale:.2f}"
                reopen_growth = f"{reopen_s / previous[2] / scale:.2f}"
            print(f"{programs:>9,} {index_s:>8.2f} {programs / index_s:>7.0f} {growth:>7} {reopen_s:>9.3f} "
                  f"{reopen_growth:>7}", flush=True)
            previous = (programs, index_s, reopen_s)
        return 0
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
