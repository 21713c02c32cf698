"""`traceeval prompt | predict | answer | runs`: TraceEval prompts through any OpenAI-compatible endpoint."""
from __future__ import annotations

import dataclasses
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from core.llm.dry_run import dry_run
from core.llm.endpoints import RunSettings, remember_endpoint, resolve_api_key
from core.llm.prices import PriceTable
from core.llm.prompt_wording import wording_label
from core.llm.prompts import approximate_tokens, build_prompt
from core.report.shown_response import shown_problems, shown_response
from core.results.writer import write_released_results
from core.scoring.answers import answer_lines, unanswered_questions
from core.scoring.normalise import MODES
from core.scoring.over_runs import over_runs_table
from core.scoring.over_runs_tables import over_runs_body, render_over_runs
from core.scoring.rules import PAPER, rules_title
from core.scoring.scores import score_table
from core.scoring.tables import render_table, table_to_dict
from traceeval_gui.cli.common import (
    ProgressLine,
    endpoint_options,
    format_option,
    instance_arg,
    instance_key_of,
    open_workspace,
    print_document,
    program_options,
    records_text,
    release_option,
    rules_option,
    run_settings,
    selected_keys,
    selection_from,
    sigint_sets,
    wording_from,
)

if TYPE_CHECKING:
    from core.llm.runner import RunReport

RUN_COLUMNS = ("id", "model", "endpoint_model", "base_url", "started_at", "finished_at", "status", "message",
               "requested", "skipped", "answered", "cached", "failed", "tokens_in", "tokens_out", "cost_usd", "wall_s",
               "params")


