"""Near-duplicate detection of built programs: exact Jaccard of token 5-shingles, found through MinHash + LSH."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.errors import BuildError
from core.instances.dedup import NearDuplicate, find_near_duplicates, program_similarity, tokenize_program

ROOT = Path(__file__).resolve().parent.parent


def _function(name: str, body_seed: int) -> str:
    rng = random.Random(body_seed)
    a, b, c = (rng.randint(1, 999) for _ in range(3))
    op = rng.choice(["+", "-", "*", "//"])
    helper = rng.choice(["abs", "len", "str", "int"])
    return (f"def {name}(x, y={a}):\n"
            f"    total = x {op} y\n"
            f"    if total > {b}:\n"
            f"        total = {helper}(total) {op} {c}\n"
            f"    return [total, y, '{name}']\n")


def _program(base: int, changed: frozenset[int] = frozenset(), comment: str = "") -> dict[str, str]:
    """Ten functions and a main block; `changed` functions get a different body."""
    parts = [f"# {comment}\n" if comment else ""]
    for index in range(10):
        body_seed = base * 1000 + index + (500 if index in changed else 0)
        parts.append(_function(f"f{base}_{index}", body_seed))
    parts.append("if __name__ == '__main__':\n" + "".join(f"    f{base}_{i}({i})\n" for i in range(10)))
    return {"main.py": "\n".join(parts)}


def _names(count: int, start: int = 0) -> str:
    return " ".join(f"x{i}" for i in range(start, start + count))


# --- what counts as a duplicate -----------------------------------------------------------------

def test_identical_programs_are_duplicates_of_the_first():
    program = _program(1)
    drops = find_near_duplicates([("a_0001", program), ("b_0001", dict(program))], "python")
    assert drops == [NearDuplicate("b_0001", "a_0001", 1.0)]


def test_comments_and_whitespace_do_not_matter():
    original = _program(2)
    text = original["main.py"]
    reworded = "# a different header comment\n" + text.replace("\n    ", "\n\n        ").replace(
        "    return", "    # a comment line\n    return").replace("):\n", "):   # trailing\n")
    assert reworded != text
    assert tokenize_program({"main.py": reworded}, "python") == tokenize_program(original, "python")
    drops = find_near_duplicates([("a_0001", original), ("a_0002", {"main.py": reworded})], "python")
    assert drops == [NearDuplicate("a_0002", "a_0001", 1.0)]


@pytest.mark.parametrize("language, first, second", [
    ("javascript", "function f(a) {\n  return g(a, 1);\n}\n",
     "// note\nfunction f(a) { /* inline */ return g(a, 1); }"),
    ("java", "class A {\n  int f() { return g(1); }\n}\n",
     "/** doc */ class A { int f() {\n\n return g(1); } // end\n}"),
])
def test_comments_and_whitespace_do_not_matter_in_javascript_and_java(language, first, second):
    assert tokenize_program({"p": first}, language) == tokenize_program({"p": second}, language)
    assert program_similarity({"p": first}, {"p": second}, language) == 1.0


def test_tokens_keep_identifiers_keywords_literals_and_punctuation_in_sorted_path_order():
    files = {"b.py": "return 'two'  # gone\n", "a.py": "def f(x):\n    y = 1.5\n"}
    assert tokenize_program(files, "python") == ["def", "f", "(", "x", ")", ":", "y", "=", "1.5",
                                                 "return", "'two'"]  # a string literal is one token


def test_one_changed_function_of_ten_is_similar_but_not_identical():
    original, edited = _program(3), _program(3, changed=frozenset({4}))
    similarity = program_similarity(original, edited, "python")
    print(f"similarity with one function of ten changed: {similarity:.3f}")
    assert 0.7 < similarity < 0.95
    drops = find_near_duplicates([("a_0001", original), ("a_0002", edited)], "python", threshold=similarity)
    assert drops == [NearDuplicate("a_0002", "a_0001", similarity)]
    assert find_near_duplicates([("a_0001", original), ("a_0002", edited)], "python", threshold=0.95) == []


def test_clearly_different_programs_are_kept():
    programs = [(f"r_{n:04d}", _program(n)) for n in range(10, 20)]
    assert find_near_duplicates(programs, "python") == []
    assert program_similarity(programs[0][1], programs[1][1], "python") < 0.3


def test_programs_without_tokens_are_never_duplicates():
    empty = {"main.py": "# only a comment\n\n"}
    nothing = {"main.py": ""}
    program = _program(5)
    drops = find_near_duplicates([("e_0001", empty), ("e_0002", dict(empty)), ("e_0003", nothing),
                                  ("p_0001", program)], "python")
    assert drops == []
    assert program_similarity(empty, empty, "python") == 0.0


def test_a_program_shorter_than_a_shingle_is_one_shingle():
    assert program_similarity({"m.py": "x y"}, {"m.py": "x  y # c"}, "python") == 1.0
    assert program_similarity({"m.py": "x y"}, {"m.py": "y x"}, "python") == 0.0


# --- order and threshold ------------------------------------------------------------------------

def test_priority_order_decides_which_one_is_kept():
    program = _program(6)
    assert find_near_duplicates([("a_0001", program), ("b_0001", program)], "python")[0].dropped == "b_0001"
    assert find_near_duplicates([("b_0001", program), ("a_0001", program)], "python")[0].dropped == "a_0001"


def test_the_most_similar_kept_program_is_named_earliest_on_a_tie():
    head = {"m.py": _names(60)}  # x0..x59: 56 shingles
    tail = {"m.py": _names(60, start=50)}  # x50..x109: 56 shingles, 6 shared with `head`
    longer_tail = {"m.py": _names(65, start=45)}  # x45..x109: 61 shingles
    probe = {"m.py": _names(110)}  # x0..x109: contains all of them
    tie = find_near_duplicates([("h_0001", head), ("t_0001", tail), ("p_0001", probe)], "python", threshold=0.5)
    assert tie == [NearDuplicate("p_0001", "h_0001", 56 / 106)]
    tie = find_near_duplicates([("t_0001", tail), ("h_0001", head), ("p_0001", probe)], "python", threshold=0.5)
    assert tie == [NearDuplicate("p_0001", "t_0001", 56 / 106)]
    closer = find_near_duplicates([("h_0001", head), ("t_0001", longer_tail), ("p_0001", probe)], "python",
                                  threshold=0.5)
    assert closer == [NearDuplicate("p_0001", "t_0001", 61 / 106)]


def test_threshold_boundary_is_inclusive():
    first = {"m.py": _names(49)}  # 45 shingles of distinct names
    second = {"m.py": _names(54)}  # the same 45 plus 5: Jaccard exactly 45 / 50
    assert program_similarity(first, second, "python") == 0.9
    programs = [("a_0001", first), ("a_0002", second)]
    assert find_near_duplicates(programs, "python", threshold=0.9) == [NearDuplicate("a_0002", "a_0001", 0.9)]
    assert find_near_duplicates(programs, "python", threshold=0.9000001) == []


def test_a_dropped_program_never_causes_another_drop():
    first, second, third = ({"m.py": _names(n)} for n in (100, 105, 110))
    assert program_similarity(first, second, "python") >= 0.95
    assert program_similarity(second, third, "python") >= 0.95
    assert program_similarity(first, third, "python") < 0.95
    drops = find_near_duplicates([("a_0001", first), ("a_0002", second), ("a_0003", third)], "python", threshold=0.95)
    assert [d.dropped for d in drops] == ["a_0002"]


@pytest.mark.parametrize("threshold", [0, -0.5, 1.01, float("nan")])
def test_a_threshold_outside_zero_to_one_is_refused(threshold):
    with pytest.raises(BuildError, match="threshold"):
        find_near_duplicates([("a_0001", _program(1))], "python", threshold=threshold)


def test_unknown_language_and_repeated_ids_are_refused():
    with pytest.raises(BuildError, match="cobol"):
        find_near_duplicates([("a_0001", _program(1))], "cobol")
    with pytest.raises(BuildError, match="a_0001"):
        find_near_duplicates([("a_0001", _program(1)), ("a_0001", _program(2))], "python")


# --- determinism and scale ----------------------------------------------------------------------

_DETERMINISM_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from tests.test_build_dedup import synthetic_programs
from core.instances.dedup import find_near_duplicates
drops = find_near_duplicates(synthetic_programs(40, seed=7), "python", threshold=0.8)
print(json.dumps([[d.dropped, d.kept, d.similarity] for d in drops]))
"""


