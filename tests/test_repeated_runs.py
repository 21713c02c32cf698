"""Repeated runs (`predict --runs N`, `score --over-runs`) and the bill (the dry run's estimate, `runs --ledger`):
the real CLI, the real openai client and a chat-completions server on 127.0.0.1 (tests/llm_server.py) whose answers
change with the request's seed and whose usage counts tokens as the estimate does."""
import json
import statistics

import pytest
from sqlite_utils import Database

from core.dataset.indexing import open_dataset
from core.dataset.workspace import Workspace
from core.dataset.workspace_schema import MIGRATIONS, latest_version
from core.errors import UsageError
from core.llm.endpoints import RunSettings
from core.llm.ledger import ledger
from core.llm.prices import PriceTable
from core.llm.prompts import approximate_tokens, build_prompt
from core.llm.repeats import repeat_settings
from core.llm.token_counts import APPROXIMATE, counter_for, tiktoken_counter
from core.results.reader import read_results_file
from core.scoring.normalise import MODES
from core.scoring.run_family import families, member_name, split_member
from core.scoring.scores import Selection, score_table
from resources import DEMO_DATASET
from tests.cli_run import run
from tests.llm_server import FakeChatServer, demo_truth_answers, request_prompt_hash, seeded_answers, status


@pytest.fixture
def demo(tmp_path):
    path = tmp_path / "demo.sqlite"
    answers = demo_truth_answers(path)
    return path, answers


def test_a_run_family_is_the_name_then_name_at_r_i():
    assert [member_name("gpt", i) for i in range(3)] == ["gpt", "gpt@r1", "gpt@r2"]
    assert split_member("gpt@r12") == ("gpt", 12) and split_member("gpt") == ("gpt", 0)
    assert split_member("a@rx") == ("a@rx", 0) and split_member("@r1") == ("@r1", 0)
    assert families(["b@r2", "a", "b", "b@r1"]) == {"b": [(0, "b"), (1, "b@r1"), (2, "b@r2")], "a": [(0, "a")]}


def test_each_run_gets_its_name_seed_and_temperature_and_a_repeat_does_not_read_the_cache():
    base = RunSettings("http://127.0.0.1:1/v1", "m", name="mine")
    plan = repeat_settings(base, 3, seeds=[7, 8, 9], temperatures=[0.0, 0.5, 0.5])
    assert [(s.stored_name, s.seed, s.temperature, s.use_cache) for s in plan] == [
        ("mine", 7, 0.0, True), ("mine@r1", 8, 0.5, True), ("mine@r2", 9, 0.5, True)]
    unseeded = repeat_settings(base, 2)  # same seed (none) and temperature: run 1 must not get run 0's answers
    assert [(s.stored_name, s.seed, s.use_cache) for s in unseeded] == [("mine", None, True), ("mine@r1", None, False)]
    for runs, seeds, temperatures, message in ((0, None, None, "--runs must be"), (2, [1], None, "one per run"),
                                               (2, [1, 1], None, "repeats a seed"),
                                               (3, None, [0.1, 0.2], "one, or one per run")):
        with pytest.raises(UsageError, match=message):
            repeat_settings(base, runs, seeds, temperatures)


def _vary(changed: set[str]):
    """Seed 1: the truth. Seed 2: the programs in `changed` answer a call that is not in the truth. Seed 3: they
    answer nothing at all. No seed: the truth."""
    def vary(seed, key, text):
        if key not in changed or seed in (None, 1):
            return text
        return "1. nowhere.to_be_found" if seed == 2 else "no answer today"
    return vary