def register(commands, dataset_help: str, dataset_args, workspace_args) -> None:
    prompt = commands.add_parser(
        "prompt", help="show the exact TraceEval prompt for one program (system and user message)",
        description="Print the prompt a model gets for one program, exactly as the paper's run_llm.py assembles it: "
                    "the system message, then the user message with the instructions, the language's worked "
                    "example, every source file fenced and labelled with its path, and the numbered questions. "
                    "The words are your TraceEval release's (--release) or, without one, this project's own, and "
                    "the output says which.")
    instance_arg(prompt)
    prompt.add_argument("--dataset", help=dataset_help)
    workspace_args(prompt)
    release_option(prompt)
    rules_option(prompt, "the prompt is assembled")
    format_option(prompt, help="text: the wording, then both messages; json: messages, question keys, hash, "
                               "size and wording")
    prompt.set_defaults(handler=show_prompt)

    predict = commands.add_parser(
        "predict", help="run a model on the benchmark through an OpenAI-compatible endpoint (resumable)",
        description="Send every selected program's TraceEval prompt (in your release's wording with --release, "
                    "else this project's, labelled as not the paper's) to an OpenAI-compatible chat-completions "
                    "endpoint (OpenAI, vLLM, Ollama, ...), parse the answers with the paper's parser and store "
                    "them in the workspace as model NAME (default: the model id). Answered programs are skipped, "
                    "so an interrupted run resumes where it stopped; answers are cached by prompt, model and "
                    "parameters. Writes released results files (<model>_<language>_t0.0_r0.json) and prints "
                    "the paper's score table. The API key comes from --api-key-env, $TRACEEVAL_API_KEY, "
                    "$OPENAI_API_KEY or the user's credentials file; it is never logged or stored. "
                    "Exit status 1 when some programs could not be answered, 130 when interrupted.")
    dataset_args(predict)
    predict.add_argument("--model", required=True, help="model id sent to the endpoint")
    predict.add_argument("--base-url", required=True, metavar="URL",
                         help="the endpoint's base URL, e.g. https://api.openai.com/v1 or http://localhost:8000/v1")
    predict.add_argument("--name", help="name of the model in the workspace (default: the model id)")
    program_options(predict)
    predict.add_argument("--jobs", type=int, default=4, metavar="N", help="requests in flight at once (default 4)")
    endpoint_options(predict)
    release_option(predict)
    rules_option(predict, "the prompt is assembled")
    predict.add_argument("--prices", metavar="FILE",
                         help='price table, JSON {"<model or pattern>": {"input_per_mtok": 3.0, "output_per_mtok": '
                              '15.0, "batch_discount": 0.5}} or the same as TOML (a .toml file)')
    predict.add_argument("--runs", type=int, default=1, metavar="N",
                         help="run the model N times (default 1): run 0 is stored as NAME, run i as NAME@r<i>, each "
                              "resumable, each written to _t<T>_r<i> results files; prints mean ± sd over the runs")
    predict.add_argument("--seeds", metavar="S1,S2,...",
                         help="one request seed per run (sent as 'seed'; at temperature 0 the runs differ only "
                              "through seeds and the endpoint's non-determinism)")
    predict.add_argument("--temperatures", metavar="T1,T2,...",
                         help="one temperature per run, or one for all (default: --temperature)")
    predict.add_argument("--tokenizer", metavar="FILE",
                         help="with --dry-run: count input tokens with this Hugging Face tokenizer.json (default: "
                              "tiktoken for OpenAI models when its encoding is cached here, else ≈ characters / 4)")
    predict.add_argument("--batch", action="store_true",
                         help="with --dry-run: price the requests as a batch (the price's batch discount, 50%% "
                              "unless the price file says otherwise)")
    predict.add_argument("--redo", action="store_true", help="ask again for programs already answered")
    predict.add_argument("--out", metavar="DIR", default="results",
                         help="folder for the released results files (default: ./results)")
    predict.add_argument("--no-results-files", action="store_true", help="do not write released results files")
    predict.add_argument("--dry-run", action="store_true",
                         help="build the prompts and report how many would be sent and their size; send nothing")
    format_option(predict, help="text: the score table (progress and files written on stderr); json: the run's "
                                "report, the files written and the table as one document (with --dry-run: the "
                                "estimate)")
    predict.set_defaults(handler=predict_command)

    answer = commands.add_parser(
        "answer", help="one model's raw answer for one program, each line marked as the parser read it",
        description="Print the stored raw response with every line's reading: which question it answers "
                    "(and its key), lines that were superseded, out of range or ignored (prose, fences), "
                    "questions with no answer line, and the parse problems.")
    instance_arg(answer)
    answer.add_argument("--model", required=True, help="model name (see 'traceeval models')")
    answer.add_argument("--dataset", help=dataset_help)
    workspace_args(answer)
    format_option(answer, ("text", "json", "jsonl", "csv"),
                  help="text: each line with its reading; json: lines, unanswered questions, parse problems; "
                       "jsonl, csv: one answer line per line")
    answer.set_defaults(handler=show_answer)

    runs = commands.add_parser("runs", help="the model runs made with 'predict' and how they ended")
    dataset_args(runs)
    runs.add_argument("--model", help="only this model")
    runs.add_argument("--ledger", action="store_true",
                      help="the bill: one row per run, model and language with requests, tokens in and out, cost, "
                           "request and wall time, and failures (json always holds it)")
    format_option(runs, ("text", "json", "jsonl", "csv"), help="text: one line per run (--ledger: one per run and "
                                                              "language); json: one document with the runs and the "
                                                              "ledger; jsonl, csv: one run (--ledger: ledger row) "
                                                              "per line")
    runs.set_defaults(handler=show_runs)


def show_prompt(args) -> int:
    ws, _ = open_workspace(args, args.dataset)
    with ws:
        instance = ws.instance(instance_key_of(ws, args.instance))
        wording = wording_from(args, ws)
    prompt = build_prompt(instance, wording=wording, rules=args.rules)
    if args.format == "json":
        chars = len(prompt.system) + len(prompt.user)
        print_document("prompt", {
            "instance": prompt.instance_key, "language": prompt.language, "hash": prompt.hash,
            "wording": prompt.wording_label, "wording_tag": prompt.wording, "release": wording.path,
            "rules": prompt.rules, "messages": prompt.messages, "keys": list(prompt.keys), "characters": chars,
            "approx_tokens": approximate_tokens(chars)})
    else:
        print(prompt.render(), end="")
    return 0


