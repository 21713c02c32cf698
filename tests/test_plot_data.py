"""The numbers behind the metrics plots: the per-instance rule per program, histograms that count
every scored program once, and per-language bars equal to the paper table (micro, then macro)."""
import numpy as np
import pytest

from core.dataset.indexing import open_dataset
from core.dataset.workspace import InstanceRow, ModelRow
from core.scoring.metrics import Counts, Scores, instance_scores, macro_average, micro_scores, sum_counts
from core.scoring.normalise import MODES
from core.scoring.plot_data import f1_histogram, language_bars, model_points, plot_data, program_scores, select_rows
from core.scoring.scores import NormalisedTruths, Selection, instance_counts, instance_diff, score_table
from resources import DEMO_DATASET

# Hand-made counts covering the per-instance rule's edge cases.
HAND_COUNTS = {
    "python/a_0001": Counts(3, 1, 2),  # ordinary
    "python/a_0002": Counts(0, 0, 4),  # empty prediction: P = 1, R = 0
    "python/a_0003": Counts(0, 0, 0),  # nothing to find, nothing predicted: F1 = 1
    "java/b_0001": Counts(0, 2, 0),  # empty truth, hallucinations: P = 0, R = 1
    "java/b_0002": Counts(5, 0, 0),  # perfect
    # javascript/c_0001 has no result: not scored
}


def _row(key: str, split: str = "test", edges: int = 0, lines: int = 0, functions: int = 0) -> InstanceRow:
    language, _, program_id = key.partition("/")
    return InstanceRow(key, program_id, language, split, program_id.rpartition("_")[0], key, ("main",), "main",
                       functions, edges, lines, "", "")


ROWS = [_row("java/b_0001", edges=2, lines=30), _row("java/b_0002", "train", edges=5, lines=50),
        _row("javascript/c_0001", edges=7, lines=70), _row("python/a_0001", edges=5, lines=40, functions=3),
        _row("python/a_0002", "train", edges=4, lines=20), _row("python/a_0003", edges=0, lines=5)]


def test_each_program_is_scored_with_the_per_instance_rule():
    points = model_points("m", False, ROWS, HAND_COUNTS)
    assert points.keys == ("java/b_0001", "java/b_0002", "python/a_0001", "python/a_0002", "python/a_0003")
    for index, key in enumerate(points.keys):
        expected = instance_scores(HAND_COUNTS[key])
        assert (points.precision[index], points.recall[index], points.f1[index]) == \
            (expected.precision, expected.recall, expected.f1)
        assert points.counts[index] == HAND_COUNTS[key]
    assert list(points.f1) == [0.0, 1.0, 2 * 0.75 * 0.6 / 1.35, 0.0, 1.0]
    assert list(points.sizes["edges"]) == [2, 5, 5, 4, 0] and list(points.sizes["lines"]) == [30, 50, 40, 20, 5]
    assert points.index("python/a_0001") == 2 and points.index("javascript/c_0001") is None
    assert points.ids[2] == "a_0001" and points.languages[0] == "java"


def test_the_histogram_counts_every_scored_program_once_with_f1_one_in_the_last_bin():
    histogram = f1_histogram([0.0, 0.05, 0.1, 0.55, 0.9, 0.999, 1.0, 1.0])
    assert np.allclose(histogram.edges, np.linspace(0, 1, 11))
    assert list(histogram.counts) == [2, 1, 0, 0, 0, 1, 0, 0, 0, 4]
    assert f1_histogram([]).counts.sum() == 0
    data = plot_data(ROWS, [ModelRow("m", False, "", 5, (), 0.0)], {"m": HAND_COUNTS}, split=None)
    assert data.histograms["m"].counts.sum() == len(HAND_COUNTS) == len(data.points[0])
    assert list(data.histograms["m"].counts) == [2, 0, 0, 0, 0, 0, 1, 0, 0, 2]  # F1 2/3 in [0.6, 0.7)


def test_a_score_on_a_bin_edge_lands_in_the_bin_starting_there():
    assert list(f1_histogram([0.3, 0.6, 0.7, 2 * 0.6 * 0.6 / 1.2]).counts) == [0, 0, 0, 1, 0, 0, 2, 1, 0, 0]


