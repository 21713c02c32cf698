"""`traceeval compare | graph | evidence`: the workbench's compare mode, graph export and evidence packet."""
from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

from core.errors import UsageError
from core.languages import registry
from core.report.overlay import (
    BOTH_RIGHT,
    BOTH_WRONG,
    COMPARE_CLASSES,
    ONLY_A_RIGHT,
    ONLY_B_RIGHT,
    counts_of,
    rank_differences,
)
from core.report.palette import EDGE_STYLES
from core.report.view_modes import VIEW_MODES
from core.scoring.metrics import INSTANCE_RULE, instance_scores
from core.scoring.rules import rules_title
from core.scoring.scores import NormalisedTruths, instance_counts
from core.scoring.stats import PAIRED_RESAMPLES
from traceeval_gui.cli.common import (
    format_option,
    instance_arg,
    instance_key_of,
    modes_from,
    open_workspace,
    print_document,
    records_text,
    rules_from,
    selection_from,
    write_output,
)

GRAPH_FORMATS = ("svg", "dot", "graphml", "json")
GRAPH_SUFFIXES = {".svg": "svg", ".dot": "dot", ".gv": "dot", ".graphml": "graphml", ".json": "json"}
CLASS_ORDER = (ONLY_A_RIGHT, ONLY_B_RIGHT, BOTH_WRONG, BOTH_RIGHT)  # differences first
TEXT_TOP = 20  # rows of the text table unless --top says otherwise


def register(commands, dataset_help: str, dataset_args, workspace_args, modes_args) -> None:
    """Add the subcommands to `traceeval`'s subparsers (the helpers are the CLI's shared options)."""
    compare = commands.add_parser(
        "compare", help="model A against model B: where they differ most, or per edge on one program",
        description="Without --instance: every program both models answered, largest |F1(A) - F1(B)| first "
                    "(per-program F1 after normalisation), with how often each model is better. With --instance: "
                    "every edge of that program classed as both right, only A right, only B right or both "
                    "wrong, with what the ground truth, A and B say.")
    compare.add_argument("model_a", metavar="A", help="model A (see 'traceeval models')")
    compare.add_argument("model_b", metavar="B", help="model B")
    dataset_args(compare)
    compare.add_argument("--instance", metavar="ID", help="one program (id or language/id): its edges by class")
    compare.add_argument("--top", type=int, metavar="N",
                         help=f"only the N programs that differ most (default: {TEXT_TOP} for text, all for "
                              "csv and json; 0 = all)")
    compare.add_argument("--split", choices=("test", "train", "all"), default="all",
                         help="programs to compare (default: all)")
    compare.add_argument("--languages", default=",".join(registry.names()),
                         help="comma-separated languages (default: all)")
    compare.add_argument("--repo", metavar="PATTERN", help="only repositories matching this glob pattern")
    modes_args(compare)
    compare.add_argument("--stats", action="store_true",
                         help="paired statistics instead of the ranking: F1(A) - F1(B) (the ranking's sign) per "
                              "language and macro with a paired bootstrap interval, and an exact sign test of "
                              "A's wins over programs")
    compare.add_argument("--confidence", type=float, default=0.95, metavar="LEVEL",
                         help="--stats: the interval's confidence level (default 0.95)")
    compare.add_argument("--resamples", type=int, default=PAIRED_RESAMPLES, metavar="N",
                         help=f"--stats: bootstrap resamples (default {PAIRED_RESAMPLES:,})")
    compare.add_argument("--seed", type=int, default=0, help="--stats: bootstrap seed (default 0)")
    format_option(compare, ("text", "json", "jsonl", "csv", "md"),
                  help="text: a table; json: one document; jsonl and csv: one row per program, edge or language "
                       "(--stats); md: the --stats table in Markdown")
    compare.set_defaults(handler=compare_models)

    graph = commands.add_parser(
        "graph", help="export one program's call graph picture: SVG, DOT, GraphML or JSON",
        description="The graph the workbench draws for one program: the union of the ground truth, the models "
                    "and the latest trace, laid out once, with edges classed by the view mode (model: TP / FP / "
                    "FN of model A; compare: A against B; trace: the latest trace against the truth; truth: the "
                    "ground truth). A mode whose inputs are missing falls back to the ground truth, with a "
                    "warning.")
    instance_arg(graph)
    graph.add_argument("--dataset", help=dataset_help)
    workspace_args(graph)
    graph.add_argument("--model", help="model A (default: the first model in the workspace)")
    graph.add_argument("--model-b", help="model B for --mode compare (default: the next model)")
    graph.add_argument("--mode", choices=VIEW_MODES, default="model", help="how edges are classed (default: model)")
    graph.add_argument("--format", choices=GRAPH_FORMATS,
                       help="output format (default: from the -o file's suffix, else svg)")
    graph.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    modes_args(graph)
    graph.set_defaults(handler=graph_export)

    evidence = commands.add_parser(
        "evidence", help="one program as a self-contained HTML evidence packet (for a bug report or a paper)",
        description="Write one HTML file with no external resources: the program's facts and source link, each "
                    "model's scores, the call graph (SVG), every edge with what the truth, each model and the "
                    "latest trace say, the highlighted source with callers marked by class, parse problems, "
                    "the latest trace run, the tool version and the date.")
    instance_arg(evidence)
    evidence.add_argument("--dataset", help=dataset_help)
    workspace_args(evidence)
    evidence.add_argument("--model", required=True, help="model A (see 'traceeval models')")
    evidence.add_argument("--model-b", help="model B: also reported, and edges classed A against B")
    evidence.add_argument("--mode", choices=VIEW_MODES,
                          help="how edges are classed (default: compare with --model-b, else model)")
    evidence.add_argument("-o", "--output", metavar="FILE.html", help="write to FILE.html instead of stdout")
    modes_args(evidence)
    evidence.set_defaults(handler=evidence_packet)


