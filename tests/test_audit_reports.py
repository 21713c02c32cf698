"""Audit reports on the bundled demo dataset: estimates against hand-computed numbers, FP breakdown and
corrected F1 against counts taken from the edge diffs, agreement, baseline scores and the three exports."""
from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import Counter

import pytest

from core.audit.baseline import refresh_baseline_predictions
from core.audit.export import format_proportion, items_csv, report_json, report_markdown, write_report
from core.audit.reports import CORRECTION_RULE, audit_report
from core.audit.sampling import create_audit
from core.audit.store import AuditStore
from core.dataset.indexing import open_dataset
from core.errors import AuditError
from core.records import CallGraph, Prediction
from core.scoring.scores import instance_diff
from core.scoring.stats import Proportion, StratumCount, plain_proportion, stratified_proportion, wilson_interval
from resources import DEMO_DATASET
from traceeval_gui.cli.main import main as cli_main

STRONG, WEAK = "illustrative-strong", "illustrative-weak"
Z95 = 1.959963984540054


@pytest.fixture
def ws_path(tmp_path):
    return tmp_path / "demo.sqlite"


@pytest.fixture
def ws(ws_path):
    workspace, _ = open_dataset(DEMO_DATASET, ws_path, None)
    with workspace:
        yield workspace


def textbook_wilson(k, n, z=Z95):
    """Wilson (1927) written out from the textbook formula, independent of the module under test."""
    p = k / n
    centre = (2 * n * p + z * z) / (2 * (n + z * z))
    half = z * math.sqrt(z * z + 4 * n * p * (1 - p)) / (2 * (n + z * z))
    return centre - half, centre + half


def counts_of(ws, model, keys, modes):
    """(tp, fp, fn) per language from the normalised edge diffs of the given programs."""
    totals = {}
    for key in keys:
        diff = instance_diff(ws, model, key, modes)
        if diff is None:
            continue
        language = key.split("/")[0]
        tp, fp, fn = totals.get(language, (0, 0, 0))
        totals[language] = (tp + len(diff.tp), fp + len(diff.fp), fn + len(diff.fn))
    return totals


def language_counts(row):
    return {lang: (r.counts.tp, r.counts.fp, r.counts.fn) for lang, r in row.languages.items() if r.programs}


def correction(report, model):
    return next(m for m in report.corrections.models if m.model == model)


def scored_test_keys(ws):
    return [r.key for r in ws.instance_rows(None, "test")]


# -- estimators -------------------------------------------------------------------------------------------------
def test_wilson_matches_the_textbook_value():
    low, high = wilson_interval(0.8, 10, 0.95)
    assert (round(low, 3), round(high, 3)) == (0.490, 0.943)
    assert (low, high) == pytest.approx(textbook_wilson(8, 10))
    plain = plain_proportion(8, 10, 0.95)
    assert (plain.estimate, plain.judged, plain.real, plain.effective_n) == (0.8, 10, 8, 10)
    assert (plain.low, plain.high) == pytest.approx(textbook_wilson(8, 10))
    assert plain_proportion(0, 0, 0.95) is None


def test_one_stratum_is_the_plain_wilson_interval():
    estimate = stratified_proportion([StratumCount(200, 20, 15)], 0.95)
    assert estimate.estimate == pytest.approx(0.75)
    assert estimate.effective_n == pytest.approx(20)
    assert (estimate.low, estimate.high) == pytest.approx(textbook_wilson(15, 20))


def test_two_strata_against_hand_computed_numbers():
    # W = (100, 300) / 400; p = (0.8, 0.5): p_st = 0.25 * 0.8 + 0.75 * 0.5 = 0.575
    var = 0.25 ** 2 * (1 - 10 / 100) * 0.8 * 0.2 / 9 + 0.75 ** 2 * (1 - 10 / 300) * 0.5 * 0.5 / 9
    srs = (1 - 20 / 400) * 0.575 * 0.425 / 19
    n_eff = 20 * srs / var  # 15.17: the unequal weights cost precision
    strata = [StratumCount(100, 10, 8), StratumCount(300, 10, 5), StratumCount(5000, 0, 0)]  # last: nothing judged
    estimate = stratified_proportion(strata, 0.95)
    assert estimate.estimate == pytest.approx(0.575)
    assert estimate.effective_n == pytest.approx(n_eff) and 15 < n_eff < 15.3
    assert (estimate.judged, estimate.real, estimate.strata) == (20, 13, 2)
    z2 = Z95 ** 2
    centre = (0.575 + z2 / (2 * n_eff)) / (1 + z2 / n_eff)
    half = Z95 * math.sqrt(0.575 * 0.425 / n_eff + z2 / (4 * n_eff ** 2)) / (1 + z2 / n_eff)
    assert (estimate.low, estimate.high) == pytest.approx((centre - half, centre + half))


