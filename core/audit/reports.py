"""What an audit found: progress, final verdicts, a ground-truth precision estimate, what the models' false
positives really are, F1 with the audited truth corrected, inter-annotator agreement and the disputes.

Everything is computed from the workspace (nothing is written besides the scoring cache `score_table` keeps);
`core.audit.export` turns an `AuditReport` into JSON, Markdown or CSV. Edges are the normalised names the
audit was sampled under (`Audit.modes`), which is how scoring compares them, so an audited FP is an FP of
the score table. Only non-disputed final verdicts count as evidence, and "unsure" never counts either way.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from core.audit.agreement import Agreement, agreement, agreement_by
from core.audit.audits import (
    BASELINE_AUDIT,
    Adjudication,
    Audit,
    AuditItem,
    EdgeRef,
    FinalVerdict,
    disagreements,
    final_verdicts,
    human_model_name,
)
from core.audit.store import AuditStore
from core.dataset.workspace import Workspace
from core.languages import registry
from core.scoring.metrics import Counts, count_edges
from core.scoring.scores import (
    NormalisedTruths,
    ScoreTable,
    Selection,
    TableRow,
    instance_counts,
    instance_diff,
    score_table,
    table_row,
)
from core.scoring.stats import Proportion, StratumCount, plain_proportion, stratified_proportion
from core.verdicts import LABELS, REAL_CALL, Verdict

HOWS = ("adjudicated", "unanimous", "single", "disputed")
TRUTH_CLASSES = ("TP", "FN", "truth")  # edge classes of ground-truth edges
EVIDENCE = ("correct", "not_exercised", "wrong")  # final labels that say something about the edge
# What an audited false positive turned out to be, in report order.
FP_OUTCOMES = ("wrong", "not_exercised", "correct", "unsure", "disputed", "unjudged")
FP_OUTCOME_TITLES = {"wrong": "hallucinated", "not_exercised": "real, not exercised",
                     "correct": "real, missed by the tracer", "unsure": "unsure", "disputed": "disputed",
                     "unjudged": "unjudged"}
CORRECTION_RULE = ("corrected truth = truth + audited edges with a final verdict of correct or not_exercised "
                   "- audited edges with a final verdict of wrong (unsure, disputed and unjudged edges change "
                   "nothing); per scored program, then micro per language and macro average as in the paper")


# -- report data ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnnotatorProgress:
    annotator: str
    judged: int  # items with a current verdict (edge audit) or an answer (baseline audit)
    labels: Mapping[str, int]  # label -> items, in LABELS order (empty for a baseline audit)


@dataclass(frozen=True)
class Progress:
    items: int
    judged: int  # items with at least one verdict (or answer)
    annotators: tuple[AnnotatorProgress, ...]


@dataclass(frozen=True)
class FinalSummary:
    """How the items' verdicts resolved: by `how` (HOWS) and by final label (non-disputed only)."""

    by_how: Mapping[str, int]
    by_label: Mapping[str, int]
    unjudged: int


@dataclass(frozen=True)
class ItemRow:
    """One audit item with everything given on it."""

    item: AuditItem
    verdicts: Mapping[str, Verdict]  # annotator -> current verdict (label and note)
    final: FinalVerdict | None
    adjudication: Adjudication | None
    answers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # baseline: annotator -> callees

    @property
    def outcome(self) -> str:
        """The final label, "disputed", or "unjudged"."""
        if self.final is None:
            return "unjudged"
        return self.final.label or "disputed"


@dataclass(frozen=True)
class FPBreakdown:
    """The audited edges that are `model`'s false positives, by what they turned out to be (FP_OUTCOMES)."""

    model: str
    audited: int
    counts: Mapping[str, int]
    real_share: Proportion | None  # share of judged FPs (correct / not_exercised / wrong) that are real calls


@dataclass(frozen=True)
class ModelCorrection:
    """One model's paper row beside its row with the audited truth corrected (CORRECTION_RULE)."""

    model: str
    paper: TableRow
    corrected: TableRow
    truth_added: int  # audited real calls added to the truth of the model's scored programs
    truth_removed: int  # audited wrong edges taken out of that truth
    fp_to_tp: int  # added edges the model predicted (were FPs, now TPs)
    tp_to_fp: int  # removed edges the model predicted (were TPs, now FPs)


@dataclass(frozen=True)
class Corrections:
    rule: str
    table: ScoreTable  # the paper table (audit selection and modes)
    models: tuple[ModelCorrection, ...]
    real_edges: int  # audited edges with a final real-call verdict
    wrong_edges: int  # audited edges with a final wrong verdict


@dataclass(frozen=True)
class AgreementSummary:
    overall: Agreement
    by_language: Mapping[str, Agreement]
    by_edge_class: Mapping[str, Agreement]


@dataclass(frozen=True)
class BaselineAnnotator:
    annotator: str
    model: str  # human_model_name(annotator)
    answered: int
    questions: int


@dataclass(frozen=True)
class BaselineSummary:
    annotators: tuple[BaselineAnnotator, ...]
    table: ScoreTable  # humans first, then every model, on the sampled programs only


