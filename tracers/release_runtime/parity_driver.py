"""Run the user's TraceEval release's own functions and write what they return, as JSON.

Started by `tracers.release_sandbox` inside the tracer sandbox as `python parity_driver.py JOB.json SCRIPTS`;
it uses only the standard library and the release's scripts (the sandbox's copy of its `scripts/`, put first on
`sys.path`), so it runs wherever the release runs. For each job item it calls, exactly as the release's own
scripts do:
- `compute_metrics.score_one(gt_dir, results_path, language, norm_modes=list(normalize_edges.ALL_MODES))`
  and `compute_metrics.prf1(tp, fp, fn)`, per (model, language) results file;
- `run_llm.build_prompt(benchmark_dir, ground_truth, language)`, per sampled program;
- `run_llm.parse_llm_response(response, ground_truth)`, per sampled raw answer.
It writes one document to the file named by `$TRACEEVAL_PARITY_OUT` (a descriptor the parent reads with
bounds): the results in the order of the job's items, each only what the release returned (the items stay
with the parent). An item that raises is reported with its error; the others still run.
"""
import json
import os
import platform
import sys
import traceback
from pathlib import Path
from typing import Any

OUT_ENV = "TRACEEVAL_PARITY_OUT"


def _error() -> dict:
    value = sys.exc_info()[1]  # called in an except block: the exception being handled
    text = f"{type(value).__name__}: {value}".splitlines()[0][:300] if value else "failed"
    return {"error": text + "\n" + traceback.format_exc(limit=-2)[-600:]}


def main(job_path: str, scripts: str) -> None:
    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    sys.path.insert(0, scripts)
    import compute_metrics
    import normalize_edges
    import run_llm

    modes = list(normalize_edges.ALL_MODES)
    out: dict[str, Any] = {"python": sys.executable, "python_version": platform.python_version(), "modes": modes,
                           "scores": [], "prompts": [], "answers": []}
    for item in job["scores"]:
        try:
            tp, fp, fn, scored, missing, *_ = compute_metrics.score_one(Path(job["gt_dir"]), Path(item["path"]),
                                                                       item["language"], norm_modes=modes)
            precision, recall, f1 = compute_metrics.prf1(tp, fp, fn)
            out["scores"].append({"tp": tp, "fp": fp, "fn": fn, "programs": scored, "missing": missing,
                                  "precision": precision, "recall": recall, "f1": f1})
        except Exception:  # noqa: BLE001 - the reference code's failure is reported per item
            out["scores"].append(_error())
    for item in job["prompts"]:
        try:
            truth = json.loads(Path(item["dir"], "callgraph.json").read_text(encoding="utf-8"))
            out["prompts"].append({"messages": run_llm.build_prompt(item["dir"], truth, item["language"])})
        except Exception:  # noqa: BLE001 - the reference code's failure is reported per item
            out["prompts"].append(_error())
    for item in job["answers"]:
        try:
            truth = json.loads(Path(item["dir"], "callgraph.json").read_text(encoding="utf-8"))
            out["answers"].append({"graph": run_llm.parse_llm_response(item["response"], truth)})
        except Exception:  # noqa: BLE001 - the reference code's failure is reported per item
            out["answers"].append(_error())
    with open(os.environ[OUT_ENV], "w", encoding="utf-8") as handle:
        json.dump(out, handle)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