# -- compare -----------------------------------------------------------------------------------------
def compare_models(args) -> int:
    if args.model_a == args.model_b:
        raise UsageError(f"compare needs two different models (A and B are both {args.model_a!r})")
    if args.top is not None and args.top < 0:
        raise UsageError(f"--top must be 0 or more, not {args.top}")
    if args.format == "md" and not args.stats:
        raise UsageError("--format md is for --stats (the ranking and the edges are json, jsonl, csv or text)")
    if args.stats and args.instance:
        raise UsageError("--stats compares the models over programs: it does not take --instance")
    ws, _ = open_workspace(args)
    with ws:
        ws.model_names([args.model_a, args.model_b])
        modes, rules = modes_from(args), rules_from(args)
        if args.instance:
            return _compare_instance(args, ws, instance_key_of(ws, args.instance), modes, rules)
        selection = selection_from(args, ws)
        if args.stats:
            return _compare_stats(args, ws, selection, modes, rules)
        rows = selection.rows(ws)
        truths = NormalisedTruths(ws, modes, rules)
        counts_a = instance_counts(ws, args.model_a, rows, modes, truths, rules)
        counts_b = instance_counts(ws, args.model_b, rows, modes, truths, rules)
    by_key = {row.key: row for row in rows}
    ranked = rank_differences(counts_a, counts_b, list(by_key))
    one_only = sorted(set(counts_a) ^ set(counts_b))
    a_wins, b_wins = sum(d.delta > 0 for d in ranked), sum(d.delta < 0 for d in ranked)
    top = args.top if args.top is not None else (TEXT_TOP if args.format == "text" else 0)
    shown = ranked[:top] if top else ranked
    records = [{"rank": rank, "instance": d.key, "language": by_key[d.key].language, "split": by_key[d.key].split,
                "f1_a": d.f1_a, "f1_b": d.f1_b, "delta": d.delta, "a": _counts_dict(d.counts_a),
                "b": _counts_dict(d.counts_b)} for rank, d in enumerate(shown, 1)]
    if args.format == "json":
        print_document("compare", {
            "model_a": args.model_a, "model_b": args.model_b, "rules": rules, "normalisation": sorted(modes),
            "split": selection.split or "all", "languages": list(selection.languages), "instance_rule": INSTANCE_RULE,
            "programs": len(ranked), "a_better": a_wins, "b_better": b_wins, "tied": len(ranked) - a_wins - b_wins,
            "one_model_only": one_only, "rows": records})
        return 0 if ranked else 1
    if args.format == "jsonl":
        print(records_text(records, "jsonl"), end="")
        return 0 if ranked else 1
    if args.format == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["rank", "instance", "language", "split", "f1_a", "f1_b", "delta",
                         "tp_a", "fp_a", "fn_a", "tp_b", "fp_b", "fn_b"])
        for rank, d in enumerate(shown, 1):
            row = by_key[d.key]
            writer.writerow([rank, d.key, row.language, row.split, f"{d.f1_a:.6f}", f"{d.f1_b:.6f}",
                             f"{d.delta:.6f}", d.counts_a.tp, d.counts_a.fp, d.counts_a.fn,
                             d.counts_b.tp, d.counts_b.fp, d.counts_b.fn])
        print(buffer.getvalue(), end="")
        return 0 if ranked else 1
    print(f"A {args.model_a}  vs  B {args.model_b}   {rules_title(rules)}; normalisation: "
          f"{', '.join(sorted(modes)) or 'off'}   "
          f"programs: {selection.split or 'all splits'}, {', '.join(selection.languages)}")
    if not ranked:
        print("no program has results from both models")
        return 1
    print(f"{len(ranked):,} programs answered by both: A better on {a_wins:,}, B better on {b_wins:,}, "
          f"tied on {len(ranked) - a_wins - b_wins:,}")
    if one_only:
        names = ", ".join(one_only[:5]) + (f" and {len(one_only) - 5:,} more" if len(one_only) > 5 else "")
        print(f"answered by only one of them (not compared): {names}")
    width = max(len(d.key) for d in shown)
    print()
    print(f"{'#':>5}  {'program':<{width}}  {'F1 A':>6}  {'F1 B':>6}  {'ΔF1':>6}  "
          f"{'A TP/FP/FN':>12}  {'B TP/FP/FN':>12}")
    for rank, d in enumerate(shown, 1):
        print(f"{rank:>5}  {d.key:<{width}}  {d.f1_a * 100:5.1f}%  {d.f1_b * 100:5.1f}%  {d.delta * 100:+6.1f}  "
              f"{_counts_text(d.counts_a):>12}  {_counts_text(d.counts_b):>12}")
    if len(shown) < len(ranked):
        print(f"… and {len(ranked) - len(shown):,} more (--top 0 for all)")
    print(f"\nΔF1 = F1(A) - F1(B) in percentage points, per program ({INSTANCE_RULE})")
    return 0


