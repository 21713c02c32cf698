"""Reasoning models against the local server: the thinking kept beside the answer (from `reasoning`,
`reasoning_content` or a think block in `content`), with its tokens, through the cache and into results
files; the paper's rules score `content` as it is, the opt-in "paper-nothink" rules without the block."""
import json
import sqlite3

import pytest
from sqlite_utils import Database

from core.dataset.indexing import open_dataset
from core.dataset.workspace import Workspace
from core.dataset.workspace_schema import MIGRATIONS
from core.llm.answer_cache import AnswerCache
from core.llm.endpoints import RunSettings
from core.llm.prices import Price, PriceTable
from core.llm.prompts import build_prompt
from core.llm.runner import run_model
from core.report.export_rows import rows_of
from core.results.reader import read_results_file, to_prediction
from core.results.writer import write_released_results
from core.scoring.answers import parse_answer
from core.scoring.rules import PAPER, PAPER_NOTHINK, rules_title
from core.scoring.scores import Selection, score_table
from core.scoring.tables import describe_selection
from resources import DEMO_DATASET
from tests.llm_server import FakeChatServer, ok, request_prompt_hash

FAST = 0.01


def final_answer(graph) -> str:
    """The perfect answer with a line only for the questions that have callees (the rest: no line, no calls)."""
    mapping = graph.to_dict()
    return "\n".join(f"{n}. {', '.join(mapping[key])}" for n, key in enumerate(graph.keys, 1) if mapping[key])


def thinking_about(graph) -> str:
    """Thinking that drafts a wrong callee for every question the final answer leaves out."""
    drafts = [f"{n}. draft.guess" for n, key in enumerate(graph.keys, 1) if not graph.to_dict()[key]]
    return "Let me trace the calls.\n" + "\n".join(drafts)


def replies(ws, keys, make):
    """prompt hash -> make(instance) for every program; the responder answers with it."""
    table = {build_prompt(ws.instance(key)).hash: make(ws.instance(key)) for key in keys}
    return lambda request, attempt: table[request_prompt_hash(request)]


def run(ws, server, keys, **options):
    cache = options.pop("cache", None)
    prices = options.pop("prices", None)
    return run_model(ws, RunSettings(server.base_url, "fake-model", timeout_s=5.0, retries=1, **options), keys,
                     backoff_base_s=FAST, cache=cache, prices=prices)


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
def test_thinking_in_a_message_field_is_kept_with_its_tokens_and_the_answer_scores_as_before(ws, keys, field):
    respond = replies(ws, keys, lambda instance: ok(final_answer(instance.ground_truth), usage=(100, 300),
                                                    message={field: f"thinking about {instance.id}"},
                                                    reasoning_tokens=280))
    prices = PriceTable({"fake-model": Price(1.0, 10.0)})
    with FakeChatServer(respond) as server:
        report = run(ws, server, keys, prices=prices)
    assert (report.answered, report.failed) == (15, [])
    prediction = ws.predictions("fake-model", [keys[0]])[keys[0]]
    assert prediction.reasoning == f"thinking about {prediction.instance_id}"
    assert prediction.reasoning_tokens == 280
    assert prediction.raw_response == final_answer(ws.instance(keys[0]).ground_truth)  # content exactly as sent
    # reasoning tokens are output tokens: completion_tokens (300) already holds them, counted once
    assert prediction.tokens_out == 300
    assert prediction.cost_usd == pytest.approx((100 * 1.0 + 300 * 10.0) / 1e6)
    assert report.tokens_out == 15 * 300
    row = score_table(ws, ["fake-model"], Selection()).rows[0]
    assert all(result.scores.f1 == 1.0 for result in row.languages.values())


