"""The inspect_ai task end to end: the real `inspect eval traceeval/traceeval` against the local chat server
(tests/llm_server.py) on the demo, its log imported with `traceeval import-inspect`, and `traceeval score` on the
imported answers equal to inspect's metric exactly; the same answers through `traceeval predict` score the same."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.dataset.indexing import open_dataset
from core.llm.prompts import build_prompt
from resources import DEMO_DATASET
from tests.cli_run import run
from tests.llm_server import FakeChatServer, answer_text, truth_answers

pytest.importorskip("inspect_ai")
_SCRIPT = Path(sys.executable).with_name("inspect")
# the `inspect` command, or inspect_ai run as a module where there is no script beside this Python (a virtualenv
# reaching the packages through a .pth file, as .ci/security-unprivileged makes one for nobody)
INSPECT = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "inspect_ai"]


def _weak_answers(workspace: Path) -> dict[str, str]:
    """Per prompt hash of each demo program, the demo's illustrative weak answer (imperfect, with parse problems),
    or the perfect answer where it has none."""
    weak = {}
    for path in (DEMO_DATASET / "results").glob("illustrative-weak_*.json"):
        language = path.name.split("_")[1]
        for program_id, record in json.loads(path.read_text())["results"].items():
            weak[f"{language}/{program_id}"] = record["raw_response"]
    ws, _ = open_dataset(DEMO_DATASET, workspace)
    with ws:
        instances = [ws.instance(row.key) for row in ws.instance_rows()]
    return {build_prompt(i).hash: weak.get(i.key, answer_text(i.ground_truth)) for i in instances}


def _inspect_eval(server: FakeChatServer, tmp_path: Path, *task_args: str) -> Path:
    # inspect's OpenAI-compatible provider, as for a vLLM or Ollama server: `openai/<name>` would take an unknown
    # name for OpenAI's newest reasoning model and leave the temperature out of the request.
    env = dict(os.environ, LOCAL_BASE_URL=server.base_url, LOCAL_API_KEY="test-key", INSPECT_LOG_DIR=str(tmp_path))
    args = [*INSPECT, "eval", "traceeval/traceeval", "--model", "openai-api/local/fake-model",
            "--display", "none", "--log-dir", str(tmp_path / "logs"),
            "-T", f"workspace={tmp_path / 'inspect.sqlite'}", *task_args]
    result = subprocess.run(args, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    logs = sorted((tmp_path / "logs").glob("*.eval"))
    assert len(logs) == 1
    return logs[0]


def _metrics(log: Path) -> dict[str, float]:
    from inspect_ai.log import read_eval_log

    read = read_eval_log(str(log))
    assert read.status == "success", read.error
    (scores,) = read.results.scores
    return {name: value.value for name, value in scores.metrics.items()}


def _table(capsys, workspace: Path, model: str) -> dict[str, float]:
    code, out, err = run(capsys, "score", "--workspace", workspace, "--models", model, "--format", "json")
    assert code == 0, err
    (row,) = json.loads(out)["rows"]
    table = {f"{language}_{measure}": result[measure] for language, result in row["languages"].items()
             for measure in ("precision", "recall", "f1")}
    table.update({f"average_{measure}": row["average"][measure] for measure in ("precision", "recall", "f1")})
    return table


def test_inspect_eval_on_the_demo_scores_exactly_as_traceeval_score(tmp_path, capsys):
    answers = _weak_answers(tmp_path / "answers.sqlite")
    with FakeChatServer(truth_answers(answers)) as server:
        log = _inspect_eval(server, tmp_path)
        asked = server.chat_requests()
        assert len(asked) == 7  # the demo's test split, each prompt known to the server (else it answers 400)
        assert {request.prompt_hash for request in asked} <= set(answers)
        assert all(request.body["temperature"] == 0 for request in asked)  # the paper's request
        inspect_scores = _metrics(log)
        code, out, err = run(capsys, "import-inspect", log, "--workspace", tmp_path / "imported.sqlite")
        assert code == 0, err
        assert "openai-api/local/fake-model: 7 prediction(s) stored" in out
        imported = _table(capsys, tmp_path / "imported.sqlite", "openai-api/local/fake-model")
        assert imported == inspect_scores  # exactly: the same counts, the same micro and macro rules
        assert 0 < imported["average_f1"] < 1 and imported["python_f1"] != imported["java_f1"]
        code, _, err = run(capsys, "predict", "--workspace", tmp_path / "predicted.sqlite", "--model", "fake-model",
                           "--base-url", server.base_url, "--no-results-files")
        assert code == 0, err
    assert _table(capsys, tmp_path / "predicted.sqlite", "fake-model") == inspect_scores
    ws, _ = open_dataset(DEMO_DATASET, tmp_path / "imported.sqlite")
    with ws:  # raw answers, tokens and parse problems are kept
        predictions = ws.predictions("openai-api/local/fake-model")
    assert len(predictions) == 7
    assert all(p.raw_response in answers.values() and p.tokens_in == 100 and p.tokens_out == 20
               for p in predictions.values())
    assert any(p.parse_problems for p in predictions.values())
    assert {p.prompt_hash for p in predictions.values()} <= set(answers)


def test_task_options_select_programs(tmp_path):
    answers = _weak_answers(tmp_path / "answers.sqlite")
    with FakeChatServer(truth_answers(answers)) as server:
        log = _inspect_eval(server, tmp_path, "-T", "split=all", "-T", "languages=python")
        assert len(server.chat_requests()) == 5
    scores = _metrics(log)
    assert {name.rsplit("_", 1)[0] for name in scores} == {"python", "average"}  # as `score --languages python`
    assert scores["average_f1"] == scores["python_f1"] < 1


def test_a_broken_log_is_one_line_naming_the_file_and_others_still_import(tmp_path, capsys):
    broken = tmp_path / "broken.eval"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    code, out, _ = run(capsys, "import-inspect", broken, "--workspace", tmp_path / "ws.sqlite")
    assert code == 1
    assert out.splitlines()[0].startswith(f"error: {broken}: not a readable inspect_ai log")
    assert out.splitlines()[1] == "nothing imported from 1 file(s)"


def test_the_cli_never_loads_inspect_for_help():
    code = ("import sys\nfrom traceeval_gui.cli.main import build_parser\nbuild_parser()\nimport core\n"
            "print('inspect_ai' in sys.modules, 'tokenizers' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert result.stdout.strip() == "False False", result.stderr
