"""The output-token limit's request field: both (the paper's request) by default; a 400 naming one of them
gets the other alone, without a failed program or a counted attempt, remembered per endpoint and model;
`--token-limit-field` forces one. Against the local server refusing a field as OpenAI and others do."""
import json

import pytest

from core.dataset.indexing import open_dataset
from core.llm.endpoints import RunSettings, remembered_token_limit_field, token_limit_fields_path
from core.llm.prompts import build_prompt
from core.llm.runner import run_model
from core.scoring.scores import Selection, score_table
from resources import DEMO_DATASET
from tests.cli_run import run as cli
from tests.llm_server import (
    PAIR_REFUSED,
    FakeChatServer,
    answer_text,
    refusing,
    request_prompt_hash,
    status,
    truth_answers,
)

FAST = 0.01


@pytest.fixture
def answers(ws, keys):
    return {build_prompt(ws.instance(key)).hash: answer_text(ws.instance(key).ground_truth) for key in keys}


def run(ws, server, keys, **options):
    options.setdefault("concurrency", 4)
    return run_model(ws, RunSettings(server.base_url, "fake-model", timeout_s=5.0, retries=2, **options), keys,
                     backoff_base_s=FAST)


def limit_fields(server) -> list[frozenset[str]]:
    return [frozenset({"max_tokens", "max_completion_tokens"} & set(r.body)) for r in server.chat_requests()]


def test_a_provider_refusing_max_tokens_is_asked_with_max_completion_tokens_alone(ws, keys, answers):
    with FakeChatServer(refusing("max_tokens", truth_answers(answers))) as server:
        report = run(ws, server, keys)
        sent = limit_fields(server)
    assert (report.status, report.answered, report.failed) == ("finished", 15, [])
    both, alone = frozenset({"max_tokens", "max_completion_tokens"}), frozenset({"max_completion_tokens"})
    assert sent[0] == both and set(sent) == {both, alone}
    assert sent.count(alone) == 15 and sent.count(both) <= 4  # only the requests in flight before the switch
    assert all(r.attempts == 1 for key in keys for r in ws.request_rows("fake-model", key))  # no failed attempt
    assert all(result.scores.f1 == 1.0 for result in score_table(ws, ["fake-model"], Selection()).rows[0]
               .languages.values())
    assert remembered_token_limit_field(server.base_url, "fake-model") == "max_completion_tokens"
    assert remembered_token_limit_field(server.base_url, "other-model") is None
    assert json.loads(token_limit_fields_path().read_text()) == {server.base_url: {"fake-model":
                                                                                   "max_completion_tokens"}}


def test_the_remembered_field_is_sent_from_the_first_request_of_the_next_run(ws, keys, answers):
    with FakeChatServer(refusing("max_tokens", truth_answers(answers))) as server:
        run(ws, server, keys[:3], concurrency=1)
        first = len(server.chat_requests())
        report = run(ws, server, keys[3:6], concurrency=1)
        later = limit_fields(server)[first:]
    assert first == 4 and report.answered == 3
    assert later == [frozenset({"max_completion_tokens"})] * 3


def test_a_provider_refusing_the_pair_gets_one_field(ws, keys, answers):
    with FakeChatServer(refusing("both", truth_answers(answers), message=PAIR_REFUSED)) as server:
        report = run(ws, server, keys, concurrency=1)
        sent = limit_fields(server)
    assert (report.answered, report.failed) == (15, [])
    assert len(sent) == 16 and sent[1:] == [frozenset({"max_completion_tokens"})] * 15


def test_a_forced_field_is_never_switched(ws, keys, answers):
    with FakeChatServer(refusing("max_tokens", truth_answers(answers))) as server:
        report = run(ws, server, keys[:2], concurrency=1, token_limit_field="max_tokens")
        sent = limit_fields(server)
    assert report.answered == 0 and len(report.failed) == 2
    assert "(400)" in report.failed[0][1] and "max_tokens" in report.failed[0][1]
    assert sent == [frozenset({"max_tokens"})] * 2
    assert remembered_token_limit_field(server.base_url, "fake-model") is None


def test_a_provider_refusing_every_field_fails_the_program_once_without_a_loop(ws, keys):
    always = refusing("both", refusing("max_tokens", refusing("max_completion_tokens", lambda r, a: None)))
    with FakeChatServer(always) as server:
        report = run(ws, server, keys[:1], concurrency=1)
        sent = limit_fields(server)
    assert len(report.failed) == 1 and "(400)" in report.failed[0][1]
    assert sent == [frozenset({"max_tokens", "max_completion_tokens"}), frozenset({"max_completion_tokens"}),
                    frozenset({"max_tokens"})]
    assert remembered_token_limit_field(server.base_url, "fake-model") is None  # nothing worked: nothing kept


def test_a_400_about_the_limit_s_value_is_not_a_refused_field(ws, keys, answers):
    too_large = {"error": {"message": "max_tokens is too large: 4096. This model supports at most 2048 completion "
                                      "tokens, whereas you provided 4096.", "type": "invalid_request_error",
                           "param": "max_tokens", "code": None}}
    first = build_prompt(ws.instance(keys[0])).hash
    right = truth_answers(answers)
    with FakeChatServer(lambda request, attempt: status(400, too_large) if request_prompt_hash(request) == first
                        else right(request, attempt)) as server:
        report = run(ws, server, keys[:2], concurrency=1)
        sent = limit_fields(server)
    assert report.answered == 1 and report.failed[0][0] == keys[0] and "too large" in report.failed[0][1]
    assert sent == [frozenset({"max_tokens", "max_completion_tokens"})] * 2  # asked once each, as the paper asks


def test_predict_token_limit_field_option(tmp_path, capsys):
    path = tmp_path / "demo.sqlite"
    workspace, _ = open_dataset(DEMO_DATASET, path)
    with workspace:
        answers = {build_prompt(workspace.instance(r.key)).hash: answer_text(workspace.instance(r.key).ground_truth)
                   for r in workspace.instance_rows()}
    with FakeChatServer(truth_answers(answers)) as server:
        code, _out, err = cli(capsys, "predict", "--workspace", path, "--model", "fake-model", "--base-url",
                              server.base_url, "--split", "all", "--no-results-files",
                              "--token-limit-field", "max_completion_tokens")
        sent = limit_fields(server)
    assert code == 0, err
    assert sent == [frozenset({"max_completion_tokens"})] * 15
    with pytest.raises(SystemExit) as exit_info:  # argparse refuses an unknown field before anything runs
        cli(capsys, "predict", "--workspace", path, "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
            "--token-limit-field", "max_output_tokens")
    assert exit_info.value.code == 2 and "invalid choice: 'max_output_tokens'" in capsys.readouterr().err
