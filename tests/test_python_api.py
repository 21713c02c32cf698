"""The Python API: `import core` is cheap (every name loads on first use), every name in `core.__all__` and
`tracers.__all__` resolves and says what it is, and the frames hold the scorer's numbers."""
from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys

import pandas as pd
import pytest

import core
import tracers
from core.errors import UsageError
from tests.cli_run import run
from tests.conftest import ROOT

HEAVY = ("numpy", "pandas", "pyarrow", "sqlite_utils", "openai", "tree_sitter", "networkx", "pygments", "datasets",
         "core.dataset.workspace", "core.scoring", "core.report")
WEAK, STRONG = "illustrative-weak", "illustrative-strong"


def loaded_after(code: str) -> set[str]:
    """The modules of HEAVY that are loaded after running `code` in a fresh interpreter."""
    script = code + "\nimport sys, json\nprint(json.dumps([m for m in sys.argv[1:] if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", script, *HEAVY], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout))


def test_import_core_loads_no_heavy_module():
    assert loaded_after("import core; dir(core)") == set()


def test_a_name_loads_its_home_when_first_used():
    assert "sqlite_utils" not in loaded_after("import core; core.Selection")  # a record, not the database layer
    assert {"core.report", "pandas"} & loaded_after("import core; core.score_frame") == {"core.report"}


@pytest.mark.parametrize("package", [core, tracers], ids=["core", "tracers"])
def test_every_public_name_resolves_and_has_its_own_docstring(package):
    assert package.__all__ == sorted(set(package.__all__))
    for name in package.__all__:
        value = getattr(package, name)
        doc = inspect.getdoc(value) or ""
        assert doc.strip() and not doc.startswith(f"{name}("), f"{package.__name__}.{name} has no docstring"
    assert set(package.__all__) <= set(dir(package))


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        core.nothing_here  # noqa: B018


def test_open_dataset_without_a_path_is_the_demo_with_its_models():
    ws, report = core.open_dataset()
    with ws:
        assert report.instances == 15 and ws.model_names() == [STRONG, WEAK]


def test_score_frame_is_the_paper_table_that_score_prints(capsys):
    code, out, _ = run(capsys, "score", "--format", "json")
    assert code == 0
    document = json.loads(out)
    ws, _ = core.open_dataset()
    with ws:
        frame = core.score_frame(core.score_table(ws, selection=core.Selection(split="test")))
    assert list(frame.columns) == ["model", "group", "illustrative", "language", "programs", "missing", "tp", "fp",
                                   "fn", "p", "r", "f1"]
    for row in document["rows"]:
        for language, scores in row["languages"].items():
            mine = frame[(frame.model == row["model"]) & (frame.language == language)].iloc[0]
            assert (mine.tp, mine.fp, mine.fn, mine.f1) == (scores["tp"], scores["fp"], scores["fn"], scores["f1"])
        average = frame[(frame.model == row["model"]) & (frame.language == "average")].iloc[0]
        assert average.f1 == row["average"]["f1"] and average.tp is pd.NA


def test_score_frame_with_intervals_has_low_and_high_columns():
    ws, _ = core.open_dataset()
    with ws:
        frame = core.score_frame(core.score_table(ws, [WEAK], confidence=0.9, resamples=50))
    assert {"f1_low", "f1_high", "p_low", "r_high"} <= set(frame.columns)
    assert (frame.f1_low <= frame.f1).all() and (frame.f1 <= frame.f1_high).all()


def test_program_and_edge_frames_agree_with_the_overlay_of_one_program():
    ws, _ = core.open_dataset()
    with ws:
        programs = core.program_frame(ws, WEAK)
        edges = core.edge_frame(ws, [WEAK], core.Selection(languages=("python",)))
        overlay = core.program_overlay(ws, "calcpad_0001")
    assert list(programs.columns) == ["model", "program", "language", "split", "repo", "tp", "fp", "fn", "p", "r",
                                      "f1"]
    assert list(edges.columns) == ["model", "program", "language", "split", "repo", "caller", "callee", "class"]
    assert len(programs) == 14 and set(programs.model) == {WEAK}  # ledgerlite_0002 has no weak answer
    diff = overlay.diff(WEAK)
    mine = edges[edges.program == "calcpad_0001"]
    assert sorted(zip(mine["class"], mine.caller, mine.callee)) == sorted(
        [(label, *edge) for label, part in (("TP", diff.tp), ("FP", diff.fp), ("FN", diff.fn)) for edge in part])
    row = programs[programs.program == "calcpad_0001"].iloc[0]
    assert (row.tp, row.fp, row.fn) == (len(diff.tp), len(diff.fp), len(diff.fn))
    assert overlay.models == (STRONG, WEAK)


def test_program_overlay_names_an_unknown_program_or_model():
    ws, _ = core.open_dataset()
    with ws, pytest.raises(UsageError, match="no program 'nope'"):
        core.program_overlay(ws, "nope")
    ws, _ = core.open_dataset()
    with ws, pytest.raises(UsageError, match="no model named 'gpt-0'"):
        core.program_overlay(ws, "python/calcpad_0001", ["gpt-0"])


def test_frames_without_pandas_name_the_extra(tmp_path):
    script = ("import sys; sys.modules['pandas'] = None\n"
              "import core, core.errors\n"
              "ws, _ = core.open_dataset()\n"
              "try:\n"
              "    core.program_frame(ws)\n"
              "except core.errors.MissingExtraError as error:\n"
              "    print(type(error).__name__, error)\n")
    env = {**os.environ, "TRACEEVAL_WORKSPACE_DIR": str(tmp_path / "ws")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120, check=False)
    assert done.stdout == ("MissingExtraError pandas is needed for data frames: "
                           "pip install 'traceeval-studio[frames]'\n"), done.stderr[-2000:]
