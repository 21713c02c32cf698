"""The harness prompt template, reading the harness out of an answer, asking through the real
client, and the acceptance rule over traced runs."""
from __future__ import annotations

import pytest

from core import traces
from core.errors import BuildError
from core.instances.acceptance import judge_runs
from core.instances.harness import HarnessTemplate, ask_for_harness, code_from_answer, prompt_values
from core.instances.records import Candidate
from core.llm.answer_cache import AnswerCache
from core.llm.chat import ChatFailure
from core.llm.endpoints import RunSettings
from core.records import Node
from core.traces import EdgeEvidence, TraceRun
from tests.llm_server import FakeChatServer, ok, status

CANDIDATE = Candidate("geo.shapes.Circle", "class", "geo/shapes.py", 3, ("geo.units.to_cm", "geo.measure.area"),
                      {"geo/shapes.py": "src/geo/shapes.py"}, ("geo.shapes.Circle.__init__", "geo.shapes.Circle.area"))


def test_the_bundled_template_names_every_part_of_the_task():
    template = HarnessTemplate.load()
    values = prompt_values("python", CANDIDATE, {"geo/shapes.py": "class Circle:\n    pass\n"}, "main.py", 10, 3)
    system, user = template.messages(values)
    assert system["role"] == "system" and "Python" in system["content"]
    text = user["content"]
    assert "Target: geo.shapes.Circle" in text and "`main.py`" in text and "geo/shapes.py" in text
    assert "class Circle:" in text and "at least 3 calls" in text and "10 seconds" in text
    assert "{{" not in system["content"] + text and "<!--" not in text


def test_java_entry_rules_name_the_package():
    values = prompt_values("java", CANDIDATE, {}, "org/bank/Main.java", 10, 3)
    assert "`package org.bank;`" in values["entry_rules"]
    assert "default package" in prompt_values("java", CANDIDATE, {}, "Main.java", 10, 3)["entry_rules"]


@pytest.mark.parametrize("text, problem", [
    ("## user\nfor {{target}}\n", "no '## system' section"),
    ("## system\nx\n## user\nfor {{target}} in {{colour}}\n", "unknown placeholder {{colour}}"),
    ("## system\nx\n## user\nno target here\n", "never names {{target}}"),
])
def test_a_broken_template_is_one_line_naming_the_file(tmp_path, text, problem):
    path = tmp_path / "mine.md"
    path.write_text(text)
    with pytest.raises(BuildError) as error:
        HarnessTemplate.load(path)
    assert str(error.value).startswith(str(path)) and problem in str(error.value)


@pytest.mark.parametrize("answer, expected", [
    ("Sure:\n```python\nprint(1)\n```\nDone.", "print(1)\n"),
    ("```text\nnotes\n```\n```py\nprint(2)\n```", "print(2)\n"),
    ("```\nprint(3)\n```", "print(3)\n"),
    ("print(4)", "print(4)\n"),
    ("Sorry, I would rather not.", None),
    ("", None),
    ("```python\n\n```", None),
    ("``` unterminated", None),
])
def test_the_harness_is_the_languages_fenced_block(answer, expected):
    assert code_from_answer(answer, "python") == expected


def test_asking_goes_through_the_real_client_and_the_cache(tmp_path):
    with FakeChatServer(lambda body, attempt: ok("```python\nimport geo\n```")) as server:
        settings = RunSettings(server.base_url, "fake-model")
        cache = AnswerCache(tmp_path / "answers.sqlite")
        messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "Target: x"}]
        harness, why = ask_for_harness(settings, messages, "main.py", "python", cache=cache)
        again, _ = ask_for_harness(settings, messages, "main.py", "python", cache=cache)
        assert harness.text == again.text == "import geo\n" and harness.path == "main.py" and not why
        assert len(server.chat_requests()) == 1
    with FakeChatServer(lambda body, attempt: status(401)) as server:
        with pytest.raises(ChatFailure) as failure:
            ask_for_harness(RunSettings(server.base_url, "m"), messages, "main.py", "python")
        assert failure.value.kind == "fatal" and "refused the API key" in failure.value.message


NODES = (Node("main", "module", "main.py", 1, 0, 9, 0), Node("geo.shapes.Circle.__init__", "method", "geo/shapes.py",
                                                             4, 4,
         5, 0), Node("geo.shapes.Circle.area", "method", "geo/shapes.py", 6, 4, 8, 0),
         Node("geo.units.to_cm", "function", "geo/units.py", 1, 0, 2, 0),
         Node("geo.measure.area", "function", "geo/measure.py", 1, 0, 2, 0))
GOOD = [("main", "geo.shapes.Circle.__init__"), ("geo.shapes.Circle.__init__", "geo.units.to_cm"),
        ("geo.shapes.Circle.area", "geo.measure.area"), ("geo.measure.area", "geo.units.to_cm")]


def run_of(edges, status=traces.OK, message="ran"):
    return TraceRun("python/x", "python", "python-profile", "1", "2026-11-21T00:00:00+00:00", 0.1, status, message,
                    nodes=NODES, edges=tuple(EdgeEvidence(a, b) for a, b in edges))


def judge(*runs, min_edges=3):
    return judge_runs(runs, CANDIDATE.name, CANDIDATE.members, "main.py", min_edges)


def test_identical_runs_with_enough_internal_edges_are_accepted():
    verdict = judge(run_of(GOOD), run_of(list(reversed(GOOD))))
    assert verdict.accepted and verdict.internal_edges == 3  # main -> __init__ is the harness's own call


@pytest.mark.parametrize("status, reason", [(traces.EXCEPTION, "crashed"), (traces.EXIT_CODE, "crashed"),
                                            (traces.TIMEOUT, "timed_out"), (traces.LIMIT, "over_limit"),
                                            (traces.COMPILE_ERROR, "did_not_run"),
                                            (traces.TOOLCHAIN_MISSING, "did_not_run")])
def test_a_run_that_did_not_finish_rejects_the_harness(status, reason):
    verdict = judge(run_of(GOOD), run_of(GOOD[:1], status, "ZeroDivisionError: division by zero\nmore"))
    assert verdict.reason == reason and verdict.detail.startswith("run 2 of 2: ") and "more" not in verdict.detail


def test_runs_that_saw_different_edges_are_unstable():
    verdict = judge(run_of(GOOD), run_of(GOOD[:-1]))
    assert verdict.reason == "unstable" and "1 missing (geo.measure.area -> geo.units.to_cm)" in verdict.detail


def test_the_target_must_be_reached_and_enough_internal_edges_seen():
    assert judge(run_of([("geo.measure.area", "geo.units.to_cm")])).reason == "target_not_reached"
    verdict = judge(run_of(GOOD), min_edges=4)
    assert verdict.reason == "too_few_edges" and verdict.internal_edges == 3
