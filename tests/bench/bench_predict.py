"""Model-run overhead at TraceEval scale. Run: python tests/bench/bench_predict.py [--scale 1.0] [--keep DIR]

Prints, on a synthetic copy of the paper's test split (2,129 programs, generated first):
- building every prompt of the test split (workspace lookup + `build_prompt`), against the bare
  cost of reading every source file (the baseline);
- `run_model` over the whole test split against a local chat-completions server
  (tests/llm_server.py) that answers every prompt instantly with its correct answer, at
  concurrency 1, 4 and 16, no answer cache (every prompt goes over HTTP). Since the server
  answers instantly, the run's wall time is the overhead (prompt building, HTTP client, server,
  parsing, scoring, storing); also per prompt (ms) and prompts/s. Each run is checked: every
  program answered, none failed, micro F1 100 %;
- the baselines, same process, same server and prompts, no workspace, no parsing: the same
  requests sent one after another with the bare synchronous `openai` client, and with the bare
  `AsyncOpenAI` client at the same concurrency as each run.
Targets (issue): the 2,129 prompts at concurrency 16 with <= 60 s of overhead; building every
prompt of the test split <= 5 s. With --scale the targets scale with the number of programs.
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.common import private_user_folders, timed  # noqa: E402

_SANDBOX = private_user_folders("predict")  # before anything reads the folders' variables

import openai  # noqa: E402

from core.dataset.indexing import open_dataset  # noqa: E402
from core.languages import registry  # noqa: E402
from core.llm.chat import NO_PLACEHOLDER_KEY  # noqa: E402
from core.llm.endpoints import RunSettings  # noqa: E402
from core.llm.prompts import build_prompt  # noqa: E402
from core.llm.runner import run_model  # noqa: E402
from core.scoring.metrics import micro_scores, sum_counts  # noqa: E402
from core.scoring.normalise import MODES  # noqa: E402
from core.scoring.scores import scoring_key  # noqa: E402
from tests.bench.synthetic import generate, split_ids  # noqa: E402
from tests.llm_server import FakeChatServer, answer_text, truth_answers  # noqa: E402

SHARED_SPLITS = ROOT.parent / "shared" / "traceeval_split"
PAPER_TEST_PROGRAMS = 2129
RUN_TARGET_S = 60.0  # at concurrency 16, for 2,129 prompts
PROMPT_TARGET_S = 5.0  # building 2,129 prompts
CONCURRENCIES = (1, 4, 16)
MODEL = "fake-model"
MAX_TOKENS = 4096


def tag_sources(root: Path) -> None:
    """Append a comment naming the program to its source files. Synthetic programs with the same
    number of functions have the same source and so the same prompt, but different ground truths:
    a server answering by prompt hash could not tell them apart (real programs never collide)."""
    comments = {".py": "#", ".js": "//", ".java": "//"}
    for folder in sorted((root / "benchmark").glob("*/*")):
        for path in sorted(folder.rglob("*")):
            if path.suffix in comments:
                with path.open("a", encoding="utf-8") as handle:
                    handle.write(f"{comments[path.suffix]} synthetic program {folder.name}\n")


# -- prompt building -----------------------------------------------------------------------------
def build_all(ws, keys: list[str]) -> list:
    return [build_prompt(ws.instance(key)) for key in keys]


def read_all_sources(root: Path, rows) -> int:
    """The baseline: read every source file of the programs (paths from the index, nothing else)."""
    total = 0
    for row in rows:
        folder = root / row.folder
        for relative in row.files:
            total += len((folder / relative).read_text(encoding="utf-8"))
    return total


# -- the bare clients (baselines) -------------------------------------------------------------------
def bare_sequential(base_url: str, messages: list[list[dict]]) -> int:
    """Every request one after another with the plain synchronous client; returns the bytes received."""
    client = openai.OpenAI(base_url=base_url, api_key=NO_PLACEHOLDER_KEY, max_retries=0, timeout=60.0)
    received = 0
    try:
        for message in messages:
            response = client.chat.completions.with_raw_response.create(
                model=MODEL, messages=message, temperature=0.0, max_tokens=MAX_TOKENS)
            received += len(response.http_response.content)
    finally:
        client.close()
    return received


def bare_concurrent(base_url: str, messages: list[list[dict]], concurrency: int) -> int:
    """The same requests with the plain async client, `concurrency` in flight."""
    async def drive() -> int:
        client = openai.AsyncOpenAI(base_url=base_url, api_key=NO_PLACEHOLDER_KEY, max_retries=0, timeout=60.0)
        pending = iter(messages)
        received = 0

        async def worker() -> None:
            nonlocal received
            for message in pending:
                response = await client.chat.completions.with_raw_response.create(
                    model=MODEL, messages=message, temperature=0.0, max_tokens=MAX_TOKENS)
                received += len(response.http_response.content)

        try:
            await asyncio.gather(*(worker() for _ in range(min(concurrency, len(messages)))))
        finally:
            await client.close()
        return received

    return asyncio.run(drive())


# -- one measured run --------------------------------------------------------------------------------
def runner_run(ws, answers: dict[str, str], keys: list[str], concurrency: int) -> tuple[float, int, float]:
    """run_model over `keys` under a fresh stored name, against a fresh instant server; checks the
    outcome and returns (wall seconds, max requests in flight, micro F1)."""
    name = f"bench-c{concurrency}"
    with FakeChatServer(truth_answers(answers)) as server:
        settings = RunSettings(server.base_url, MODEL, name=name, concurrency=concurrency, timeout_s=60.0,
                               retries=2, max_tokens=MAX_TOKENS, use_cache=False)
        report, _ = timed(f"run_model, concurrency {concurrency:>2}",
                          lambda: run_model(ws, settings, keys, cache=None, backoff_base_s=0.01))
        requests, in_flight = len(server.chat_requests()), server.max_in_flight
    assert report.status == "finished", (report.status, report.message)
    assert report.answered == len(keys) and not report.failed and report.skipped == 0, \
        (report.answered, report.failed[:3], report.skipped)
    assert requests == len(keys), f"{requests - len(keys)} retried requests"
    assert ws.predicted_keys(name) == set(keys)
    counts = ws.cached_counts(name, scoring_key(MODES))
    assert counts.keys() == set(keys), f"{len(set(keys) - counts.keys())} answers without cached counts"
    f1 = micro_scores(sum_counts(counts.values())).f1
    return report.wall_s, in_flight, f1


def bare_run(label: str, action) -> float:
    _, seconds = timed(label, action)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the paper's program counts")
    parser.add_argument("--keep", type=Path, help="generate into (and keep) this folder; reused when present")
    args = parser.parse_args()
    temporary = None if args.keep else tempfile.TemporaryDirectory(prefix="traceeval-bench-predict-")
    work = args.keep or Path(temporary.name)
    try:
        root = work / "dataset"
        from_real = SHARED_SPLITS.is_dir()
        if not (root / "benchmark").is_dir():
            ids = split_ids(SHARED_SPLITS if from_real else None, args.scale)
            only_test = {"test": ids["test"], "train": {language: [] for language in registry.names()}}
            timed("generate the synthetic test split (no results files)",
                  lambda: generate(root, only_test, models=0))
            timed("  tag each program's source with its id (unique prompts)", lambda: tag_sources(root))
        workspace = work / "bench.sqlite"
        for suffix in ("", "-wal", "-shm"):
            Path(str(workspace) + suffix).unlink(missing_ok=True)
        (ws, report), _ = timed("index into a new workspace", lambda: open_dataset(root, workspace))
        try:
            rows = ws.instance_rows(split="test")
            keys = [row.key for row in rows]
            n = len(keys)
            print(f"test programs: {n:,}  (ids from {'the real split files' if from_real else 'made-up names'}; "
                  f"problems reported: {len(report.problems)})")
            scale = n / PAPER_TEST_PROGRAMS
            prompt_target, run_target = PROMPT_TARGET_S * scale, RUN_TARGET_S * scale

            # prompts
            chars, read_s = timed("baseline: read every source file", lambda: read_all_sources(root, rows))
            prompts, prompt_s = timed("build every prompt (ws.instance + build_prompt)", lambda: build_all(ws, keys))
            prompt_chars = sum(len(p.system) + len(p.user) for p in prompts)
            print(f"  {chars / 1e6:.1f} M characters of source, {prompt_chars / 1e6:.1f} M characters of prompts")

            # what the server answers: the correct answer for each prompt (outside the timed part)
            answers = {p.hash: answer_text(ws.instance(p.instance_key).ground_truth) for p in prompts}
            messages = [p.messages for p in prompts]
            assert len(answers) == n, "two prompts with the same hash"

            # baselines: the bare clients, same server, same prompts
            with FakeChatServer(truth_answers(answers)) as server:
                seq_s = bare_run("baseline: bare sync client, one after another",
                                 lambda: bare_sequential(server.base_url, messages))
                assert len(server.chat_requests()) == n
            bare_s = {}
            for concurrency in CONCURRENCIES:
                with FakeChatServer(truth_answers(answers)) as server:
                    bare_s[concurrency] = bare_run(f"baseline: bare AsyncOpenAI, concurrency {concurrency:>2}",
                                                   lambda: bare_concurrent(server.base_url, messages, concurrency))  # noqa: B023
                    assert len(server.chat_requests()) == n

            # the runner
            runs = {c: runner_run(ws, answers, keys, c) for c in CONCURRENCIES}
        finally:
            ws.close()

        print()
        print(f"{'run_model over the test split':<36} {'wall s':>8} {'ms/prompt':>10} {'prompts/s':>10} "
              f"{'in flight':>9} {'micro F1':>9} {'x bare async':>12} {'x bare sync':>11}")
        for concurrency, (wall, in_flight, f1) in runs.items():
            print(f"{f'  concurrency {concurrency}':<36} {wall:8.2f} {1000 * wall / n:10.2f} {n / wall:10.1f} "
                  f"{in_flight:9d} {100 * f1:8.1f}% {wall / bare_s[concurrency]:12.2f} {wall / seq_s:11.2f}")
        for concurrency, seconds in bare_s.items():
            print(f"{f'  bare AsyncOpenAI, concurrency {concurrency}':<36} {seconds:8.2f} {1000 * seconds / n:10.2f} "
                  f"{n / seconds:10.1f}")
        print(f"{'  bare sync client, sequential':<36} {seq_s:8.2f} {1000 * seq_s / n:10.2f} {n / seq_s:10.1f}")
        print()
        wall16 = runs[16][0]
        print(f"overhead at concurrency 16: {wall16:.2f} s for {n:,} prompts (target <= {run_target:.0f} s): "
              f"{'met' if wall16 <= run_target else 'MISSED'}")
        print(f"prompts: {prompt_s:.2f} s for {n:,} programs, {1000 * prompt_s / n:.2f} ms each "
              f"(target <= {prompt_target:.1f} s): {'met' if prompt_s <= prompt_target else 'MISSED'}; "
              f"{prompt_s / read_s:.1f}x the bare file reads ({read_s:.3f} s)")
        print(f"run_model at concurrency 16 vs the bare clients: {wall16 / bare_s[16]:.2f}x bare AsyncOpenAI "
              f"at 16, {wall16 / seq_s:.2f}x the bare sync client one after another")
        met = wall16 <= run_target and prompt_s <= prompt_target
        return 0 if met else 1
    finally:
        if temporary is not None:
            temporary.cleanup()


if __name__ == "__main__":
    sys.exit(main())