def test_pure_strata_never_claim_more_than_n_items():
    estimate = stratified_proportion([StratumCount(50, 5, 5), StratumCount(50, 5, 0)], 0.95)
    assert estimate.estimate == 0.5 and estimate.effective_n == 10
    assert (estimate.low, estimate.high) == pytest.approx(textbook_wilson(5, 10))
    assert stratified_proportion([StratumCount(50, 0, 0)], 0.95) is None


def test_a_large_sampling_fraction_does_not_narrow_below_simple_random_sampling():
    # W = 1/2 each, p = (0.5, 0.9), half of each stratum sampled: n / deff = 23.4 > n = 20, so n is used
    var = 0.25 * 0.5 * 0.25 / 9 + 0.25 * 0.5 * 0.09 / 9
    assert 20 * (0.5 * 0.7 * 0.3 / 19) / var > 23
    estimate = stratified_proportion([StratumCount(20, 10, 5), StratumCount(20, 10, 9)], 0.95)
    assert estimate.estimate == pytest.approx(0.7) and estimate.effective_n == 20
    assert (estimate.low, estimate.high) == pytest.approx(textbook_wilson(14, 20))


def test_format_proportion():
    assert format_proportion(Proportion(0.941, 0.88, 0.973, 85, 80, 0.95, 85, 1, "")) == \
        "94.1 % (95 % CI 88.0–97.3 %, n = 85)"


# -- ground-truth precision on a real audit ------------------------------------------------------------------------
def test_gt_precision_counts_only_final_evidence(ws):
    audit = create_audit(ws, "truth", population="truth", size=20, seed=3, split="test", strata=())
    store = AuditStore(ws)
    items = store.items("truth")
    labels = ["correct"] * 9 + ["not_exercised"] * 3 + ["wrong"] * 3 + ["unsure"] * 2
    for item, label in zip(items, labels):
        store.give_verdict("truth", item.ref, "ann", label)
    store.give_verdict("truth", items[17].ref, "ann", "correct")  # disputed: does not count
    store.give_verdict("truth", items[17].ref, "bob", "wrong")
    report = audit_report(ws, "truth")
    estimate = report.gt_precision
    assert (estimate.judged, estimate.real) == (15, 12)
    assert estimate.estimate == pytest.approx(12 / 15)
    assert (estimate.low, estimate.high) == pytest.approx(textbook_wilson(12, 15))
    assert estimate.confidence == audit.confidence == 0.95
    assert report.finals.by_how == {"adjudicated": 0, "unanimous": 0, "single": 17, "disputed": 1}
    assert report.finals.by_label == {"correct": 9, "wrong": 3, "not_exercised": 3, "unsure": 2}
    assert report.finals.unjudged == 2


def test_gt_precision_weights_strata_by_their_population(ws):
    create_audit(ws, "lang", population="truth", size=30, seed=1, split="test", strata=("language",))
    store = AuditStore(ws)
    items = store.items("lang")
    for item in items:  # every Python edge judged wrong, every other one correct
        store.give_verdict("lang", item.ref, "ann", "wrong" if item.language == "python" else "correct")
    sizes = {i.language: i.stratum_size for i in items}
    expected = 1 - sizes["python"] / sum(sizes.values())
    estimate = audit_report(ws, "lang").gt_precision
    assert estimate.estimate == pytest.approx(expected)
    assert estimate.judged == 30 and estimate.strata == 3
    assert estimate.effective_n == 30  # pure strata: no variance, so n
    assert audit_report(ws, "lang").fp_breakdown[0].audited == 0  # truth edges are nobody's FP


def test_gt_precision_estimates_the_truth_share_of_mixed_strata(ws):
    create_audit(ws, "mixed", population="all", model=WEAK, size=40, seed=2, split="test", strata=("language",))
    store = AuditStore(ws)
    items = store.items("mixed")
    truth = [i for i in items if i.edge_class in ("TP", "FN")]
    for item in truth:
        store.give_verdict("mixed", item.ref, "ann", "wrong" if item.language == "python" else "correct")
    sampled, in_truth = Counter(i.language for i in items), Counter(i.language for i in truth)
    size = {i.language: i.stratum_size for i in items}
    domain = {lang: size[lang] * in_truth[lang] / sampled[lang] for lang in sampled}  # truth edges per stratum
    estimate = audit_report(ws, "mixed").gt_precision
    assert estimate.judged == len(truth) < len(items)
    assert estimate.estimate == pytest.approx(1 - domain["python"] / sum(domain.values()))


