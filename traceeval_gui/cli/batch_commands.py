"""`traceeval batch prepare | submit | status | collect | resubmit | cancel`: the TraceEval prompts as provider
batches (OpenAI's Batch API, Anthropic's Message Batches, `vllm run-batch` files), resumable from the workspace."""
from __future__ import annotations

import dataclasses
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import UsageError
from core.llm.prices import PriceTable
from core.llm.prompt_wording import wording_label
from core.scoring.rules import rules_title
from traceeval_gui.cli.common import (
    format_option,
    open_workspace,
    print_document,
    program_options,
    release_option,
    rules_option,
    selected_keys,
    selection_from,
    sigint_sets,
    wording_from,
)

if TYPE_CHECKING:
    from core.llm.batches.flow import CollectReport
    from core.llm.batches.store import BatchRow

PROVIDER_CHOICES = ("openai", "anthropic", "vllm")


def register(commands, dataset_args) -> None:
    batch = commands.add_parser(
        "batch", help="run a model through a provider's batch API (half the price, no rate limits; resumable)",
        description="Send the TraceEval prompts as batches: OpenAI's Batch API, Anthropic's Message Batches, or "
                    "input files for `vllm run-batch` on your own GPUs. Batch ids, states and results live in the "
                    "workspace, so after a crash or a restart `collect` gets whatever finished; errored or expired "
                    "requests are listed by `status` and asked again by `resubmit`.")
    actions = batch.add_subparsers(dest="batch_command", metavar="ACTION", required=True)

    prepare = actions.add_parser(
        "prepare", help="write the batch input files for the selected programs and record them",
        description="Build every selected program's prompt exactly as `predict` sends it, as batch requests whose "
                    "custom_id carries the program and the prompt hash, split within the provider's limits "
                    "(OpenAI 50,000 requests / 200 MB, Anthropic 100,000 / 256 MB) and recorded as prepared. "
                    "Programs the model already answered, or that wait in another batch, are left out.")
    dataset_args(prepare)
    prepare.add_argument("--provider", required=True, choices=PROVIDER_CHOICES,
                         help="openai (Batch API), anthropic (Message Batches) or vllm (files for `vllm run-batch`)")
    prepare.add_argument("--model", required=True, help="model id sent to the provider")
    prepare.add_argument("--name", help="name of the model in the workspace (default: the model id)")
    prepare.add_argument("--base-url", metavar="URL", help="the provider's API base URL (default: OpenAI's or "
                                                           "Anthropic's; unused for vllm)")
    program_options(prepare)
    prepare.add_argument("--max-requests", type=int, metavar="N",
                         help="at most N requests per batch (default: the provider's limit)")
    prepare.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0)")
    prepare.add_argument("--max-tokens", type=int, default=4096, help="output token limit (default 4096)")
    prepare.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key")
    _limit_field_option(prepare)
    prepare.add_argument("--out", metavar="DIR", default="batches",
                         help="folder for the batch input files (default: ./batches)")
    prepare.add_argument("--redo", action="store_true", help="ask again for programs already answered")
    release_option(prepare)
    rules_option(prepare, "the prompt is assembled")
    format_option(prepare, help="text: one line per batch; json: the batches and what was left out")
    prepare.set_defaults(handler=prepare_command)

    submit = actions.add_parser(
        "submit", help="send prepared batches to their provider (OpenAI or Anthropic)",
        description="Upload each prepared batch (OpenAI: the input file, then the batch; Anthropic: the requests) "
                    "and record its remote id at once. With --wait, then collect as `collect --wait` does.")
    _common(submit, dataset_args)
    _waiting(submit)
    format_option(submit, help="text: one line per batch; json: the batches (and with --wait, the collection)")
    submit.set_defaults(handler=submit_command)

    status = actions.add_parser(
        "status", help="the workspace's batches: provider, remote id, state and counts; failed requests",
        description="List the batches recorded in the workspace (no request is sent; `collect` asks the "
                    "providers) and the requests that errored, expired or were cancelled and are still unanswered.")
    dataset_args(status)
    status.add_argument("--model", help="only this model's batches")
    format_option(status, help="text: one line per batch, then the failed requests; json: one document")
    status.set_defaults(handler=status_command)

    collect = actions.add_parser(
        "collect", help="store the answers of every batch that ended (--wait: until all have)",
        description="Ask the provider about each submitted batch; for each that ended, read its results, parse "
                    "every answer with the paper's parser and store it as `predict` does. A batch still running "
                    "is left for the next collect; Ctrl-C or a crash loses nothing already stored. "
                    "--file reads a `vllm run-batch` output file instead.")
    _common(collect, dataset_args)
    _waiting(collect)
    collect.add_argument("--file", metavar="OUTPUT", help="a `vllm run-batch -o OUTPUT` file to store")
    format_option(collect, help="text: one line per batch collected; json: the collection")
    collect.set_defaults(handler=collect_command)

    resubmit = actions.add_parser(
        "resubmit", help="ask again, in new batches, the requests that errored, expired or were cancelled",
        description="Prepare the failed requests of MODEL's ended batches (programs still unanswered) as new "
                    "batches with the first batch's settings, and submit them (vllm: write the file only).")
    dataset_args(resubmit)
    resubmit.add_argument("--model", required=True, help="the stored model name")
    resubmit.add_argument("--batch", metavar="IDS", help="only the failures of these batches (comma-separated)")
    resubmit.add_argument("--max-requests", type=int, metavar="N", help="at most N requests per batch")
    resubmit.add_argument("--out", metavar="DIR", default="batches", help="folder for the input files")
    resubmit.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key")
    _limit_field_option(resubmit, "(default: the first batch's)")
    release_option(resubmit)
    format_option(resubmit, help="text: one line per new batch; json: the new batches")
    resubmit.set_defaults(handler=resubmit_command)

    cancel = actions.add_parser("cancel", help="ask the provider to stop a batch (or drop a prepared one)",
                                description="Cancel a submitted batch at its provider (what finished stays "
                                            "collectable: `collect` stores it) or drop a prepared one.")
    dataset_args(cancel)
    cancel.add_argument("batch_id", metavar="BATCH", type=int, help="the batch's number (see `batch status`)")
    cancel.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key")
    format_option(cancel, help="text: the batch's new state; json: the batch")
    cancel.set_defaults(handler=cancel_command)


