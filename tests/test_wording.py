from core.wording import count, count_of, plural


def test_counts_agree_with_their_number():
    assert count(1, "program") == "1 program"
    assert count(0, "program") == "0 programs"
    assert count(10_583, "program") == "10,583 programs"
    assert count(2, "repository") == "2 repositories"
    assert count(2, "key") == "2 keys"
    assert count(3, "match") == "3 matches"
    assert plural("problem", 1) == "problem"


def test_a_part_of_a_total():
    assert count_of(3, 15, "program") == "3 of 15 programs"
    assert count_of(1, 1, "program") == "1 program"
    assert count_of(0, 1, "program") == "0 of 1 program"
