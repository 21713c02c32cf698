"""`traceeval parity`: this tool's paper table, prompts and answer readings against the user's TraceEval release."""
from __future__ import annotations

from core.errors import UsageError
from core.release.checkout import RELEASE_ENV
from core.release.parity import check_parity, render_parity
from traceeval_gui.cli.common import (
    ProgressLine,
    format_option,
    model_names,
    open_workspace,
    release_from,
    release_option,
    selection_from,
    write_output,
)


def register(commands, dataset_args, selection_args) -> None:
    parity = commands.add_parser(
        "parity", help="check this tool's table, prompts and answer readings against your TraceEval release",
        description="Run your TraceEval release's own functions (compute_metrics.score_one with every mode of "
                    "normalize_edges.ALL_MODES, run_llm.build_prompt, run_llm.parse_llm_response) in the tracer "
                    "sandbox (no home, no network, no environment) with your Python, on this workspace's results "
                    "(written in the released format beside copies of the ground truth) and a sample of programs, "
                    "and report cell by cell, prompt by prompt and answer by answer what agrees with this tool "
                    "under the paper's rules. A release found next to the dataset runs only once you confirm it "
                    "(asked on a terminal; --release names it, which confirms it). Exit status 1 on any "
                    "difference, 2 when there is no release to check against or it is not confirmed.")
    dataset_args(parity)
    release_option(parity)
    parity.add_argument("--models", help="comma-separated model names (default: all in the workspace)")
    selection_args(parity, with_modes=False)
    parity.add_argument("--prompts", type=int, default=5, metavar="N",
                        help="programs per language whose prompts and answers are compared (default 5)")
    parity.add_argument("--seed", type=int, default=0, help="seed of the program sample (default 0)")
    parity.add_argument("--python", metavar="PATH",
                        help="the Python that runs the release (default: $TRACEEVAL_PYTHON, else this one)")
    format_option(parity, help="text: a summary and every difference; json: every cell, prompt and answer")
    parity.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    parity.set_defaults(handler=parity_check)


def parity_check(args) -> int:
    if args.prompts < 0:
        raise UsageError(f"--prompts must be 0 or more (got {args.prompts})")
    from tracers.release_sandbox import run_release  # the sandbox, only for the command that uses it

    ws, _ = open_workspace(args)
    with ws:
        release = release_from(args, ws)
        if release is None:
            raise UsageError(f"no TraceEval release to check against: give --release DIR (your checkout of it), set "
                             f"${RELEASE_ENV}, or open the dataset inside the checkout")
        report = check_parity(ws, release, selection_from(args, ws), model_names(args.models, ws), args.prompts,
                              args.python, args.seed, progress=ProgressLine("parity", minimum_total=1),
                              runner=run_release)
    write_output(render_parity(report, args.format), args.output)
    return 0 if report.agrees else 1
