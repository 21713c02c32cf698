"""`traceeval build | candidates`: new verified instances from any repository (core.instances)."""
from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import UsageError
from core.instances.records import REJECTION_REASONS
from core.languages import registry
from core.llm.endpoints import RunSettings, remember_endpoint, resolve_api_key
from core.safe_files import MAX_CONFIG_BYTES, MAX_SOURCE_BYTES, read_text, why_unreadable
from traceeval_gui.cli.common import (
    ProgressLine,
    endpoint_options,
    format_option,
    print_document,
    records_text,
    run_settings,
    sigint_sets,
)

if TYPE_CHECKING:
    from core.instances.batch import BatchReport


def register(commands) -> None:
    build = commands.add_parser(
        "build", help="build new verified benchmark programs from repositories (resumable; local pool or Dask)",
        description="For each repository: find candidate targets (functions, methods and classes calling enough "
                    "of the repository's own code), gather the files each needs, ask a model for a harness "
                    "(the prompt template is resources/build/harness_prompt.md, or --prompt-template), run it "
                    "under the tracer --runs times and accept it only when every run finished within the limits, "
                    "the edge sets were identical and at least --min-edges internal edges were seen. Accepted "
                    "programs are de-duplicated, split by repository and written to DATASET in the released "
                    "layout with README provenance; every rejection is logged with its reason (DATASET/build/). "
                    "Finished repositories are kept, so an interrupted build resumes. Exit status 1 when some "
                    "repositories could not be used or the build stopped early, 130 when interrupted.")
    build.add_argument("repos", metavar="REPO_DIR", nargs="*", help="repository folders (git checkouts or not)")
    build.add_argument("--repos-from", metavar="FILE", help="a file with one repository folder per line (# comments)")
    build.add_argument("--language", required=True, choices=registry.names(), help="language of the programs to build")
    build.add_argument("--out", required=True, metavar="DATASET", help="the dataset folder to build (created)")
    build.add_argument("--max-per-repo", type=int, default=5, metavar="N",
                       help="programs accepted per repository at most (default 5)")
    build.add_argument("--max-tries", type=int, default=0, metavar="N",
                       help="harnesses asked for per repository at most (default: 3 x --max-per-repo)")
    build.add_argument("--min-callees", type=int, default=2, metavar="N",
                       help="a target must call at least N of the repository's functions (default 2)")
    build.add_argument("--min-edges", type=int, default=3, metavar="K",
                       help="internal call edges a harness must show (default 3)")
    build.add_argument("--runs", type=int, default=3, help="runs per harness; all must agree (default 3)")
    build.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                       help="wall-clock limit of one run (default 10)")
    build.add_argument("--max-files", type=int, default=20, metavar="N", help="files a program may need (default 20)")
    build.add_argument("--target", action="append", default=[], metavar="NAME",
                       help="only this candidate (repeatable; see 'traceeval candidates')")
    build.add_argument("--harness", metavar="FILE",
                       help="use this hand-written harness instead of asking a model (one repository, one --target)")
    endpoint = build.add_argument_group("the model that writes harnesses (any OpenAI-compatible endpoint)")
    endpoint.add_argument("--model", help="model id sent to the endpoint")
    endpoint.add_argument("--base-url", metavar="URL", help="the endpoint's base URL, e.g. http://localhost:8000/v1")
    endpoint_options(endpoint, timeout_option="--request-timeout")
    endpoint.add_argument("--prompt-template", metavar="FILE",
                          help="the harness prompt (default: the bundled resources/build/harness_prompt.md)")
    output = build.add_argument_group("the dataset")
    output.add_argument("--test-share", type=float, default=0.2, metavar="SHARE",
                        help="share of programs in the test split, whole repositories at a time (default 0.2)")
    output.add_argument("--seed", type=int, default=0, help="seed of the split (default 0)")
    output.add_argument("--dedup-threshold", type=float, default=0.9, metavar="SIMILARITY",
                        help="drop a program this similar to one kept before it (token 5-gram Jaccard, default 0.9)")
    where = build.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=int, default=2, metavar="N", help="local worker processes (default 2)")
    where.add_argument("--cluster", metavar="ADDRESS",
                       help="run the repositories on a Dask scheduler, e.g. tcp://10.0.0.5:8786 (the workers must "
                            "see the repository folders at the same paths)")
    format_option(build, help="the summary's format: text or json (one document)")
    build.set_defaults(handler=build_command)

    candidates = commands.add_parser(
        "candidates", help="list a repository's candidate targets and the files each needs (no model, no tracing)",
        description="The first step of 'traceeval build': every function, method and class calling at least "
                    "--min-callees of the repository's own functions, with the files its program would hold, "
                    "and the targets that cannot stand alone with the reason.")
    candidates.add_argument("repo", metavar="REPO_DIR", help="the repository folder")
    candidates.add_argument("--language", required=True, choices=registry.names(), help="language of the targets")
    candidates.add_argument("--min-callees", type=int, default=2, metavar="N",
                            help="a target must call at least N of the repository's functions (default 2)")
    candidates.add_argument("--max-files", type=int, default=20, metavar="N",
                            help="files a program may need (default 20)")
    format_option(candidates, ("text", "json", "jsonl", "csv"),
                  help="text: a numbered list; json: the candidates and the targets that cannot stand alone; "
                       "jsonl, csv: one candidate per line")
    candidates.set_defaults(handler=candidates_command)


