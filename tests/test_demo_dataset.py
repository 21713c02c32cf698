"""The bundled demo dataset: complete, consistent, and scored the same way the tool scores."""
import json

from core.dataset.layout import load_dataset
from core.dataset.validation import validate_dataset
from core.results.reader import read_results_file
from core.scoring.metrics import micro_scores, sum_counts
from core.symbols import extract_symbols
from resources import DEMO_DATASET, DEMO_RESULTS


def test_at_least_four_programs_per_language_in_both_splits():
    dataset = load_dataset(DEMO_DATASET)
    assert dataset.problems == []
    for language in ("python", "javascript", "java"):
        programs = [i for i in dataset.instances if i.language == language]
        assert len(programs) >= 4
        assert {i.split for i in programs} == {"test", "train"}
        assert any(len(i.files) > 1 for i in programs), f"{language}: no multi-file program"
        assert all(i.entry_point for i in programs)
        assert all(i.provenance.source_url.startswith("https://example.org/") for i in programs)


def test_every_ground_truth_endpoint_exists_in_the_source():
    for instance in load_dataset(DEMO_DATASET).instances:
        table = extract_symbols(instance.language, {f: instance.read_source(f) for f in instance.files})
        assert table.unplaced(instance.ground_truth.nodes) == [], instance.key
        assert [n.name for n in table.nodes] == list(instance.ground_truth.keys), \
            f"{instance.key}: keys are every defined function, in source order"
    assert validate_dataset(DEMO_DATASET).problems == []


def test_results_files_are_labelled_illustrative_and_their_metrics_are_ours():
    files = sorted(DEMO_RESULTS.glob("*.json"))
    assert len(files) == 6
    for path in files:
        data = json.loads(path.read_text())
        assert data["metadata"]["illustrative"] is True and "NOT real model output" in data["metadata"]["note"]
        results = read_results_file(path)
        assert results.problems == []
        aggregate = data["metadata"]["aggregate_metrics"]
        counts = sum_counts(_counts(r["metrics"]) for r in data["results"].values())
        assert (counts.tp, counts.fp, counts.fn) == (aggregate["tp"], aggregate["fp"], aggregate["fn"])
        assert micro_scores(counts).f1 == aggregate["f1"]


def test_the_weak_model_has_realistic_faults():
    weak = {p.name: json.loads(p.read_text()) for p in DEMO_RESULTS.glob("illustrative-weak_*.json")}
    python = weak["illustrative-weak_python_t0.0_r0.json"]["results"]
    assert "ledgerlite_0002" not in python  # a missing record
    problems = [problem for data in weak.values() for r in data["results"].values()
                for problem in r["input"]["parse_problems"]]
    assert any("no answer for question" in p for p in problems)
    assert any("is not a function name" in p for p in problems)
    predicted = {c for data in weak.values() for r in data["results"].values()
                 for callees in r["prediction"].values() for c in callees}
    assert {"print", "console.log"} & predicted  # standard-library calls the normaliser drops


def _counts(metrics):
    from core.scoring.metrics import Counts
    return Counts(metrics["tp"], metrics["fp"], metrics["fn"])
