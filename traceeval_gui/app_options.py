"""`traceeval-gui`'s command line: its options and the window's bottom tabs (`--tab`).

Apart from the window so that the CLI's reference generator and the window read one parser without
importing Qt, and so the window's layout reads `TABS` without importing the entry point.
"""
from __future__ import annotations

import argparse

from core.report.view_modes import VIEW_MODES

APP_NAME = "traceeval-gui"
TABS = ("edges", "compare", "metrics", "plots", "tracer", "answer")  # the window's bottom tabs
SCREENSHOT_SIZE = (1400, 900)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=APP_NAME, description="TraceEval Studio: inspect TraceEval "
                                     "call-graph benchmark programs, predictions and scores.")
    parser.add_argument("dataset", metavar="DATASET", nargs="?",
                        help="dataset folder (default: the last one opened, or the bundled demo dataset with its "
                        "illustrative results)")
    parser.add_argument("--workspace", metavar="FILE", help="workspace database (default: one per dataset in "
                        "the user data folder, or $TRACEEVAL_WORKSPACE_DIR)")
    parser.add_argument("--splits", metavar="DIR", help="folder with the split files "
                        "(default: DATASET/traceeval_split)")
    parser.add_argument("--instance", metavar="ID", help="program to select first (id or language/id)")
    parser.add_argument("--model", metavar="M", help="model to select first (model A)")
    parser.add_argument("--model-b", metavar="M", help="model to compare with (model B)")
    parser.add_argument("--tab", choices=TABS, help="the tab shown below the source and graph")
    parser.add_argument("--mode", choices=VIEW_MODES, help="what the graph shows: model A vs truth, A vs B "
                        "(compare), the latest trace vs truth, or the truth only")
    parser.add_argument("--audit", metavar="NAME", help="open this audit (see 'traceeval audit list') for --annotator")
    parser.add_argument("--annotator", metavar="NAME", help="who is auditing (with --audit)")
    parser.add_argument("--theme", choices=("system", "light", "dark"), help="colours for this run (default: the "
                        "one chosen in View > Theme, at first the desktop's scheme)")
    parser.add_argument("--screenshot", metavar="OUT.png",
                        help=f"render the window to a PNG at {SCREENSHOT_SIZE[0]}x{SCREENSHOT_SIZE[1]} and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what is being done to stderr")
    return parser
