"""Start-up of the `traceeval` command: the whole process of a few commands, against a bare interpreter.

    .venv/bin/python tests/bench/bench_cli_startup.py [RUNS]

Times (median of RUNS, default 9, after one warm-up run each) `python -c pass`, `traceeval --version`,
`traceeval info` (the bundled demo, its workspace already indexed) and `traceeval trace` of the smallest
demo program, and prints each in ms and as a ratio to `python -c pass` timed in the same process.

It runs the `traceeval` installed next to the interpreter that runs it, so the figures of another
checkout come from running this file with that checkout's interpreter. Bytecode is cached (in a temporary
`PYTHONPYCACHEPREFIX`) as it is for an installed package, even when `PYTHONDONTWRITEBYTECODE` is set here:
without it every run compiles the project's modules again (about 0.2 s more per command).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SMALL_PROGRAM = ROOT / "resources" / "demo" / "benchmark" / "python" / "calcpad_0001"
RUNS = 9


def environment(scratch: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(scratch / "pycache"), HOME=str(scratch / "home"),
               TRACEEVAL_WORKSPACE_DIR=str(scratch / "workspaces"), TRACEEVAL_CACHE_DIR=str(scratch / "cache"),
               TRACEEVAL_CONFIG_DIR=str(scratch / "config"))
    return env


def seconds(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)
    if done.returncode != 0:  # a failed run is no start-up figure
        raise SystemExit(f"{' '.join(argv)}: exit status {done.returncode}\n{done.stderr[-2000:]}")
    return time.perf_counter() - started


def median_seconds(argv: list[str], env: dict[str, str], runs: int) -> float:
    seconds(argv, env)  # warm-up: writes the bytecode, indexes the demo into its workspace, warms the disk
    return statistics.median(seconds(argv, env) for _ in range(runs))


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else RUNS
    traceeval = str(Path(sys.executable).parent / "traceeval")
    commands = (("python -c pass", [sys.executable, "-c", "pass"]),
                ("traceeval --version", [traceeval, "--version"]),
                ("traceeval info", [traceeval, "info"]),
                (f"traceeval trace {SMALL_PROGRAM.name}", [traceeval, "trace", str(SMALL_PROGRAM)]))
    print(f"{traceeval}: median of {runs} runs each")
    with tempfile.TemporaryDirectory(prefix="traceeval-bench-cli-") as scratch:
        env = environment(Path(scratch))
        base = None
        for label, argv in commands:
            median = median_seconds(argv, env, runs)
            base = base or median
            print(f"{label:<34} {median * 1000:8.0f} ms  {median / base:6.1f} x python -c pass", flush=True)


if __name__ == "__main__":
    main()
