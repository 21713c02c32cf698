"""Audit performance at TraceEval scale. Run: python tests/bench/bench_audit.py [--scale 1.0] [--keep DIR]

Generates a synthetic dataset first (tests/bench/synthetic.py: 10,583 programs, every split, the real split ids
when ../shared/traceeval_split exists) with results files for 2 models (not bench_core's 10: generating and
importing them is setup here, not what is measured), indexes it and imports the results, then prints, each
figure beside a baseline measured in the same process:
1. populations: `population_edges` for "truth" (every program, no model) and for "all" with one model (truth
   and predicted edges of the programs it answered, i.e. the test split); baseline: the raw read
   `ws.ground_truth_mappings()` of every program (for "all" also the raw reads it needs);
2. `create_audit`: 400 edges of "all", stratified by language, repo and edge class, and the "truth" population
   at margin 0.05 (95 %), with how much of it is building the population (sampling alone is timed too);
3. verdicts, each committed: 1,000 `AuditStore.give_verdict` calls (alice and carol judge the 400 edges, then
   alice changes her mind on 200), ms per verdict (median, p99); baseline: a bare `sqlite3` connection in WAL
   mode (synchronous=NORMAL, as the workspace) on a fresh file, INSERT + COMMIT per row into a table of the
   same shape (columns and indexes), the same 1,000 rows;
4. `audit_report` of that audit (2 annotators x 400 verdicts, some FPs judged not_exercised, some
   disagreements), 2 models; baseline: `score_table` alone for the same models, selection and modes; then
   `render_report` as md, json and csv;
5. `merge_workspace`: a second workspace over the same dataset (indexed and imported again), the same audit
   (same seed, so the same fingerprint), 400 verdicts by bob; merged into the first, then merged again
   (nothing new); baseline: copying the second workspace file as bytes (the merge's first step, before it checks
   and reads the copy).
Target (issue): verdicts are "committed on each keystroke", so a verdict must cost well under one 60 Hz frame,
16 ms (median and p99 are compared with it). The other steps have no target; their ratios are printed.
Every step is checked (sizes, fingerprints, counts in the report, the merge adding exactly bob's rows), so a
broken run cannot print good-looking numbers.
"""
from __future__ import annotations

import argparse
import csv
import gc
import hashlib
import io
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.common import private_user_folders  # noqa: E402

_SANDBOX = private_user_folders("audit")  # before anything reads the folders' variables

from core.audit import sampling as audit_sampling  # noqa: E402
from core.audit.audits import STRATA, sample_fingerprint  # noqa: E402
from core.audit.export import render_report  # noqa: E402
from core.audit.merge import merge_workspace  # noqa: E402
from core.audit.reports import audit_report, audit_selection  # noqa: E402
from core.audit.sampling import create_audit, population_edges, stratified_sample  # noqa: E402
from core.audit.store import AuditStore  # noqa: E402
from core.dataset.indexing import open_dataset  # noqa: E402
from core.results.importing import import_results  # noqa: E402
from core.scoring.scores import score_table  # noqa: E402
from core.scoring.stats import sample_size_for_margin  # noqa: E402
from core.verdicts import LABELS, REAL_CALL, now_precise  # noqa: E402
from tests.bench.synthetic import generate, split_ids  # noqa: E402

SHARED_SPLITS = ROOT.parent / "shared" / "traceeval_split"
MODELS = 2
MODEL = "synthetic-model-00"  # the weaker of the two: more false positives to audit
AUDIT = "all-400"
MARGIN_AUDIT = "truth-margin"
SIZE = 400
MARGIN = 0.05
SEED = 7
CHANGED_MINDS = 200  # 400 + 400 + 200 = 1,000 verdicts
FRAME_MS = 16.0
# How an annotator first judges an edge, by edge class (made up, but shaped like a real audit).
TRUTH_OPINIONS = {"correct": 0.85, "wrong": 0.10, "unsure": 0.05}
FP_OPINIONS = {"wrong": 0.50, "not_exercised": 0.30, "correct": 0.15, "unsure": 0.05}
DISAGREE = 0.10  # share of edges where the second annotator picks another label


def timed(label: str, action, baseline: float | None = None, note=None):
    """Run `action`, print its time (and its ratio to `baseline` seconds, and `note(result)`)."""
    gc.collect()  # garbage of earlier steps is not this step's cost
    started = time.perf_counter()
    result = action()
    seconds = time.perf_counter() - started
    ratio = f"{seconds / baseline:9.1f}x baseline" if baseline else " " * 18
    extra = f"  {note(result)}" if note else ""
    print(f"{label:<62} {seconds:8.3f} s {ratio}{extra}", flush=True)
    return result, seconds