# -- FP breakdown and corrected F1 -------------------------------------------------------------------------------------
def test_every_fp_real_moves_fps_to_tps(ws):
    audit = create_audit(ws, "fps", population="fp", model=WEAK, size=1000, seed=0, split="test")
    store = AuditStore(ws)
    items = store.items("fps")
    assert audit.size == audit.population_size == len(items) == 38
    for item in items:
        store.give_verdict("fps", item.ref, "ann", "not_exercised")
    report = audit_report(ws, "fps")
    keys = scored_test_keys(ws)

    paper = counts_of(ws, WEAK, keys, audit.modes)
    weak = correction(report, WEAK)
    assert language_counts(weak.paper) == paper
    assert language_counts(weak.corrected) == {lang: (tp + fp, 0, fn) for lang, (tp, fp, fn) in paper.items()}
    assert (weak.truth_added, weak.fp_to_tp, weak.truth_removed, weak.tp_to_fp) == (38, 38, 0, 0)
    assert weak.corrected.average.precision == pytest.approx(1.0)

    added = {(i.instance_key, i.caller, i.callee) for i in items}
    strong_hits = Counter()
    for key in keys:
        diff = instance_diff(ws, STRONG, key, audit.modes)
        predicted = set(diff.tp) | set(diff.fp)
        strong_hits[key.split("/")[0]] += sum((c, e) in predicted for k, c, e in added if k == key)
    strong, added_by_language = correction(report, STRONG), Counter(k.split("/")[0] for k, _, _ in added)
    expected = {lang: (tp + strong_hits[lang], fp - strong_hits[lang], fn + added_by_language[lang] - strong_hits[lang])
                for lang, (tp, fp, fn) in counts_of(ws, STRONG, keys, audit.modes).items()}
    assert language_counts(strong.corrected) == expected
    assert strong.fp_to_tp == sum(strong_hits.values()) and strong.truth_added == 38

    fp = {b.model: b for b in report.fp_breakdown}
    assert fp[WEAK].audited == 38 and fp[WEAK].counts["not_exercised"] == 38
    assert fp[WEAK].counts == {"wrong": 0, "not_exercised": 38, "correct": 0, "unsure": 0, "disputed": 0,
                               "unjudged": 0}
    assert (fp[WEAK].real_share.estimate, fp[WEAK].real_share.judged) == (1.0, 38)
    assert fp[WEAK].real_share.low == pytest.approx(textbook_wilson(38, 38)[0])
    assert fp[STRONG].audited == sum(strong_hits.values())  # strong's FPs among the audited edges


def test_fp_breakdown_sorts_fps_by_their_final_label(ws):
    create_audit(ws, "fps", population="fp", model=WEAK, size=12, seed=5, split="test")
    store = AuditStore(ws)
    items = store.items("fps")
    plan = ["wrong", "wrong", "wrong", "not_exercised", "not_exercised", "correct", "unsure"]
    for item, label in zip(items, plan):
        store.give_verdict("fps", item.ref, "ann", label)
    store.give_verdict("fps", items[7].ref, "ann", "wrong")
    store.give_verdict("fps", items[7].ref, "bob", "correct")
    weak = next(b for b in audit_report(ws, "fps").fp_breakdown if b.model == WEAK)
    assert weak.counts == {"wrong": 3, "not_exercised": 2, "correct": 1, "unsure": 1, "disputed": 1, "unjudged": 4}
    assert (weak.real_share.real, weak.real_share.judged) == (3, 6)
    assert (weak.real_share.low, weak.real_share.high) == pytest.approx(textbook_wilson(3, 6))


