"""Absurd model answers (issue #18, item 4): a lone surrogate or a 5,000-digit number in one answer is
that answer's parse problem, never the end of the `predict` run, neither the first time nor when the
cached answer is replayed. The real CLI, the real openai client and a server on 127.0.0.1."""
import json

import pytest

from core.dataset.indexing import open_dataset
from core.dataset.workspace import Workspace
from core.scoring.answers import REPLACEMENT_CHARACTER, parse_answer
from resources import DEMO_DATASET
from tests.cli_run import run
from tests.llm_server import FakeChatServer, ok, raw, request_prompt_hash

LONE_SURROGATE_ANSWER = (b'{"choices": [{"index": 0, "message": {"role": "assistant", '
                         b'"content": "1. main.\\ud800run, helper\\udfff\\n2. none"}, '
                         b'"finish_reason": "st\\ud800op"}]}')
HUGE_NUMBER = "9" * 5000



def responder(answers, victim_hash, hostile):
    def respond(request, attempt):
        prompt = request_prompt_hash(request)
        return hostile if prompt == victim_hash else ok(answers[prompt])
    return respond


HOSTILE = {
    "lone surrogate": raw(LONE_SURROGATE_ANSWER),
    "5,000-digit answer number": ok(f"{HUGE_NUMBER}. main.f\n1. main.g\n0{HUGE_NUMBER}. x"),
    "5,000-digit token count": raw(json.dumps({"choices": [{"index": 0, "message": {"role": "assistant",
                                                                                    "content": "1. main.g"},
                                                            "finish_reason": "stop"}]})[:-1].encode()
                                   + b', "usage": {"prompt_tokens": ' + HUGE_NUMBER.encode() + b"}}"),
}


@pytest.mark.parametrize("hostile", list(HOSTILE), ids=list(HOSTILE))
def test_one_absurd_answer_is_recorded_and_the_run_and_its_rerun_go_on(demo, tmp_path, capsys, hostile):
    path, answers, victim, victim_hash, count = demo
    with FakeChatServer(responder(answers, victim_hash, HOSTILE[hostile])) as server:
        argv = ("predict", "--workspace", path, "--model", "m", "--base-url", server.base_url, "--split", "all",
                "--out", tmp_path / "results")
        code, out, err = run(capsys, *argv)
        assert code == 0, err
        assert f"m: finished: {count} answered" in err and "Traceback" not in err
        # the rerun replays every answer from the cache, the absurd one too, and goes on as well
        code, out, err = run(capsys, *argv, "--redo")
        assert code == 0, err
        assert f"m: finished: 0 answered, {count} from the cache" in err
        assert len(server.chat_requests()) == count
    with Workspace(path) as ws:
        prediction = ws.predictions("m", [victim])[victim]
    assert "main.g" in json.dumps(prediction.graph.to_dict()) or "main." in prediction.raw_response
    if hostile == "lone surrogate":  # stored and scored as U+FFFD, and said so
        assert prediction.raw_response == f"1. main.{REPLACEMENT_CHARACTER}run, helper{REPLACEMENT_CHARACTER}\n2. none"
        assert "2 characters of the answer were not valid Unicode (shown as \ufffd)" in prediction.parse_problems
    if hostile == "5,000-digit answer number":
        assert any("too long to read" in problem for problem in prediction.parse_problems)
    # every view of the answer still works, with the problem shown
    code, out, err = run(capsys, "answer", victim, "--model", "m", "--workspace", path)
    assert code == 0 and "Traceback" not in err
    code, out, err = run(capsys, "answer", victim, "--model", "m", "--workspace", path, "--format", "json")
    assert code == 0 and json.loads(out)["instance"] == victim
    code, out, err = run(capsys, "diff", victim, "--model", "m", "--workspace", path)
    assert code == 0, err
    released = (tmp_path / "results" / f"m_{victim.split('/')[0]}_t0.0_r0.json").read_text(encoding="utf-8")
    assert victim.split("/")[1] in released


def test_the_parser_names_text_that_was_not_unicode_and_keeps_the_rest():
    parsed = parse_answer(f"1. a{REPLACEMENT_CHARACTER}, b\n2.", ["m.f", "m.g"])
    assert parsed.graph.to_dict() == {"m.f": [f"a{REPLACEMENT_CHARACTER}", "b"], "m.g": []}
    assert parsed.problems == ("1 character of the answer was not valid Unicode (shown as \ufffd)",)


