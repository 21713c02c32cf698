"""Agreement statistics against published worked examples and small hand-computed cases."""
import pytest

from core.audit.agreement import (
    Agreement,
    agreement,
    agreement_by,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    percent_agreement,
)


def by_observer(rows: dict[str, str]) -> dict[int, dict[str, str]]:
    """Observer -> space-separated values per unit ('.' missing) into item -> {observer: value}."""
    ratings: dict[int, dict[str, str]] = {}
    for observer, row in rows.items():
        for unit, value in enumerate(row.split(), start=1):
            labels = ratings.setdefault(unit, {})
            if value != ".":
                labels[observer] = value
    return ratings


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: nominal alpha = 0.743.
KRIPPENDORFF_C = by_observer({
    "A": "1 2 3 3 2 1 4 1 2 . . .",
    "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    "C": ". 3 3 3 2 3 4 2 2 5 1 .",
    "D": "1 2 3 3 2 4 4 1 2 5 1 .",
})
# Same paper, section A: two observers, binary data, no missing values: nominal alpha = 0.095.
KRIPPENDORFF_A = by_observer({"A": "0 1 0 0 0 0 0 0 1 0", "B": "1 1 1 0 0 1 0 0 0 0"})

# Wikipedia "Fleiss' kappa" worked example: 10 subjects, 14 raters, counts per category 1..5; kappa = 0.210.
FLEISS_COUNTS = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]


def fleiss_ratings() -> dict[int, dict[str, str]]:
    ratings = {}
    for subject, counts in enumerate(FLEISS_COUNTS, start=1):
        labels = [str(category) for category, count in enumerate(counts, start=1) for _ in range(count)]
        ratings[subject] = {f"r{r:02d}": label for r, label in enumerate(labels, start=1)}
    return ratings


def cohen_table(both_yes: int, a_yes_b_no: int, a_no_b_yes: int, both_no: int) -> dict[int, dict[str, str]]:
    cells = ([("yes", "yes")] * both_yes + [("yes", "no")] * a_yes_b_no + [("no", "yes")] * a_no_b_yes
             + [("no", "no")] * both_no)
    return {i: {"A": a, "B": b} for i, (a, b) in enumerate(cells)}


def renamed(ratings, mapping: dict[str, str]):
    return {item: {mapping.get(name, name): label for name, label in labels.items()}
            for item, labels in ratings.items()}


# --- Krippendorff's alpha ---------------------------------------------------------------------------------------

def test_krippendorff_nominal_example_with_missing_values():
    assert krippendorff_alpha(KRIPPENDORFF_C) == pytest.approx(0.743, abs=5e-4)


def test_krippendorff_two_observer_binary_example():
    assert krippendorff_alpha(KRIPPENDORFF_A) == pytest.approx(0.095, abs=5e-4)


def test_krippendorff_ignores_units_with_a_single_value():
    extended = dict(KRIPPENDORFF_C, extra={"A": "9"}, empty={})
    assert krippendorff_alpha(extended) == krippendorff_alpha(KRIPPENDORFF_C)


def test_krippendorff_undefined_cases():
    assert krippendorff_alpha({}) is None
    assert krippendorff_alpha({1: {"A": "x"}, 2: {"B": "y"}}) is None  # nothing pairable
    assert krippendorff_alpha({1: {"A": "x", "B": "x"}, 2: {"A": "x", "C": "x"}}) is None  # D_e = 0
    assert krippendorff_alpha({1: {"A": "x", "B": "x"}, 2: {"A": "y", "B": "y"}}) == 1.0


# --- Fleiss' kappa ----------------------------------------------------------------------------------------------

def test_fleiss_wikipedia_example():
    assert fleiss_kappa(fleiss_ratings()) == pytest.approx(0.210, abs=5e-4)


def test_fleiss_uses_only_items_rated_by_every_annotator():
    ratings = fleiss_ratings()
    ratings[99] = {"r01": "1", "r02": "2"}  # incomplete: ignored
    assert fleiss_kappa(ratings) == pytest.approx(0.210, abs=5e-4)
    assert fleiss_kappa(ratings, [f"r{r:02d}" for r in range(1, 15)]) == fleiss_kappa(fleiss_ratings())


def test_fleiss_undefined_cases():
    same = {1: {"A": "x", "B": "x", "C": "x"}, 2: {"A": "x", "B": "x", "C": "x"}}
    assert fleiss_kappa(same) is None  # P_e = 1
    assert fleiss_kappa({}) is None
    assert fleiss_kappa({1: {"A": "x", "B": "y"}}, ["A"]) is None  # one annotator
    assert fleiss_kappa({1: {"A": "x", "B": "y"}, 2: {"A": "x", "C": "y"}}) is None  # no complete item