def test_a_truth_edge_marked_wrong_leaves_the_truth(ws):
    audit = create_audit(ws, "gt", population="truth", model=STRONG, size=1000, seed=0, split="test")
    store = AuditStore(ws)
    items = store.items("gt")
    tp = next(i for i in items if i.edge_class == "TP")
    fn = next(i for i in items if i.edge_class == "FN")
    store.give_verdict("gt", tp.ref, "ann", "wrong")
    store.give_verdict("gt", fn.ref, "ann", "wrong")
    store.give_verdict("gt", items[-1].ref, "ann", "unsure")  # changes nothing
    paper = counts_of(ws, STRONG, scored_test_keys(ws), audit.modes)
    expected = {lang: list(c) for lang, c in paper.items()}
    expected[tp.language][0] -= 1
    expected[tp.language][1] += 1
    expected[fn.language][2] -= 1
    strong = correction(audit_report(ws, "gt"), STRONG)
    assert language_counts(strong.corrected) == {lang: tuple(c) for lang, c in expected.items()}
    assert (strong.truth_added, strong.truth_removed, strong.fp_to_tp, strong.tp_to_fp) == (0, 2, 0, 1)


def test_disputed_edges_wait_for_adjudication(ws):
    audit = create_audit(ws, "fps", population="fp", model=WEAK, size=10, seed=2, split="test",
                         annotators=("ann", "bob"))
    store = AuditStore(ws)
    item = store.items("fps")[0]
    store.give_verdict("fps", item.ref, "ann", "not_exercised", note="only with --verbose")
    store.give_verdict("fps", item.ref, "bob", "wrong", note="dead code")
    report = audit_report(ws, "fps")
    weak = correction(report, WEAK)
    assert language_counts(weak.corrected) == language_counts(weak.paper)
    assert (weak.truth_added, weak.fp_to_tp) == (0, 0)
    (row,) = report.disagreements
    assert row.item == item and row.adjudication is None and row.outcome == "disputed"
    assert {a: (v.label, v.note) for a, v in row.verdicts.items()} == {
        "ann": ("not_exercised", "only with --verbose"), "bob": ("wrong", "dead code")}

    store.adjudicate("fps", item.ref, "not_exercised", "carol", "reachable with --verbose")
    report = audit_report(ws, "fps")
    weak = correction(report, WEAK)
    paper = language_counts(weak.paper)
    tp, fp, fn = paper[item.language]
    assert language_counts(weak.corrected) == {**paper, item.language: (tp + 1, fp - 1, fn)}
    assert weak.fp_to_tp == 1
    (row,) = report.disagreements
    assert (row.adjudication.label, row.adjudication.adjudicator, row.final.how) == (
        "not_exercised", "carol", "adjudicated")
    assert audit.annotators == ("ann", "bob")


def test_paper_table_is_the_traceeval_score_table(ws, ws_path, capsys):
    create_audit(ws, "fps", population="fp", model=WEAK, size=10, seed=2, split="test")
    report = audit_report(ws, "fps")
    assert cli_main(["score", str(DEMO_DATASET), "--workspace", str(ws_path), "--split", "test",
                     "--format", "json"]) == 0
    cli = {row["model"]: row for row in json.loads(capsys.readouterr().out)["rows"]}
    assert [m.model for m in report.corrections.models] == sorted(cli) == [STRONG, WEAK]
    for model in report.corrections.models:
        for lang, result in model.paper.languages.items():
            expected = cli[model.model]["languages"][lang]
            assert (result.counts.tp, result.counts.fp, result.counts.fn) == (
                expected["tp"], expected["fp"], expected["fn"])
            assert result.scores.f1 == pytest.approx(expected["f1"])
        assert model.paper.average.f1 == pytest.approx(cli[model.model]["average"]["f1"])
        # no verdicts yet: the corrected row is the paper row
        assert language_counts(model.corrected) == language_counts(model.paper)
        assert model.corrected.average == model.paper.average


# -- progress and agreement -------------------------------------------------------------------------------------
def test_progress_agreement_and_disagreements(ws):
    create_audit(ws, "two", population="all", model=STRONG, size=12, seed=4, split="test",
                 annotators=("ann", "bob", "cy"))
    store = AuditStore(ws)
    items = store.items("two")
    for item, a, b in zip(items, ["correct", "correct", "wrong", "not_exercised", "unsure"],
                          ["correct", "correct", "wrong", "wrong", None]):
        store.give_verdict("two", item.ref, "ann", a)
        if b:
            store.give_verdict("two", item.ref, "bob", b)
    report = audit_report(ws, "two")
    progress = {p.annotator: p for p in report.progress.annotators}
    assert report.progress.items == 12 and report.progress.judged == 5
    assert progress["ann"].judged == 5 and progress["bob"].judged == 4 and progress["cy"].judged == 0
    assert dict(progress["ann"].labels) == {"correct": 2, "wrong": 1, "not_exercised": 1, "unsure": 1}
    assert dict(progress["bob"].labels) == {"correct": 2, "wrong": 2, "not_exercised": 0, "unsure": 0}

    overall = report.agreement.overall
    assert overall.items == 4 and overall.annotators == ("ann", "bob")
    assert overall.percent == pytest.approx(0.75)
    # ann c,c,w,n / bob c,c,w,w: po = 3/4, pe = (2*2 + 1*2) / 16 = 3/8, kappa = (3/4 - 3/8) / (5/8)
    assert overall.cohen_kappa == pytest.approx(0.6)
    assert set(report.agreement.by_language) == {i.language for i in items[:5]}
    assert set(report.agreement.by_edge_class) == {i.edge_class for i in items[:5]}
    assert sum(a.items for a in report.agreement.by_language.values()) == 4
    assert [r.item for r in report.disagreements] == [items[3]]


