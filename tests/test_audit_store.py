"""Audits in the workspace: items, verdicts with undo, annotators kept apart, adjudications, answers."""
import pytest

from core.audit.audits import Audit, AuditItem, EdgeRef, final_verdicts, human_model_name, sample_fingerprint
from core.audit.store import AuditStore
from core.dataset.workspace import Workspace
from core.errors import AuditError

F_G = EdgeRef("python/a_0001", "main.f", "main.g")
F_H = EdgeRef("python/a_0001", "main.f", "main.h")


def _items(name="spot"):
    return [AuditItem(name, i, ref.instance_key, "a_0001", "Python", "a", ref.caller, ref.callee, "truth",
                      "Python|a|truth", 2) for i, ref in enumerate((F_G, F_H))]


@pytest.fixture
def store(tmp_path):
    ws = Workspace(tmp_path / "w.sqlite")
    store = AuditStore(ws)
    items = _items()
    store.create(Audit("spot", size=2, annotators=("ann",), fingerprint=sample_fingerprint(items)), items)
    yield store
    ws.close()


def test_an_audit_keeps_its_definition_and_items_in_order(store):
    audit = store.get("spot")
    assert (audit.size, audit.annotators, audit.strata) == (2, ("ann",), ("language", "repo", "edge_class"))
    assert audit.created_at and audit.fingerprint == sample_fingerprint(_items())
    assert store.items("spot") == _items()
    with pytest.raises(AuditError, match=r"already exists"):
        store.create(Audit("spot"), [])
    with pytest.raises(AuditError, match=r"no audit named 'nope'.*audits: spot"):
        store.get("nope")


def test_verdicts_of_annotators_stay_apart_and_the_newest_counts(store):
    store.give_verdict("spot", F_G, "ann", "correct")
    store.give_verdict("spot", F_G, "ann", "wrong", note="never called")
    store.give_verdict("spot", F_G, "bob", "not_exercised")
    assert {k: v.label for k, v in store.current_verdicts("spot", "ann").items()} == {("ann", F_G): "wrong"}
    assert store.current_verdicts("spot", "ann")[("ann", F_G)].note == "never called"
    assert store.labels("spot") == {F_G: {"ann": "wrong", "bob": "not_exercised"}}
    assert store.annotators("spot") == ("ann", "bob")
    assert [v.label for v in store.history("spot")] == ["correct", "wrong", "not_exercised"]


def test_undo_walks_back_one_verdict_at_a_time(store):
    store.give_verdict("spot", F_G, "ann", "correct")
    store.give_verdict("spot", F_H, "ann", "unsure")
    store.give_verdict("spot", F_G, "ann", "wrong")
    store.give_verdict("spot", F_G, "bob", "correct")  # another annotator's verdicts are not undone
    assert store.undo("spot", "ann").label == "correct"
    assert store.labels("spot") == {F_G: {"ann": "correct", "bob": "correct"}, F_H: {"ann": "unsure"}}
    assert store.undo("spot", "ann").cleared  # F_H had no verdict before
    assert store.undo("spot", "ann").cleared  # F_G's first verdict
    assert store.labels("spot") == {F_G: {"bob": "correct"}}
    assert store.undo("spot", "ann") is None
    assert store.undo("spot", "bob").cleared and store.labels("spot") == {}


def test_the_edge_table_sees_only_the_annotator_asked_for(store):
    store.give_verdict("spot", F_G, "ann", "correct")
    store.give_verdict("spot", F_G, "bob", "wrong")
    ws = store.ws
    assert ws.latest_verdicts(F_G.instance_key, "ann")[(F_G.caller, F_G.callee)].label == "correct"
    assert ws.latest_verdicts(F_G.instance_key)[(F_G.caller, F_G.callee)].label == "wrong"
    store.undo("spot", "bob")
    assert (F_G.caller, F_G.callee) not in ws.latest_verdicts(F_G.instance_key, "bob")


def test_final_verdicts_adjudication_wins_and_differences_stay_disputed(store):
    store.give_verdict("spot", F_G, "ann", "correct")
    store.give_verdict("spot", F_G, "bob", "wrong")
    store.give_verdict("spot", F_H, "ann", "unsure")
    store.give_verdict("spot", F_H, "bob", "unsure")
    finals = final_verdicts(store.labels("spot"), store.adjudications("spot"))
    assert (finals[F_G].label, finals[F_G].how) == (None, "disputed")
    assert (finals[F_H].label, finals[F_H].how, finals[F_H].by) == ("unsure", "unanimous", ("ann", "bob"))
    store.adjudicate("spot", F_G, "wrong", "carol", "the branch is dead code")
    store.adjudicate("spot", F_G, "not_exercised", "carol", "reachable from main with --verbose")
    final = final_verdicts(store.labels("spot"), store.adjudications("spot"))[F_G]
    assert (final.label, final.how, final.by, final.reason) == (
        "not_exercised", "adjudicated", ("carol",), "reachable from main with --verbose")
    assert final.labels == {"ann": "correct", "bob": "wrong"}
    with pytest.raises(ValueError, match=r"unknown verdict"):
        store.adjudicate("spot", F_G, "maybe", "carol")


def test_baseline_answers_keep_the_newest_per_question(store):
    store.store_answer("spot", "ann", "python/a_0001", "main.f", ["main.g"])
    store.store_answer("spot", "ann", "python/a_0001", "main.f", ["main.g", "main.h", "main.g"])
    store.store_answer("spot", "bob", "python/a_0001", "main.f", [])
    assert store.answers("spot", "ann")[("python/a_0001", "main.f")].callees == ("main.g", "main.h")
    assert store.answers("spot", "bob")[("python/a_0001", "main.f")].callees == ()
    assert human_model_name("ann") == "human:ann"


def test_names_must_be_usable(store):
    with pytest.raises(ValueError, match=r"annotator name"):
        store.give_verdict("spot", F_G, " ann", "correct")
    with pytest.raises(ValueError, match=r"needs a model"):
        Audit("x", population="fp")
