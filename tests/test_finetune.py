"""`traceeval finetune-set`: the exact prompts `predict` sends, the ground truth as an answer the paper's parser
reads back to the same graph (on every demo program), token counts (approximate, or a real tokenizer.json the test
builds), the maximum length and the report of what was left out and why."""
import json
import shutil

import pytest

from core.dataset.indexing import open_dataset
from core.llm.finetune import NO_QUESTIONS, TOO_LONG, UNRENDERABLE, build_example, truth_answer
from core.llm.prompts import build_prompt
from core.records import CallGraph
from core.release.checkout import prompt_wording
from core.scoring.answers import parse_answer
from core.scoring.rules import PAPER, STUDIO
from resources import DEMO_DATASET
from tests.builders import write_program
from tests.cli_run import run
from tests.llm_server import FakeChatServer, ok
from tests.release_standin import write_release


@pytest.fixture(scope="module")
def demo_instances(tmp_path_factory):
    ws, _ = open_dataset(DEMO_DATASET, tmp_path_factory.mktemp("ws") / "demo.sqlite")
    with ws:
        return [ws.instance(row.key) for row in ws.instance_rows()]


@pytest.mark.parametrize("rules", [PAPER, STUDIO])
def test_every_demo_programs_truth_reads_back_to_the_same_graph(demo_instances, rules):
    assert {i.language for i in demo_instances} == {"python", "javascript", "java"} and len(demo_instances) == 15
    for instance in demo_instances:
        answer, why = truth_answer(instance.ground_truth, rules)
        assert answer is not None, f"{instance.key}: {why}"
        assert parse_answer(answer, instance.ground_truth.keys, rules).graph == instance.ground_truth
        example = build_example(instance, rules=rules)
        assert example.answer == answer
        assert example.prompt.messages == build_prompt(instance, rules=rules).messages


@pytest.mark.parametrize("callees, shown", [
    (["main.a, main.b"], "'main.a, main.b'"),  # a comma outside brackets splits one name in two
    (["None"], "'None'"),  # a lone "none" is read as no calls
    (["main.f(", "main.g"], "'main.f('"),  # an unclosed bracket swallows the next name
    ([" main.h"], "' main.h'"),  # a leading space is stripped, so it is another name
    (["main.x\n2. main.y"], "'main.x\\n2. main.y'"),  # a line break starts another answer line
])
def test_a_name_the_parser_cannot_read_back_is_named(callees, shown):
    truth = CallGraph.from_dict({"main": ["main.run"], "main.run": callees})
    answer, why = truth_answer(truth)
    assert answer is None
    assert why.startswith("question 2 ('main.run'): callee ") and shown in why


def _hostile_dataset(root):
    shutil.copytree(DEMO_DATASET / "benchmark", root / "benchmark",
                    ignore=shutil.ignore_patterns("java", "javascript"))
    source = "def run():\n    pass\n\nrun()\n"
    write_program(root / "benchmark" / "python" / "hostile_0001", {"main.py": source},
                  {"main": ["main.run"], "main.run": ["main.a, main.b"]})
    write_program(root / "benchmark" / "python" / "empty_0001", {"main.py": "x = 1\n"}, {})
    return root