# -- baseline audits -----------------------------------------------------------------------------------------------
def test_baseline_scores_humans_beside_models_on_the_sampled_programs(ws):
    audit = create_audit(ws, "base", kind="baseline", size=2, seed=1, split="test", annotators=("ann", "bob"))
    store = AuditStore(ws)
    items = store.items("base")
    keys = list(dict.fromkeys(i.instance_key for i in items))
    first = keys[0]
    truth = ws.ground_truth_mappings([first])[first]
    for item in (i for i in items if i.instance_key == first):
        store.store_answer("base", "ann", first, item.caller, truth.get(item.caller, []))
    refresh_baseline_predictions(ws, "base", "ann")
    graph = CallGraph.from_dict(ws.prediction_mappings(STRONG)[keys[1]])
    language, program = keys[1].split("/")
    ws.store_predictions("human:bob", [Prediction(program, "human:bob", language, graph)])

    report = audit_report(ws, "base")
    assert report.gt_precision is None and report.fp_breakdown == () and report.corrections is None
    people = {p.annotator: p for p in report.baseline.annotators}
    questions = sum(i.instance_key == first for i in items)
    assert (people["ann"].answered, people["ann"].questions) == (questions, len(items))
    assert report.progress.annotators[0].judged == questions

    rows = {r.model: r for r in report.baseline.table.rows}
    assert list(rows) == ["human:ann", "human:bob", STRONG, WEAK]
    ann = language_counts(rows["human:ann"])
    (lang,) = ann
    assert lang == first.split("/")[0] and ann[lang][1:] == (0, 0) and ann[lang][0] > 0  # the truth, exactly
    assert language_counts(rows["human:bob"]) == counts_of(ws, STRONG, [keys[1]], audit.modes)
    for model in (STRONG, WEAK):
        assert language_counts(rows[model]) == counts_of(ws, model, keys, audit.modes)
    sampled = Counter(k.split("/")[0] for k in keys)
    assert report.baseline.table.programs == {lang: sampled[lang] for lang in ("python", "javascript", "java")}


# -- exports --------------------------------------------------------------------------------------------------------
@pytest.fixture
def judged(ws):
    create_audit(ws, "spot", population="all", model=WEAK, size=16, seed=7, split="test", annotators=("ann", "bob"))
    store = AuditStore(ws)
    items = store.items("spot")
    for n, item in enumerate(items[:10]):
        store.give_verdict("spot", item.ref, "ann", ["correct", "not_exercised", "wrong"][n % 3],
                           note='says "yes", twice' if n == 0 else "")
        if n < 4:
            store.give_verdict("spot", item.ref, "bob", "correct")
    store.adjudicate("spot", items[1].ref, "wrong", "carol", "no | such call")
    return audit_report(ws, "spot"), items


def test_markdown_report_has_every_section(judged):
    report, items = judged
    text = report_markdown(report)
    for heading in ("# Audit report: spot", "## Progress", "## Ground-truth precision",
                    "## What the audited false positives are", "## F1 with the audited truth corrected",
                    "## Agreement", "## Disagreements"):
        assert heading in text
    assert "seed 7" in text and "strata: language, repo, edge_class" in text and "sample: 16 of" in text
    assert CORRECTION_RULE in text
    assert re.search(r"Ground-truth edges that are real calls: \d+\.\d % \(95 % CI \d+\.\d–\d+\.\d %, n = \d+\)",
                     text)
    assert "| Model | Audited FPs | hallucinated | real, not exercised | real, missed by the tracer |" in text
    assert f"| {WEAK} (paper) † |" in text and f"| {WEAK} (corrected) † |" in text
    assert "| Group | Annotators | Items | Percent | Cohen κ | Fleiss κ | Krippendorff α |" in text
    assert "| overall | ann, bob | 4 |" in text
    assert "no \\| such call" in text and "open" in text  # adjudicated and open disputes
    assert f"`{items[2].caller}`" in text
    for block in re.findall(r"(?:^\|.*\n)+", text, flags=re.MULTILINE):  # every row as wide as its header
        widths = {len(re.split(r"(?<!\\)\|", line)) for line in block.splitlines()}
        assert len(widths) == 1, block


