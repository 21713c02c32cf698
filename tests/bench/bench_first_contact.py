"""A researcher's first contact, against the straightforward script, as the dataset grows.

Run: python tests/bench/bench_first_contact.py [--sizes 1000,3000,10000,30000] [--models 10] [--keep DIR]

For each size, a synthetic dataset of about that many programs with results files for `--models` models
(tests/bench/synthetic.py) is scored twice, each in a fresh interpreter whose wall time and peak memory (the
child's maximum resident set) are measured:
- the baseline: a straightforward per-file scorer (`baseline` below), as the release's compute_metrics.py works:
  for every results file, reload it and each program's `callgraph.json`, normalise every name, count;
- ours: `traceeval score DATASET --results DIR` into a new workspace (index, import, score, print the table), with
  the worker processes it starts on this machine's cores (their memory counted in its peak).
The two tables must be identical (TP/FP/FN per model and language, and the averages). Then, in one process on the
workspace just made: a table with another mode set (cold: never scored that way), the same again (warm), and the
paper's modes with the score cache and name caches dropped (cold after a scorer change).
Growth is the time (or memory) ratio to the previous size divided by the size ratio: 1.0 is linear, below is better.
Targets (issue #24): ours <= 0.5x the baseline's time and <= 2x its memory at 10k and 30k; cold <= 1 s and
warm <= 0.1 s at 10k; memory flat across sizes.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.common import private_user_folders  # noqa: E402
from tests.bench.synthetic import PAPER_COUNTS, generate, split_ids  # noqa: E402

PAPER_TOTAL = sum(sum(counts) for counts in PAPER_COUNTS.values())
OTHER_MODES = "init,stdlib"


def baseline(root: Path) -> dict[str, dict[str, list[int]]]:
    """{model: {language: [tp, fp, fn]}} the straightforward way: no cache, no index, no workspace."""
    from core.scoring.normalise_paper import normalise

    modes = frozenset(("init", "nested_class", "stdlib"))

    def edges(graph: dict, language: str) -> set:
        out = set()
        for caller, callees in graph.items():
            for callee in callees:
                a, b = normalise(caller, language, modes), normalise(callee, language, modes)
                if a is not None and b is not None:
                    out.add((a, b))
        return out

    table: dict[str, dict[str, list[int]]] = {}
    for path in sorted((root / "results").glob("*.json")):
        data = json.loads(path.read_text())
        model, language = data["metadata"]["model"], data["metadata"]["language"]
        tp = fp = fn = 0
        for program_id, record in data["results"].items():
            truth = edges(json.loads((root / "benchmark" / language / program_id / "callgraph.json").read_text()),
                          language)
            predicted = edges(record.get("prediction") or {}, language)
            both = len(truth & predicted)
            tp, fp, fn = tp + both, fp + len(predicted) - both, fn + len(truth) - both
        table.setdefault(model, {})[language] = [tp, fp, fn]
    return table


def rescore(workspace: Path) -> dict[str, float]:
    """Seconds for a table with another mode set (cold, then warm), and for the paper's modes after the score
    cache and name caches are dropped, in this process."""
    from core.dataset.workspace import Workspace
    from core.scoring import edge_counts, normalise
    from core.scoring.normalise import MODES, parse_modes
    from core.scoring.scores import Selection, score_table

    figures = {}
    with Workspace(workspace) as ws:
        selection = Selection(split="test")
        for label, modes in (("other modes, cold", parse_modes(OTHER_MODES)), ("other modes, warm",
                                                                                parse_modes(OTHER_MODES))):
            started = time.perf_counter()
            score_table(ws, selection=selection, modes=modes)
            figures[label] = time.perf_counter() - started
        ws.db.execute("delete from scores")
        normalise._CACHES.clear()
        edge_counts._MAPS.clear()
        started = time.perf_counter()
        score_table(ws, selection=selection, modes=MODES)
        figures["paper modes, caches dropped"] = time.perf_counter() - started
    return figures


def measured(command: list[str]) -> tuple[str, float, float]:
    """(stdout, wall seconds, peak resident MB) of one `--child` step run to completion in a fresh interpreter.
    The peak counts the worker processes the step starts: the larger of the child's own high-water mark and the
    largest sum of resident memory over the child and all its descendants, sampled every 20 ms (shared pages
    count once per process: an upper bound)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child_process = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        tree_kb = 0
        while child_process.poll() is None:
            tree_kb = max(tree_kb, _tree_resident_kb(child_process.pid))
            time.sleep(0.02)
        seconds = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if child_process.returncode:
        raise SystemExit(f"{' '.join(command[2:4])} failed ({child_process.returncode}):\n{stderr[-2000:]}")
    peak_kb = int(stderr.strip().rsplit("\n", 1)[-1].removeprefix(PEAK))
    return stdout, seconds, max(peak_kb, tree_kb) / 1024