def predict_command(args) -> int:
    from core.llm.repeats import parse_numbers, repeat_settings
    from core.llm.runner import pending_keys  # the runner brings the model client (openai)

    base = run_settings(args, name=args.name or "", concurrency=args.jobs)
    plan = repeat_settings(base, args.runs, parse_numbers(args.seeds, int, "--seeds"),
                           parse_numbers(args.temperatures, float, "--temperatures"))
    prices = PriceTable.load(Path(args.prices)) if args.prices else None
    ws, _ = open_workspace(args)
    with ws:
        wording = wording_from(args, ws)
        selection = selection_from(args, ws)
        keys = selected_keys(ws, args.instances, selection, args.limit)
        todo = []
        for settings in plan:
            pending = pending_keys(ws, settings, keys, redo=args.redo)
            todo += pending
            print(f"{settings.stored_name}: {len(keys):,} program(s) selected, {len(keys) - len(pending):,} already "
                  f"answered, {len(pending):,} to ask ({settings.base_url}, {settings.concurrency} at once"
                  f"{_run_detail(settings, len(plan))})", file=sys.stderr)
        print(f"prompts: {wording.label}; {rules_title(base.rules)}", file=sys.stderr)
        if args.dry_run:
            return _dry_run(ws, todo, base, prices, wording, args)
        remember_endpoint(base)
        reports, files = [], []
        for settings in plan:
            report = _run_with_interrupt(ws, settings, keys, prices, args.redo, wording)
            reports.append(report)
            _print_report(report)
            name = settings.stored_name
            if not args.no_results_files and ws.predicted_keys(name):
                written = write_released_results(ws, name, Path(args.out), MODES,
                                                 {"endpoint_model": settings.model, "base_url": settings.base_url,
                                                  "seed": settings.seed}, temperature=settings.temperature)
                for path in written:
                    print(f"wrote {path}", file=sys.stderr)
                files += written
            if report.status in ("interrupted", "cancelled"):
                break
        answered = [s.stored_name for s in plan if ws.predicted_keys(s.stored_name)]
        spread = over_runs_table(ws, answered, selection, MODES) if len(plan) > 1 and answered else None
        # the first run's table: in the JSON document, or shown when there is no spread to show instead
        table = score_table(ws, answered[:1], selection, frozenset(MODES)) \
            if answered[:1] == [base.stored_name] and (args.format == "json" or spread is None) else None
        if args.format == "json":
            runs = [_report_dict(report) for report in reports]
            print_document("predict", {"run": runs[0], "runs": runs, "files": [str(path) for path in files],
                                       "table": table_to_dict(table) if table is not None else None,
                                       "over_runs": over_runs_body(spread) if spread is not None else None})
        elif spread is not None:
            print(render_over_runs(spread, "text"), end="")
        elif table is not None:
            print(render_table(table, "text"), end="")
    if any(report.status in ("interrupted", "cancelled") for report in reports):
        return 130
    return 0 if all(report.status == "finished" and not report.failed for report in reports) else 1


def _run_detail(settings: RunSettings, runs: int) -> str:
    if runs == 1 and settings.seed is None:
        return ""
    seed = f", seed {settings.seed}" if settings.seed is not None else ", no seed"
    return f"; temperature {settings.temperature:g}{seed}"


def _report_dict(report: RunReport) -> dict:
    run = dataclasses.asdict(report)
    run["failed"] = [{"instance": key, "error": error} for key, error in report.failed]
    return run


