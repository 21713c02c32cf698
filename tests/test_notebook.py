"""docs/notebook.ipynb runs from top to bottom in a real kernel on the demo dataset, its model run against a local
chat-completions server, and shows the numbers `traceeval score` prints."""
from __future__ import annotations

import json

import nbformat
import pytest
from nbclient import NotebookClient

from tests.cli_run import run
from tests.conftest import ROOT
from tests.llm_server import FakeChatServer, demo_truth_answers, truth_answers

NOTEBOOK = ROOT / "docs" / "notebook.ipynb"


def test_the_stored_notebook_holds_no_output():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


@pytest.fixture
def executed(tmp_path, monkeypatch):
    """The notebook run in a fresh kernel (in its own workspace folder) with one cell added that prints the table
    frame as JSON."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(
        'import json\nprint(json.dumps(scores.to_dict(orient="records"), default=str))'))
    with FakeChatServer(truth_answers(demo_truth_answers(tmp_path / "answers.sqlite"))) as server:
        monkeypatch.setenv("TRACEEVAL_NOTEBOOK_ENDPOINT", server.base_url)
        NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
                       allow_errors=False).execute()
        requests = len(server.chat_requests())
    return notebook, requests


def text_of(cell) -> str:
    parts = []
    for output in cell.outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type == "execute_result":
            parts.append(output.data.get("text/plain", ""))
    return "".join(parts)


def test_the_notebook_runs_and_shows_what_the_command_line_shows(executed, capsys):
    notebook, requests = executed
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code_cells)
    assert not [o for cell in code_cells for o in cell.outputs if o.output_type == "error"]
    texts = [text_of(cell) for cell in code_cells]
    everything = "\n".join(texts)

    assert "15 programs, models: illustrative-strong, illustrative-weak" in texts[0]
    assert "{'reimported': 15}" in texts[1]
    code, table_text, _ = run(capsys, "score", "--models", "illustrative-strong,illustrative-weak")
    assert code == 0 and table_text.strip() in everything  # render_table prints what `traceeval score` prints
    assert "Counts(tp=" in everything and "FP " in everything  # the diff of calcpad_0001
    assert "ok " in everything and "same as the ground truth" in everything  # the trace
    assert requests == 7 and "7 answered" in everything  # the model run asked each test program once
    assert "{'instances': {'test': 7, 'train': 8}" in everything

    frame = json.loads(texts[-1])
    code, out, _ = run(capsys, "score", "--format", "json", "--models", "illustrative-strong,illustrative-weak")
    document = json.loads(out)
    for row in document["rows"]:
        for language, scores in [*row["languages"].items(), ("average", row["average"])]:
            mine = next(r for r in frame if r["model"] == row["model"] and r["language"] == language)
            assert (mine["p"], mine["r"], mine["f1"]) == (scores["precision"], scores["recall"], scores["f1"])
