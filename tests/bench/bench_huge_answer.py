"""One absurd endpoint answer in `predict`. Run: python tests/bench/bench_huge_answer.py [--callees N] [--repeat 3]

Issue #36 item 8: one answer naming 10^6 callees cost `predict` 83 s and 1.2 GB. This runs the real `traceeval
predict` (a subprocess) on the bundled demo against a local chat server (tests/llm_server.py) that answers one
program (java/exprtree_0001, whose Java names the normaliser works hardest on) with --callees distinct callees on its
first question and every other program with its ground truth; then the same run with that program answered with its
ground truth (the baseline). Prints each run's wall time, CPU time (steadier on a busy machine) and peak memory (the
process's maximum resident set), the least of --repeat runs, and what the huge answer adds. The answer stays under
the 16 MiB response bound at 10^6 callees (`main.f123456, ` is 14 bytes). Compare two trees with
PYTHONPATH=/path/to/other/checkout (the command runs from that folder).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.common import private_user_folders  # noqa: E402

_SANDBOX = private_user_folders("huge-answer")  # before anything reads the folders' variables

from core.dataset.indexing import open_dataset  # noqa: E402
from core.llm.prompts import build_prompt  # noqa: E402
from resources import DEMO_DATASET  # noqa: E402
from tests.llm_server import FakeChatServer, answer_text, ok, request_prompt_hash  # noqa: E402

VICTIM = "java/exprtree_0001"


def answers(workspace: Path, callees: int) -> tuple[dict[str, str], str, str]:
    """The ground truth's answer per prompt hash, the victim's prompt hash and the huge answer for it."""
    ws, _ = open_dataset(DEMO_DATASET, workspace)
    with ws:
        instances = [ws.instance(row.key) for row in ws.instance_rows()]
    truth = {build_prompt(i).hash: answer_text(i.ground_truth) for i in instances if i is not None}
    victim = next(i for i in instances if i is not None and i.key == VICTIM)
    keys = victim.ground_truth.keys
    huge = "1. " + ", ".join(f"main.f{n}" for n in range(callees)) + "\n" + \
        "\n".join(f"{n}. none" for n in range(2, len(keys) + 1))
    return truth, build_prompt(victim).hash, huge


def predict(folder: Path, server: FakeChatServer) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak resident MB) of one `traceeval predict` in a fresh workspace. The command runs
    under a small Python that reports its one child's use (RUSAGE_CHILDREN would otherwise hold the largest peak of
    all runs). CPU seconds are the steadier figure on a busy machine."""
    workspace = folder / "run.sqlite"
    for leftover in folder.glob("run.sqlite*"):
        leftover.unlink()
    argv = [sys.executable, "-m", "traceeval_gui.cli.main", "predict", "--workspace", str(workspace), "--model", "m",
            "--base-url", server.base_url, "--split", "all", "--out", str(folder / "results"), "--no-cache"]
    measure = ("import resource, subprocess, sys, time; started = time.perf_counter(); "
               "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True); "
               "wall = time.perf_counter() - started; "
               "use = resource.getrusage(resource.RUSAGE_CHILDREN); "
               "print(done.returncode, wall, use.ru_utime + use.ru_stime, use.ru_maxrss); "
               "print(done.stderr[-2000:], file=sys.stderr)")
    tree = os.environ.get("PYTHONPATH", str(ROOT))  # run from the tree measured: `-m` puts the current folder first
    done = subprocess.run([sys.executable, "-c", measure, *argv], env={**os.environ, "PYTHONPATH": tree}, cwd=tree,
                          capture_output=True, text=True, check=False)
    code, wall, cpu, peak_kb = done.stdout.split()
    if code != "0":
        raise SystemExit(f"predict failed ({code}):\n{done.stderr}")
    return float(wall), float(cpu), int(peak_kb) / 1024


def best(runs: int, folder: Path, server: FakeChatServer) -> tuple[float, ...]:
    """The least wall time, CPU time and peak of `runs` runs."""
    results = [predict(folder, server) for _ in range(runs)]
    return tuple(min(figures) for figures in zip(*results, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callees", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="traceeval-bench-huge-") as temporary:
        folder = Path(temporary)
        truth, victim_hash, huge = answers(folder / "answers.sqlite", args.callees)
        print(f"tree: {os.environ.get('PYTHONPATH', ROOT)}; {VICTIM} answered with {args.callees:,} callees "
              f"({len(huge.encode()) / 2 ** 20:.1f} MiB), the other programs with their truth")
        answer = {"huge": ok(huge)}

        def respond(request: dict, attempt: int):
            prompt = request_prompt_hash(request)
            return answer["huge"] if prompt == victim_hash else ok(truth[prompt])

        with FakeChatServer(respond) as server:
            huge = best(args.repeat, folder, server)
            answer["huge"] = ok(truth[victim_hash])
            ordinary = best(args.repeat, folder, server)
    print(f"{'':<34} {'wall':>9} {'CPU':>9} {'peak':>9}")
    for label, (wall, cpu, peak) in (("predict, one huge answer", huge), ("predict, every answer ordinary", ordinary),
                                     ("what the huge answer adds", [a - b for a, b in zip(huge, ordinary)])):
        print(f"{label:<34} {wall:7.2f} s {cpu:7.2f} s {peak:6.0f} MB")


if __name__ == "__main__":
    main()