@dataclass(frozen=True)
class AuditReport:
    audit: Audit
    annotators: tuple[str, ...]
    items: tuple[ItemRow, ...]
    progress: Progress
    finals: FinalSummary
    gt_precision: Proportion | None  # share of ground-truth edges that are real calls (edge audits)
    fp_breakdown: tuple[FPBreakdown, ...]
    corrections: Corrections | None
    agreement: AgreementSummary | None
    disagreements: tuple[ItemRow, ...]  # items two or more annotators labelled differently
    baseline: BaselineSummary | None


# -- building the report -------------------------------------------------------------------------------------
def audit_report(ws: Workspace, name: str) -> AuditReport:
    """Everything known about audit `name` (AuditError when there is no such audit)."""
    store = AuditStore(ws)
    audit = store.get(name)
    items = store.items(name)
    annotators = store.annotators(name)
    rows = _item_rows(store, audit, items, annotators)
    progress = _progress(rows, annotators, audit.kind == BASELINE_AUDIT)
    finals = _final_summary(rows)
    if audit.kind == BASELINE_AUDIT:
        return AuditReport(audit, annotators, rows, progress, finals, None, (), None, None, (),
                           _baseline(ws, audit, rows, annotators))
    labelled = [r for r in rows if r.verdicts]
    disputed = set(disagreements({r.item.ref: {a: v.label for a, v in r.verdicts.items()} for r in labelled}))
    return AuditReport(audit, annotators, rows, progress, finals, gt_precision(rows, audit.confidence),
                       _fp_breakdown(ws, audit, rows), _corrections(ws, audit, rows), _agreement(labelled),
                       tuple(r for r in labelled if r.item.ref in disputed), None)


def _item_rows(store: AuditStore, audit: Audit, items: Sequence[AuditItem],
               annotators: Sequence[str]) -> tuple[ItemRow, ...]:
    verdicts = _by_ref(store.current_verdicts(audit.name))
    adjudications = store.adjudications(audit.name)
    finals = final_verdicts(store.labels(audit.name), adjudications)
    answers = {a: store.answers(audit.name, a) for a in annotators} if audit.kind == BASELINE_AUDIT else {}
    rows = []
    for item in items:
        answered = {a: got[(item.instance_key, item.caller)].callees for a, got in answers.items()
                    if (item.instance_key, item.caller) in got}
        rows.append(ItemRow(item, verdicts.get(item.ref, {}), finals.get(item.ref), adjudications.get(item.ref),
                            answered))
    return tuple(rows)


def _by_ref(current: Mapping[tuple[str, EdgeRef], Verdict]) -> dict[EdgeRef, dict[str, Verdict]]:
    by_ref: dict[EdgeRef, dict[str, Verdict]] = {}
    for (annotator, ref), verdict in sorted(current.items(), key=lambda kv: kv[0][0]):
        by_ref.setdefault(ref, {})[annotator] = verdict
    return by_ref


def _progress(rows: Sequence[ItemRow], annotators: Sequence[str], baseline: bool) -> Progress:
    per_annotator = []
    for annotator in annotators:
        if baseline:
            per_annotator.append(AnnotatorProgress(annotator, sum(annotator in r.answers for r in rows), {}))
            continue
        given = Counter(r.verdicts[annotator].label for r in rows if annotator in r.verdicts)
        per_annotator.append(AnnotatorProgress(annotator, sum(given.values()), {lab: given[lab] for lab in LABELS}))
    judged = sum(bool(r.answers if baseline else r.verdicts) for r in rows)
    return Progress(len(rows), judged, tuple(per_annotator))


def _final_summary(rows: Sequence[ItemRow]) -> FinalSummary:
    hows = Counter(r.final.how for r in rows if r.final)
    labels = Counter(r.final.label for r in rows if r.final and r.final.label)
    return FinalSummary({h: hows[h] for h in HOWS}, {lab: labels[lab] for lab in LABELS},
                        sum(r.final is None for r in rows))


def gt_precision(rows: Sequence[ItemRow], confidence: float) -> Proportion | None:
    """Share of the ground-truth edges that are real calls, stratified by the items' strata.

    Edge audits over "all" may mix truth and predicted edges in a stratum (when not stratified by edge
    class); the truth share of stratum h is then estimated as N_h * (truth items / items sampled in h).
    """
    strata: dict[str, list[ItemRow]] = {}
    for row in rows:
        strata.setdefault(row.item.stratum, []).append(row)
    counts = []
    for members in strata.values():
        truth = [r for r in members if r.item.edge_class in TRUTH_CLASSES]
        judged = [r for r in truth if r.outcome in EVIDENCE]
        size = max(r.item.stratum_size for r in members)
        counts.append(StratumCount(Fraction(size * len(truth), len(members)) if size > 0 else None, len(judged),
                                   sum(r.outcome in REAL_CALL for r in judged)))
    return stratified_proportion(counts, confidence)