def test_three_seeded_runs_report_mean_and_sample_sd_and_which_programs_changed(demo, tmp_path, capsys):
    path, answers = demo
    changed = set(sorted(answers)[:4])
    out_dir = tmp_path / "res"
    with FakeChatServer(seeded_answers(answers, _vary(changed))) as server:
        code, out, err = run(capsys, "predict", "--workspace", path, "--model", "fake-model", "--base-url",
                             server.base_url, "--split", "all", "--runs", "3", "--seeds", "1,2,3", "--out", out_dir,
                             "--format", "json")
    assert code == 0, err
    assert "fake-model@r2: 15 program(s) selected, 0 already answered, 15 to ask" in err and "seed 3" in err
    seeds = sorted(request.body.get("seed") for request in server.chat_requests())
    assert seeds == [1] * 15 + [2] * 15 + [3] * 15  # every request carried its run's seed
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(
        f"fake-model_{language}_t0.0_r{run_id}.json" for language in ("java", "javascript", "python")
        for run_id in range(3))
    document = json.loads(out)
    assert [r["model"] for r in document["runs"]] == ["fake-model", "fake-model@r1", "fake-model@r2"]
    row = document["over_runs"]["rows"][0]
    assert row["runs"] == ["fake-model", "fake-model@r1", "fake-model@r2"]
    # the spread is the mean and sample sd (n - 1) of each run's paper table
    ws, _ = open_dataset(DEMO_DATASET, path)
    with ws:
        table = score_table(ws, row["runs"], Selection(), frozenset(MODES))
    for column in ("python", "javascript", "java", "average"):
        for metric in ("precision", "recall", "f1"):
            values = [getattr(r.average if column == "average" else r.languages[column].scores, metric)
                      for r in table.rows]
            figure = row["scores"][column][metric]
            assert figure["values"] == pytest.approx(values)
            assert figure["mean"] == pytest.approx(statistics.fmean(values))
            assert figure["sd"] == pytest.approx(statistics.stdev(values))
    assert table.rows[0].average.f1 == 1.0 and row["scores"]["average"]["recall"]["sd"] > 0
    agreement = row["agreement"]
    assert (agreement["compared"], agreement["identical"], agreement["changed"]) == (15, 11, 4)
    assert sorted(agreement["distinct"].values()) == [1] * 11 + [3] * 4

    # `score` of run 0 alone is the paper's table as for any single run; --over-runs prints mean ± sd
    code, single, _ = run(capsys, "score", "--workspace", path, "--split", "all", "--models", "fake-model")
    assert code == 0 and single.count("100.0") == 12
    code, text, _ = run(capsys, "score", "--workspace", path, "--split", "all", "--over-runs")
    assert code == 0 and "sample standard deviation over runs (n - 1)" in text and "±" in text
    assert "11/15" in text.splitlines()[2]  # fake-model's row (illustrative models after it, one run each)

    # the released files import back as one family with the same figures
    other = tmp_path / "other.sqlite"
    code, imported, err = run(capsys, "score", "--workspace", other, "--split", "all", "--results", out_dir,
                              "--over-runs", "--format", "json", "--models", "fake-model,fake-model@r1,fake-model@r2")
    assert code == 0, err
    again = json.loads(imported)["rows"][0]
    assert again["runs"] == row["runs"] and again["scores"] == row["scores"] and again["agreement"] == agreement


def test_a_released_run_file_imports_as_a_member_of_its_family(tmp_path):
    path = tmp_path / "gpt-5_4_python_t0.7_r2.json"
    path.write_text(json.dumps({"metadata": {"language": "python"}, "results": {}}))
    assert read_results_file(path).records == [] and read_results_file(path).problems == []
    path.write_text(json.dumps({"metadata": {"language": "python"}, "results": {"x_0001": {"prediction": {}}}}))
    assert read_results_file(path).records[0].model == "gpt-5_4@r2"
    path.write_text(json.dumps({"metadata": {"run_id": "b"}, "results": {"x_0001": {"prediction": {}}}}))
    assert read_results_file(path).records[0].model == "gpt-5_4-rb"  # not a run index: a model of its own


def test_the_estimate_and_the_ledger_agree_on_the_demo_run(demo, tmp_path, capsys):
    path, answers = demo
    prices = tmp_path / "prices.toml"
    prices.write_text('["fake-*"]\ninput_per_mtok = 2.5\noutput_per_mtok = 10.0\n')
    with FakeChatServer(seeded_answers(answers, _vary(set()))) as server:
        common = ("--workspace", path, "--model", "fake-model", "--base-url", server.base_url, "--split", "all",
                  "--prices", prices, "--no-results-files")
        code, out, err = run(capsys, "predict", *common, "--dry-run", "--format", "json")
        assert code == 0, err
        estimate = json.loads(out)
        assert not server.chat_requests()  # a dry run sends nothing
        code, _, err = run(capsys, "predict", *common)
        assert code == 0, err
    assert all("seed" not in request.body for request in server.chat_requests())  # one run, no seed: the paper's
    assert estimate["tokenizer"] == APPROXIMATE.label and estimate["prompts"] == 15
    code, out, _ = run(capsys, "runs", "--workspace", path, "--format", "json")
    document = json.loads(out)
    assert document["schema"] == "traceeval.runs"
    ledger = document["ledger"]
    assert {row["language"] for row in ledger} == {"python", "javascript", "java"}
    assert sum(row["requests"] for row in ledger) == 15 and sum(row["failed"] for row in ledger) == 0
    total = document["totals"]
    assert total["tokens_in"] == estimate["input_tokens"] > 0  # the server counted as the estimate does
    assert total["cost_usd"] == pytest.approx((total["tokens_in"] * 2.5 + total["tokens_out"] * 10.0) / 1e6)
    assert estimate["input_cost"] == pytest.approx(total["tokens_in"] * 2.5 / 1e6)
    # per language, the ledger's input tokens are those the server counted for that language's prompts
    ws, _ = open_dataset(DEMO_DATASET, path)
    with ws:
        language_of = {build_prompt(ws.instance(r.key)).hash: r.language for r in ws.instance_rows()}
    sent: dict[str, int] = {}
    for request in server.chat_requests():
        tokens = sum(approximate_tokens(len(m["content"])) for m in request.body["messages"])
        sent[language_of[request.prompt_hash]] = sent.get(language_of[request.prompt_hash], 0) + tokens
    assert {row["language"]: row["tokens_in"] for row in ledger} == sent
    code, csv_text, _ = run(capsys, "runs", "--workspace", path, "--ledger", "--format", "csv")
    assert code == 0 and csv_text.splitlines()[0].startswith("run,model,endpoint_model,language")
    code, text, _ = run(capsys, "runs", "--workspace", path, "--ledger")
    assert code == 0 and f"{total['tokens_in']:,}" in text.splitlines()[-2] and "$" in text