def _compare_instance(args, ws, key: str, modes: frozenset[str], rules: str) -> int:
    from core.report.evidence import load_instance  # the program's bundle: pygments, tree-sitter, networkx

    loaded = load_instance(ws, key, [args.model_a, args.model_b], modes, rules)
    overlay = loaded.overlay
    missing = [name for name in (args.model_a, args.model_b) if name not in overlay.models]
    if missing:
        print(f"{' and '.join(missing)} {'have' if len(missing) > 1 else 'has'} no result for {key}: nothing to "
              f"compare (reported as missing when scoring)")
        return 1
    groups = overlay.compare(args.model_a, args.model_b)
    order = {category: i for i, category in enumerate(CLASS_ORDER)}
    edges = sorted(((category, edge) for category, members in groups.items() for edge in members),
                   key=lambda item: (order[item[0]], item[1].caller, item[1].callee))
    counts = {name: counts_of(overlay, name) for name in (args.model_a, args.model_b)}
    records = [{"class": category, "caller": e.caller, "callee": e.callee, "truth": e.truth,
                "a": e.kind(args.model_a), "b": e.kind(args.model_b)} for category, e in edges]
    if args.format == "json":
        print_document("compare-instance", {
            "instance": key, "model_a": args.model_a, "model_b": args.model_b, "rules": rules,
            "normalisation": sorted(modes),
            "instance_rule": INSTANCE_RULE,
            "scores": {letter: {**_counts_dict(counts[name]), **_scores_dict(counts[name])}
                       for letter, name in (("a", args.model_a), ("b", args.model_b))},
            "classes": {category: len(groups[category]) for category in COMPARE_CLASSES},
            "edges": records})
        return 0
    if args.format == "jsonl":
        print(records_text(records, "jsonl"), end="")
        return 0
    if args.format == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["class", "caller", "callee", "truth", "a", "b"])
        for category, e in edges:
            writer.writerow([category, e.caller, e.callee, int(e.truth), e.kind(args.model_a) or "",
                             e.kind(args.model_b) or ""])
        print(buffer.getvalue(), end="")
        return 0
    print(f"{key}  A {args.model_a}  B {args.model_b}  {rules_title(rules)}; normalisation: "
          f"{', '.join(sorted(modes)) or 'off'}")
    for letter, name in (("A", args.model_a), ("B", args.model_b)):
        c, s = counts[name], instance_scores(counts[name])
        print(f"{letter}: TP {c.tp}  FP {c.fp}  FN {c.fn}   P {s.precision:.1%}  R {s.recall:.1%}  F1 {s.f1:.1%}")
    print("   ".join(f"{EDGE_STYLES[category].label} {len(groups[category])}" for category in COMPARE_CLASSES))
    width = max((len(EDGE_STYLES[category].label) for category in COMPARE_CLASSES), default=0)
    for category, e in edges:
        says = (f"truth: {'yes' if e.truth else 'no'}, A: {_says(e.kind(args.model_a))}, "
                f"B: {_says(e.kind(args.model_b))}")
        print(f"{EDGE_STYLES[category].label:<{width}}  {e.caller} -> {e.callee}   ({says})")
    return 0


