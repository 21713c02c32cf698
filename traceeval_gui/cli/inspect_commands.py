"""`traceeval import-inspect`: inspect_ai `.eval` logs of the `traceeval` task as predictions (docs/inspect.md)."""
from __future__ import annotations

from traceeval_gui.cli.common import format_option, open_workspace
from traceeval_gui.cli.results_commands import report_import


def register(commands, dataset_help: str, workspace_args) -> None:
    imp = commands.add_parser(
        "import-inspect", help="import inspect_ai .eval logs of the traceeval task as predictions",
        description="Read inspect_ai logs made by 'inspect eval traceeval/traceeval' and store each sample's answer "
                    "as a prediction of the log's model, parsed with the paper's parser against the dataset's "
                    "ground-truth keys, with its tokens, time and parse problems. 'traceeval score' then gives the "
                    "figures inspect's metric gave. Logs are read as hostile files, within bounds (docs/security.md): "
                    "a file that is not a readable log is named and skipped, and so is a sample that cannot be read "
                    "or whose answer is larger than an endpoint may send (16 MiB).")
    imp.add_argument("logs", metavar="LOG", nargs="+", help=".eval (or .json) log files")
    imp.add_argument("--dataset", help=dataset_help)
    imp.add_argument("--model", help="model name to store instead of the log's (e.g. openai/gpt-4o)")
    workspace_args(imp)
    format_option(imp, help="text: one line per model and problem; json: what was stored and the problems")
    imp.set_defaults(handler=import_inspect)


def import_inspect(args) -> int:
    from core.results.inspect_log import import_inspect_logs

    ws, _ = open_workspace(args, args.dataset)
    with ws:
        return report_import(ws, import_inspect_logs(ws, args.logs, args.model), args.format, "import-inspect")