def test_a_think_block_in_content_scores_as_the_paper_and_paper_nothink_reads_without_it(ws, keys):
    texts = {}

    def make(instance):
        texts[instance.key] = f"<think>\n{thinking_about(instance.ground_truth)}\n</think>\n\n" \
                              f"{final_answer(instance.ground_truth)}"
        return ok(texts[instance.key])
    with FakeChatServer(replies(ws, keys, make)) as server:
        run(ws, server, keys)
    stored = ws.predictions("fake-model", keys)
    for key in keys:
        prediction = stored[key]
        assert prediction.raw_response == texts[key]  # content kept as the paper parses it
        assert prediction.reasoning.startswith("Let me trace the calls.")
        assert prediction.reasoning_tokens is None  # not reported: unknown
        truth = ws.instance(key).ground_truth
        assert prediction.graph == parse_answer(texts[key], truth.keys).graph  # the paper's reading, thinking in
    paper = score_table(ws, ["fake-model"], Selection(), rules=PAPER)
    nothink = score_table(ws, ["fake-model"], Selection(), rules=PAPER_NOTHINK)
    paper_f1 = [r.scores.f1 for r in paper.rows[0].languages.values()]
    assert all(f1 == 1.0 for f1 in (r.scores.f1 for r in nothink.rows[0].languages.values()))
    assert any(f1 < 1.0 for f1 in paper_f1)  # the drafts in the thinking count as the paper's parser reads them
    assert rules_title(PAPER_NOTHINK) in describe_selection(nothink)
    assert "think" not in describe_selection(paper)


def test_reasoning_tokens_left_out_of_completion_tokens_are_counted_once_as_output(ws, keys):
    """Some gateways (Gemini's thoughts through OpenAI-style proxies) report completion_tokens without the
    reasoning tokens; total_tokens shows it, and the reasoning tokens are added to the output once."""
    key = keys[0]
    truth = ws.instance(key).ground_truth
    with FakeChatServer(replies(ws, [key], lambda instance: ok(final_answer(truth), usage=(100, 40),
                                                               reasoning_tokens=60, total_tokens=200))) as server:
        report = run(ws, server, [key], prices=PriceTable({"fake-model": Price(1.0, 10.0)}))
    prediction = ws.predictions("fake-model", [key])[key]
    assert (prediction.tokens_out, prediction.reasoning_tokens, report.tokens_out) == (100, 60, 100)
    assert prediction.cost_usd == pytest.approx((100 * 1.0 + 100 * 10.0) / 1e6)


def test_an_unopened_think_block_is_thinking_too(ws, keys):
    key = keys[0]
    truth = ws.instance(key).ground_truth
    text = f"{thinking_about(truth)}\n</think>\n{final_answer(truth)}"
    with FakeChatServer(replies(ws, [key], lambda instance: ok(text))) as server:
        run(ws, server, [key])
    prediction = ws.predictions("fake-model", [key])[key]
    assert prediction.raw_response == text
    assert prediction.reasoning.startswith("Let me trace the calls.") and "</think>" not in prediction.reasoning
    assert parse_answer(text, truth.keys, PAPER_NOTHINK).graph.edge_set == truth.edge_set


def test_thinking_comes_back_from_the_cache_and_goes_into_results_files(ws, keys, tmp_path):
    respond = replies(ws, keys, lambda instance: ok(final_answer(instance.ground_truth),
                                                    message={"reasoning": "deep thought"}, reasoning_tokens=7))
    with AnswerCache(tmp_path / "answers.sqlite") as cache, FakeChatServer(respond) as server:
        run(ws, server, keys, cache=cache)
        asked = len(server.chat_requests())
        report = run(ws, server, keys, cache=cache, name="again")
        assert len(server.chat_requests()) == asked == 15
    assert report.cached == 15
    again = ws.predictions("again", [keys[0]])[keys[0]]
    assert (again.reasoning, again.reasoning_tokens) == ("deep thought", 7)
    written = write_released_results(ws, "again", tmp_path / "out")
    record = next(iter(json.loads(written[0].read_text())["results"].values()))
    assert (record["reasoning"], record["reasoning_tokens"]) == ("deep thought", 7)
    assert {"raw_response", "prediction", "ground_truth", "metrics", "edge_diff", "input"} <= set(record)
    exported = {row["program"]: row for row in rows_of("predictions", ws, "again")}
    assert all((row["reasoning"], row["reasoning_tokens"]) == ("deep thought", 7) for row in exported.values())
    read = read_results_file(written[0])
    back = to_prediction(read.records[0], "python", tuple)
    assert (back.reasoning, back.reasoning_tokens) == ("deep thought", 7)


