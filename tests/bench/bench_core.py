"""Core performance at TraceEval scale. Run: python tests/bench/bench_core.py [--scale 1.0] [--keep DIR]

Prints: indexing 10,583 programs into a new workspace, reopening it, importing 10 models'
results (which scores them with the paper's modes), the 10-model paper table on the test split
with every normalisation mode (as served, and cold: score cache dropped, empty name cache), and
the same table from a straightforward loop that reloads every JSON file and normalises every
name afresh (the baseline, same process); then `traceeval parity` against a stand-in release
(tests/release_standin.py) on the whole test split, its functions run in the tracer sandbox, beside the same driver
run on the host (as parity ran before issue #36: the sandbox's cost) and the stand-in's own scoring alone.
Targets (issue #2): index <= 20 s, reopen <= 1 s, table <= 3 s and >= 5x faster than the baseline.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.dataset.indexing import open_dataset  # noqa: E402
from core.release.checkout import usable_release  # noqa: E402
from core.release.parity import JOB_FILE, DriverOutput, DriverRun, check_parity  # noqa: E402
from core.results.importing import import_results  # noqa: E402
from core.scoring import normalise, normalise_paper  # noqa: E402
from core.scoring.metrics import Counts, macro_average, micro_scores  # noqa: E402
from core.scoring.normalise import MODES  # noqa: E402
from core.scoring.scores import Selection, score_table  # noqa: E402
from tests.bench.common import timed  # noqa: E402
from tests.bench.synthetic import corrupt, generate, split_ids  # noqa: E402
from tests.release_standin import write_release  # noqa: E402
from tracers.release_sandbox import DRIVER, OUT_ENV, run_release  # noqa: E402

SHARED_SPLITS = ROOT.parent / "shared" / "traceeval_split"


def baseline_table(root: Path, modes: frozenset[str]) -> dict[str, tuple[float, float, float]]:
    """The straightforward way: per results file, reload it and every ground truth, normalise every name."""
    totals: dict[str, dict[str, Counts]] = {}
    for path in sorted((root / "results").glob("*.json")):
        data = json.loads(path.read_text())
        model, language = data["metadata"]["model"], data["metadata"]["language"]
        counts = Counts()
        for program_id, record in data["results"].items():
            truth_file = root / "benchmark" / language / program_id / "callgraph.json"
            try:
                truth = json.loads(truth_file.read_text())
            except (OSError, ValueError):
                continue
            if not isinstance(truth, dict):
                continue
            gold = _edges(truth, language, modes)
            predicted = _edges(record["prediction"], language, modes)
            tp = len(gold & predicted)
            counts = counts + Counts(tp, len(predicted) - tp, len(gold) - tp)
        totals.setdefault(model, {})[language] = counts
    out = {}
    for model, per_language in totals.items():
        average = macro_average({lang: micro_scores(c) for lang, c in per_language.items()})
        out[model] = (average.precision, average.recall, average.f1)
    return out


def _edges(graph: dict, language: str, modes: frozenset[str]) -> set:
    edges = set()
    for caller, callees in graph.items():
        for callee in callees:
            a = normalise_paper.normalise(caller, language, modes)  # uncached, on purpose
            b = normalise_paper.normalise(callee, language, modes)
            if a is not None and b is not None:
                edges.add((a, b))
    return edges


def _release_alone(script: Path, root: Path) -> float:
    """The stand-in release's own score_one over the generated results files, in a fresh interpreter."""
    code = ("import sys, time; from pathlib import Path; sys.path.insert(0, sys.argv[1]); import compute_metrics as c, "
            "normalize_edges as n; t = time.perf_counter(); [c.score_one(Path(sys.argv[2]) / 'benchmark', p, "
            "p.name.split('_')[-3], list(n.ALL_MODES)) for p in sorted(Path(sys.argv[2], 'results').glob('*.json'))]; "
            "print(time.perf_counter() - t)")
    done = subprocess.run([sys.executable, "-c", code, str(script.parent), str(root)], capture_output=True, text=True,
                          check=True)
    return float(done.stdout)


def _on_the_host(run: DriverRun) -> DriverOutput:
    """The same driver on the same job, on the host with no sandbox (how parity ran before issue #36): only here,
    to price the sandbox."""
    with tempfile.TemporaryDirectory(prefix="traceeval-bench-parity-") as work:
        run.write_job(Path(work))
        out = Path(work) / "report.json"
        subprocess.run([sys.executable, str(DRIVER), str(Path(work) / JOB_FILE), str(run.release.digest.folder)],
                       env={**os.environ, OUT_ENV: str(out)}, check=True)
        return DriverOutput(out.read_text(encoding="utf-8"), "none (on the host)")


