"""`traceeval import-inspect`: inspect_ai `.eval` logs of the `traceeval` task as predictions (docs/inspect.md)."""
from __future__ import annotations

from traceeval_gui.cli.common import open_workspace


def register(commands, dataset_help: str, workspace_args) -> None:
    imp = commands.add_parser(
        "import-inspect", help="import inspect_ai .eval logs of the traceeval task as predictions",
        description="Read inspect_ai logs made by 'inspect eval traceeval/traceeval' (with inspect_ai's own reader: "
                    "the inspect extra) and store each sample's answer as a prediction of the log's model, parsed "
                    "with the paper's parser against the dataset's ground-truth keys, with its tokens, time and "
                    "parse problems. 'traceeval score' then gives the figures inspect's metric gave. A file that is "
                    "not a readable log is named and skipped.")
    imp.add_argument("logs", metavar="LOG", nargs="+", help=".eval (or .json) log files")
    imp.add_argument("--dataset", help=dataset_help)
    imp.add_argument("--model", help="model name to store instead of the log's (e.g. openai/gpt-4o)")
    workspace_args(imp)
    imp.set_defaults(handler=import_inspect)


def import_inspect(args) -> int:
    from core.results.inspect_log import import_inspect_logs  # reads logs with inspect_ai, loaded only here

    ws, _ = open_workspace(args, args.dataset)
    with ws:
        report = import_inspect_logs(ws, args.logs, args.model)
        for problem in report.problems:
            print(f"{problem.severity}: {problem}")
        if not report.stored:
            print(f"nothing imported from {report.files} file(s)")
            return 1
        for model, stored in sorted(report.stored.items()):
            print(f"{model}: {stored:,} prediction(s) stored")
        print(f"workspace: {ws.path}")
    return 0