def _fp_breakdown(ws: Workspace, audit: Audit, rows: Sequence[ItemRow]) -> tuple[FPBreakdown, ...]:
    by_key: dict[str, list[ItemRow]] = {}
    for row in rows:
        by_key.setdefault(row.item.instance_key, []).append(row)
    breakdowns = []
    for model in (m.name for m in ws.models()):
        diffs = {key: d for key in by_key if (d := instance_diff(ws, model, key, audit.modes)) is not None}
        if not diffs:
            continue
        fps = [r for key, d in diffs.items() for r in by_key[key] if (r.item.caller, r.item.callee) in d.fp]
        outcomes = Counter(r.outcome for r in fps)
        judged = [r for r in fps if r.outcome in EVIDENCE]
        breakdowns.append(FPBreakdown(model, len(fps), {o: outcomes[o] for o in FP_OUTCOMES},
                                      plain_proportion(sum(r.outcome in REAL_CALL for r in judged), len(judged),
                                                       audit.confidence)))
    return tuple(breakdowns)


def audit_selection(audit: Audit) -> Selection:
    return Selection(languages=audit.languages or registry.names(), split=audit.split)


def _corrections(ws: Workspace, audit: Audit, rows: Sequence[ItemRow]) -> Corrections:
    adds: dict[str, set] = {}
    removes: dict[str, set] = {}
    for row in rows:
        if row.outcome in REAL_CALL:
            adds.setdefault(row.item.instance_key, set()).add((row.item.caller, row.item.callee))
        elif row.outcome == "wrong":
            removes.setdefault(row.item.instance_key, set()).add((row.item.caller, row.item.callee))
    models = [m.name for m in ws.models()]
    selection = audit_selection(audit)
    table = score_table(ws, models, selection, modes=audit.modes)
    selected = selection.rows(ws)
    truths = NormalisedTruths(ws, frozenset(audit.modes))
    corrections = []
    for paper in table.rows:
        counts = instance_counts(ws, paper.model, selected, frozenset(audit.modes), truths)
        moves: Counter[str] = Counter()
        for key in counts.keys() & (adds.keys() | removes.keys()):
            counts[key] = _corrected_counts(ws, audit, paper.model, key, adds.get(key, set()),
                                            removes.get(key, set()), moves)
        corrected = table_row(paper.model, paper.illustrative, selected, counts, table.languages)
        corrections.append(ModelCorrection(paper.model, paper, corrected, moves["added"], moves["removed"],
                                           moves["fp_to_tp"], moves["tp_to_fp"]))
    return Corrections(CORRECTION_RULE, table, tuple(corrections), sum(len(v) for v in adds.values()),
                       sum(len(v) for v in removes.values()))


def _corrected_counts(ws: Workspace, audit: Audit, model: str, key: str, adds: set, removes: set,
                      moves: Counter[str]) -> Counts:
    diff = instance_diff(ws, model, key, audit.modes)
    if diff is None:
        raise ValueError(f"{model} has no scored prediction on {key}")  # `key` comes from the model's own counts
    truth, predicted = set(diff.tp) | set(diff.fn), set(diff.tp) | set(diff.fp)
    added, removed = adds - truth, removes & truth
    moves.update(added=len(added), removed=len(removed), fp_to_tp=len(added & predicted),
                 tp_to_fp=len(removed & predicted))
    return count_edges(frozenset((truth | added) - removed), frozenset(predicted))


def _agreement(rows: Sequence[ItemRow]) -> AgreementSummary:
    ratings = {r.item.ref: {a: v.label for a, v in r.verdicts.items()} for r in rows}
    items = {r.item.ref: r.item for r in rows}
    return AgreementSummary(agreement(ratings), agreement_by(ratings, lambda ref: items[ref].language),
                            agreement_by(ratings, lambda ref: items[ref].edge_class))


# -- baseline audits ------------------------------------------------------------------------------------------
def _baseline(ws: Workspace, audit: Audit, rows: Sequence[ItemRow], annotators: Sequence[str]) -> BaselineSummary:
    """Each annotator's answers scored like a model's (as `human_model_name`, see core.audit.baseline) on the sampled
    programs, beside every model there; a program with no answered question is not scored."""
    keys = {r.item.instance_key for r in rows}
    selected = [r for r in ws.instance_rows(audit.languages or None, audit.split) if r.key in keys]
    languages = tuple(lang for lang in (audit.languages or registry.names()) if registry.is_known(lang))
    modes = frozenset(audit.modes)
    truths = NormalisedTruths(ws, modes)
    known = {m.name: m for m in ws.models()}
    people, table_rows = [], []
    for annotator in annotators:
        model = human_model_name(annotator)
        counts = instance_counts(ws, model, selected, modes, truths) if model in known else {}
        answered = sum(annotator in r.answers for r in rows)
        people.append(BaselineAnnotator(annotator, model, answered, len(rows)))
        table_rows.append(table_row(model, False, selected, counts, languages))
    humans = {p.model for p in people}
    for name in sorted(set(known) - humans):
        counts = instance_counts(ws, name, selected, modes, truths)
        table_rows.append(table_row(name, known[name].illustrative, selected, counts, languages))
    table = ScoreTable(table_rows, languages, modes, audit_selection(audit), None,
                       {lang: sum(r.language == lang for r in selected) for lang in languages})
    return BaselineSummary(tuple(people), table)

