"""SCORER_VERSION keys every cached score: scoring output may change only together with a new version.

The golden figures (tests/golden/scores.json, made by tests/scorer_golden.py) are the scorer's output
on fixed inputs, stored with the version they were made under.
"""
import json

from core.scoring.rules import RULE_SETS
from core.scoring.scores import SCORER_VERSION, scoring_key
from tests.scorer_golden import GOLDEN, REGENERATE, golden_figures

STORED = json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_the_golden_figures_belong_to_this_scorer_version():
    assert STORED["scorer_version"] == SCORER_VERSION, (
        f"SCORER_VERSION is {SCORER_VERSION!r} but the golden figures were made under {STORED['scorer_version']!r}: "
        f"regenerate them with `{REGENERATE}`")


def test_scoring_output_is_unchanged_for_this_scorer_version():
    current = golden_figures()
    changed = sorted(part for part in current if current[part] != STORED[part])
    assert not changed, (
        f"scoring output changed ({', '.join(changed)}) under the same SCORER_VERSION {SCORER_VERSION!r}: cached "
        f"scores would be served stale. Bump SCORER_VERSION in core/scoring/scores.py, then run `{REGENERATE}`")


def test_the_golden_figures_cover_every_rule_set_and_mode_combination_on_every_language():
    assert len(STORED["demo_counts"]) == len(RULE_SETS) * 8 == 3 * 8
    for models in STORED["demo_counts"].values():
        assert set(models) == {"illustrative-strong", "illustrative-weak"}
        assert all(set(languages) == {"python", "javascript", "java"} for languages in models.values())


def test_cached_scores_are_keyed_by_the_version_rule_set_and_modes():
    assert scoring_key({"stdlib", "init"}, "studio") == f"{SCORER_VERSION}|studio|init,stdlib"
    assert scoring_key((), "paper") == f"{SCORER_VERSION}|paper|none"