def _compare_stats(args, ws, selection, modes: frozenset[str], rules: str) -> int:
    from core.scoring.paired import paired_stats  # numpy
    from core.scoring.paired_tables import paired_to_dict, render_paired

    if not 0 < args.confidence < 1:
        raise UsageError(f"--confidence must be between 0 and 1, not {args.confidence}")
    if args.resamples < 0:
        raise UsageError(f"--resamples must be 0 or more, not {args.resamples}")
    stats = paired_stats(ws, args.model_a, args.model_b, selection, modes, rules, args.confidence, args.resamples,
                         args.seed)
    if args.format == "jsonl":
        print(records_text(paired_to_dict(stats)["rows"], "jsonl"), end="")
    else:
        print(render_paired(stats, args.format), end="")
    return 0 if stats.rows else 1


def _says(kind: str | None) -> str:
    return {"TP": "predicted", "FP": "predicted", "FN": "missed", None: "—"}[kind]


def _counts_text(counts) -> str:
    return f"{counts.tp}/{counts.fp}/{counts.fn}"


def _counts_dict(counts) -> dict[str, int]:
    return {"tp": counts.tp, "fp": counts.fp, "fn": counts.fn}


def _scores_dict(counts) -> dict[str, float]:
    scores = instance_scores(counts)
    return {"precision": scores.precision, "recall": scores.recall, "f1": scores.f1}


# -- graph -------------------------------------------------------------------------------------------
def graph_export(args) -> int:
    from core.report.evidence import load_instance
    from core.report.graph_export import to_dot, to_graphml, to_json, to_svg

    fmt = args.format or (GRAPH_SUFFIXES.get(Path(args.output).suffix.lower()) if args.output else None) or "svg"
    ws, _ = open_workspace(args, args.dataset)
    with ws:
        key = instance_key_of(ws, args.instance)
        models = _default_models(ws, args.model, args.model_b, args.mode)
        loaded = load_instance(ws, key, models, modes_from(args), rules_from(args))
    _, why = loaded.effective_mode(args.mode, loaded.instance.key)
    if why:
        print(f"traceeval: warning: {why}; showing the ground truth", file=sys.stderr)
    write = {"svg": to_svg, "dot": to_dot, "graphml": to_graphml, "json": to_json}[fmt]
    text = write(loaded.picture(args.mode))
    return write_output(text, args.output)


def _default_models(ws, model_a: str | None, model_b: str | None, mode: str) -> list[str]:
    """The models named, checked; like the window, A defaults to the first model and B to the next."""
    names = [m.name for m in ws.models()]
    ws.model_names([n for n in (model_a, model_b) if n])
    if model_a is None and names and mode in ("model", "compare"):
        model_a = names[0]
    if model_b is None and mode == "compare":
        model_b = next((n for n in names if n != model_a), None)
    if model_a is not None and model_a == model_b:
        raise UsageError(f"model B must differ from model A (both are {model_a!r})")
    if model_b is not None and model_a is None:
        raise UsageError("--model-b needs --model (model A)")
    return [n for n in (model_a, model_b) if n]


# -- evidence ----------------------------------------------------------------------------------------
def evidence_packet(args) -> int:
    from core.report.evidence import load_instance, render_evidence

    mode = args.mode or ("compare" if args.model_b else "model")
    ws, _ = open_workspace(args, args.dataset)
    with ws:
        key = instance_key_of(ws, args.instance)
        models = _default_models(ws, args.model, args.model_b, mode)
        loaded = load_instance(ws, key, models, modes_from(args), rules_from(args))
    text = render_evidence(loaded, mode)
    _, why = loaded.effective_mode(mode, loaded.instance.key)
    if why:
        print(f"traceeval: warning: {why}; edges are classed by the ground truth", file=sys.stderr)
    return write_output(text, args.output)