def _limit_field_option(parser, default: str = "") -> None:
    parser.add_argument("--token-limit-field", choices=("both", "max_tokens", "max_completion_tokens"),
                        help="OpenAI and vLLM: the request field(s) naming the output token limit. Default: both, as "
                             "the paper sends them, unless this endpoint and model are known to refuse one "
                             "(remembered by predict); a batch cannot retry a refused request itself "
                             f"{default}".strip())


def _common(parser, dataset_args) -> None:
    dataset_args(parser)
    parser.add_argument("--batch", metavar="IDS", help="only these batches (comma-separated; default: all)")
    parser.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key "
                                                             "(default: the one named at prepare, else the usual)")
    parser.add_argument("--prices", metavar="FILE", help="price table JSON (batch requests are billed at half)")


def _waiting(parser) -> None:
    parser.add_argument("--wait", action="store_true", help="keep collecting until every batch has ended")
    parser.add_argument("--poll-seconds", type=float, default=30.0, metavar="S",
                        help="with --wait, how often to ask (default 30)")


# -- handlers -----------------------------------------------------------------------------------------------
def prepare_command(args) -> int:
    from core.llm.batches.flow import BatchSettings, prepare
    from core.llm.batches.request_lines import DEFAULT_URLS

    if args.provider not in PROVIDER_CHOICES:
        raise UsageError(f"unknown provider {args.provider!r}")
    base_url = (args.base_url or DEFAULT_URLS.get(args.provider, "")).strip().rstrip("/")
    if args.provider != "vllm" and not base_url.startswith(("http://", "https://")):
        raise UsageError(f"--base-url {base_url!r} must start with http:// or https://")
    settings = BatchSettings(args.provider, args.model, args.name or args.model, base_url, args.temperature,
                             args.max_tokens, args.rules, args.api_key_env, args.token_limit_field or "")
    ws, _ = open_workspace(args)
    with ws:
        wording = wording_from(args, ws)
        keys = selected_keys(ws, args.instances, selection_from(args, ws), args.limit)
        report = prepare(ws, settings, keys, wording, Path(args.out), args.max_requests, args.redo)
    print(f"{settings.name}: {len(keys):,} program(s) selected, {report.answered:,} already answered, "
          f"{report.in_batches:,} waiting in a batch, {report.requests:,} prepared in {len(report.batches)} "
          f"batch(es) for {args.provider}", file=sys.stderr)
    print(f"prompts: {wording.label}; {rules_title(args.rules)}", file=sys.stderr)
    for key, why in report.failed:
        print(f"no prompt: {key}: {why}", file=sys.stderr)
    if args.format == "json":
        print_document("batch-prepare", {"batches": [_batch_record(b) for b in report.batches],
                                         "answered": report.answered, "in_batches": report.in_batches,
                                         "failed": [{"instance": k, "error": e} for k, e in report.failed]})
    else:
        for batch in report.batches:
            print(_batch_line(batch))
        if args.provider == "vllm" and report.batches:
            print("run each file with: vllm run-batch -i FILE -o OUTPUT --model MODEL; "
                  "then: traceeval batch collect --file OUTPUT", file=sys.stderr)
    return 1 if report.failed else 0


