import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench.synthetic import corrupt, generate, split_ids
from tests.builders import released_dataset
from tests.cli_run import run


@pytest.fixture
def small(tmp_path):
    """~1% of TraceEval with the real ids, 2 models, 4 broken programs."""
    root = tmp_path / "ds"
    ids = split_ids(Path(__file__).resolve().parents[2] / "shared" / "traceeval_split", scale=0.01)
    generate(root, ids, models=2, seed=3, max_nodes=30)
    broken = corrupt(root, {lang: list(v) for lang, v in ids["train"].items()})
    return root, ids, broken


def test_validate_names_each_bad_file_and_the_rest_scores(small, capsys):
    root, ids, broken = small
    code, out, _ = run(capsys, "validate", root, "--quick")
    assert code == 1
    for path in broken:
        assert f"error: {path}: " in out
    total = sum(len(v) for split in ids.values() for v in split.values())
    assert f"{total:,} program folder(s), {total - 4:,} loaded, 4 error(s)" in out
    code, out, _ = run(capsys, "score", root, "--results", root / "results", "--workspace", root.parent / "w.sqlite")
    assert code == 0
    assert "synthetic-model-00" in out and "synthetic-model-01" in out
    assert out.splitlines()[0].startswith("TraceEval scores: paper rules; test (Python 8, JavaScript 6, Java 7 "
                                          "programs)")


def test_score_formats_and_options(small, capsys, tmp_path):
    root, _, _ = small
    ws = ["--workspace", tmp_path / "w.sqlite"]
    assert run(capsys, "import-results", root, root / "results", *ws)[0] == 0
    code, out, _ = run(capsys, "score", root, "--format", "json", "--languages", "py,java", "--no-normalize", *ws)
    data = json.loads(out)
    assert code == 0 and data["normalisation"] == [] and list(data["rows"][0]["languages"]) == ["python", "java"]
    code, out, _ = run(capsys, "score", root, "--format", "latex", "--split", "all", "--ci", *ws)
    assert "\\begin{tabular}" in out and "95% bootstrap CI" in out
    out_file = tmp_path / "t.md"
    assert run(capsys, "score", root, "--format", "md", "-o", out_file, "--models", "synthetic-model-01", *ws)[0] == 0
    assert out_file.read_text().count("| synthetic-model-01 |") == 1
    code, out, _ = run(capsys, "score", root, "--by", "repo", "--format", "csv", *ws)
    assert out.splitlines()[0].startswith("model,group,illustrative,python_programs")


def test_bad_options_are_one_line_errors(small, capsys, tmp_path):
    root, _, _ = small
    ws = ["--workspace", tmp_path / "w.sqlite"]
    for argv, message in [
        (("score", root, "--modes", "init,bogus"), "unknown normalisation mode 'bogus'"),
        (("score", root, "--languages", "rust"), "unknown language 'rust'"),
        (("score", root, "--models", "nobody"), "no model named 'nobody'"),
        (("info", tmp_path / "missing"), "no such dataset folder"),
        (("import-results", root, tmp_path / "none.json"), "no such results file or folder"),
    ]:
        code, _out, err = run(capsys, *argv, *ws)
        assert code == 2 and err.count("\n") == 1 and message in err, (argv, err)


def test_diff_and_info(tmp_path, capsys):
    root = released_dataset(tmp_path / "ds", {"python": ["cli_0003"], "javascript": ["cli_0003"]})
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps({"instance_id": "cli_0003", "language": "python", "model": "m",
                                   "raw_response": "1. main.run\n5. main.Shape, helper"}) + "\n")
    ws = ["--workspace", tmp_path / "w.sqlite"]
    assert run(capsys, "import-results", root, results, *ws)[0] == 0
    code, _, err = run(capsys, "diff", "cli_0003", "--model", "m", "--dataset", root, *ws)
    assert code == 2 and "exists in python and javascript; write it as python/cli_0003" in err
    code, out, _ = run(capsys, "diff", "python/cli_0003", "--model", "m", "--dataset", root, *ws)
    assert code == 0
    lines = out.splitlines()
    assert lines[1].startswith("TP 2  FP 1  FN 2")
    assert "parse problem: no answer for questions 2, 3, 4" in out
    assert "FP  main.run -> helper" in lines and "FN  main.run -> main.Shape.area" in lines
    code, out, _ = run(capsys, "diff", "javascript/cli_0003", "--model", "m", "--dataset", root, *ws)
    assert code == 1 and "has no result" in out
    code, out, _ = run(capsys, "info", root, "--format", "json", *ws)
    info = json.loads(out)
    assert info["programs"] == 2 and info["models"] == [{"name": "m", "predictions": 1, "illustrative": False}]


def test_the_installed_console_script_runs():
    script = shutil.which("traceeval", path=str(Path(sys.executable).parent))
    assert script, "pip install -e . installs the traceeval command"
    result = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0
    for command in ("info", "validate", "import-results", "score", "diff"):
        assert command in result.stdout
