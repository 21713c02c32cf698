"""Merging workspace files, large and hostile (issue #36 item 4). Run: python tests/bench/bench_merge.py [--keep DIR]

Builds Ann's demo workspace with audit `spot` and, from Bob's (his verdicts, an adjudication, an answer), four
files: 199,000 more verdicts with 600-character notes (a large merge within every bound), 10^6 verdicts (past the
bound of 200,000 rows a table), one 150 MB note (past the 1 MiB bound of a value) and a billion-row view in
place of the audits table. Each is merged into a fresh copy of Ann's workspace by `traceeval audit merge` in a
process of its own, which prints its wall time, CPU time and peak memory (VmHWM); the outcome is checked (the
large one merged, every hostile one refused in one line), so a broken run cannot print good-looking numbers. The
view's merge is stopped after 60 s: with a merge that runs the file's SQL it never ends.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.common import private_user_folders  # noqa: E402

_SANDBOX = private_user_folders("merge")  # before anything reads the folders' variables

from core.audit.sampling import create_audit  # noqa: E402
from core.dataset.indexing import open_dataset  # noqa: E402
from resources import DEMO_DATASET  # noqa: E402
from tests.security.hostile_workspaces import AUDIT, OPTIONS, annotated_workspace, edit, more_verdicts  # noqa: E402

HANG_S = 60
MEASURE = """
import json, os, re, sys, time
from traceeval_gui.cli.main import main
started = time.perf_counter()
code = main(["audit", "merge", sys.argv[1], "--workspace", sys.argv[2]])
wall, times = time.perf_counter() - started, os.times()
# the peak from /proc (ru_maxrss would carry the parent's peak over exec)
peak = int(re.search(r"VmHWM:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1))
print(json.dumps({"code": code, "wall": wall, "cpu": times.user + times.system, "peak_mb": peak / 1024}),
      file=sys.stderr)
"""


CASES = {  # name -> (how Bob's file becomes it, what the run must print)
    "199,000 verdicts (merged)": (lambda p: more_verdicts(p, 199_000, 600), "199005 verdicts"),
    "10^6 verdicts (refused)": (lambda p: more_verdicts(p, 1_000_000, 0), "over the bound of 200,000"),
    "a 150 MB note (refused)": (lambda p: edit(p, "update verdicts set note = hex(zeroblob(75000000)) where id = 1"),
                                "a value over 1 MiB"),
    "a billion-row view (refused)": (lambda p: edit(p, "alter table audits rename to kept", "create view audits as "
                                                       "with recursive r(n) as (select 1 union all select n + 1 from "
                                                       "r where n < 1000000000) select kept.* from kept, r"),
                                     "holds a view"),
}


def measure(source: Path, target: Path, expected: str) -> dict:
    process = subprocess.Popen([sys.executable, "-c", MEASURE, str(source), str(target)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return {"outcome": f"still running after {HANG_S} s: stopped"}
    figures = json.loads(err.strip().splitlines()[-1])
    said = (out + err).strip().splitlines()[0]
    assert expected in said, said
    assert figures["code"] == (0 if "merged" in said else 2), figures
    return {**figures, "outcome": said[:90]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", type=Path, help="build in this folder and leave it")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="traceeval-bench-merge-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        ann = work / "ann.sqlite"
        ws, _ = open_dataset(DEMO_DATASET, ann)
        with ws:
            create_audit(ws, AUDIT, **OPTIONS)
        bob = annotated_workspace(work / "bob.sqlite")
        rows = []
        for number, (name, (make, expected)) in enumerate(CASES.items()):
            source = Path(shutil.copyfile(bob, work / f"case{number}.sqlite"))
            make(source)
            target = Path(shutil.copyfile(ann, work / f"target{number}.sqlite"))
            figures = measure(source, target, expected)
            size = source.stat().st_size / 1e6
            rows.append((name, size, figures))
            print(f"{name:<32} {size:7.0f} MB  {figures}", flush=True)
        print("\n| file merged | size | wall | CPU | peak memory | outcome |")
        print("| --- | --- | --- | --- | --- | --- |")
        for name, size, f in rows:
            if "wall" in f:
                print(f"| {name} | {size:.0f} MB | {f['wall']:.1f} s | {f['cpu']:.1f} s | {f['peak_mb']:.0f} MB | "
                      f"{f['outcome']} |")
            else:
                print(f"| {name} | {size:.0f} MB | - | - | - | {f['outcome']} |")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