class Stopwatch:
    """While installed, times every call of `owner.name` (a module function or a method), e.g. to tell how much
    of `create_audit` is its `population_edges` call."""

    def __init__(self, owner, name: str):
        self.owner, self.name, self.seconds, self.calls = owner, name, 0.0, 0

    def __enter__(self) -> Stopwatch:
        self.original = original = getattr(self.owner, self.name)

        def wrapped(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started
                self.calls += 1

        setattr(self.owner, self.name, wrapped)
        return self

    def __exit__(self, *exc) -> None:
        setattr(self.owner, self.name, self.original)


def breakdown(total: float, building: Stopwatch, storing: Stopwatch) -> float:
    """Print where a create_audit call went; returns the population's share."""
    assert building.calls == storing.calls == 1, (building.calls, storing.calls)
    rest = total - building.seconds - storing.seconds
    print(f"  of which population_edges {building.seconds:.2f} s ({100 * building.seconds / total:.0f} %), "
          f"storing the sample {storing.seconds:.3f} s, sampling and the rest {rest:.2f} s; "
          f"{total / building.seconds:.2f}x the population_edges call")
    return building.seconds / total


def fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    return path


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


# -- who says what --------------------------------------------------------------------------------------
def opinion(edge_class: str, rng: random.Random) -> str:
    weights = FP_OPINIONS if edge_class == "FP" else TRUTH_OPINIONS
    return rng.choices(list(weights), list(weights.values()))[0]


def other_label(label: str, rng: random.Random) -> str:
    return rng.choice([lab for lab in LABELS if lab != label])


def plan_verdicts(items, seed: int) -> tuple[list[tuple], dict[int, str], dict[int, str]]:
    """The 1,000 calls (item, annotator, label, note) in order: alice judges every item (a first draft that
    differs from her final label on CHANGED_MINDS of them), carol judges every item (agreeing with alice's
    final label but for DISAGREE of them), then alice corrects her drafts. Returns (calls, alice, carol)
    with the final labels by position."""
    rng = random.Random(seed)
    alice = {i.position: opinion(i.edge_class, rng) for i in items}
    carol = {p: other_label(lab, rng) if rng.random() < DISAGREE else lab for p, lab in alice.items()}
    changed = set(rng.sample(sorted(alice), CHANGED_MINDS))
    calls = [(i, "alice", other_label(alice[i.position], rng) if i.position in changed else alice[i.position],
              "checked the source" if i.position % 10 == 0 else "") for i in items]
    calls += [(i, "carol", carol[i.position], "") for i in items]
    calls += [(i, "alice", alice[i.position], "changed my mind") for i in items if i.position in changed]
    return calls, alice, carol


# -- baselines -------------------------------------------------------------------------------------------
def bare_inserts(path: Path, rows: list[tuple]) -> list[float]:
    """INSERT + COMMIT per row with a bare sqlite3 connection (WAL, synchronous=NORMAL) into a table shaped
    like `verdicts`; returns the seconds of each row."""
    db = sqlite3.connect(fresh(path))
    try:
        db.execute("pragma journal_mode=wal")
        db.execute("pragma synchronous=normal")
        db.execute("create table verdicts (id integer primary key, instance_key text, caller text, callee text, "
                   "auditor text, label text, note text, created_at text, audit text, "
                   "action text not null default 'verdict', undoes integer)")
        db.execute("create index idx_verdicts_instance_key on verdicts (instance_key)")
        db.execute("create index idx_verdicts_audit_auditor on verdicts (audit, auditor)")
        db.commit()
        insert = ("insert into verdicts (instance_key, caller, callee, auditor, label, note, created_at, audit, "
                  "action, undoes) values (?, ?, ?, ?, ?, ?, ?, ?, 'verdict', null)")
        times = []
        for row in rows:
            started = time.perf_counter()
            db.execute(insert, (*row[:6], now_precise(), row[6]))
            db.commit()
            times.append(time.perf_counter() - started)
        assert db.execute("select count(*) from verdicts").fetchone()[0] == len(rows)
        return times
    finally:
        db.close()


def file_copy(source: Path, copy: Path) -> int:
    """What merge_workspace does first: copy the file (it has no WAL here: the workspace is closed) as bytes."""
    shutil.copyfile(source, fresh(copy))
    return copy.stat().st_size


def verdict_rows(ws) -> tuple[int, str]:
    """The number of verdict rows and a digest of them all (to check a merge changed nothing)."""
    digest, n = hashlib.sha256(), 0
    for row in ws.db.execute("select * from verdicts order by id"):
        digest.update(repr(row).encode())
        n += 1
    return n, digest.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the paper's program counts")
    parser.add_argument("--keep", type=Path, help="generate into (and keep) this folder; reused when present")
    args = parser.parse_args()
    temporary = None if args.keep else tempfile.TemporaryDirectory(prefix="traceeval-bench-audit-")
    work = args.keep or Path(temporary.name)
    work.mkdir(parents=True, exist_ok=True)
    try:
        return run(work, args.scale)
    finally:
        if temporary is not None:
            temporary.cleanup()


def run(work: Path, scale: float) -> int:
    """The five steps, one after another; returns the exit status (1 when the keystroke target is missed)."""
    root = work / "dataset"
    from_real = SHARED_SPLITS.is_dir()
    if not (root / "benchmark").is_dir():
        ids = split_ids(SHARED_SPLITS if from_real else None, scale)
        timed(f"setup: generate the synthetic dataset + results of {MODELS} models",
              lambda: generate(root, ids, MODELS))
    programs = sum(1 for _ in (root / "benchmark").glob("*/*"))
    print(f"programs: {programs:,}  models: {MODELS}  (ids from "
          f"{'the real split files' if from_real else 'made-up names'})")
    (ws, index), _ = timed("setup: index into a new workspace",
                           lambda: open_dataset(root, fresh(work / "alice.sqlite")))
    assert index.instances == programs, (index.instances, programs)
    imported, _ = timed(f"setup: import {MODELS} models", lambda: import_results(ws, [root / "results"]))
    models = [m.name for m in ws.models()]
    assert len(models) == MODELS and MODEL in models, models
    answered = imported.stored[MODEL]
    print(f"  {sum(imported.stored.values()):,} predictions stored; {MODEL} answered {answered:,} programs")
    summary: list[tuple[str, str, str]] = []
    store = AuditStore(ws)
    try:
        # 1. populations -------------------------------------------------------------------------------
        print("\n1. populations")
        ws.ground_truth_mappings()  # once, untimed: the baseline is a warm read, as population_edges' reads are
        truths, read_s = timed("baseline: ws.ground_truth_mappings(), every program (raw read)",
                               lambda: ws.ground_truth_mappings(), note=lambda r: f"{len(r):,} programs")
        assert len(truths) == programs
        truth_edges = sum(len(callees) for mapping in truths.values() for callees in mapping.values())
        truths = None
        truth_items, truth_s = timed('population_edges "truth" (every program, no model)',
                                     lambda: population_edges(ws, "truth"), read_s,
                                     lambda r: f"{len(r):,} edges")
        truth_count = len(truth_items)
        assert 0 < truth_count <= truth_edges and {i.edge_class for i in truth_items} == {"truth"}
        truth_items = None  # 1.6 M items at full scale: keeping them would slow every later step (GC)

        def raw_reads_for_all():
            predictions = ws.prediction_mappings(MODEL)
            return predictions, ws.ground_truth_mappings(list(predictions))

        (predictions, _), all_read_s = timed('  raw reads "all" needs: predictions + their truths',
                                             raw_reads_for_all)
        assert len(predictions) == answered
        predictions = None
        all_items, all_s = timed(f'population_edges "all", {MODEL}', lambda: population_edges(ws, "all", MODEL),
                                 read_s, lambda r: f"{len(r):,} edges; {class_counts(r)}")
        assert {i.edge_class for i in all_items} == {"TP", "FP", "FN"}
        assert len({i.instance_key for i in all_items}) <= answered
        print(f"  \"all\" against the raw reads it needs ({all_read_s:.3f} s): {all_s / all_read_s:.1f}x")
        summary.append((f'`population_edges` "truth": {truth_count:,} edges of {programs:,} programs',
                        f"{truth_s:.2f} s ({truth_s / read_s:.1f}x the raw truth read, {read_s:.2f} s)", "-"))
        summary.append((f'`population_edges` "all", one model: {len(all_items):,} edges of {answered:,} programs',
                        f"{all_s:.2f} s ({all_s / read_s:.1f}x the raw truth read; {all_s / all_read_s:.1f}x the "
                        f"raw reads it needs, {all_read_s:.2f} s)", "-"))

        # 2. sampling ------------------------------------------------------------------------------------
        print("\n2. create_audit (baseline: the population_edges call inside it, timed in place)")
        sampled, sample_s = timed(f'  stratified_sample alone: {SIZE} of the "all" edges',
                                  lambda: stratified_sample(all_items, SIZE, SEED))
        with Stopwatch(audit_sampling, "population_edges") as building, Stopwatch(AuditStore, "create") as storing:
            audit, create_s = timed(f'create_audit {SIZE} of "all", by {"/".join(STRATA)}',
                                    lambda: create_audit(ws, AUDIT, population="all", model=MODEL, size=SIZE,
                                                         seed=SEED))
        items = store.items(AUDIT)
        assert audit.size == len(items) == SIZE and audit.population_size == len(all_items), audit
        assert audit.fingerprint == sample_fingerprint(sampled) == sample_fingerprint(items), "not the same sample"
        assert audit.strata == STRATA and all(i.stratum.count("|") == 2 for i in items)
        assert len({i.ref for i in items}) == SIZE
        all_items = sampled = None
        share = breakdown(create_s, building, storing)
        print(f"  {len({i.stratum for i in items})} strata; stratified_sample on its own: {sample_s:.3f} s")
        expected = sample_size_for_margin(MARGIN, truth_count)
        with Stopwatch(audit_sampling, "population_edges") as building, Stopwatch(AuditStore, "create") as storing:
            margin_audit, margin_s = timed(f'create_audit "truth" at margin {MARGIN} (95 %)',
                                           lambda: create_audit(ws, MARGIN_AUDIT, population="truth", margin=MARGIN,
                                                                seed=SEED),
                                           note=lambda a: f"size {a.size} of {a.population_size:,}")
        assert margin_audit.size == expected == len(store.items(MARGIN_AUDIT)), (margin_audit.size, expected)
        assert margin_audit.population_size == truth_count
        margin_share = breakdown(margin_s, building, storing)
        summary.append((f'`create_audit` {SIZE} edges of "all", stratified (language, repo, edge class)',
                        f"{create_s:.2f} s ({100 * share:.0f} % building the population; stratified_sample "
                        f"{sample_s:.2f} s)", "-"))
        summary.append((f'`create_audit` "truth" at margin {MARGIN}: {expected} of {truth_count:,} edges',
                        f"{margin_s:.2f} s ({100 * margin_share:.0f} % building the population)", "-"))

        # 3. verdicts --------------------------------------------------------------------------------------
        print("\n3. verdicts, each committed")
        calls, alice, carol = plan_verdicts(items, SEED)
        assert len(calls) == 1000
        rows = [(i.instance_key, i.caller, i.callee, who, label, note, AUDIT) for i, who, label, note in calls]
        bare = bare_inserts(work / "bare.sqlite", rows)
        given = []
        for item, who, label, note in calls:
            started = time.perf_counter()
            store.give_verdict(AUDIT, item.ref, who, label, note)
            given.append(time.perf_counter() - started)
        ms = [1000 * s for s in given]
        bare_ms = [1000 * s for s in bare]
        median, p99 = statistics.median(ms), percentile(ms, 0.99)
        bare_median, bare_p99 = statistics.median(bare_ms), percentile(bare_ms, 0.99)
        print(f"{'baseline: bare sqlite3, WAL, INSERT + COMMIT per row (1,000)':<62} median {bare_median:6.3f} ms, "
              f"p99 {bare_p99:6.3f} ms, max {max(bare_ms):6.2f} ms")
        print(f"{'give_verdict x 1,000 (2 annotators x 400 + 200 changed minds)':<62} median {median:6.3f} ms, "
              f"p99 {p99:6.3f} ms, max {max(ms):6.2f} ms  {median / bare_median:.1f}x baseline (median), "
              f"{p99 / bare_p99:.1f}x (p99)")
        met = p99 < FRAME_MS
        print(f"  target: well under one frame ({FRAME_MS:.0f} ms): median {FRAME_MS / median:.0f}x under, "
              f"p99 {FRAME_MS / p99:.0f}x under: {'met' if met else 'MISSED'}; total {sum(given):.2f} s")
        current = store.current_verdicts(AUDIT)
        assert len(store.history(AUDIT)) == 1000 and len(current) == 2 * SIZE
        assert all(current[("alice", i.ref)].label == alice[i.position] for i in items)
        assert all(current[("carol", i.ref)].label == carol[i.position] for i in items)
        summary.append(("verdict committed on each keystroke (1,000 `give_verdict` calls, 2 annotators)",
                        f"median {median:.2f} ms, p99 {p99:.2f} ms (bare sqlite3 INSERT + COMMIT: {bare_median:.2f} / "
                        f"{bare_p99:.2f} ms; {median / bare_median:.1f}x)",
                        f"well under {FRAME_MS:.0f} ms (one frame)"))

        # 4. the report ------------------------------------------------------------------------------------
        print("\n4. audit_report")
        _, table_s = timed("baseline: score_table, same models, selection and modes",
                           lambda: score_table(ws, models, audit_selection(audit), modes=audit.modes))
        table = score_table(ws, models, audit_selection(audit), modes=audit.modes)
        report, report_s = timed(f"audit_report, 2 annotators x {SIZE}, {MODELS} models",
                             lambda: audit_report(ws, AUDIT), table_s)
        check_report(report, items, alice, carol, table)
        renders = {}
        for fmt in ("md", "json", "csv"):
            text, renders[fmt] = timed(f"  render_report {fmt}", lambda: render_report(report, fmt),  # noqa: B023 - called at once
                                       note=lambda t: f"{len(t) / 1000:,.0f} kB")
            check_render(fmt, text, report)
        print(f"  rendering all three: {100 * sum(renders.values()) / report_s:.1f} % of building the report")
        summary.append((f"`audit_report`, 2 annotators x {SIZE} verdicts, {MODELS} models",
                        f"{report_s:.2f} s (`score_table` alone: {table_s:.3f} s, {report_s / table_s:.0f}x)", "-"))
        summary.append(("`render_report` md / json / csv",
                        " / ".join(f"{1000 * renders[f]:.0f}" for f in ("md", "json", "csv")) + " ms", "-"))

        # 5. merging ---------------------------------------------------------------------------------------
        print("\n5. merge_workspace")
        other_path = fresh(work / "bob.sqlite")
        (other, _), _ = timed("setup: index the same dataset into a second workspace",
                              lambda: open_dataset(root, other_path))
        try:
            timed(f"setup: import the {MODELS} models there", lambda: import_results(other, [root / "results"]))
            theirs, _ = timed("setup: create the same audit there (same options and seed)",
                              lambda: create_audit(other, AUDIT, population="all", model=MODEL, size=SIZE,
                                                   seed=SEED))
            assert theirs.fingerprint == audit.fingerprint, (theirs.fingerprint, audit.fingerprint)
            assert [i.ref for i in AuditStore(other).items(AUDIT)] == [i.ref for i in items]
            rng = random.Random(SEED + 1)
            bob = {i.position: other_label(alice[i.position], rng) if rng.random() < DISAGREE else alice[i.position]
                   for i in items}
            other_store = AuditStore(other)
            for item in items:
                other_store.give_verdict(AUDIT, item.ref, "bob", bob[item.position])
        finally:
            other.close()
        size_mb = other_path.stat().st_size / 1e6
        _, copy_s = timed(f"baseline: a byte copy of the second file ({size_mb:.0f} MB)",
                          lambda: file_copy(other_path, work / "copy.sqlite"))
        before = verdict_rows(ws)
        merged, merge_s = timed("merge_workspace (400 verdicts by bob)", lambda: merge_workspace(ws, other_path),
                                copy_s, lambda r: r.summary())
        assert merged.verdicts_added == SIZE and merged.audits_updated == (AUDIT,), merged
        assert not (merged.audits_added or merged.conflicts or merged.skipped or merged.adjudications_added
                    or merged.answers_added), merged
        after = verdict_rows(ws)
        assert after[0] == before[0] + SIZE
        again, again_s = timed("merge_workspace again (nothing new)", lambda: merge_workspace(ws, other_path),
                               copy_s, lambda r: r.summary())
        assert not again.changed and again.verdicts_added == 0 and not again.conflicts, again
        assert verdict_rows(ws) == after, "merging the same file twice changed the verdicts"
        three, _ = timed(f"  audit_report after the merge, 3 annotators x {SIZE}",
                               lambda: audit_report(ws, AUDIT), table_s)
        assert three.annotators == ("alice", "bob", "carol"), three.annotators
        assert three.agreement.overall.items == three.agreement.overall.complete_items == SIZE
        assert [p.judged for p in three.progress.annotators] == [SIZE] * 3
        bobs = store.current_verdicts(AUDIT, "bob")
        assert all(bobs[("bob", i.ref)].label == bob[i.position] for i in items)
        summary.append((f"`merge_workspace`: 400 verdicts from a {size_mb:.0f} MB workspace",
                        f"{merge_s:.2f} s (the byte copy alone: {copy_s:.2f} s, {merge_s / copy_s:.1f}x)", "-"))
        summary.append(("`merge_workspace` again, nothing new (checked: no row changed)",
                        f"{again_s:.2f} s ({again_s / copy_s:.1f}x the byte copy)", "-"))
    finally:
        ws.close()

    print("\nSummary (paste into the README):\n")
    print("| measure | figure | target |")
    print("| --- | --- | --- |")
    for measure, figure, target in summary:
        print(f"| {measure} | {figure} | {target} |")
    print(f"\nkeystroke target ({FRAME_MS:.0f} ms): {'met' if met else 'MISSED'}")
    return 0 if met else 1


def class_counts(items) -> str:
    classes = {c: sum(i.edge_class == c for i in items) for c in ("TP", "FP", "FN")}
    return ", ".join(f"{c} {n:,}" for c, n in classes.items())


def check_report(report, items, alice: dict[int, str], carol: dict[int, str], table) -> None:
    """The report must say exactly what the verdicts given say."""
    disputed = {p for p in alice if alice[p] != carol[p]}
    agreed = {p: alice[p] for p in alice if p not in disputed}
    fps = [i for i in items if i.edge_class == "FP"]
    assert report.annotators == ("alice", "carol"), report.annotators
    assert report.progress.items == report.progress.judged == SIZE
    assert [p.judged for p in report.progress.annotators] == [SIZE, SIZE]
    assert report.finals.by_how["disputed"] == len(disputed) == len(report.disagreements) > 0
    assert report.finals.by_how["unanimous"] == SIZE - len(disputed) and report.finals.unjudged == 0
    overall = report.agreement.overall
    assert overall.items == overall.complete_items == SIZE, overall
    assert abs(overall.percent - (1 - len(disputed) / SIZE)) < 1e-9, overall.percent
    assert report.gt_precision is not None and report.gt_precision.judged > 0
    breakdown = {b.model: b for b in report.fp_breakdown}
    ours = breakdown[MODEL]
    assert ours.audited == len(fps) > 0, (ours.audited, len(fps))
    not_exercised = sum(agreed.get(i.position) == "not_exercised" for i in fps)
    assert ours.counts["not_exercised"] == not_exercised > 0, (ours.counts, not_exercised)
    assert ours.counts["disputed"] == sum(i.position in disputed for i in fps)
    corrections = report.corrections
    assert len(corrections.models) == MODELS
    assert corrections.real_edges == sum(label in REAL_CALL for label in agreed.values())
    assert corrections.wrong_edges == sum(label == "wrong" for label in agreed.values())
    ours = next(m for m in corrections.models if m.model == MODEL)
    assert ours.fp_to_tp == sum(agreed.get(i.position) in REAL_CALL for i in fps), ours
    papers = {row.model: row.average.f1 for row in table.rows}
    assert {m.model: m.paper.average.f1 for m in corrections.models} == papers, "the report's paper F1 differs"
    print(f"  checked: {len(disputed)} disagreements, {len(fps)} FPs of {MODEL} audited ({not_exercised} judged "
          f"not_exercised by both), GT precision {100 * report.gt_precision.estimate:.1f} %, F1 of {MODEL} "
          f"{100 * ours.paper.average.f1:.2f} -> {100 * ours.corrected.average.f1:.2f} corrected")


def check_render(fmt: str, text: str, report) -> None:
    if fmt == "md":
        assert AUDIT in text and text.count("\n") > 50
    elif fmt == "json":
        data = json.loads(text)
        assert len(data["items"]) == SIZE and data["agreement"]["overall"]["items"] == SIZE
    else:
        rows = list(csv.reader(io.StringIO(text)))
        assert len(rows) == SIZE + 1 and "alice_label" in rows[0] and "carol_label" in rows[0], rows[0]


if __name__ == "__main__":
    sys.exit(main())
