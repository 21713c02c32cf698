"""Audit sampling on the bundled demo dataset: populations, stratified seeded samples, sizes, questions."""
from __future__ import annotations

import itertools
import json
import os
import random
import re
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from core.audit.audits import BASELINE_AUDIT, STRATA, label_fits, not_exercised_everywhere
from core.audit.sampling import allocate, create_audit, new_audit, population_edges, sample_questions, stratified_sample
from core.audit.store import AuditStore
from core.dataset.indexing import open_dataset
from core.errors import AuditError
from core.scoring.normalise import MODES, normalise_edges
from core.scoring.scores import instance_diff
from core.scoring.stats import sample_size_for_margin
from resources import DEMO_DATASET

ROOT = Path(__file__).resolve().parent.parent
STRONG, WEAK = "illustrative-strong", "illustrative-weak"


def edges_of(items):
    return {(i.instance_key, i.caller, i.callee, i.edge_class) for i in items}


# -- sample size for a margin of error ------------------------------------------------------------
@pytest.mark.parametrize("population, expected", [(10**9, 385), (1000, 278), (100, 80), (416, 200), (1, 1), (0, 0)])
def test_sample_size_for_margin_known_values(population, expected):
    assert sample_size_for_margin(0.05, population) == expected


def test_sample_size_grows_with_confidence_and_shrinks_with_margin():
    assert sample_size_for_margin(0.05, 10**9, confidence=0.99) == 664  # z = 2.5758: 663.49 -> 664
    assert sample_size_for_margin(0.10, 10**9) == 97  # 96.04 -> 97
    assert sample_size_for_margin(0.05, 10**9, proportion=0.1) == 139  # 138.29 -> 139
    assert sample_size_for_margin(0.5, 10) == 3  # n0 = 3.84: 3.84 / (1 + 2.84 / 10) = 2.99 -> 3
    assert sample_size_for_margin(0.05, 10**9, proportion=0) == 1  # nothing to estimate, still one item


