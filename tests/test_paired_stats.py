"""Paired statistics of two models: the exact sign test against hand-computed values, the paired bootstrap's
properties, and the statistics of the demo's two models against the paper table."""
import math

import pytest

from core.dataset.indexing import open_dataset
from core.dataset.workspace import InstanceRow
from core.scoring.metrics import Counts
from core.scoring.paired import MACRO, paired_from_counts, paired_stats
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
    assert d.high < 0  # F1(A) - F1(B): B finds more edges, so the difference is negative
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


def test_the_difference_is_a_minus_b_and_the_wins_are_as():
    # python: A perfect on p1 and p2 (F1 1), B on p3; B half right on p1 (tp 1, fn 1: F1 2/3), A and B equal on p4
    # A's micro F1: tp 4, fp 0, fn 2 -> 2*4/10 = 0.8; B's: tp 4, fp 0, fn 3 -> 8/11; A - B = 0.8 - 8/11 = 4/55
    key = "python/p{}".format
    rows = [InstanceRow(key(i), f"p{i}", "python", "test", "r", "f", (), "main", 1, 1, 1, "", "") for i in range(1, 5)]
    counts_a = {key(1): Counts(2, 0, 0), key(2): Counts(1, 0, 0), key(3): Counts(0, 0, 1), key(4): Counts(1, 0, 1)}
    counts_b = {key(1): Counts(1, 0, 1), key(2): Counts(0, 0, 1), key(3): Counts(2, 0, 0), key(4): Counts(1, 0, 1)}
    stats = paired_from_counts("a", "b", rows, counts_a, counts_b, Selection(languages=("python",)), resamples=0)
    python = stats.row("python")
    assert (python.f1_a, python.f1_b) == (pytest.approx(0.8), pytest.approx(8 / 11))
    assert python.difference.observed == pytest.approx(4 / 55)
    # per program A - B: p1 1 - 2/3 > 0, p2 1 - 0 > 0, p3 0 - 1 < 0, p4 equal: A wins 2, loses 1, ties 1
    assert (python.sign.wins, python.sign.losses, python.sign.ties) == (2, 1, 1)
    assert python.sign.p == 1.0  # 2 * (C(3,0) + C(3,1)) / 8 = 1


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
        assert row.difference.observed == weak.languages[language].scores.f1 - strong.languages[language].scores.f1
        assert (row.f1_a, row.f1_b) == (weak.languages[language].scores.f1, strong.languages[language].scores.f1)
    assert stats.row(MACRO).difference.observed == pytest.approx(weak.average.f1 - strong.average.f1)
    assert stats.only_a == stats.only_b == ()


def test_a_program_one_model_lacks_is_named_and_left_out(demo):
    stats = paired_stats(demo, WEAK, STRONG, Selection(split=None), resamples=1000)
    assert stats.only_b == ("python/ledgerlite_0002",) and stats.only_a == ()
    python = stats.row("python")
    assert python.programs == 4
    # A is the weak model: it is worse on every paired program (the ranking says "A better on 0, B better on 4")
    assert (python.sign.wins, python.sign.losses, python.sign.ties) == (0, 4, 0)
    assert python.sign.p == pytest.approx(2 / 2 ** 4)
    macro = stats.row(MACRO)
    assert macro.programs == 14 and (macro.sign.wins, macro.sign.losses, macro.sign.ties) == (0, 14, 0)
    assert macro.sign.p == pytest.approx(2 / 2 ** 14)
    assert macro.difference.low <= macro.difference.observed <= macro.difference.high
    assert macro.difference.high < 0  # F1(A) - F1(B) with the weak model as A
    # swapping A and B mirrors the difference and the wins
    mirrored = paired_stats(demo, STRONG, WEAK, Selection(split=None), resamples=1000)
    assert mirrored.row(MACRO).difference.observed == pytest.approx(-macro.difference.observed)
    assert (mirrored.row(MACRO).sign.wins, mirrored.row(MACRO).sign.losses) == (macro.sign.losses, macro.sign.wins)
