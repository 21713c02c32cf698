"""What every command needs: the dataset and workspace from the options, progress on stderr, Ctrl-C."""
from __future__ import annotations

import csv
import io
import json
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from core.dataset.indexing import IndexReport, dataset_path, open_dataset
from core.dataset.workspace import Workspace
from core.errors import UsageError
from core.languages import registry
from core.llm.endpoints import RunSettings
from core.llm.prompt_wording import STUDIO_WORDING, PromptWording
from core.payloads import json_document, json_lines
from core.release.checkout import (
    RELEASE_ENV,
    Release,
    ReleaseLocation,
    read_release_wording,
    release_checkout,
    usable_release,
)
from core.release.confirmed import ScriptsDigest, remember
from core.report.terminal_text import raw_stream, visible
from core.scoring.normalise import parse_modes
from core.scoring.rules import DEFAULT_RULES, RULE_SETS, parse_rules
from core.scoring.scores import Selection, default_split, parse_languages


def dataset_root(given: str | None) -> Path:
    """The dataset folder named on the command line (a release checkout: its corpus, extracted once), or the demo."""
    return dataset_path(given, ProgressLine("extracting", minimum_total=1))


def open_workspace(args, dataset: str | None = None) -> tuple[Workspace, IndexReport]:
    """Open the workspace for the command's dataset; the demo dataset brings its illustrative results."""
    root = dataset_root(dataset if dataset is not None else getattr(args, "dataset", None))
    return open_dataset(root, getattr(args, "workspace", None), getattr(args, "splits", None),
                        progress=ProgressLine("indexing"))


def rules_from(args) -> str:
    return parse_option(parse_rules, getattr(args, "rules", None) or DEFAULT_RULES)


def rules_option(parser, what: str = "names, answers and prompts are read") -> None:
    parser.add_argument("--rules", choices=tuple(RULE_SETS), default=DEFAULT_RULES,
                        help=f"how {what}: paper (the TraceEval release's exact rules, the default), studio "
                             "(this project's own reading, labelled as not the paper's) or paper-nothink (the "
                             "paper's, reading answers without a leading <think> block; labelled so)")


def release_option(parser) -> None:
    parser.add_argument("--release", metavar="DIR",
                        help="your checkout of the TraceEval release (or its scripts/ folder or run_llm.py): the "
                             "prompt takes the paper's own wording from it, never running it (default: "
                             f"${RELEASE_ENV}, else a checkout next to the dataset once you confirm it, else this "
                             "project's wording, labelled as not the paper's). Naming it confirms it")


def release_from(args, ws: Workspace, ask: bool = True) -> Release | None:
    """The release for a command: the one named (--release, which confirms it for later commands too; or
    $TRACEEVAL_RELEASE), else one next to the dataset that the user confirmed, now on a terminal (`ask`) or before
    (see core.release.checkout.usable_release)."""
    given, root = getattr(args, "release", None), ws.setting("dataset_root")
    release = usable_release(given, Path(root) if root else None, confirm_on_terminal if ask else None)
    if release is not None and given:
        remember(release.digest)
    return release


def wording_from(args, ws: Workspace, ask: bool = True) -> PromptWording:
    """The prompt wording for a command: the usable release's (`release_from`), else the studio's."""
    release = release_from(args, ws, ask)
    return STUDIO_WORDING if release is None else read_release_wording(release.script)


def confirm_on_terminal(location: ReleaseLocation, digest: ScriptsDigest) -> bool:
    """Ask on the terminal whether to use a release found next to the dataset (False off a terminal)."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    print(f"A TraceEval release was found next to the dataset: {visible(str(release_checkout(location.script)))}\n"
          f"  its scripts: sha256 {digest.sha256} ({digest.files} files)\n"
          "Prompts would take their words from its run_llm.py, and `traceeval parity` runs its scripts (in the "
          "sandbox).", file=sys.stderr)
    print("Use it, and remember it by this sha256? [y/N] ", end="", file=sys.stderr, flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def modes_from(args) -> frozenset[str]:
    if getattr(args, "no_normalize", False):
        return frozenset()
    return parse_option(parse_modes, args.modes)


def selection_from(args, ws: Workspace) -> Selection:
    languages = parse_option(parse_languages, args.languages)
    split = default_split(ws) if args.split is None else (None if args.split == "all" else args.split)
    return Selection(languages=languages, split=split, repo=args.repo)


def parse_option(parse, text: str):
    """`parse(text)`, with its ValueError turned into a usage error (a one-line message, exit 2)."""
    try:
        return parse(text)
    except ValueError as error:
        raise UsageError(str(error)) from None


class ProgressLine:
    """A one-line progress bar on stderr, shown only on a terminal and only for long work."""

    def __init__(self, label: str, minimum_total: int = 200):
        self.label = label
        self.minimum_total = minimum_total
        self.shown = False

    def __call__(self, done: int, total: int, message: str) -> None:
        if total < self.minimum_total or not sys.stderr.isatty():
            return
        width = 30
        filled = int(width * done / max(total, 1))
        terminal = raw_stream(sys.stderr)  # its own \r goes through; the label (a model name) is made visible
        terminal.write(f"\r{visible(self.label)} [{'#' * filled}{' ' * (width - filled)}] {done:,}/{total:,}")
        self.shown = True
        if done >= total:
            terminal.write("\n")
        terminal.flush()


def model_names(text: str | None, ws) -> list[str] | None:
    """The models named in a comma list (None when none given); an unknown name is a usage error. A model whose
    name holds a comma is one name in the list, the longest known name winning."""
    if not text:
        return None
    known, pieces = set(ws.model_names()), text.split(",")
    names, start = [], 0
    while start < len(pieces):
        end = next((end for end in range(len(pieces), start + 1, -1) if ",".join(pieces[start:end]).strip() in known),
                   start + 1)
        names.append(",".join(pieces[start:end]).strip())
        start = end
    return ws.model_names(name for name in names if name)


def instance_key_of(ws, given: str) -> str:
    """An instance key from `language/id` or a bare id (which must name one program)."""
    return ws.program_key(given)


@contextmanager
def sigint_sets(event: threading.Event, message: str = "stopping: finished answers are kept; run the same command "
                                                        "again to resume (Ctrl-C again to quit at once)"):
    """The first Ctrl-C sets `event` (the work stops cleanly), a second one raises KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(_signum, _frame):
        if event.is_set():
            raise KeyboardInterrupt
        event.set()
        print(f"\n{message}", file=sys.stderr)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def endpoint_options(parser, timeout_option: str = "--timeout") -> None:
    """The request and decoding options of every command that asks a model (`run_settings` reads them)."""
    parser.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0, the paper's)")
    parser.add_argument("--max-tokens", type=int, default=4096, help="output token limit (default 4096, the paper's)")
    parser.add_argument(timeout_option, dest="request_timeout", type=float, default=300.0, metavar="SECONDS",
                        help="per-request time limit (default 300)")
    parser.add_argument("--retries", type=int, default=5, help="retries on 429, 5xx, timeouts (default 5)")
    parser.add_argument("--token-limit-field", choices=("both", "max_tokens", "max_completion_tokens"),
                        help="the request field(s) naming the output token limit. Default: both, as the paper "
                             "sends them; on a 400 naming one, the other alone, remembered per endpoint and model")
    parser.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key")
    parser.add_argument("--no-cache", action="store_true", help="always ask the endpoint (the cache is still filled)")