def submit_command(args) -> int:
    from core.llm.batches.flow import api_key_for, submit

    ws, _ = open_workspace(args)
    with ws:
        sent = submit(ws, lambda b: api_key_for(b, args.api_key_env), _ids(args.batch), _say)
        if not sent:
            print("no prepared batch to submit (traceeval batch prepare ...)", file=sys.stderr)
        collected = _collect(ws, args, _prices(args)) if args.wait else None
    if args.format == "json":
        print_document("batch-submit", {"batches": [_batch_record(b) for b in sent],
                                        "collect": _collect_record(collected) if collected else None})
    else:
        for batch in sent:
            print(_batch_line(batch))
    return _collect_exit(collected) if collected else 0


def collect_command(args) -> int:
    from core.llm.batches.flow import collect_file

    ws, _ = open_workspace(args)
    prices = _prices(args)
    with ws:
        if args.file:
            ids = _ids(args.batch)
            if ids and len(ids) > 1:
                raise UsageError("--file goes into one batch: name at most one with --batch")
            report = collect_file(ws, Path(args.file), ids[0] if ids else None, prices)
        else:
            report = _collect(ws, args, prices)
    for problem in report.problems[:20]:
        print(f"problem: {problem}", file=sys.stderr)
    if len(report.problems) > 20:
        print(f"problem: … and {len(report.problems) - 20:,} more", file=sys.stderr)
    if args.format == "json":
        print_document("batch-collect", _collect_record(report))
    else:
        for batch in report.collected:
            print(_batch_line(batch))
        print(f"{report.stored:,} answer(s) stored; {len(report.waiting)} batch(es) still running", file=sys.stderr)
    return _collect_exit(report)


def status_command(args) -> int:
    from core.llm.batches.store import BatchStore

    ws, _ = open_workspace(args)
    with ws:
        store = BatchStore(ws)
        batches = store.batches(args.model)
        failed = [row for model in dict.fromkeys(b.model for b in batches)
                  for row in store.unanswered_failures(model)]
    if args.format == "json":
        print_document("batch-status", {"batches": [_batch_record(b) for b in batches],
                                        "failed": [dataclasses.asdict(r) for r in failed]})
        return 0
    if not batches:
        print("no batches yet (traceeval batch prepare --provider P --model M ...)")
    for batch in batches:
        print(_batch_line(batch))
    for row in failed:
        print(f"failed: batch {row.batch_id}: {row.instance_key}: {row.status}" + (f": {row.error}" if row.error
                                                                                   else "")
              + f"  ({row.collected_at})")
    if failed:
        print(f"{len(failed)} request(s) to ask again: traceeval batch resubmit --model NAME")
    return 0