def _tree_resident_kb(pid: int) -> int:
    """VmRSS of a process and all its descendants, in KiB (0 for any that has gone)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(status.split("VmRSS:")[1].split()[0]) if "VmRSS:" in status else 0
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(child) for child in (task / "children").read_text().split())
        except (OSError, ValueError, IndexError):
            continue
    return total


PEAK = "peak resident KiB: "


def _print_peak() -> None:
    """The process's peak resident memory: VmHWM, its own address space's high-water mark. (`ru_maxrss` would
    also count the parent's memory the child shared between vfork and exec: the generator's, here.)"""
    status = Path("/proc/self/status").read_text()
    print(f"{PEAK}{status.split('VmHWM:')[1].split()[0]}", file=sys.stderr, flush=True)


def ours_counts(table: dict) -> dict[str, dict[str, list[int]]]:
    return {row["model"]: {lang: [cell["tp"], cell["fp"], cell["fn"]] for lang, cell in row["languages"].items()}
            for row in table["rows"]}


def same_numbers(ours: dict, base: dict[str, dict[str, list[int]]]) -> bool:
    from core.scoring.metrics import Counts, macro_average, micro_scores

    if ours_counts(ours) != base:
        return False
    for row in ours["rows"]:
        average = macro_average({lang: micro_scores(Counts(*base[row["model"]][lang])) for lang in row["languages"]})
        given = row["average"]
        if (given["precision"], given["recall"], given["f1"]) != (average.precision, average.recall, average.f1):
            return False
    return True


def one_size(work: Path, size: int, models: int) -> dict:
    root = work / f"dataset-{size}"
    if not (root / "results").is_dir():
        shutil.rmtree(root, ignore_errors=True)
        generate(root, split_ids(None, size / PAPER_TOTAL), models=models)
    programs = sum(1 for _ in (root / "benchmark").glob("*/*"))
    me = [sys.executable, __file__]
    base_out, base_s, base_mb = measured([*me, "--child", "baseline", str(root)])
    workspace = work / f"first-contact-{size}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{workspace}{suffix}").unlink(missing_ok=True)
    ours_out, ours_s, ours_mb = measured([*me, "--child", "ours", str(root), str(workspace)])
    rescore_out, _, _ = measured([*me, "--child", "rescore", str(workspace)])
    return {"programs": programs, "baseline_s": base_s, "baseline_mb": base_mb, "ours_s": ours_s, "ours_mb": ours_mb,
            "same": same_numbers(json.loads(ours_out), json.loads(base_out)), **json.loads(rescore_out)}


def child(args: list[str]) -> None:
    """Run one measured step in this (fresh) interpreter, the result as JSON on stdout."""
    import atexit

    atexit.register(_print_peak)
    what, rest = args[0], args[1:]
    if what == "baseline":
        print(json.dumps(baseline(Path(rest[0]))))
    elif what == "ours":
        from traceeval_gui.cli.main import main as cli

        root, workspace = rest
        sys.exit(cli(["score", root, "--results", f"{root}/results", "--workspace", workspace, "--format", "json"]))
    else:
        print(json.dumps(rescore(Path(rest[0]))))


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,3000,10000,30000", help="comma-separated program counts")
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="generate into (and keep, and reuse) this folder")
    args = parser.parse_args()
    sandbox = private_user_folders("first-contact")
    work = args.keep or Path(tempfile.mkdtemp(prefix="traceeval-bench-first-contact-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"{'programs':>9} | {'baseline s':>10} {'MB':>5} | {'ours s':>7} {'ratio':>6} {'MB':>5} {'ratio':>6} | "
              f"{'growth s':>8} {'MB':>5} | {'cold s':>6} {'warm s':>6} {'paper cold':>10} | same")
        previous = None
        for size in (int(s) for s in args.sizes.split(",")):
            f = one_size(work, size, args.models)
            growth = "", ""
            if previous is not None:
                scale = f["programs"] / previous["programs"]
                growth = (f"{f['ours_s'] / previous['ours_s'] / scale:.2f}",
                          f"{f['ours_mb'] / previous['ours_mb'] / scale:.2f}")
            print(f"{f['programs']:>9,} | {f['baseline_s']:>10.2f} {f['baseline_mb']:>5.0f} | {f['ours_s']:>7.2f} "
                  f"{f['ours_s'] / f['baseline_s']:>6.2f} {f['ours_mb']:>5.0f} "
                  f"{f['ours_mb'] / f['baseline_mb']:>6.2f} | "
                  f"{growth[0]:>8} {growth[1]:>5} | {f['other modes, cold']:>6.2f} {f['other modes, warm']:>6.3f} "
                  f"{f['paper modes, caches dropped']:>10.2f} | {'yes' if f['same'] else 'NO'}", flush=True)
            previous = f
        return 0
    finally:
        sandbox.cleanup()
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