def test_the_result_is_the_same_in_processes_with_different_hash_seeds():
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        result = subprocess.run([sys.executable, "-c", _DETERMINISM_SCRIPT, str(ROOT)], check=False, env=env, cwd=ROOT,
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        outputs.append(json.loads(result.stdout))
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) > 10


def test_spreading_the_tokenising_over_processes_gives_the_same_result():
    programs = synthetic_programs(30, seed=3)
    single = find_near_duplicates(programs, "python", threshold=0.8)
    assert len(single) > 10
    assert find_near_duplicates(programs, "python", threshold=0.8, workers=2) == single
    with pytest.raises(BuildError, match="workers"):
        find_near_duplicates(programs, "python", workers=0)


def synthetic_programs(bases: int, seed: int = 0, variants: int = 5) -> list[tuple[str, dict[str, str]]]:
    """`bases` families of `variants` programs: copies with other comments and 1-3 changed functions, shuffled."""
    rng = random.Random(seed)
    programs = []
    for base in range(bases):
        for variant in range(variants):
            changed = frozenset(rng.sample(range(10), rng.choice([0, 1, 1, 2, 3]))) if variant else frozenset()
            program = _program(base, changed, comment=f"variant {variant}")
            programs.append((f"repo{base}_{variant:04d}", program))
    rng.shuffle(programs)
    return programs


