"""The human baseline: answers become a prediction read by the paper's parser and scored like a model's."""
import pytest

from core.audit.audits import BASELINE_AUDIT, Audit
from core.audit.baseline import refresh_baseline_predictions
from core.audit.store import AuditStore
from core.dataset.indexing import open_dataset
from core.scoring.answers import answer_text
from core.scoring.scores import instance_diff
from resources import DEMO_DATASET


@pytest.fixture
def ws(tmp_path):
    ws, _ = open_dataset(DEMO_DATASET, tmp_path / "demo.sqlite")
    AuditStore(ws).create(Audit("human", kind=BASELINE_AUDIT), [])
    yield ws
    ws.close()


def test_answer_text_numbers_questions_and_skips_unanswered_ones():
    assert answer_text(["a", "b", "c"], {"c": ["x", "C:m(int,int)"], "a": []}) == "1. none\n3. x, C:m(int,int)\n"


def test_a_perfect_human_scores_like_a_perfect_model(ws):
    store = AuditStore(ws)
    key = "python/calcpad_0001"
    truth = ws.instance(key).ground_truth
    for caller, callees in truth.to_dict().items():
        store.store_answer("human", "ann", key, caller, callees)
    assert refresh_baseline_predictions(ws, "human", "ann") == 1
    prediction = ws.predictions("human:ann")[key]
    assert prediction.parse_problems == () and prediction.source == "annotator"
    diff = instance_diff(ws, "human:ann", key)
    assert diff.counts.fp == diff.counts.fn == 0 and diff.counts.tp > 0
    assert "human:ann" in {m.name for m in ws.models()}


def test_a_half_done_program_reports_its_unanswered_questions(ws):
    store = AuditStore(ws)
    key = "python/calcpad_0001"
    keys = ws.instance(key).ground_truth.keys
    store.store_answer("human", "bob", key, keys[0], ["main.nowhere"])
    store.store_answer("human", "bob", "python/ledgerlite_0001", "main.main", [])
    assert refresh_baseline_predictions(ws, "human", "bob", [key]) == 1
    prediction = ws.predictions("human:bob")[key]
    assert prediction.graph.edges == ((keys[0], "main.nowhere"),)
    assert len(prediction.parse_problems) == 1
    assert prediction.parse_problems[0].startswith("no answer for questions 2, 3")
    assert set(ws.predictions("human:bob")) == {key}