# --- Cohen's kappa ----------------------------------------------------------------------------------------------

def test_cohen_wikipedia_example():
    # po = 35/50 = 0.7, pe = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.4
    assert cohen_kappa(cohen_table(20, 5, 10, 15), "A", "B") == pytest.approx(0.4)


def test_cohen_perfect_and_degenerate():
    assert cohen_kappa(cohen_table(3, 0, 0, 2), "A", "B") == 1.0
    assert cohen_kappa(cohen_table(4, 0, 0, 0), "A", "B") is None  # pe = 1
    assert cohen_kappa({}, "A", "B") is None
    assert cohen_kappa({1: {"A": "x"}, 2: {"B": "x"}}, "A", "B") is None  # no shared item


def test_cohen_uses_only_items_both_rated():
    ratings = cohen_table(20, 5, 10, 15)
    ratings[100] = {"A": "yes"}
    ratings[101] = {"B": "no", "C": "yes"}
    assert cohen_kappa(ratings, "A", "B") == pytest.approx(0.4)


# --- percent agreement ------------------------------------------------------------------------------------------

def test_percent_agreement_by_hand_with_missing_ratings():
    ratings = {
        1: {"A": "x", "B": "x", "C": "y"},  # 2 agreeing ordered pairs of 6
        2: {"A": "x", "B": "x"},  # 2 of 2
        3: {"A": "x"},  # single rating: not counted
        4: {"B": "x", "C": "y"},  # 0 of 2
    }
    assert percent_agreement(ratings) == pytest.approx((1 / 3 + 1 + 0) / 3)
    assert percent_agreement({1: {"A": "x"}}) is None
    assert percent_agreement({}) is None


# --- agreement / agreement_by -----------------------------------------------------------------------------------

def test_agreement_two_annotators():
    ratings = cohen_table(20, 5, 10, 15)
    ratings["solo"] = {"A": "yes"}
    result = agreement(ratings)
    assert result.items == 50 and result.complete_items == 50
    assert result.annotators == ("A", "B")
    assert result.percent == pytest.approx(0.7)
    assert result.cohen_kappa == pytest.approx(0.4)
    assert result.fleiss_kappa is not None and result.krippendorff_alpha is not None


def test_agreement_three_annotators_has_no_cohen():
    result = agreement(KRIPPENDORFF_C)
    assert result.items == 11  # unit 12 has a single value
    assert result.annotators == ("A", "B", "C", "D")
    assert result.complete_items == 8  # units 1, 10 and 11 miss someone (12 is not counted)
    assert result.cohen_kappa is None
    assert result.krippendorff_alpha == pytest.approx(0.743, abs=5e-4)
    three = agreement({1: {"A": "x", "B": "x", "C": "y"}, 2: {"A": "y", "B": "y", "C": "y"}})
    assert three.cohen_kappa is None and three.fleiss_kappa is not None


def test_agreement_of_nothing():
    assert agreement({1: {"A": "x"}}) == Agreement(items=0, annotators=(), percent=None, cohen_kappa=None,
                                                   fleiss_kappa=None, krippendorff_alpha=None, complete_items=0)


def test_agreement_by_groups_sorted_by_name():
    ratings = {("py", i): labels for i, labels in cohen_table(20, 5, 10, 15).items()}
    ratings.update({("java", unit): labels for unit, labels in KRIPPENDORFF_C.items()})
    ratings[("js", 1)] = {"A": "x"}
    groups = agreement_by(ratings, lambda item: item[0])
    assert list(groups) == ["java", "js", "py"]
    assert groups["py"].cohen_kappa == pytest.approx(0.4)
    assert groups["java"].krippendorff_alpha == pytest.approx(0.743, abs=5e-4)
    assert groups["js"].items == 0 and groups["js"].percent is None


# --- symmetry ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ratings", [cohen_table(20, 5, 10, 15), KRIPPENDORFF_C, KRIPPENDORFF_A],
                         ids=["cohen", "krippendorff-c", "krippendorff-a"])
def test_swapping_annotator_names_changes_nothing(ratings):
    swapped = renamed(ratings, {"A": "B", "B": "A"})
    before, after = agreement(ratings), agreement(swapped)
    assert before == after
    assert cohen_kappa(ratings, "A", "B") == cohen_kappa(ratings, "B", "A") == cohen_kappa(swapped, "A", "B")
