"""`traceeval audit ...`: spot-check audits headless, the twin of the Audit menu.

new / list / status / items / verdict / undo / adjudicate / answer / agreement / export / merge.
Items are numbered from 1 in the order annotators see them.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from core.audit.audits import (
    AUDIT_KINDS,
    BASELINE_AUDIT,
    POPULATION_TITLES,
    POPULATIONS,
    STRATA,
    Audit,
    AuditItem,
    human_model_name,
    label_fits,
    not_exercised_everywhere,
    population_phrase,
)
from core.audit.store import AuditStore
from core.errors import UsageError
from core.languages import registry
from core.scoring.scores import parse_languages
from core.verdicts import LABEL_TITLES, LABELS
from traceeval_gui.cli.common import (
    format_option,
    modes_from,
    open_workspace,
    parse_option,
    print_document,
    records_text,
)

REPORT_FORMATS = ("md", "json", "csv")
RECORD_FORMATS = ("text", "json", "jsonl", "csv")
LABEL_HELP = "correct: a real call the program makes when run; wrong: no such call can happen; not_exercised: a " \
             "real call the harness never runs (only for edges outside the ground truth); unsure: cannot tell"


def register(commands, dataset_help: str, workspace_args, modes_args) -> None:
    def dataset_args(parser) -> None:  # an option, not a positional: several actions take item numbers
        parser.add_argument("--dataset", help=dataset_help)
        parser.add_argument("--splits", metavar="DIR",
                            help="folder with the split files (default: DATASET/traceeval_split)")
        workspace_args(parser)

    audit = commands.add_parser(
        "audit", help="spot-check audits: sample edges, give verdicts, agreement, reports, merge workspaces",
        description="Spot-check audits of ground-truth and predicted edges, and human baselines. Verdicts are "
                    "committed one by one, so nothing is lost when a session is interrupted. Two annotators "
                    "working in separate workspaces create the same audit (same options and seed give the same "
                    "sample) and merge afterwards.")
    sub = audit.add_subparsers(dest="audit_command", metavar="ACTION", required=True)

    new = sub.add_parser("new", help="sample a new audit (seeded, stratified)",
                         description="Sample edges (or, for a human baseline, programs whose questions humans "
                                     "answer) into a new audit. The same options and seed on the same dataset give "
                                     "the same sample in any workspace (compare the printed fingerprint).")
    new.add_argument("name", metavar="NAME", help="name of the new audit (unique in the workspace)")
    dataset_args(new)
    new.add_argument("--kind", choices=AUDIT_KINDS, default="edges",
                     help="edges: judge sampled edges; baseline: humans answer the model's questions")
    new.add_argument("--population", choices=POPULATIONS, default="truth",
                     help="; ".join(f"{k}: {v}" for k, v in POPULATION_TITLES.items()) + " (default truth)")
    new.add_argument("--model", default="", help="the model whose FPs / FNs / predictions to sample")
    size = new.add_mutually_exclusive_group(required=True)
    size.add_argument("--size", type=int, metavar="N", help="sample N edges (baseline: N programs)")
    size.add_argument("--margin", type=float, metavar="E",
                      help="sample enough edges for a margin of error of E (e.g. 0.05) at --confidence")
    new.add_argument("--confidence", type=float, default=0.95, help="confidence level (default 0.95)")
    new.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    new.add_argument("--strata", help=f"stratify by these, comma-separated, or 'none' (default {','.join(STRATA)}; "
                                      "a baseline audit: language,repo)")
    new.add_argument("--split", choices=("test", "train", "all"), default="all",
                     help="programs to sample from (default all)")
    new.add_argument("--languages", default=",".join(registry.names()), help="comma-separated languages")
    new.add_argument("--annotators", default="", help="comma-separated annotator names")
    new.add_argument("--blind", action=argparse.BooleanOptionalAction, default=None,
                     help="hide each edge's class, the models and scores from annotators until they judge it "
                          "(default: blind for a ground-truth audit)")
    modes_args(new)
    new.set_defaults(handler=new_audit)

    listing = sub.add_parser("list", help="the audits in the workspace with their progress")
    dataset_args(listing)
    listing.set_defaults(handler=list_audits)

    status = sub.add_parser("status", help="one audit: definition, progress per annotator, estimate, open disputes")
    _audit_args(status, dataset_args)
    status.set_defaults(handler=audit_status)

    items = sub.add_parser("items", help="the sampled items in order, with one annotator's verdicts")
    _audit_args(items, dataset_args)
    items.add_argument("--annotator", help="show this annotator's verdicts (no one else's)")
    items.set_defaults(handler=list_items)

    verdict = sub.add_parser("verdict", help="give a verdict on one item (committed at once)")
    _audit_args(verdict, dataset_args)
    verdict.add_argument("position", type=int, metavar="ITEM", help="item number (see 'audit items')")
    verdict.add_argument("label", choices=LABELS, help=LABEL_HELP)
    verdict.add_argument("--annotator", required=True, help="who gives the verdict")
    verdict.add_argument("--note", default="", help="a free-text note stored with the verdict")
    verdict.set_defaults(handler=give_verdict)

    undo = sub.add_parser("undo", help="take back an annotator's last verdict")
    _audit_args(undo, dataset_args)
    undo.add_argument("--annotator", required=True, help="whose last verdict to take back")
    undo.set_defaults(handler=undo_verdict)

    adjudicate = sub.add_parser("adjudicate", help="settle a disputed item: the final verdict, who, why")
    _audit_args(adjudicate, dataset_args)
    adjudicate.add_argument("position", type=int, metavar="ITEM", help="item number (see 'audit items')")
    adjudicate.add_argument("label", choices=LABELS, help="the final verdict (the labels of 'audit verdict')")
    adjudicate.add_argument("--by", required=True, metavar="NAME", help="who decides")
    adjudicate.add_argument("--reason", default="", help="why")
    adjudicate.set_defaults(handler=adjudicate_item)

    answer = sub.add_parser("answer", help="a human baseline answer: the callees of one question")
    _audit_args(answer, dataset_args)
    answer.add_argument("position", type=int, metavar="ITEM", help="question number (see 'audit items')")
    answer.add_argument("callees", nargs="*", metavar="CALLEE", help="the callees (none: no calls)")
    answer.add_argument("--annotator", required=True, help="who answers (stored and scored as model human:ANNOTATOR)")
    answer.set_defaults(handler=answer_question)

    agreement = sub.add_parser("agreement", help="agreement (percent, Cohen, Fleiss, Krippendorff) and disputes")
    _audit_args(agreement, dataset_args)
    agreement.add_argument("--format", choices=("text", "json"), default="text",
                           help="text: Markdown tables; json: the agreement figures and the disagreements")
    agreement.set_defaults(handler=show_agreement)

    export = sub.add_parser("export", help="the audit report: estimate, FP breakdown, corrected F1, agreement",
                            description="Write the audit report as Markdown, JSON or CSV (one row per item). "
                                        "Without -o the Markdown report (or --format) goes to stdout.")
    _audit_args(export, dataset_args)
    export.add_argument("-o", "--output", metavar="FILE", help="write here; the format follows the suffix")
    export.add_argument("--format", choices=REPORT_FORMATS, help="md, json or csv (default: from -o, else md)")
    export.set_defaults(handler=export_report)

    merge = sub.add_parser("merge", help="merge another workspace's audits, verdicts and answers into this one",
                           description="Copy the audits, verdicts, adjudications and baseline answers of OTHER "
                                       "into this workspace. Verdicts keep their author and time; the same "
                                       "annotator's differing verdicts are listed (the newer stands). Merging "
                                       "the same workspace again changes nothing. OTHER is never modified: it is "
                                       "read from a private copy, nothing of it runs, and a file past the bounds "
                                       "(2 GiB, 200,000 rows a table, 1 MiB a value) or with rows an audit never "
                                       "holds is refused in one line. Ctrl-C stops the merge; nothing is merged.")
    merge.add_argument("other", metavar="OTHER", help="the other workspace file (.sqlite)")
    dataset_args(merge)
    merge.set_defaults(handler=merge_command)
    for action, formats, what in (
            (new, ("text", "json"), "the audit created"), (listing, RECORD_FORMATS, "one audit per line"),
            (status, ("text", "json"), "json: the whole audit report (as 'audit export --format json')"),
            (items, RECORD_FORMATS, "one item per line"), (verdict, ("text", "json"), "the verdict stored"),
            (undo, ("text", "json"), "what was undone"), (adjudicate, ("text", "json"), "the final verdict"),
            (answer, ("text", "json"), "the answer stored"), (merge, ("text", "json"), "what was merged")):
        format_option(action, formats, help=f"output format: {', '.join(formats)} ({what})")


def _audit_args(parser, dataset_args) -> None:
    parser.add_argument("name", metavar="NAME", help="the audit (see 'traceeval audit list')")
    dataset_args(parser)


# -- handlers ---------------------------------------------------------------------------------------
def new_audit(args) -> int:
    from core.audit.sampling import create_audit

    ws, _ = open_workspace(args)
    with ws:
        strata = None if args.strata is None else () if args.strata.strip() == "none" else \
            tuple(s.strip() for s in args.strata.split(",") if s.strip())
        annotators = tuple(a.strip() for a in args.annotators.split(",") if a.strip())
        audit = create_audit(
            ws, args.name, kind=args.kind, population=args.population, model=args.model, size=args.size,
            margin=args.margin, confidence=args.confidence, seed=args.seed, strata=strata,
            split=None if args.split == "all" else args.split, languages=parse_option(parse_languages, args.languages),
            annotators=annotators, modes=modes_from(args), blind=args.blind)
        if args.format == "json":
            print_document("audit", {"audit": _audit_record(audit)})
            return 0
        print(f"created audit {audit.name!r}: {describe(audit)}")
        print(f"fingerprint {audit.fingerprint} (another workspace given the same options gets the same sample)")
        who = "--annotator NAME"
        print(f"next: traceeval-gui --audit {audit.name} {who}   or   traceeval audit items {audit.name} {who}")
    return 0


def list_audits(args) -> int:
    with audit_store(args) as store:
        audits = store.audits()
        if args.format != "text":
            records = [{**_audit_record(audit), "progress": store.progress(audit.name)} for audit in audits]
            if args.format == "json":
                print_document("audits", {"audits": records})
            else:
                print(records_text(records, args.format), end="")
            return 0
        if not audits:
            print("no audits yet (traceeval audit new NAME --size 100)")
        for audit in audits:
            print(f"{audit.name}: {describe(audit)}; {_progress_line(store, audit)}")
    return 0


def audit_status(args) -> int:
    from core.audit.export import report_markdown
    from core.audit.reports import audit_report

    ws, _ = open_workspace(args)
    with ws:
        report = audit_report(ws, args.name)
        if args.format == "json":
            from core.audit.export import render_report

            print(render_report(report, "json"), end="")
            return 0
        print(report_markdown(report, sections=("definition", "progress", "estimate", "disagreements", "baseline")))
    return 0


def list_items(args) -> int:
    with audit_store(args) as store:
        audit = store.get(args.name)
        mine = _own_labels(store, audit, args.annotator) if args.annotator else {}
        if args.format != "text":
            records = [_item_record(item, mine.get(item.position, ""), audit.blind and bool(args.annotator))
                       for item in store.items(audit.name)]
            if args.format == "json":
                print_document("audit-items", {"audit": audit.name, "annotator": args.annotator or "",
                                               "items": records})
            else:
                print(records_text(records, args.format, ITEM_COLUMNS), end="")
            return 0
        for item in store.items(audit.name):
            what = f"{item.caller} → {item.callee}" if item.callee else f"which functions does {item.caller} call?"
            label = mine.get(item.position, "")
            shown = "" if audit.blind and args.annotator and not label else item.edge_class  # blind until judged
            print(f"{item.position + 1:>4}  {item.language:<10} {item.instance_id:<24} {shown:<5} "
                  f"{what}{'  [' + label + ']' if label else ''}")
    return 0


def give_verdict(args) -> int:
    with audit_store(args) as store:
        item = _fitting_item(store, args.name, args.position, args.label)
        verdict = store.give_verdict(args.name, item.ref, args.annotator, args.label, args.note)
        if args.format == "json":
            print_document("audit-verdict", {"item": args.position, "verdict": dataclasses.asdict(verdict)})
            return 0
        print(f"item {args.position}: {LABEL_TITLES[verdict.label]} ({args.annotator}, {verdict.created_at})")
    return 0


def undo_verdict(args) -> int:
    with audit_store(args) as store:
        restored = store.undo(store.get(args.name).name, args.annotator)
        if args.format == "json":
            print_document("audit-undo", {"annotator": args.annotator, "undone": restored is not None,
                                          "now": dataclasses.asdict(restored) if restored is not None else None})
            return 0 if restored is not None else 1
        if restored is None:
            print(f"nothing to undo for {args.annotator}")
            return 1
        now = LABEL_TITLES.get(restored.label, "no verdict")
        print(f"undone: {restored.caller} → {restored.callee} is back to {now}")
    return 0


def adjudicate_item(args) -> int:
    with audit_store(args) as store:
        item = _fitting_item(store, args.name, args.position, args.label)
        store.adjudicate(args.name, item.ref, args.label, args.by, args.reason)
        if args.format == "json":
            print_document("audit-adjudication", {"item": args.position, "caller": item.caller,
                                                  "callee": item.callee, "instance": item.instance_key,
                                                  "label": args.label, "by": args.by, "reason": args.reason})
            return 0
        print(f"item {args.position}: final verdict {LABEL_TITLES[args.label]} (decided by {args.by})")
    return 0


def answer_question(args) -> int:
    from core.audit.baseline import refresh_baseline_predictions

    with audit_store(args) as store:
        if store.get(args.name).kind != BASELINE_AUDIT:
            raise UsageError(f"audit {args.name!r} judges edges; answers belong to a baseline audit")
        item = _item(store, args.name, args.position)
        callees = [c.strip() for text in args.callees for c in text.split(",") if c.strip()]
        store.store_answer(args.name, args.annotator, item.instance_key, item.caller, callees)
        refresh_baseline_predictions(store.ws, args.name, args.annotator, [item.instance_key])
        if args.format == "json":
            print_document("audit-answer", {"question": args.position, "instance": item.instance_key,
                                            "caller": item.caller, "callees": callees,
                                            "model": human_model_name(args.annotator)})
            return 0
        print(f"question {args.position} ({item.caller}): {', '.join(callees) or 'no calls'} "
              f"— stored as model {human_model_name(args.annotator)}")
    return 0


def show_agreement(args) -> int:
    from core.audit.export import report_json, report_markdown
    from core.audit.reports import audit_report

    ws, _ = open_workspace(args)
    with ws:
        report = audit_report(ws, args.name)
        if args.format == "json":
            data = report_json(report)
            print_document("audit-agreement", {"agreement": data["agreement"], "disagreements": data["disagreements"]})
        else:
            print(report_markdown(report, sections=("agreement", "disagreements")))
    return 0


def export_report(args) -> int:
    from core.audit.export import render_report, write_report
    from core.audit.reports import audit_report

    ws, _ = open_workspace(args)
    with ws:
        report = audit_report(ws, args.name)
        if args.output:
            path = write_report(report, args.output, args.format)
            print(f"wrote {path}")
        else:
            sys.stdout.write(render_report(report, args.format or "md"))
    return 0


def merge_command(args) -> int:
    from core.audit.merge import merge_workspace  # opens a second database (sqlite-utils)

    ws, _ = open_workspace(args)
    with ws:
        result = merge_workspace(ws, args.other)
        if args.format == "json":
            print_document("audit-merge", {
                "source": str(result.source), "summary": result.summary(), "audits_added": list(result.audits_added),
                "audits_updated": list(result.audits_updated), "verdicts_added": result.verdicts_added,
                "adjudications_added": result.adjudications_added, "answers_added": result.answers_added,
                "conflicts": [{"kind": c.kind, "audit": c.audit, "annotator": c.annotator, "stands": c.stands,
                               "description": c.describe()} for c in result.conflicts],
                "skipped": [{"audit": audit, "reason": reason} for audit, reason in result.skipped],
                "models_refreshed": list(result.models_refreshed)})
            return 0
        print(result.summary())
        for conflict in result.conflicts:
            print(f"  conflict: {conflict.describe()}")
        for audit, reason in result.skipped:
            print(f"  skipped {audit}: {reason}")
    return 0


# -- helpers ----------------------------------------------------------------------------------------
ITEM_COLUMNS = ("number", "audit", "position", "instance_key", "instance_id", "language", "repo", "caller", "callee",
                "edge_class", "stratum", "stratum_size", "label")


def _item_record(item: AuditItem, label: str, blind: bool) -> dict:
    """An item as a record; blind and not yet judged, without its class (nor the stratum, which names it)."""
    record = {"number": item.position + 1, **dataclasses.asdict(item), "label": label}
    if blind and not label:
        record["edge_class"] = record["stratum"] = ""
    return record


def _audit_record(audit: Audit) -> dict:
    return {**dataclasses.asdict(audit), "description": describe(audit)}


@contextmanager
def audit_store(args) -> Iterator[AuditStore]:
    """The audits of the command's workspace (closed when the command is done)."""
    ws, _ = open_workspace(args)
    with ws:
        yield AuditStore(ws)