def test_language_bars_are_micro_per_language_and_their_mean_as_in_the_paper_table():
    bars = language_bars("m", True, ROWS, HAND_COUNTS)
    python = micro_scores(sum_counts([HAND_COUNTS[k] for k in ("python/a_0001", "python/a_0002", "python/a_0003")]))
    java = micro_scores(Counts(5, 2, 0))
    assert bars.languages == {"python": python, "javascript": None, "java": java}
    assert bars.programs == {"python": 3, "javascript": 0, "java": 2}
    # javascript has no scored program: it counts 0 in the Average, as in the paper's table
    assert bars.average == macro_average({"python": python, "javascript": Scores(0.0, 0.0, 0.0), "java": java})
    assert bars.illustrative
    assert language_bars("m", False, ROWS, {}).average is None


def test_a_split_selects_its_programs_only():
    assert [r.key for r in select_rows(ROWS, "train")] == ["java/b_0002", "python/a_0002"]
    assert select_rows(ROWS, None) == ROWS
    models = [ModelRow("m", False, "", 5, (), 0.0), ModelRow("silent", False, "", 0, (), 0.0)]
    data = plot_data(ROWS, models, {"m": HAND_COUNTS}, split="test", modes={"init"})
    assert data.programs == {"python": 2, "javascript": 1, "java": 1}
    assert data.series("m").keys == ("java/b_0001", "python/a_0001", "python/a_0003")
    assert data.modes == frozenset({"init"})
    assert len(data.series("silent")) == 0 and data.histograms["silent"].counts.sum() == 0
    assert data.bars[1].average is None


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    ws, _ = open_dataset(DEMO_DATASET, tmp_path_factory.mktemp("demo") / "demo.sqlite")
    yield ws
    ws.close()


def _counts(ws, modes):
    rows = ws.instance_rows()
    truths = NormalisedTruths(ws, modes)
    return {m.name: instance_counts(ws, m.name, rows, modes, truths) for m in ws.models()}


@pytest.mark.parametrize("modes", [frozenset(MODES), frozenset({"init", "nested_class"}), frozenset()])
@pytest.mark.parametrize("split", ["test", "train", None])
def test_bars_equal_the_paper_table_on_the_demo(demo, modes, split):
    data = plot_data(demo.instance_rows(), demo.models(), _counts(demo, modes), split, modes)
    table = score_table(demo, selection=Selection(split=split), modes=modes)
    assert [b.model for b in data.bars] == [r.model for r in table.rows] == ["illustrative-strong",
                                                                             "illustrative-weak"]
    for bars, row in zip(data.bars, table.rows):
        for language, result in row.languages.items():
            assert bars.programs[language] == result.programs
            assert bars.languages[language] == (result.scores if result.programs else None)
        assert bars.average == row.average
        assert bars.illustrative == row.illustrative
    for series, row in zip(data.points, table.rows):  # every scored program is plotted once
        assert len(series) == sum(r.programs for r in row.languages.values())
        assert data.histograms[series.model].counts.sum() == len(series)


def test_turning_off_stdlib_lowers_the_weak_models_bars(demo):
    paper = plot_data(demo.instance_rows(), demo.models(), _counts(demo, frozenset(MODES)), "test")
    modes = frozenset({"init", "nested_class"})
    without = plot_data(demo.instance_rows(), demo.models(), _counts(demo, modes), "test", modes)
    assert without.bars[1].average.f1 < paper.bars[1].average.f1
    assert without.bars[0].average == paper.bars[0].average


@pytest.mark.parametrize("modes", [frozenset(MODES), frozenset({"stdlib"})])
def test_program_scores_are_the_scoring_counts_of_that_program(demo, modes):
    counts = _counts(demo, modes)
    models = demo.models()
    for row in demo.instance_rows():
        scores = program_scores(row.key, models, counts)
        assert [s.model for s in scores] == [m.name for m in models]
        for score in scores:
            diff = instance_diff(demo, score.model, row.key, modes)
            assert score.counts == (diff.counts if diff is not None else None), (row.key, score.model)
            assert score.scores == (instance_scores(diff.counts) if diff is not None else None)
    weak = program_scores("python/ledgerlite_0002", models, counts)[1]
    assert weak.model == "illustrative-weak" and weak.counts is None and weak.scores is None