def test_hostile_and_empty_programs_are_left_out_and_the_report_says_why(tmp_path, capsys):
    data = _hostile_dataset(tmp_path / "data")
    out = tmp_path / "set.jsonl"
    code, text, err = run(capsys, "finetune-set", data, "--workspace", tmp_path / "ws.sqlite", "--split", "all",
                          "--out", out, "--format", "json")
    assert code == 0, err
    report = json.loads(text)
    assert report["schema"] == "traceeval.finetune-set" and report["version"] == 1
    assert report["written"] == 5 and len(out.read_text().splitlines()) == 5
    assert report["left_out"] == {UNRENDERABLE: 1, NO_QUESTIONS: 1}
    left = {program["instance"]: program for program in report["left_out_programs"]}
    assert left["python/hostile_0001"]["reason"] == UNRENDERABLE
    assert "'main.a, main.b'" in left["python/hostile_0001"]["detail"]
    assert left["python/empty_0001"]["reason"] == NO_QUESTIONS
    assert report["languages"]["python"] == {"written": 5, "tokens": report["tokens"], UNRENDERABLE: 1,
                                              NO_QUESTIONS: 1}
    written = {json.loads(line)["messages"][1]["content"] for line in out.read_text().splitlines()}
    assert not any("hostile_0001" in user or "def run():\n    pass" in user for user in written)
    code, text, _ = run(capsys, "finetune-set", data, "--workspace", tmp_path / "ws.sqlite", "--split", "all",
                        "--out", out)
    assert code == 0
    assert "left out: 2 programs" in text
    assert f"python/hostile_0001: {UNRENDERABLE}: question 2 ('main.run'): callee 'main.a, main.b'" in text


def test_the_examples_are_the_prompts_predict_sends_in_the_release_wording(tmp_path, capsys):
    """The train split's examples hold exactly the messages a real `traceeval predict` run sends to the endpoint,
    and each answer is the ground truth the parser reads back."""
    release = write_release(tmp_path / "TraceEva")
    ws_path = tmp_path / "ws.sqlite"
    out = tmp_path / "train.jsonl"
    code, text, err = run(capsys, "finetune-set", "--workspace", ws_path, "--release", release, "--out", out)
    assert code == 0, err
    assert "wrote 8 examples" in text and "the TraceEval release's wording" in text
    assert "approximate (characters / 4)" in text
    examples = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert all(list(example) == ["messages"] for example in examples)
    assert all([m["role"] for m in example["messages"]] == ["system", "user", "assistant"] for example in examples)
    assert all(example["messages"][0]["content"].startswith("STAND-IN system words") for example in examples)
    with FakeChatServer(lambda request, attempt: ok("1. none")) as server:
        code, _, err = run(capsys, "predict", "--workspace", ws_path, "--release", release, "--model", "m",
                           "--base-url", server.base_url, "--split", "train", "--no-results-files")
        assert code == 0, err
        sent = [[{"role": m["role"], "content": m["content"]} for m in r.body["messages"]]
                for r in server.chat_requests()]
    assert len(sent) == 8
    assert sorted(json.dumps(example["messages"][:2]) for example in examples) == sorted(map(json.dumps, sent))
    wording = prompt_wording(str(release))
    ws, _ = open_dataset(DEMO_DATASET, ws_path)
    with ws:
        truths = {(p := build_prompt(ws.instance(row.key), wording=wording)).system + p.user: ws.instance(row.key)
                  for row in ws.instance_rows(split="train")}
    for example in examples:
        system, user, answer = (m["content"] for m in example["messages"])
        instance = truths[system + user]
        assert parse_answer(answer, instance.ground_truth.keys).graph == instance.ground_truth


def test_trl_style_json_report_and_max_tokens(tmp_path, capsys):
    out = tmp_path / "trl.jsonl"
    code, text, err = run(capsys, "finetune-set", "--workspace", tmp_path / "ws.sqlite", "--split", "all",
                          "--style", "trl", "--out", out, "--format", "json")
    assert code == 0, err
    everything = json.loads(text)
    assert everything["written"] == 15 and everything["left_out"] == {}
    tokens = sorted(example["prompt_tokens"] + example["answer_tokens"] for example in everything["examples"])
    assert everything["tokens"] == sum(tokens)
    assert sum(row["tokens"] for row in everything["languages"].values()) == everything["tokens"]
    line = json.loads(out.read_text().splitlines()[0])
    assert list(line) == ["prompt", "completion"]
    assert [m["role"] for m in line["prompt"]] == ["system", "user"]
    assert [m["role"] for m in line["completion"]] == ["assistant"]
    limit = tokens[7]  # the 8 shortest fit, the others are too long
    code, text, _ = run(capsys, "finetune-set", "--workspace", tmp_path / "ws.sqlite", "--split", "all",
                        "--out", out, "--format", "json", "--max-tokens", limit)
    report = json.loads(text)
    assert report["written"] == len([t for t in tokens if t <= limit]) >= 8
    assert report["left_out"] == {TOO_LONG: 15 - report["written"]}
    assert all(p["detail"].endswith(f"over the maximum of {limit:,}") for p in report["left_out_programs"])
    assert len(out.read_text().splitlines()) == report["written"]


