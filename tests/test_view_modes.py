"""The one table of view modes and the one rule for the mode really drawn."""
import pytest

from core.report.palette import EDGE_STYLES
from core.report.view_modes import CORRECT_CLASSES, TRUTH, VIEW_MODE_TABLE, VIEW_MODES, effective_mode, view_mode

ANSWERED = {"a", "b"}


@pytest.mark.parametrize("name", VIEW_MODES)
def test_each_mode_orders_exactly_its_own_drawable_classes(name):
    mode = view_mode(name)
    assert mode.name == name and set(mode.classes) <= set(EDGE_STYLES)
    assert sorted(mode.worst_first) == sorted(mode.classes) and mode.correct <= set(mode.classes)


def test_the_modes_and_their_classes_are_distinct():
    assert VIEW_MODES == ("model", "compare", "trace", "truth")
    classes = [c for mode in VIEW_MODE_TABLE.values() for c in mode.classes]
    assert len(classes) == len(set(classes))
    assert CORRECT_CLASSES == {"TP", "both_right", "agrees", "truth"}


def test_an_unknown_mode_names_the_choices():
    with pytest.raises(ValueError, match=r"unknown view mode 'graph' .choose from model, compare, trace, truth"):
        view_mode("graph")
    with pytest.raises(ValueError):
        effective_mode("graph", "a", "b", ANSWERED, True)


@pytest.mark.parametrize("requested, model_a, model_b, has_trace, expected", [
    ("model", "a", None, False, ("model", "")),
    ("model", "c", None, True, (TRUTH, "c has no result for p/x")),
    ("model", None, None, True, (TRUTH, "no model is chosen as model A")),
    ("compare", "a", "b", False, ("compare", "")),
    ("compare", "a", None, False, (TRUTH, "comparing needs two models (model A and model B)")),
    ("compare", "a", "a", False, (TRUTH, "model A and model B are the same model")),
    ("compare", "c", "b", False, (TRUTH, "c has no result for p/x")),
    ("compare", "c", "d", False, (TRUTH, "c and d have no result for p/x")),
    ("trace", None, None, True, ("trace", "")),
    ("trace", "a", "b", False, (TRUTH, "no trace run is stored for p/x")),
    ("truth", None, None, False, ("truth", "")),
])
def test_a_mode_without_its_inputs_shows_the_truth_and_says_why(requested, model_a, model_b, has_trace, expected):
    assert effective_mode(requested, model_a, model_b, ANSWERED, has_trace, program="p/x") == expected
