"""Hostile batch results (issue #36, item 4: `batch collect --file` hung on a FIFO, read a device until memory was
gone and ended in a RecursionError on deep JSON). The real `traceeval batch prepare` and `collect --file` in
subprocesses on a `vllm run-batch` output file: a FIFO, a device, a link to one, a line nested 100,000 deep and a
line longer than an endpoint may answer are each one line, and the file's other answers are stored. A batch
service answering with JSON nested 100,000 deep is one line too."""
import json
import os
from pathlib import Path

import pytest

from core.dataset.workspace import Workspace
from core.llm.batches.results import MAX_LINE_BYTES
from tests.batch_server import FakeBatchServer
from tests.llm_server import demo_answers_and_keys, request_prompt_hash
from tests.security.test_hostile_dataset import run_cli

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def prepared(tmp_path):
    """The demo workspace with a vllm batch of three programs prepared, and one good output line per request."""
    path = tmp_path / "demo.sqlite"
    answers, keys = demo_answers_and_keys(path)
    done = run_cli("batch", "prepare", "--workspace", path, "--provider", "vllm", "--model", "qwen",
                   "--instances", ",".join(keys[:3]), "--out", tmp_path / "in")
    assert done.returncode == 0, done.stderr
    (infile,) = (tmp_path / "in").iterdir()
    lines = []
    for n, line in enumerate(infile.read_text().splitlines()):
        request = json.loads(line)
        lines.append(json.dumps({"id": f"vllm-{n}", "custom_id": request["custom_id"], "response": {
            "status_code": 200, "body": {"choices": [{"index": 0, "message": {
                "role": "assistant", "content": answers[request_prompt_hash(request["body"])]},
                "finish_reason": "stop"}]}}, "error": None}))
    return path, keys[:3], lines


def collect(workspace: Path, output: Path):
    return run_cli("batch", "collect", "--workspace", workspace, "--file", output)


def test_a_fifo_a_device_and_a_link_to_one_are_refused_without_reading(prepared, tmp_path):
    workspace, _, _ = prepared
    fifo = tmp_path / "out.jsonl"
    os.mkfifo(fifo)
    link = tmp_path / "zero.jsonl"
    os.symlink("/dev/zero", link)
    for output, kind in ((fifo, "a FIFO"), (Path("/dev/zero"), "a device"), (link, "a device")):
        done = collect(workspace, output)
        assert done.returncode == 2
        assert done.stderr == f"traceeval: error: {output}: the batch output file: not a regular file ({kind}); " \
                              "not read\n"
    with Workspace(workspace) as ws:
        assert ws.predictions("qwen") == {}


def test_a_deep_line_and_an_endless_line_are_their_own_problems_and_the_rest_is_stored(prepared, tmp_path):
    workspace, keys, lines = prepared
    deep = json.loads(lines[1])["custom_id"]
    lines[1] = '{"custom_id": "' + deep + '", "response": ' + DEEP + "}"
    endless = '{"custom_id": "x", "response": "' + "x" * MAX_LINE_BYTES + '"}'
    output = tmp_path / "out.jsonl"
    output.write_text("\n".join([lines[0], lines[1], endless, lines[2]]) + "\n")
    done = collect(workspace, output)
    assert done.returncode == 1, done.stderr
    assert f"problem: {output}: line 3: longer than 16 MiB, more than an endpoint may answer; not read" in done.stderr
    assert "2 answer(s) stored" in done.stderr
    with Workspace(workspace) as ws:
        assert set(ws.predictions("qwen")) == {keys[0], keys[2]}
        (error,) = ws.db.execute("select error from batch_requests where custom_id = ?", [deep]).fetchone()
    assert error == f"{output}: line 2: neither a response nor an error (nested deeper than 64 levels)"


def test_a_batch_service_answering_deep_json_is_one_line(tmp_path):
    path = tmp_path / "demo.sqlite"
    answers, keys = demo_answers_and_keys(path)
    with FakeBatchServer(answers) as server:
        done = run_cli("batch", "prepare", "--workspace", path, "--provider", "anthropic", "--model", "fake",
                       "--base-url", server.base_url, "--instances", keys[0], "--out", tmp_path / "in")
        assert done.returncode == 0, done.stderr
        server.override = lambda method, route: (200, {}, DEEP.encode()) if method == "POST" else None
        done = run_cli("batch", "submit", "--workspace", path, env={"ANTHROPIC_API_KEY": "sk-test"})
    assert done.returncode == 2
    assert done.stderr == f"traceeval: error: {server.base_url}/messages/batches: creating the batch: the answer is " \
                          "not a JSON object\n"


@pytest.mark.parametrize("piece", [1, 2, 3, 7, 64])
def test_the_line_reader_gives_the_lines_split_gives_and_never_holds_a_long_one(piece, monkeypatch):
    """`safe_files.bounded_lines` against `bytes.split` on every arrangement of a few pieces, read `piece` bytes at a
    time: the same lines and numbers, a line past the bound given as None."""
    import io
    import itertools

    from core import safe_files

    monkeypatch.setattr(safe_files, "_CHUNK", piece)
    for count in range(6):
        for parts in itertools.product((b"a", b"bbb", b"\n"), repeat=count):
            data = b"".join(parts)
            lines = data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n") if data else []
            for limit in (0, 1, 2, 5):
                expected = [(number, line if len(line) <= limit else None) for number, line in enumerate(lines, 1)]
                assert list(safe_files.bounded_lines(io.BytesIO(data), limit, 1 << 20)) == expected, (data, limit)