def _dry_run(ws, keys: list[str], settings: RunSettings, prices: PriceTable | None, wording, args) -> int:
    from core.llm.token_counts import counter_for

    counter = counter_for(settings.model, Path(args.tokenizer).expanduser() if args.tokenizer else None)
    estimate = dry_run(ws, keys, settings, wording, prices, counter=counter, batch=args.batch)
    if args.format == "json":
        print_document("predict-dry-run", {**dataclasses.asdict(estimate), "input_cost": estimate.input_cost,
                                           "output_cost": estimate.output_cost, "cost": estimate.cost,
                                           "price_factor": estimate.price_factor})
        return 0
    sign = "" if counter.exact else "≈"
    print(f"dry run: {estimate.prompts:,} prompt(s), {estimate.characters:,} characters, "
          f"{sign}{estimate.input_tokens:,} input tokens (counted: {estimate.tokenizer}), "
          f"≈{estimate.output_tokens:,} output tokens ({estimate.output.basis})")
    if estimate.cost is not None:
        batch = f", batch price ({estimate.price_factor:.0%} of list)" if estimate.batch else ""
        print(f"cost: ≈${estimate.cost:,.4f} (input ${estimate.input_cost:,.4f} + output "
              f"${estimate.output_cost:,.4f}{batch})")
    elif prices is not None:
        print(f"cost: unknown ({settings.model} has no entry in {args.prices})")
    return 0


def _run_with_interrupt(ws, settings, keys, prices, redo, wording) -> RunReport:
    """Ctrl-C asks the runner to stop (answers already stored stay); a second Ctrl-C exits at once."""
    from core.llm.answer_cache import AnswerCache
    from core.llm.runner import run_model

    cancel = threading.Event()
    progress = ProgressLine(settings.stored_name, minimum_total=1)
    with sigint_sets(cancel):
        return run_model(ws, settings, keys, api_key=resolve_api_key(settings), prices=prices,
                         cache=AnswerCache(), redo=redo, progress=progress, cancel=cancel, wording=wording)


def _print_report(report: RunReport) -> None:
    print(f"{report.model}: {report.status}: {report.outcome_text()}", file=sys.stderr)
    if report.tokens_in or report.tokens_out:
        cost = f", ${report.cost_usd:,.4f}" if report.cost_usd is not None else ""
        print(f"tokens: {report.tokens_in:,} in, {report.tokens_out:,} out{cost}", file=sys.stderr)
    if report.rate_text():
        print(f"rate: {report.rate_text()}", file=sys.stderr)
    for key, error in report.failed[:20]:
        print(f"failed: {key}: {error}", file=sys.stderr)
    if len(report.failed) > 20:
        print(f"failed: … and {len(report.failed) - 20:,} more (see 'traceeval runs')", file=sys.stderr)
    if report.message:
        print(f"{report.status}: {report.message}", file=sys.stderr)
    if report.status != "finished" or report.failed:
        print("run the same command again to ask only the programs still unanswered", file=sys.stderr)


def show_answer(args) -> int:
    ws, _ = open_workspace(args, args.dataset)
    with ws:
        key = instance_key_of(ws, args.instance)
        ws.model_names([args.model])
        prediction = ws.predictions(args.model, [key]).get(key)
        keys = ws.instance(key).ground_truth.keys
    if prediction is None:
        print(f"{args.model} has no answer for {key}")
        return 1
    lines = answer_lines(prediction.raw_response or "", keys)
    missing = unanswered_questions(lines, keys)
    wording = wording_label(prediction.prompt_wording)
    if args.format == "json":
        print_document("answer", {"instance": key, "model": args.model, "prompt_hash": prediction.prompt_hash,
                                  "prompt_wording": wording,
                                  "reasoning": prediction.reasoning, "reasoning_tokens": prediction.reasoning_tokens,
                                  "parse_problems": list(prediction.parse_problems),
                                  "lines": [dataclasses.asdict(line) for line in lines],
                                  "missing": [{"question": n, "key": keys[n - 1]} for n in missing]})
        return 0
    if args.format in ("jsonl", "csv"):
        print(records_text([dataclasses.asdict(line) for line in lines], args.format), end="")
        return 0
    print(f"{key}  model {args.model}  {len(keys)} question(s)  (prompt: {wording})")
    if prediction.reasoning is not None:
        tokens = f"{prediction.reasoning_tokens:,} tokens" if prediction.reasoning_tokens is not None else \
            "tokens not reported"
        print(f"thinking: {len(prediction.reasoning):,} characters, {tokens} (the text: --format json)")
    for problem in shown_problems(prediction.parse_problems):  # every one: --format json
        print(f"parse problem: {problem}")
    width = len(str(len(lines)))
    shown = shown_response(prediction.raw_response or "")  # a long answer in part, as the Answer tab shows it
    for line, text in zip(lines, shown.text.split("\n"), strict=False):
        reading = f"-> {line.key}" if line.kind == "answer" else line.note or line.kind.replace("_", " ")
        marks = "".join(f" ({problem})" for problem in shown_problems(line.problems))
        cut = " …" if len(text) < len(line.text) else ""
        print(f"{line.line:>{width}} | {text}{cut}" + (f"    [{reading}]{marks}" if line.text.strip() else ""))
    if shown.summary():
        print(f"{shown.summary()} (--format json gives the whole answer)")
    for number in missing:
        print(f"no answer line for question {number}: {keys[number - 1]}")
    return 0