def describe(audit: Audit) -> str:
    if audit.kind == BASELINE_AUDIT:
        what = f"human baseline, {audit.size} questions"
    else:
        what = f"{audit.size} of {audit.population_size} {population_phrase(audit.population, audit.model)}"
    strata = ", ".join(s.replace("_", " ") for s in audit.strata) or "nothing"
    return f"{what} (seed {audit.seed}, stratified by {strata}{', blind' if audit.blind else ''})"


def _progress_line(store: AuditStore, audit: Audit) -> str:
    done = store.progress(audit.name)
    return ", ".join(f"{who} {n}/{audit.size}" for who, n in sorted(done.items()) if n) or "not started"


def _own_labels(store: AuditStore, audit: Audit, annotator: str) -> dict[int, str]:
    if audit.kind == BASELINE_AUDIT:
        answers = store.answers(audit.name, annotator)
        return {i.position: ", ".join(answers[(i.instance_key, i.caller)].callees) or "no calls"
                for i in store.items(audit.name) if (i.instance_key, i.caller) in answers}
    current = store.current_verdicts(audit.name, annotator)
    return {i.position: LABEL_TITLES[current[(annotator, i.ref)].label]
            for i in store.items(audit.name) if (annotator, i.ref) in current}


def _fitting_item(store: AuditStore, name: str, position: int, label: str) -> AuditItem:
    item = _item(store, name, position)
    if not label_fits(item, label, not_exercised_everywhere(store.get(name), store.items(name))):
        raise UsageError(f"item {position} is in the ground truth ({item.edge_class}): not_exercised only fits "
                         "edges the ground truth lacks (false positives)")
    return item


def _item(store: AuditStore, name: str, position: int) -> AuditItem:
    items = store.items(store.get(name).name)
    if not 1 <= position <= len(items):
        raise UsageError(f"audit {name!r} has items 1–{len(items)}, not {position}")
    return items[position - 1]