def test_a_batch_is_priced_at_the_discount_and_a_bad_price_file_is_one_line(demo, tmp_path, capsys):
    path, _ = demo
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"fake-model": {"input_per_mtok": 2.0, "output_per_mtok": 8.0}}))
    common = ("predict", "--workspace", path, "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1",
              "--split", "all", "--prices", prices, "--dry-run", "--format", "json")
    _, listed, _ = run(capsys, *common)
    _, batched, _ = run(capsys, *common, "--batch")
    listed, batched = json.loads(listed), json.loads(batched)
    assert batched["price_factor"] == 0.5 and batched["cost"] == pytest.approx(listed["cost"] / 2)
    code, text, _ = run(capsys, *common[:-2], "--batch")
    assert code == 0 and "batch price (50% of list)" in text
    bad = tmp_path / "prices.toml"
    bad.write_text("[model\ninput = ")
    with pytest.raises(UsageError, match=r"prices\.toml: not valid TOML"):
        PriceTable.load(bad)
    bad.write_text('[m]\ninput_per_mtok = 1\noutput_per_mtok = 1\nbatch_discount = 2\n')
    with pytest.raises(UsageError, match="batch_discount must be a number from 0 to 1"):
        PriceTable.load(bad)


def test_tiktoken_counts_only_from_its_cache_and_nothing_is_downloaded(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "empty"))
    assert tiktoken_counter("gpt-4o") is None  # not cached here: no download is tried
    assert counter_for("gpt-4o") is APPROXIMATE and counter_for("not-an-openai-model") is APPROXIMATE
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken's own switch for no cache
    assert tiktoken_counter("gpt-4o") is None


def test_an_older_workspace_gains_the_run_wall_time_and_its_runs_keep_theirs_from_start_and_end(tmp_path):
    path = tmp_path / "old.sqlite"
    db = Database(path)
    MIGRATIONS.apply(db, stop_before="m009_model_run_wall_time")
    db["model_runs"].insert({"id": 1, "model": "m", "endpoint_model": "m", "base_url": "http://x/v1", "params": "{}",
                             "started_at": "2026-01-01T10:00:00+00:00", "finished_at": "2026-01-01T10:01:05+00:00",
                             "status": "finished", "message": "", "requested": 1, "skipped": 0, "answered": 1,
                             "cached": 0, "failed": 0, "tokens_in": 10, "tokens_out": 2, "cost_usd": None})
    db["model_requests"].insert({"id": 1, "run_id": 1, "model": "m", "instance_key": "python/a_0001",
                                 "status": "answered", "error": "", "attempts": 1, "finish_reason": "stop",
                                 "tokens_in": 10, "tokens_out": 2, "latency_s": 1.5, "cost_usd": None,
                                 "prompt_hash": "h", "created_at": "2026-01-01T10:00:01+00:00"})
    db.close()
    with Workspace(path) as ws:
        assert ws.schema_version == latest_version()
        [row] = ledger(ws)
        assert (row.run, row.language, row.tokens_in, row.wall_s, row.cost_usd) == (1, "python", 10, 65.0, None)
        run_id = ws.start_model_run("n", "n", "http://x/v1", {"seed": 4, "temperature": 0.5})
        ws.store_request(run_id, "n", "java/b_0001", "failed", error="boom")
        ws.finish_model_run(run_id, status="stopped", wall_s=0.25)
        newer = next(r for r in ledger(ws) if r.run == run_id)
        assert (newer.failed, newer.requests, newer.wall_s, newer.seed, newer.temperature) == (1, 1, 0.25, 4, 0.5)


def test_each_run_resumes_on_its_own(demo, tmp_path, capsys):
    path, answers = demo
    refused = set(sorted(answers)[:3])

    def flaky(request, attempt):
        if request.get("seed") == 2 and request_prompt_hash(request) in refused:
            return status(400, {"error": {"message": "not now", "type": "invalid_request_error"}})
        return respond(request, attempt)

    respond = seeded_answers(answers, _vary(set()))
    common = ("predict", "--workspace", path, "--model", "fake-model", "--split", "all", "--runs", "2",
              "--seeds", "1,2", "--no-results-files")
    with FakeChatServer(flaky) as server:
        code, _, err = run(capsys, *common, "--base-url", server.base_url)
    assert code == 1 and "fake-model@r1: finished: 12 answered, 3 failed" in err
    with FakeChatServer(respond) as server:
        code, _, err = run(capsys, *common, "--base-url", server.base_url)
        asked = [(request.body["seed"], request.prompt_hash) for request in server.chat_requests()]
    assert code == 0, err
    assert "fake-model: 15 program(s) selected, 15 already answered, 0 to ask" in err
    assert sorted(asked) == sorted((2, key) for key in refused)  # only run 1's missing programs are asked again