def build_command(args) -> int:
    from core.instances.batch import run_batch  # core.instances brings the model client, tree-sitter and numpy
    from core.instances.harness import HarnessTemplate
    from core.instances.output import FinalOptions, prepare_output
    from core.instances.pipeline import BuildOptions
    from tracers import trace_for_build

    repos = [Path(path) for path in args.repos] + _listed_repos(args.repos_from)
    if not repos:
        raise UsageError("no repository given (REPO_DIR or --repos-from FILE)")
    options = BuildOptions(args.language, max_per_repo=args.max_per_repo, max_tries=args.max_tries,
                           min_callees=args.min_callees, min_edges=args.min_edges, runs=args.runs,
                           timeout_s=args.timeout, max_files=args.max_files)
    settings, harness_text = _harness_source(args, repos)
    template = HarnessTemplate.load(args.prompt_template)
    if not 0 < args.dedup_threshold <= 1:
        raise UsageError(f"--dedup-threshold must be more than 0 and at most 1 (got {args.dedup_threshold}); "
                         "1 drops only programs with the very same tokens")
    final = FinalOptions(args.test_share, args.seed, args.dedup_threshold)
    prepare_output(Path(args.out))
    if settings is not None:
        remember_endpoint(settings)
    where = f"on the Dask cluster at {args.cluster}" if args.cluster else f"with {_count(args.jobs, 'local worker')}"
    print(f"building {args.language} programs from {_count(len(repos), 'repository')} {where} into {args.out}",
          file=sys.stderr)
    cancel = threading.Event()
    progress = ProgressLine("build", minimum_total=1)
    with sigint_sets(cancel, "stopping: repositories being built are finished and kept, the others are left for "
                             "a rerun (Ctrl-C again to quit at once)"):
        report = run_batch(repos, Path(args.out), options, settings, template, trace_for_build, final=final,
                           jobs=args.jobs, cluster=args.cluster,
                           api_key=resolve_api_key(settings) if settings else None,
                           targets=args.target, harness_text=harness_text, progress=progress, cancel=cancel)
    _print_report(report, args.out, args.format)
    if report.interrupted:
        return 130
    unreadable = report.summary.failed_repositories if report.summary else []
    return 1 if report.failed or report.stopped or unreadable else 0


def _count(n: int, noun: str) -> str:
    plural = noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
    return f"{n:,} {noun if n == 1 else plural}"