def _brute_force(programs, threshold: float) -> list[NearDuplicate]:
    """The definition, pair by pair: greedy in priority order over exact Jaccard of token-tuple shingle sets."""
    shingle_sets = []
    for _, files in programs:
        tokens = tokenize_program(files, "python")
        width = min(5, len(tokens))
        shingle_sets.append({tuple(tokens[i:i + width]) for i in range(len(tokens) - width + 1)} if tokens else set())
    kept: list[int] = []
    drops = []
    for index, shingles in enumerate(shingle_sets):
        best = None
        for other in kept:
            union = len(shingles | shingle_sets[other])
            similarity = len(shingles & shingle_sets[other]) / union if union else 0.0
            if similarity >= threshold and (best is None or similarity > best[0]):
                best = (similarity, other)
        if best is None:
            if shingles:
                kept.append(index)
        else:
            drops.append(NearDuplicate(programs[index][0], programs[best[1]][0], best[0]))
    return drops


def test_three_thousand_programs_agree_with_the_brute_force_definition():
    programs = synthetic_programs(600, seed=1)
    started = time.perf_counter()
    drops = find_near_duplicates(programs, "python")
    print(f"\n{len(programs)} programs: {len(drops)} near-duplicates in {time.perf_counter() - started:.2f} s")
    files = dict(programs)
    for drop in drops[:50]:
        assert program_similarity(files[drop.dropped], files[drop.kept], "python") == drop.similarity >= 0.9
    subset = [p for p in programs if int(p[0].split("_")[0][4:]) < 60]  # 60 whole families, 300 programs
    assert len(subset) == 300
    for threshold in (0.9, 0.75):
        expected = _brute_force(subset, threshold)
        assert len(expected) > 30
        assert find_near_duplicates(subset, "python", threshold=threshold) == expected