def test_selection_by_language_repo_and_instances(tmp_path, capsys):
    ws = tmp_path / "ws.sqlite"
    out = tmp_path / "set.jsonl"
    code, text, _ = run(capsys, "finetune-set", "--workspace", ws, "--out", out, "--languages", "java",
                        "--format", "json")
    assert code == 0 and {e["language"] for e in json.loads(text)["examples"]} == {"java"}
    code, text, _ = run(capsys, "finetune-set", "--workspace", ws, "--out", out, "--split", "all", "--repo", "shape*",
                        "--format", "json")
    assert sorted(e["instance"] for e in json.loads(text)["examples"]) == [
        "java/shapekit_0001", "javascript/shapeyard_0001", "python/shapeshop_0001"]
    code, text, _ = run(capsys, "finetune-set", "--workspace", ws, "--out", out, "--instances", "calcpad_0001",
                        "--format", "json")
    assert [e["instance"] for e in json.loads(text)["examples"]] == ["python/calcpad_0001"]
    code, _, err = run(capsys, "finetune-set", "--workspace", ws, "--out", out, "--repo", "nothing*")
    assert code == 2 and "no programs selected" in err


def _tiny_tokenizer(path):
    """A real tokenizer.json: a word-level vocabulary over whitespace-split words, everything else unknown."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocabulary = {"[UNK]": 0, "1.": 1, "none": 2, "def": 3}
    tokenizer = Tokenizer(models.WordLevel(vocabulary, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()  # noqa: V101 (read by the tokenizer library)
    tokenizer.save(str(path))
    return tokenizer


def test_a_local_tokenizer_gives_exact_counts(tmp_path, capsys):
    tokenizer = _tiny_tokenizer(tmp_path / "tokenizer.json")
    out = tmp_path / "set.jsonl"
    code, text, err = run(capsys, "finetune-set", "--workspace", tmp_path / "ws.sqlite", "--out", out,
                          "--tokenizer", tmp_path / "tokenizer.json", "--format", "json")
    assert code == 0, err
    report = json.loads(text)
    assert report["token_counts"] == "exact (tokenizer.json)"
    for example, line in zip(report["examples"], out.read_text().splitlines()):
        system, user, assistant = (m["content"] for m in json.loads(line)["messages"])
        words = len(system.split()) + len(user.split())
        assert example["prompt_tokens"] == words == len(tokenizer.encode(system).ids) + len(tokenizer.encode(user).ids)
        assert example["answer_tokens"] == len(assistant.split())


def test_a_broken_tokenizer_is_one_line_naming_the_file(tmp_path, capsys):
    broken = tmp_path / "tokenizer.json"
    broken.write_text('{"model": {"type": "Nonsense"}}')
    code, out, err = run(capsys, "finetune-set", "--workspace", tmp_path / "ws.sqlite",
                         "--out", tmp_path / "set.jsonl", "--tokenizer", broken)
    assert code == 2 and out == ""
    assert err.startswith(f"traceeval: error: {broken}: not a Hugging Face tokenizer.json") and err.count("\n") == 1
    assert not (tmp_path / "set.jsonl").exists()
    code, _, err = run(capsys, "finetune-set", "--workspace", tmp_path / "ws.sqlite",
                       "--out", tmp_path / "set.jsonl", "--tokenizer", tmp_path / "missing.json")
    assert code == 2 and str(tmp_path / "missing.json") in err and err.count("\n") == 1