def _listed_repos(path: str | None) -> list[Path]:
    if not path:
        return []
    try:
        lines = read_text(path, MAX_CONFIG_BYTES).splitlines()
    except OSError as error:
        raise UsageError(f"{path}: cannot read the repository list: {why_unreadable(error)}") from None
    base = Path(path).parent
    entries = [line.split("#", 1)[0].strip() for line in lines]
    return [Path(entry) if Path(entry).is_absolute() else base / entry for entry in entries if entry]


def _harness_source(args, repos: list[Path]) -> tuple[RunSettings | None, str]:
    """The endpoint to ask, or a hand-written harness (then no endpoint is needed)."""
    if args.harness:
        if len(repos) != 1 or len(args.target) != 1:
            raise UsageError("--harness needs exactly one REPO_DIR and one --target")
        try:
            return None, read_text(args.harness, MAX_SOURCE_BYTES)
        except OSError as error:
            raise UsageError(f"{args.harness}: cannot read the harness: {why_unreadable(error)}") from None
    if not args.model or not args.base_url:
        raise UsageError("--model and --base-url are needed to ask for harnesses (or give --harness FILE)")
    return run_settings(args), ""


def _print_report(report: BatchReport, out: str, output_format: str) -> None:
    summary = report.summary
    if output_format == "json":
        print_document("build", {"language": report.language, "repositories": report.repositories,
                                 "resumed": report.resumed, "built": report.built, "failed": report.failed,
                                 "stopped": report.stopped, "seconds": round(report.seconds, 2),
                                 "summary": summary.to_dict() if summary else None})
        return
    for repo, error in report.failed:
        print(f"failed: {repo}: {error}", file=sys.stderr)
    if report.stopped:
        print(report.stopped, file=sys.stderr)
    print(f"{report.language}: {_count(report.repositories, 'repository')} ({report.built} built now, "
          f"{report.resumed} already built, {len(report.failed)} failed) in {report.seconds:.1f} s")
    if summary is None:
        return
    for repo, error in summary.failed_repositories:
        print(f"repository {repo} could not be used: {error}", file=sys.stderr)
    print(f"candidates {summary.candidates}, harnesses tried {summary.tried}, not tried {summary.untried}")
    print(f"accepted {summary.accepted}: test {summary.splits.get('test', 0)} "
          f"({_count(summary.split_repos.get('test', 0), 'repository')}), train {summary.splits.get('train', 0)} "
          f"({_count(summary.split_repos.get('train', 0), 'repository')})")
    rejected = sum(summary.rejected.values())
    print(f"rejected {rejected}" + (":" if rejected else ""))
    for reason in REJECTION_REASONS:
        if summary.rejected.get(reason):
            print(f"  {reason:<20} {summary.rejected[reason]}")
    print(f"dataset: {out}; logs and every rejection with its reason: {Path(out) / 'build'}")


def candidates_command(args) -> int:
    from core.instances.candidates import find_candidates

    candidates, problems = find_candidates(Path(args.repo), args.language, min_callees=args.min_callees,
                                           max_files=args.max_files)
    records = [{"name": c.name, "kind": c.kind, "file": c.original_file, "line": c.line,
                "internal_callees": list(c.internal_callees), "files": c.files} for c in candidates]
    if args.format == "json":
        print_document("candidates", {"candidates": records,
                                      "cannot_stand_alone": [{"name": p.name, "file": p.file, "reason": p.reason,
                                                              "detail": p.detail} for p in problems]})
        return 0
    if args.format in ("jsonl", "csv"):
        print(records_text(records, args.format, ("name", "kind", "file", "line", "internal_callees", "files")),
              end="")
        return 0
    print(f"{len(candidates)} candidate(s) in {args.repo} ({args.language}):")
    for number, c in enumerate(candidates, 1):
        print(f"{number:>3}. {c.name} ({c.kind}, {c.original_file}:{c.line}): calls {len(c.internal_callees)}, "
              f"needs {len(c.files)} file(s)")
    if problems:
        print(f"{len(problems)} target(s) that cannot stand alone:")
        for p in problems:
            print(f"  {p.name} ({p.file}): {p.reason}: {p.detail}")
    return 0