def resubmit_command(args) -> int:
    from core.llm.batches.flow import BatchSettings, api_key_for, failed_keys, prepare, submit
    from core.llm.batches.store import BatchStore

    ws, _ = open_workspace(args)
    with ws:
        batches = BatchStore(ws).batches(args.model)
        keys = failed_keys(ws, args.model, _ids(args.batch)) if batches else []
        if not keys:
            print(f"{args.model}: no failed request left to ask again", file=sys.stderr)
            new: list[BatchRow] = []
        else:
            first = batches[0]
            params = first.params
            settings = BatchSettings(first.provider, first.endpoint_model, args.model, first.base_url,
                                     float(params.get("temperature", 0.0)), int(params.get("max_tokens", 4096)),
                                     str(params.get("rules", "paper")), args.api_key_env or params.get("api_key_env"),
                                     args.token_limit_field or str(params.get("token_limit_field") or ""))
            report = prepare(ws, settings, keys, wording_from(args, ws), Path(args.out), args.max_requests)
            new = report.batches
            if first.provider != "vllm":
                new = submit(ws, lambda b: api_key_for(b, args.api_key_env), [b.id for b in new], _say)
    if args.format == "json":
        print_document("batch-resubmit", {"asked_again": keys, "batches": [_batch_record(b) for b in new]})
    else:
        for batch in new:
            print(_batch_line(batch))
    return 0


def cancel_command(args) -> int:
    from core.llm.batches.flow import api_key_for, cancel_batch

    ws, _ = open_workspace(args)
    with ws:
        batch = cancel_batch(ws, lambda b: api_key_for(b, args.api_key_env), args.batch_id)
    if args.format == "json":
        print_document("batch-cancel", {"batch": _batch_record(batch)})
    else:
        print(_batch_line(batch))
    return 0


# -- helpers ----------------------------------------------------------------------------------------------
def _prices(args) -> PriceTable | None:
    return PriceTable.load(Path(args.prices)) if args.prices else None


def _collect(ws, args, prices: PriceTable | None) -> CollectReport:
    from core.llm.batches.flow import api_key_for, collect

    cancel = threading.Event()
    with sigint_sets(cancel, "stopping: collected answers are kept; `traceeval batch collect` resumes "
                             "(Ctrl-C again to quit at once)"):
        return collect(ws, lambda b: api_key_for(b, args.api_key_env), _ids(args.batch), wait=args.wait,
                       poll_s=args.poll_seconds, prices=prices, cancel=cancel, progress=_say)


def _collect_exit(report: CollectReport) -> int:
    if report.interrupted:
        return 130
    return 1 if report.problems else 0


def _collect_record(report: CollectReport) -> dict:
    return {"collected": [_batch_record(b) for b in report.collected],
            "waiting": [_batch_record(b) for b in report.waiting], "stored": report.stored,
            "problems": report.problems, "interrupted": report.interrupted}


def _ids(text: str | None) -> list[int] | None:
    if not text:
        return None
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"--batch takes batch numbers separated by commas (got {text!r})") from None


def _batch_record(batch: BatchRow) -> dict:
    record = dataclasses.asdict(batch)
    record["prompt_wording"] = wording_label(str(batch.params.get("prompt_wording", "")),
                                             str(batch.params.get("release") or ""))
    return record


def _batch_line(batch: BatchRow) -> str:
    remote = f" {batch.remote_id} ({batch.remote_status})" if batch.remote_id else ""
    counts = ""
    if batch.state in ("collected", "failed"):
        counts = f": {batch.succeeded:,} succeeded, {batch.errored:,} errored, {batch.expired:,} expired, " \
                 f"{batch.canceled:,} canceled"
    where = {"prepared": f"  {batch.input_path}", "submitted": f"  submitted {batch.submitted_at}",
             "collected": f"  ended {batch.ended_at}, collected {batch.collected_at}"}.get(batch.state, "")
    message = f"  {batch.message}" if batch.message else ""
    return (f"batch {batch.id}  {batch.model}  {batch.provider}{remote}  {batch.state}  "
            f"{batch.requests:,} request(s){counts}{where}{message}")


def _say(message: str) -> None:
    print(message, file=sys.stderr)