def test_items_csv_parses_with_the_expected_columns(judged):
    report, items = judged
    rows = list(csv.reader(io.StringIO(items_csv(report))))
    assert rows[0] == ["item", "program", "language", "repo", "edge_class", "caller", "callee", "ann_label",
                       "ann_note", "bob_label", "bob_note", "final_label", "how", "adjudicator", "reason"]
    assert len(rows) == 1 + len(items)
    by_position = {int(r[0]) - 1: dict(zip(rows[0], r)) for r in rows[1:]}
    first = by_position[items[0].position]
    assert (first["caller"], first["callee"], first["ann_note"]) == (items[0].caller, items[0].callee,
                                                                     'says "yes", twice')
    second = by_position[items[1].position]
    assert (second["ann_label"], second["bob_label"], second["final_label"], second["how"], second["adjudicator"],
            second["reason"]) == ("not_exercised", "correct", "wrong", "adjudicated", "carol", "no | such call")
    last = by_position[items[-1].position]
    assert (last["ann_label"], last["final_label"], last["how"]) == ("", "", "")


def test_json_round_trips_and_holds_everything(judged):
    report, items = judged
    data = report_json(report)
    assert json.loads(json.dumps(data)) == data
    assert list(data) == ["audit", "annotators", "progress", "final_verdicts", "gt_precision", "fp_breakdown",
                          "corrected_f1", "agreement", "disagreements", "baseline", "items"]
    assert data["audit"]["name"] == "spot" and data["audit"]["seed"] == 7
    assert data["corrected_f1"]["rule"] == CORRECTION_RULE
    assert len(data["items"]) == len(items)
    second = next(i for i in data["items"] if i["item"] == items[1].position + 1)
    assert second["verdicts"]["ann"]["label"] == "not_exercised"
    assert second["final"] == {"label": "wrong", "how": "adjudicated", "by": ["carol"], "reason": "no | such call"}
    assert second["adjudication"]["adjudicator"] == "carol"
    assert data["gt_precision"]["judged"] == report.gt_precision.judged
    assert {row["model"] for row in data["corrected_f1"]["corrected"]["rows"]} == {STRONG, WEAK}
    assert data["agreement"]["overall"]["items"] == 4


def test_write_report_by_suffix_or_format(judged, tmp_path):
    report, _ = judged
    assert json.loads(write_report(report, tmp_path / "r.json").read_text())["audit"]["name"] == "spot"
    assert write_report(report, tmp_path / "r.md").read_text().startswith("# Audit report: spot")
    assert write_report(report, tmp_path / "r.csv").read_text().startswith("item,program,")
    assert write_report(report, tmp_path / "r.txt", fmt="md").read_text() == report_markdown(report)
    with pytest.raises(AuditError, match=r"r\.txt.*unknown report suffix"):
        write_report(report, tmp_path / "r.txt")
    with pytest.raises(AuditError, match="unknown report format 'xml'"):
        write_report(report, tmp_path / "r.json", fmt="xml")
    with pytest.raises(AuditError, match=r"cannot write the audit report to .*missing.*r\.json"):
        write_report(report, tmp_path / "missing" / "r.json")


def test_baseline_exports(ws):
    create_audit(ws, "base", kind="baseline", size=1, seed=0, split="test", annotators=("ann",))
    store = AuditStore(ws)
    item = store.items("base")[0]
    store.store_answer("base", "ann", item.instance_key, item.caller, ["a.b", "c, d"])
    report = audit_report(ws, "base")
    text = report_markdown(report)
    assert "**Baseline audit**" in text and "| human:ann |" in text and "## Agreement" not in text
    rows = list(csv.DictReader(io.StringIO(items_csv(report))))
    assert rows[0]["ann_answer"] == "a.b, c, d" and rows[1]["ann_answer"] == ""
    data = json.loads(json.dumps(report_json(report)))
    assert data["items"][0]["answers"] == {"ann": ["a.b", "c, d"]}
    assert data["baseline"]["annotators"][0]["answered"] == 1