def run_settings(args, name: str = "", concurrency: int = 4) -> RunSettings:
    return RunSettings(base_url=args.base_url, model=args.model, name=name, temperature=args.temperature,
                       max_tokens=args.max_tokens, timeout_s=args.request_timeout, concurrency=concurrency,
                       retries=args.retries, use_cache=not args.no_cache, api_key_env=args.api_key_env,
                       rules=getattr(args, "rules", DEFAULT_RULES),
                       token_limit_field=getattr(args, "token_limit_field", None) or "")


def format_option(parser, formats: tuple[str, ...] = ("text", "json"), help: str = "") -> None:
    """`--format`, offering those of text, json, jsonl and csv (and, for tables, md and latex) the command can
    write; the first is the default. JSON is one document with `schema` and `version` (core.payloads), JSONL
    one plain record per line."""
    parser.add_argument("--format", choices=formats, default=formats[0],
                        help=help or f"output format: {', '.join(formats)} (default {formats[0]})")


def records_text(records: Sequence[Mapping[str, Any]], fmt: str, columns: Sequence[str] = ()) -> str:
    """A list of records as JSON Lines or CSV (`columns`, default the first record's keys; a nested value is written
    as compact JSON in its cell)."""
    if fmt == "jsonl":
        return json_lines(records)
    if fmt != "csv":
        raise ValueError(f"records are jsonl or csv, not {fmt!r}")
    columns = list(columns) or (list(records[0]) if records else [])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for record in records:
        writer.writerow(["" if record.get(c) is None else
                         json.dumps(record[c], ensure_ascii=False, separators=(",", ":"))
                         if isinstance(record.get(c), (dict, list, tuple, bool)) else record[c] for c in columns])
    return buffer.getvalue()


def print_document(schema: str, body: Mapping[str, Any], version: int = 1) -> None:
    """One JSON document with `schema` and `version` (core.payloads) on stdout."""
    print(json_document(schema, body, version), end="")


def instance_arg(parser) -> None:
    """The INSTANCE positional of the commands about one program."""
    parser.add_argument("instance", metavar="INSTANCE", help="program id (e.g. Activiti_0001) or language/id")


def write_output(text: str, output: str | None) -> int:
    """`text` to the file given with -o (saying so), else to stdout; an unwritable file is a usage error."""
    if not output:
        print(text, end="")
        return 0
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{output}: cannot write: {error.strerror or error}") from None
    print(f"wrote {output}")
    return 0


def program_options(parser) -> None:
    """--split, --languages, --repo, --instances and --limit: the programs a model command asks (`selected_keys`)."""
    parser.add_argument("--split", choices=("test", "train", "all"),
                        help="programs to ask (default: test when the dataset has split files, else all)")
    parser.add_argument("--languages", default=",".join(registry.names()), help="comma-separated languages")
    parser.add_argument("--repo", metavar="PATTERN", help="only repositories matching this glob pattern")
    parser.add_argument("--instances", metavar="KEYS", help="comma-separated program ids or language/id keys")
    parser.add_argument("--limit", type=int, metavar="N",
                        help="only the first N selected programs (language, id order)")


def selected_keys(ws, instances: str | None, selection: Selection, limit: int | None = None) -> list[str]:
    """The programs a model command works on: `instances` (--instances) when given, else the selection's; at
    most `limit`."""
    if instances:
        keys = [instance_key_of(ws, given.strip()) for given in instances.split(",") if given.strip()]
    else:
        keys = [row.key for row in selection.rows(ws)]
    if limit is not None:
        if limit < 0:
            raise UsageError(f"--limit must be 0 or more (got {limit})")
        keys = keys[:limit]
    if not keys:
        splits = ", ".join(ws.split_names()) or "none"
        raise UsageError(f"no programs selected (check --split, --languages, --repo and --instances; the dataset's "
                         f"splits: {splits})")
    return keys
