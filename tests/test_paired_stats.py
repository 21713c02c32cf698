"""Paired statistics of two models: the exact sign test against hand-computed values, the paired bootstrap's
properties, and the statistics of the demo's two models against the paper table."""
import math

import pytest

from core.dataset.indexing import open_dataset
from core.scoring.metrics import Counts
from core.scoring.paired import MACRO, paired_stats
from core.scoring.scores import Selection, score_table
from core.scoring.stats import paired_bootstrap, sign_test
from resources import DEMO_DATASET

STRONG, WEAK = "illustrative-strong", "illustrative-weak"


# -- the sign test ----------------------------------------------------------------------------------------------
def test_sign_test_ten_wins_two_losses():
    # 2 * (C(12,0) + C(12,1) + C(12,2)) / 2^12 = 2 * 79 / 4096
    test = sign_test(10, 2, ties=3)
    assert test.p == pytest.approx(158 / 4096) and round(test.p, 4) == 0.0386
    assert (test.wins, test.losses, test.ties) == (10, 2, 3)


@pytest.mark.parametrize("wins, losses, p", [
    (6, 0, 2 / 64), (0, 6, 2 / 64),  # all one way: 2 * (1/2)^6
    (5, 5, 1.0), (3, 4, 1.0),  # balanced: the doubled tail passes 1 and is capped
    (0, 0, 1.0),  # nothing but ties: no evidence either way
    (1, 0, 1.0),
    (15, 5, 2 * sum(math.comb(20, k) for k in range(6)) / 2 ** 20),  # 0.0414
])
def test_sign_test_known_values(wins, losses, p):
    assert sign_test(wins, losses).p == pytest.approx(p)


def test_sign_test_is_exact_for_many_programs():
    # 1,000 wins against 900 losses: float binomial sums lose this; fractions do not
    assert 0 < sign_test(1000, 900).p < 0.05
    assert sign_test(1000, 1000).p == 1.0


def test_sign_test_refuses_negative_counts():
    with pytest.raises(ValueError):
        sign_test(-1, 2)


# -- the paired bootstrap ---------------------------------------------------------------------------------------
def _programs(n, base=0):
    """n programs where B finds one more edge than A on every third program."""
    a = [Counts(3 + (i + base) % 4, 1 + (i % 3 == 0), 2) for i in range(n)]
    b = [Counts(c.tp + (i % 3 == 0), c.fp, max(0, c.fn - (i % 3 == 0))) for i, c in enumerate(a)]
    return a, b


def test_interval_contains_the_observed_difference_and_is_seeded():
    a, b = _programs(60)
    result = paired_bootstrap({"python": a}, {"python": b}, resamples=2000, seed=7)
    d = result["python"]
    assert d.low <= d.observed <= d.high and d.low < d.high
    assert result[MACRO] == d  # one language: its macro mean is itself
    assert paired_bootstrap({"python": a}, {"python": b}, resamples=2000, seed=7) == result
    assert paired_bootstrap({"python": a}, {"python": b}, resamples=2000, seed=8)["python"] != d


def test_interval_shrinks_with_more_programs():
    few = paired_bootstrap({"python": _programs(30)[0]}, {"python": _programs(30)[1]}, resamples=4000)["python"]
    many = paired_bootstrap({"python": _programs(300)[0]}, {"python": _programs(300)[1]}, resamples=4000)["python"]
    assert many.high - many.low < (few.high - few.low) / 2  # ~ 1/sqrt(10) as wide


def test_pairing_cancels_what_both_models_share():
    # B equals A on every program: whatever is drawn, the difference is 0
    a, _ = _programs(40)
    d = paired_bootstrap({"java": a}, {"java": list(a)}, resamples=500)["java"]
    assert (d.observed, d.low, d.high) == (0.0, 0.0, 0.0)


def test_macro_is_the_mean_of_the_languages_and_an_empty_one_is_left_out():
    pa, pb = _programs(20)
    ja, jb = _programs(30, base=1)
    result = paired_bootstrap({"python": pa, "java": ja, "javascript": []},
                              {"python": pb, "java": jb, "javascript": []}, resamples=0)
    assert "javascript" not in result
    assert result[MACRO].observed == pytest.approx((result["python"].observed + result["java"].observed) / 2)
    assert result["python"].low == result["python"].observed == result["python"].high  # no resampling


def test_unpaired_samples_are_refused():
    with pytest.raises(ValueError, match="pairs"):
        paired_bootstrap({"python": [Counts(1, 0, 0)]}, {"python": []})
    with pytest.raises(ValueError, match="confidence"):
        paired_bootstrap({}, {}, confidence=1.5)


# -- the demo's two models ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    ws, _ = open_dataset(DEMO_DATASET, tmp_path_factory.mktemp("ws") / "demo.sqlite")
    yield ws
    ws.close()


def test_without_resampling_the_difference_is_the_tables(demo):
    # JavaScript and Java: both models answered every program, so pairing leaves nothing out
    selection = Selection(languages=("javascript", "java"), split=None)
    table = score_table(demo, [STRONG, WEAK], selection)
    strong, weak = table.rows
    stats = paired_stats(demo, WEAK, STRONG, selection, resamples=0)
    for language in ("javascript", "java"):
        row = stats.row(language)
        assert row.difference.observed == strong.languages[language].scores.f1 - weak.languages[language].scores.f1
        assert (row.f1_a, row.f1_b) == (weak.languages[language].scores.f1, strong.languages[language].scores.f1)
    assert stats.row(MACRO).difference.observed == pytest.approx(strong.average.f1 - weak.average.f1)
    assert stats.only_a == stats.only_b == ()


def test_a_program_one_model_lacks_is_named_and_left_out(demo):
    stats = paired_stats(demo, WEAK, STRONG, Selection(split=None), resamples=1000)
    assert stats.only_b == ("python/ledgerlite_0002",) and stats.only_a == ()
    python = stats.row("python")
    assert python.programs == 4
    assert python.sign.wins + python.sign.losses + python.sign.ties == 4
    macro = stats.row(MACRO)
    assert macro.programs == 14 and macro.sign.wins + macro.sign.losses + macro.sign.ties == 14
    assert macro.difference.low <= macro.difference.observed <= macro.difference.high
    assert macro.difference.observed > 0  # the strong model is better
    # swapping A and B mirrors the difference and the wins
    mirrored = paired_stats(demo, STRONG, WEAK, Selection(split=None), resamples=1000)
    assert mirrored.row(MACRO).difference.observed == pytest.approx(-macro.difference.observed)
    assert (mirrored.row(MACRO).sign.wins, mirrored.row(MACRO).sign.losses) == (macro.sign.losses, macro.sign.wins)