@pytest.mark.parametrize("args, message", [
    ((0, 100), "margin of error must be in (0, 0.5]"), ((0.6, 100), "margin of error must be in (0, 0.5]"),
    ((float("nan"), 100), "margin of error"), ((0.05, -1), "population size must be >= 0"),
    ((0.05, 100, 1.0), "confidence must be in (0, 1)"), ((0.05, 100, 0), "confidence must be in (0, 1)"),
    ((0.05, 100, 0.95, 1.5), "expected proportion must be in [0, 1]"),
])
def test_sample_size_refuses_impossible_arguments(args, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        sample_size_for_margin(*args)


# -- populations ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", [STRONG, WEAK])
def test_populations_are_the_scored_tp_fp_fn_edges(ws, model):
    expected = {"truth": set(), "fp": set(), "fn": set(), "all": set()}
    for row in ws.instance_rows():
        diff = instance_diff(ws, model, row.key)
        if diff is None:  # not answered: not scored, not in any population
            continue
        classed = {cls: {(row.key, a, b, cls) for a, b in getattr(diff, cls.lower())} for cls in ("TP", "FP", "FN")}
        expected["truth"] |= classed["TP"] | classed["FN"]
        expected["fp"] |= classed["FP"]
        expected["fn"] |= classed["FN"]
        expected["all"] |= classed["TP"] | classed["FP"] | classed["FN"]
    for population, edges in expected.items():
        items = population_edges(ws, population, model)
        assert len(items) == len(edges) and edges_of(items) == edges, population
        assert [(i.language, i.instance_key, i.caller, i.callee) for i in items] == \
            sorted((i.language, i.instance_key, i.caller, i.callee) for i in items)
        assert {(i.audit, i.position) for i in items} == {("", -1)}
    counts = Counter(i.edge_class for i in population_edges(ws, "all", model))
    assert counts == Counter(dict(zip(("TP", "FP", "FN"), ((385, 19, 31) if model == STRONG else (243, 75, 161)))))


def test_truth_without_a_model_is_every_normalised_ground_truth_edge(ws):
    expected = set()
    for row in ws.instance_rows():
        instance = ws.instance(row.key)
        expected |= {(row.key, a, b, "truth") for a, b in normalise_edges(instance.ground_truth.edges, row.language,
                                                                          MODES)}
    items = population_edges(ws, "truth")
    assert edges_of(items) == expected and len(items) == 416
    # the weak model did not answer python/ledgerlite_0002: its truth population leaves that program out
    weak = population_edges(ws, "truth", WEAK)
    assert "python/ledgerlite_0002" not in {i.instance_key for i in weak}
    assert len(weak) == 416 - sum(i.instance_key == "python/ledgerlite_0002" for i in items)
    java_test = population_edges(ws, "truth", split="test", languages=["java"])
    assert {i.instance_key for i in java_test} == {"java/exprtree_0001", "java/shapekit_0001"}


@pytest.mark.parametrize("population, model, kwargs, message", [
    ("fp", "", {}, "population 'fp' needs a model"),
    ("truth", "no-such-model", {}, "unknown model 'no-such-model' .models: illustrative-strong, illustrative-weak"),
    ("truth", "", {"split": "nosuch"}, "no edges to sample: population 'truth' is empty .split 'nosuch'"),
    ("everything", "", {}, "unknown population 'everything'"),
])
def test_population_errors_are_one_line(ws, population, model, kwargs, message):
    with pytest.raises(AuditError, match=message) as caught:
        population_edges(ws, population, model, **kwargs)
    assert "\n" not in str(caught.value)


# -- stratified sampling ------------------------------------------------------------------------------
def test_allocation_is_proportional_by_largest_remainder():
    assert allocate({("x",): 10, ("y",): 5, ("z",): 1}, 4) == {("x",): 3, ("y",): 1, ("z",): 0}  # 2.5 1.25 .25
    assert allocate({("b",): 1, ("a",): 1, ("c",): 1}, 2) == {("a",): 1, ("b",): 1, ("c",): 0}  # ties: by key
    ties = {(name,): 1 for name in "abcdefgh"}
    by_seed = {seed: allocate(ties, 4, seed) for seed in range(6)}
    assert all(sum(counts.values()) == 4 for counts in by_seed.values())
    assert by_seed[3] == allocate(ties, 4, 3)  # seeded, so repeatable
    assert len({tuple(sorted(k for k, n in c.items() if n)) for c in by_seed.values()}) > 1  # not always a-d
    assert allocate({("x",): 3, ("y",): 2}, 9) == {("x",): 3, ("y",): 2}  # more than there is: everything
    assert allocate({("x",): 3, ("y",): 2}, 0) == {("x",): 0, ("y",): 0}


def test_stratified_sample_is_proportional_and_drawn_from_the_population(ws):
    population = population_edges(ws, "all", WEAK)
    sample = stratified_sample(population, 60, seed=7)
    assert len(sample) == 60 and [i.position for i in sample] == list(range(60))
    assert len({i.ref for i in sample}) == 60
    assert edges_of(sample) <= edges_of(population)
    sizes = Counter(f"{i.language}|{i.repo}|{i.edge_class}" for i in population)
    drawn = Counter(i.stratum for i in sample)
    assert set(drawn) <= set(sizes) and len(sizes) > 20
    for stratum, n in sizes.items():
        share = 60 * n / len(population)
        assert share - 1 < drawn[stratum] < share + 1, stratum
    for item in sample:
        assert item.stratum == f"{item.language}|{item.repo}|{item.edge_class}"
        assert item.stratum_size == sizes[item.stratum]
    # annotators do not get the strata in blocks: more stratum changes along the list than strata
    changes = sum(a.stratum != b.stratum for a, b in itertools.pairwise(sample))
    assert changes + 1 > len(drawn)


def test_strata_can_be_chosen_or_dropped(ws):
    population = population_edges(ws, "fn", WEAK)
    by_language = stratified_sample(population, 30, seed=1, strata=["edge_class", "language"])
    assert {i.stratum for i in by_language} == {"java|FN", "javascript|FN", "python|FN"}
    sizes = Counter(i.language for i in population)
    assert all(i.stratum_size == sizes[i.language] for i in by_language)
    plain = stratified_sample(population, 30, seed=1, strata=())
    assert {(i.stratum, i.stratum_size) for i in plain} == {("all", len(population))}
    everything = stratified_sample(population, 10**6, seed=1)
    assert len(everything) == len(population) and edges_of(everything) == edges_of(population)
    with pytest.raises(AuditError, match="cannot stratify by 'model'"):
        stratified_sample(population, 3, seed=1, strata=["model"])


def test_same_seed_same_sample_other_seed_other_sample(ws):
    population = population_edges(ws, "all", STRONG)
    first = stratified_sample(population, 40, seed=11)
    assert stratified_sample(population, 40, seed=11) == first
    shuffled = population[:]
    random.Random(5).shuffle(shuffled)
    assert stratified_sample(shuffled, 40, seed=11) == first  # the input order does not matter
    other = stratified_sample(population, 40, seed=12)
    assert edges_of(other) != edges_of(first)


SAMPLE_SCRIPT = """
import json, sys
from core.audit.sampling import population_edges, stratified_sample
from core.dataset.indexing import open_dataset
from resources import DEMO_DATASET
ws, _ = open_dataset(DEMO_DATASET, sys.argv[1])
items = stratified_sample(population_edges(ws, "all", "illustrative-weak"), 50, seed=2024)
print(json.dumps([[i.position, i.stratum, i.instance_key, i.caller, i.callee] for i in items]))
"""


def test_the_sample_is_the_same_in_a_fresh_process_whatever_the_hash_seed(ws, tmp_path):
    items = stratified_sample(population_edges(ws, "all", WEAK), 50, seed=2024)
    expected = [[i.position, i.stratum, i.instance_key, i.caller, i.callee] for i in items]
    for hash_seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        result = subprocess.run([sys.executable, "-c", SAMPLE_SCRIPT, str(tmp_path / f"fresh{hash_seed}.sqlite")],
                                cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout) == expected


# -- audits ------------------------------------------------------------------------------------------
def test_margin_of_error_sets_the_size_over_the_edge_population(ws):
    audit, items = new_audit(ws, "by-margin", margin=0.05, seed=3)
    assert audit.population_size == 416 and audit.size == len(items) == 200  # 384.15 / (1 + 383.15 / 416)
    assert audit.requested_size is None and audit.margin == 0.05
    audit, items = new_audit(ws, "fp-margin", population="fp", model=WEAK, margin=0.1, seed=3)
    assert audit.population_size == 75 and len(items) == sample_size_for_margin(0.1, 75) == 43


def test_a_hundred_truth_edges_over_every_split(ws):
    audit, items = new_audit(ws, "hundred", size=100, seed=9, split=None)
    assert len(items) == audit.size == 100 and audit.population_size == 416
    assert edges_of(items) <= edges_of(population_edges(ws, "truth"))
    assert {i.audit for i in items} == {"hundred"} and {i.edge_class for i in items} == {"truth"}
    assert {i.split for i in ws.instance_rows() if i.key in {i.instance_key for i in items}} == {"test", "train"}
    assert audit.strata == STRATA and audit.modes == tuple(sorted(MODES)) and audit.requested_size == 100


def test_baseline_questions_are_every_callgraph_key_in_order(ws):
    audit, items = new_audit(ws, "humans", kind=BASELINE_AUDIT, size=6, seed=4)
    programs = list(dict.fromkeys(i.instance_key for i in items))
    assert len(programs) == 6 and audit.requested_size == 6 and audit.population_size == 15
    assert audit.strata == ("language", "repo") and audit.size == len(items)
    assert [i.position for i in items] == list(range(len(items)))
    rows = {r.key: r for r in ws.instance_rows()}
    for key in programs:
        questions = [i for i in items if i.instance_key == key]
        text = (DEMO_DATASET / rows[key].folder / "callgraph.json").read_text()
        assert [q.caller for q in questions] == list(json.loads(text))  # callgraph.json key order, unnormalised
        stratum = f"{rows[key].language}|{rows[key].repo}"
        assert {(q.callee, q.edge_class, q.stratum) for q in questions} == {("", "", stratum)}
    # questions of one program are consecutive: positions run program by program
    assert programs == [k for n, k in enumerate(i.instance_key for i in items)
                        if n == 0 or items[n - 1].instance_key != k]
    # 13 language|repo strata for 15 programs: the two 2-program strata have the largest remainders (0.8) and
    # get one each; the other four places go to tied 0.4 strata in a seeded order, not always the first names
    strata = {f"{rows[k].language}|{rows[k].repo}" for k in programs}
    assert {"javascript|eventide", "python|ledgerlite"} <= strata and len(strata) == 6
    assert len({rows[k].language for k in programs}) == 3
    by_language = sample_questions(ws, 6, seed=4, strata=["language"])
    assert Counter(rows[k].language for k in {i.instance_key for i in by_language}) == {
        "java": 2, "javascript": 2, "python": 2}
    everything = sample_questions(ws, None, seed=4)
    assert len({i.instance_key for i in everything}) == 15
    assert sum(len(ws.ground_truth_mappings([k])[k]) for k in rows) == len(everything)


@pytest.mark.parametrize("kwargs, message", [
    ({}, "give either a sample size or a margin of error"),
    ({"size": 10, "margin": 0.05}, "give either a sample size or a margin of error"),
    ({"size": 0}, "sample size must be at least 1"),
    ({"margin": 0.7}, "margin of error must be in"),
    ({"size": 5, "confidence": 1.5}, "confidence must be in"),
    ({"size": 5, "languages": ["cobol"]}, "unknown language or normalisation mode 'cobol'"),
    ({"size": 5, "population": "fn"}, "population 'fn' needs a model"),
    ({"size": 5, "annotators": [" ann"]}, "annotator name must be non-empty"),
    ({"kind": BASELINE_AUDIT, "margin": 0.05}, "a baseline audit samples programs"),
    ({"kind": BASELINE_AUDIT, "size": 3, "model": WEAK}, "a baseline audit asks the ground-truth questions"),
    ({"kind": BASELINE_AUDIT, "size": 3, "strata": ["edge_class"]}, "cannot stratify by 'edge_class'"),
])
def test_new_audit_refuses_bad_options(ws, kwargs, message):
    with pytest.raises(AuditError, match=message):
        new_audit(ws, "bad", **kwargs)


def test_created_audit_round_trips_and_matches_across_workspaces(ws, tmp_path):
    options = {"population": "all", "model": WEAK, "size": 25, "seed": 99, "annotators": ("ann", "bob")}
    audit, items = new_audit(ws, "spot", **options)
    created = create_audit(ws, "spot", **options)
    assert AuditStore(ws).items("spot") == items
    assert created.fingerprint == audit.fingerprint and created.created_at
    assert created.annotators == ("ann", "bob") and created.model == WEAK and created.size == 25
    with pytest.raises(AuditError, match="already exists"):
        create_audit(ws, "spot", **options)
    other, _ = open_dataset(DEMO_DATASET, tmp_path / "second.sqlite")
    with other:
        again = create_audit(other, "spot", **options)
        assert again.fingerprint == created.fingerprint
        assert AuditStore(other).items("spot") == items
        assert create_audit(other, "spot-2", **{**options, "seed": 100}).fingerprint != created.fingerprint


def test_truth_audits_are_blind_by_default_and_blindness_is_stored(ws, tmp_path, capsys):
    from core.audit.sampling import create_audit
    from tests.cli_run import run

    assert create_audit(ws, "truth", size=5, seed=1).blind
    assert not create_audit(ws, "fps", size=5, seed=1, population="fp", model="illustrative-weak").blind
    assert create_audit(ws, "fps-blind", size=5, seed=1, population="fp", model="illustrative-weak", blind=True).blind
    assert not create_audit(ws, "truth-open", size=5, seed=1, blind=False).blind
    store = AuditStore(ws)
    assert {a.name: a.blind for a in store.audits()} == {"truth": True, "fps": False, "fps-blind": True,
                                                          "truth-open": False}
    # "real, not exercised" is offered for every edge of a blind audit: refusing it would tell the class
    assert not_exercised_everywhere(store.get("fps-blind"), store.items("fps-blind"))
    assert not not_exercised_everywhere(store.get("fps"), store.items("fps"))  # not blind
    assert not not_exercised_everywhere(store.get("truth"), store.items("truth"))  # no FP: refused on every edge
    truth_edge = replace(store.items("fps")[0], edge_class="TP")
    assert label_fits(truth_edge, "not_exercised", True) and not label_fits(truth_edge, "not_exercised")

    path = tmp_path / "cli.sqlite"
    code, out, _ = run(capsys, "audit", "new", "mixed", "--size", "30", "--population", "all", "--model",
                       "illustrative-weak", "--blind", "--workspace", path)
    assert code == 0 and "blind" in out
    code, out, _ = run(capsys, "audit", "items", "mixed", "--annotator", "ann", "--workspace", path)
    assert code == 0 and not any(cls in out.split() for cls in ("TP", "FP", "FN"))  # not before a verdict
    code, out, _ = run(capsys, "audit", "verdict", "mixed", "1", "not_exercised", "--annotator", "ann",
                       "--workspace", path)
    assert code == 0
    code, out, _ = run(capsys, "audit", "items", "mixed", "--annotator", "ann", "--workspace", path)
    first = out.splitlines()[0].split()
    assert first[3] in ("TP", "FP", "FN")  # shown once judged