def test_a_reasoning_field_that_is_not_text_is_ignored_and_the_answer_kept(ws, keys):
    key = keys[0]
    truth = ws.instance(key).ground_truth
    with FakeChatServer(replies(ws, [key], lambda instance: ok(
            final_answer(truth), message={"reasoning": {"nested": 1}, "reasoning_content": 12}))) as server:
        report = run(ws, server, [key])
    assert report.answered == 1
    prediction = ws.predictions("fake-model", [key])[key]
    assert prediction.reasoning is None and prediction.graph.edge_set == truth.edge_set


def test_a_workspace_from_before_reasoning_is_upgraded_and_keeps_its_answers(tmp_path):
    path = tmp_path / "old.sqlite"
    db = Database(path)
    MIGRATIONS.apply(db, stop_before="m010_reasoning")
    db["predictions"].insert({"model": "m", "instance_key": "python/a_0001", "instance_id": "a_0001",
                              "language": "python", "graph": "{}", "raw_response": "1. x", "parse_problems": "[]",
                              "prompt_hash": "", "prompt_wording": "", "source": ""})
    db.close()
    with Workspace(path) as ws:
        prediction = ws.predictions("m", ["python/a_0001"])["python/a_0001"]
        assert prediction.raw_response == "1. x" and prediction.reasoning is None
    columns = {row[1] for row in sqlite3.connect(path).execute("pragma table_info(predictions)")}
    assert {"reasoning", "reasoning_tokens"} <= columns


@pytest.mark.parametrize(("text", "thinking", "left"), [
    ("<think>\nplan\n1. x\n</think>\n1. main.f", "plan\n1. x", "\n\n\n\n1. main.f"),
    ("  <think>cut off while thin", "cut off while thin", ""),
    ("plan\n</think>1. main.f", "plan", "\n1. main.f"),
    ("1. main.f <think>not leading</think>", None, "1. main.f <think>not leading</think>"),
    ("1. main.f", None, "1. main.f"),
])
def test_the_leading_think_block(text, thinking, left):
    from core.scoring.thinking import blank_thinking, thinking_text
    assert thinking_text(text) == thinking
    assert blank_thinking(text) == left


def test_paper_nothink_shows_the_thinking_lines_as_not_read():
    from core.scoring.answers import IGNORED, THINKING_NOTE, answer_lines
    lines = answer_lines("<think>\n1. draft.f\n</think>\n1. main.g", ["main.a"], PAPER_NOTHINK)
    assert [(line.text, line.kind) for line in lines][:3] == [("<think>", IGNORED), ("1. draft.f", IGNORED),
                                                              ("</think>", IGNORED)]
    assert lines[1].note == THINKING_NOTE and lines[3].callees == ("main.g",)
    paper = answer_lines("<think>\n1. draft.f\n</think>\n1. main.g", ["main.a"], PAPER)
    assert paper[1].kind == "superseded"


def test_the_answer_command_says_there_is_thinking_and_prints_it_in_json(tmp_path, capsys):
    from tests.cli_run import run as cli

    path = tmp_path / "demo.sqlite"
    workspace, _ = open_dataset(DEMO_DATASET, path)
    with workspace:
        key = workspace.instance_rows()[0].key
        respond = replies(workspace, [key], lambda instance: ok(final_answer(instance.ground_truth),
                                                                message={"reasoning_content": "hmm, calls"},
                                                                reasoning_tokens=3))
        with FakeChatServer(respond) as server:
            run(workspace, server, [key])
    code, out, _ = cli(capsys, "answer", key, "--model", "fake-model", "--workspace", path)
    assert code == 0 and "thinking: 10 characters, 3 tokens" in out
    code, out, _ = cli(capsys, "answer", key, "--model", "fake-model", "--workspace", path, "--format", "json")
    document = json.loads(out)
    assert code == 0 and (document["reasoning"], document["reasoning_tokens"]) == ("hmm, calls", 3)