def show_runs(args) -> int:
    from core.llm.ledger import COLUMNS, ledger, totals

    ws, _ = open_workspace(args)
    with ws:
        rows = ws.model_run_rows(args.model)
        bill = ledger(ws, args.model) if args.ledger or args.format == "json" else []
    if args.format == "json":
        print_document("runs", {"runs": [dataclasses.asdict(row) for row in rows],
                                "ledger": [dataclasses.asdict(row) for row in bill], "totals": totals(bill)})
        return 0
    if args.format != "text":
        if args.ledger:
            print(records_text([dataclasses.asdict(row) for row in bill], args.format, COLUMNS), end="")
        else:
            print(records_text([dataclasses.asdict(row) for row in rows], args.format, RUN_COLUMNS), end="")
        return 0
    if args.ledger:
        print(_ledger_text(bill, totals(bill)), end="")
        return 0
    if not rows:
        print("no model runs yet (traceeval predict DATASET --model M --base-url URL)")
    for row in rows:
        cost = f", ${row.cost_usd:,.4f}" if row.cost_usd else ""
        wording = wording_label(row.params.get("prompt_wording", ""), row.params.get("release", ""))
        rules = rules_title(row.params.get("rules", PAPER))
        print(f"run {row.id}  {row.model}  {row.started_at}  {row.status}: {row.answered:,} answered, "
              f"{row.cached:,} cached, {row.skipped:,} skipped, {row.failed:,} failed{cost}  "
              f"({row.endpoint_model} at {row.base_url}; prompts: {wording}; {rules})"
              + (f"  {row.message}" if row.message else ""))
    return 0


def _ledger_text(bill, total: dict) -> str:
    from core.llm.ledger import money
    from core.scoring.tables import aligned_lines

    if not bill:
        return "no model requests yet (traceeval predict DATASET --model M --base-url URL)\n"
    header = ("run", "model", "language", "requests", "failed", "tokens in", "tokens out", "cost", "request s",
              "wall s")
    lines = [header]
    for row in bill:
        lines.append((row.run_label, row.model, row.language, f"{row.requests:,}", f"{row.failed:,}",
                      f"{row.tokens_in:,}", f"{row.tokens_out:,}", money(row.cost_usd), f"{row.request_s:.1f}",
                      "" if row.wall_s is None else f"{row.wall_s:.0f}"))
    lines.append(("total", "", "", f"{total['requests']:,}", f"{total['failed']:,}", f"{total['tokens_in']:,}",
                  f"{total['tokens_out']:,}", money(total["cost_usd"]), f"{total['request_s']:.1f}",
                  f"{total['wall_s']:.0f}"))
    return "\n".join(aligned_lines(lines, left=3)) + ("\n(tokens and cost of fresh answers; answers from the cache "
                                                      "cost nothing; wall s is the run's, shared by its languages)\n")