def _fixed_cost(work: Path, rounds: int = 7) -> tuple[float, float]:
    """Median seconds of parity on the demo (15 programs, its two illustrative models): in the sandbox, on the host.
    At this size the check is little more than starting the release, so the difference is the sandbox's start."""
    from resources import DEMO_DATASET

    checkout = write_release(work / "demo-release", with_data=DEMO_DATASET)
    release = usable_release(checkout)
    ws, _ = open_dataset(checkout / "data", work / "demo-release.sqlite")
    times: dict[str, list[float]] = {"sandbox": [], "host": []}
    with ws:
        import_results(ws, [DEMO_DATASET / "results"])
        for _ in range(rounds):
            for name, runner in (("sandbox", run_release), ("host", _on_the_host)):
                started = time.perf_counter()
                check_parity(ws, release, Selection(), runner=runner)
                times[name].append(time.perf_counter() - started)
                (checkout / "scripts" / "IMPORTED").unlink(missing_ok=True)  # the host run wrote it beside the scripts
    return statistics.median(times["sandbox"]), statistics.median(times["host"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the paper's program counts")
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="generate into (and keep) this folder")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="traceeval-bench-"))
    try:
        root = work / "dataset"
        if not (root / "benchmark").is_dir():
            ids = split_ids(SHARED_SPLITS if SHARED_SPLITS.is_dir() else None, args.scale)
            timed("generate synthetic dataset + results", lambda: generate(root, ids, args.models))
            broken = corrupt(root, dict(ids["train"]))  # train programs: the results cover the test split
            print(f"  corrupted on purpose: {', '.join(broken)}")
        total = sum(1 for _ in (root / "benchmark").glob("*/*"))
        print(f"programs: {total:,}  models: {args.models}  (ids from "
              f"{'the real split files' if SHARED_SPLITS.is_dir() else 'made-up names'})")
        workspace = work / "bench.sqlite"
        for suffix in ("", "-wal", "-shm"):
            Path(str(workspace) + suffix).unlink(missing_ok=True)

        (ws, report), index_s = timed("index into a new workspace", lambda: open_dataset(root, workspace))
        print(f"  indexed {report.instances:,}, problems reported: {len(report.problems)}")
        for problem in report.problems:
            print(f"    {problem}")
        ws.close()
        (ws, report), reopen_s = timed("reopen (nothing changed)", lambda: open_dataset(root, workspace))
        imported, _ = timed("import 10 models (parse, store, score)", lambda: import_results(
            ws, [root / "results"]))
        print(f"  stored {sum(imported.stored.values()):,} predictions")

        selection = Selection(split="test")
        table, warm_s = timed("paper table, all modes, test split",
                              lambda: score_table(ws, selection=selection, modes=MODES))
        ws.db.execute("delete from scores")
        normalise._CACHES.clear()
        _, cold_s = timed("  the same, cold (score cache dropped, no name cache)",
                          lambda: score_table(ws, selection=selection, modes=MODES))
        baseline, base_s = timed("baseline: reload JSON, normalise every name", lambda: baseline_table(
            root, frozenset(MODES)))
        release = usable_release(write_release(work / "TraceEva"))
        parity, parity_s = timed("traceeval parity against a stand-in release, test split (sandbox)",
                                 lambda: check_parity(ws, release, selection, prompts_per_language=5,
                                                      runner=run_release))
        host, host_s = timed("  the same driver on the host, no sandbox (before #36)",
                             lambda: check_parity(ws, release, selection, prompts_per_language=5,
                                                  runner=_on_the_host))
        release_s = _release_alone(release.script, root)
        ws.close()
        demo_sandbox_s, demo_host_s = _fixed_cost(work)

        ours = {row.model: (row.average.precision, row.average.recall, row.average.f1) for row in table.rows}
        same = ours.keys() == baseline.keys() and all(
            all(abs(a - b) < 1e-12 for a, b in zip(ours[m], baseline[m], strict=True)) for m in ours)
        print()
        print(f"index {index_s:.2f} s (target <= 20) | reopen {reopen_s:.3f} s (<= 1) | "
              f"table {warm_s:.2f} s, cold {cold_s:.2f} s (<= 3) | baseline {base_s:.2f} s")
        print(f"speed-up over the baseline: table {base_s / warm_s:.0f}x, cold {base_s / cold_s:.1f}x (target >= 5x)")
        print(f"same numbers as the baseline: {'yes' if same else 'NO'}")
        print(f"parity {parity_s:.2f} s in the sandbox ({len(parity.cells)} cells, {len(parity.prompts)} prompts, "
              f"{len(parity.answers)} answers: {'full agreement' if parity.agrees else 'DIFFERENCES'}) | on the host "
              f"{host_s:.2f} s (the sandbox costs {parity_s - host_s:+.2f} s) | the stand-in release scoring the "
              f"same results alone {release_s:.2f} s ({parity_s / release_s:.1f}x)")
        print(f"parity on the demo (median of 7): {demo_sandbox_s:.3f} s in the sandbox, {demo_host_s:.3f} s on the "
              f"host: the sandbox's start costs {demo_sandbox_s - demo_host_s:+.3f} s a check")
        return 0 if same and parity.agrees and host.agrees else 1
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