def test_an_answer_with_a_million_callees_is_summarised_in_views_and_counted_in_full(tmp_path, capsys):
    """`evidence` and `graph` draw and list a bounded part with a "… and K more" line; the scores count every
    edge the paper's parser reads (10^6 false positives)."""
    from core.report.overlay import SHOWN_EDGE_LIMIT
    path = tmp_path / "demo.sqlite"
    ws, _ = open_dataset(DEMO_DATASET, path)
    with ws:
        instance = ws.instance("python/calcpad_0001")
    keys = instance.ground_truth.keys
    callees = ", ".join(f"main.f{i}" for i in range(10 ** 6))
    answer = f"1. {callees}\n" + "\n".join(f"{n}. none" for n in range(2, len(keys) + 1))
    results = tmp_path / "huge.jsonl"
    results.write_text(json.dumps({"instance_id": instance.id, "model": "huge", "raw_response": answer}) + "\n")
    code, out, err = run(capsys, "import-results", DEMO_DATASET, results, "--workspace", path)
    assert code == 0, err
    packet = tmp_path / "evidence.html"
    code, out, err = run(capsys, "evidence", instance.key, "--model", "huge", "--workspace", path, "-o", packet)
    assert code == 0, err
    html = packet.read_text(encoding="utf-8")
    assert 'data-metric="fp" data-value="1000000"' in html  # scored in full
    assert "more edges" in html and "not shown; scores count them all" in html
    assert html.count("<tr data-class=") <= SHOWN_EDGE_LIMIT and len(html) < 20_000_000
    code, out, err = run(capsys, "graph", instance.key, "--model", "huge", "--workspace", path, "--format", "json")
    assert code == 0, err
    picture = json.loads(out)
    assert len(picture["nodes"]) <= SHOWN_EDGE_LIMIT + len(keys) + 1 and len(picture["edges"]) <= SHOWN_EDGE_LIMIT
    assert picture["omitted_edges"] >= 10 ** 6 - SHOWN_EDGE_LIMIT


def test_an_answer_nested_100000_deep_fails_its_program_only(demo, tmp_path, capsys):
    """The endpoint's JSON is parsed within `core.safe_files`' bounds: no RecursionError ends the run."""
    path, answers, victim, victim_hash, count = demo
    deep = raw(b"[" * 100_000 + b"]" * 100_000)
    with FakeChatServer(responder(answers, victim_hash, deep)) as server:
        _, _, err = run(capsys, "predict", "--workspace", path, "--model", "m", "--base-url", server.base_url,
                        "--split", "all", "--retries", "0", "--no-results-files")
    assert "Traceback" not in err
    assert f"m: finished: {count - 1} answered, 1 failed" in err, err
    assert f"failed: {victim}: the answer is not a chat completion (no choices[0].message)" in err


def test_an_endpoint_answer_of_a_million_callees_is_scored_whole_and_stored_and_printed_in_part(demo, tmp_path,
                                                                                               capsys):
    """Issue #36 item 8 (the figures: tests/bench/bench_huge_answer.py): `predict` stores the answer with every
    problem and scores every edge; `diff` and `answer` print a bounded part with a line saying what is left out, and
    the results file is the release's layout (json.dumps with indent=2), written a piece at a time."""
    from core.report.overlay import SHOWN_EDGE_LIMIT
    from core.report.shown_response import SHOWN_PROBLEMS

    path, answers, victim, victim_hash, count = demo
    with Workspace(path) as ws:
        keys = ws.instance(victim).ground_truth.keys
    huge = "1. " + ", ".join(f"main.f {n}" for n in range(10 ** 6)) + "\n" + \
        "\n".join(f"{n}. none" for n in range(2, len(keys) + 1))  # a million callees, each read as prose
    with FakeChatServer(responder(answers, victim_hash, ok(huge))) as server:
        code, _, err = run(capsys, "predict", "--workspace", path, "--model", "m", "--base-url", server.base_url,
                           "--split", "all", "--out", tmp_path / "results")
    assert code == 0 and f"m: finished: {count} answered" in err, err
    with Workspace(path) as ws:
        prediction = ws.predictions("m", [victim])[victim]
    assert len(prediction.graph.edges) == 10 ** 6 and prediction.raw_response == huge
    assert len(prediction.parse_problems) == 10 ** 6  # one per callee read as prose, each stored

    code, out, _ = run(capsys, "diff", victim, "--model", "m", "--workspace", path)
    assert code == 0 and " FP 1000000 " in out.splitlines()[1]
    shown = [line for line in out.splitlines() if line.startswith("FP  ")]
    assert len(shown) == SHOWN_EDGE_LIMIT + 1 and shown[-1].startswith(f"FP  … and {10 ** 6 - SHOWN_EDGE_LIMIT:,} more")
    problems = [line for line in out.splitlines() if line.startswith("parse problem: ")]
    assert len(problems) == SHOWN_PROBLEMS + 1
    assert problems[-1] == f"parse problem: … and {10 ** 6 - SHOWN_PROBLEMS:,} more"
    code, out, _ = run(capsys, "answer", victim, "--model", "m", "--workspace", path)
    assert code == 0 and len(out) < 100_000
    assert out.splitlines()[-1].startswith(f"Showing part of a long response ({len(huge):,} characters)")

    written = (tmp_path / "results" / f"m_{victim.split('/')[0]}_t0.0_r0.json").read_text(encoding="utf-8")
    record = json.loads(written)["results"][victim.split("/")[1]]
    assert record["metrics"]["fp"] == 10 ** 6 and len(record["edge_diff"]["fp"]) == 10 ** 6
    assert written == json.dumps(json.loads(written), indent=2, ensure_ascii=False) + "\n"
