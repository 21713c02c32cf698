"""An endpoint that echoes the API key (issue #36, item 8: the key ended in the workspace and the results file). The
real `traceeval predict` and `traceeval batch` in subprocesses against local servers that put the key they were sent
in an answer, its reasoning and an error message: the key is in no file the run writes (the workspace, its WAL, the
answer cache, the results files) and in nothing it prints, and the answers are kept with the key taken out. The HTTP
client tells the redaction every credential header it sends (`core/llm/redaction.py`)."""
import asyncio
import json
import secrets
from pathlib import Path

from core.llm.redaction import REDACTED, Secrets
from core.llm.response_limits import bounded_http_client
from tests.batch_server import FakeBatchServer
from tests.llm_server import FakeChatServer, demo_answers_and_keys, ok, request_prompt_hash, status
from tests.security.test_hostile_dataset import run_cli


def files_holding(text: str, *folders: Path) -> list[Path]:
    """Every file under `folders` whose bytes hold `text`."""
    return [path for folder in folders for path in folder.rglob("*")
            if path.is_file() and text.encode() in path.read_bytes()]


def stored_answers(workspace: Path, model: str) -> dict[str, tuple[str, str | None]]:
    from core.dataset.workspace import Workspace

    with Workspace(workspace) as ws:
        return {key: (p.raw_response, p.reasoning) for key, p in ws.predictions(model).items()}


def test_predict_keeps_no_echoed_key_in_what_it_stores_or_prints(demo, tmp_path):
    path, answers, victim, victim_hash, count = demo
    key = "sk-echo-" + secrets.token_hex(16)
    rejected = {}

    def respond(request, attempt):
        prompt = request_prompt_hash(request)
        if prompt == victim_hash:
            return ok(f"1. main.run, {key}\n2. none", message={"reasoning": f"the key is {key}"})
        if not rejected:
            rejected[prompt] = True
        if prompt in rejected:
            return status(400, {"error": {"message": f"no such key: Bearer {key}", "type": "invalid_request"}})
        return ok(answers[prompt])

    with FakeChatServer(respond) as server:
        done = run_cli("-v", "predict", "--workspace", path, "--model", "m", "--base-url", server.base_url, "--split",
                       "all", "--out", tmp_path / "results", env={"TRACEEVAL_API_KEY": key})  # -v: the debug log too
        assert all(request.headers.get("authorization") == f"Bearer {key}" for request in server.chat_requests())
    assert f"m: finished: {count - 1} answered, 1 failed" in done.stderr, done.stderr
    assert key not in done.stdout + done.stderr
    assert f"no such key: Bearer {REDACTED}" in done.stderr
    assert files_holding(key, tmp_path) == []  # the workspace, its WAL, the cache, the results files
    raw, reasoning = stored_answers(path, "m")[victim]
    assert raw == f"1. main.run, {REDACTED}\n2. none" and reasoning == f"the key is {REDACTED}"


def test_batch_answers_keep_no_echoed_key(tmp_path):
    path = tmp_path / "demo.sqlite"
    answers, _ = demo_answers_and_keys(path)
    key = "sk-ant-echo-" + secrets.token_hex(16)
    victim = next(iter(answers))
    answers[victim] = f"1. main.run, {key}"
    with FakeBatchServer(answers, ends_after=1, api_key=key) as server:
        done = run_cli("batch", "prepare", "--workspace", path, "--provider", "anthropic", "--model", "fake",
                       "--base-url", server.base_url, "--split", "all", "--out", tmp_path / "in")
        assert done.returncode == 0, done.stderr
        done = run_cli("batch", "submit", "--workspace", path, "--wait", "--poll-seconds", "0.01",
                       env={"ANTHROPIC_API_KEY": key})
        assert done.returncode == 0, done.stderr
    assert key not in done.stdout + done.stderr
    assert files_holding(key, tmp_path) == []
    assert any(raw == f"1. main.run, {REDACTED}" for raw, _ in stored_answers(path, "fake").values())


def test_the_http_client_tells_the_redaction_each_credential_header_it_sends():
    """A header the client sends is redacted wherever it comes back, whatever name carries it."""
    seen = Secrets()

    async def send(url: str) -> None:
        async with bounded_http_client(10.0, secrets=seen) as client:
            await client.get(url, headers={"x-api-key": "header-secret-1", "Authorization": "Bearer token-secret-2",
                                           "Accept": "application/json"})

    with FakeChatServer() as server:
        asyncio.run(send(f"{server.base_url}/models"))
    echoed = json.dumps({"x": "header-secret-1 and token-secret-2 and application/json"})
    assert seen.redact(echoed) == json.dumps({"x": f"{REDACTED} and {REDACTED} and application/json"})
