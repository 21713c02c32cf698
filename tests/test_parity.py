"""`traceeval parity` against a stand-in release (tests/release_standin.py), run in the tracer sandbox: full
agreement on the demo and on programs full of normalisation and parsing cases, and every planted difference named,
cell or prompt. (What a hostile release cannot do there: tests/security/test_hostile_release.py.)"""
from __future__ import annotations

import json
import shutil

import pytest

from core.dataset.indexing import open_dataset
from core.errors import ReleaseError
from core.release.checkout import usable_release
from core.release.parity import check_parity
from core.scoring.scores import Selection
from resources import DEMO_DATASET
from tests.builders import write_program
from tests.cli_run import run
from tests.release_standin import write_release
from tracers.release_sandbox import run_release

CASES = {  # ground truth, and an answer written to hit the paper's normalisation and parsing rules
    "python": ({"main": ["main.Foo.__new__", "main.f"], "main.f": ["list.append", "main.Foo.__init__"],
                "main.Foo.__new__": [], "main.Foo.__init__": []},
               "1. main.Foo, main.f, print\n2. main.Foo.__init__(self), list.append.x\n3. nothing\n4. None."),
    "javascript": ({"main": ["main.run"], "main.run": ["main.Foo.constructor", "main.Foo.Date"],
                    "main.Foo.constructor": []},
                   "1. main.run\r\n2 . main.Foo\n2. main.Foo, Foo.Object, main.max.console.x, escape.Bar(x)\n3. -"),
    "java": ({"demo.Main:main(java.lang.String[])": ["demo.Outer$Inner:<init>(int)", "demo.Outer$1:run()"],
              "demo.Outer$Inner:<init>(int)": [], "demo.Outer$1:run()": ["String:length()"]},
             "1. demo.Outer.Inner:<init>(int), demo.Inner:<init>(int), demo.Outer$1:run(), 1:run()\n"
             "2. []\n3. java.lang.String:length(), Map<K, V>:get()"),
}
SOURCES = {"python": {"main.py": "class Foo:\n    def __new__(cls): return super().__new__(cls)\n"
                                 "    def __init__(self): pass\ndef f():\n    Foo()\nf()\n"},
           "javascript": {"main.js": "class Foo { constructor() {} }\nfunction run() { new Foo(); }\nrun();\n"},
           "java": {"Main.java": "package demo;\npublic class Main { public static void main(String[] a) {} }\n",
                    "demo/Outer.java": "package demo;\nclass Outer { class Inner { Inner(int x) {} } }\n"}}


@pytest.fixture
def cases(tmp_path):
    """A released-layout dataset of one tricky program per language, with one model's answers imported."""
    root = tmp_path / "TraceEva" / "data"
    results = tmp_path / "results.jsonl"
    lines = []
    for language, (truth, answer) in CASES.items():
        write_program(root / "benchmark" / language / f"tricky_000{len(lines) + 1}", SOURCES[language], truth)
        lines.append(json.dumps({"instance_id": f"tricky_000{len(lines) + 1}", "language": language, "model": "m",
                                 "raw_response": answer}))
    results.write_text("\n".join(lines) + "\n")
    write_release(tmp_path / "TraceEva")
    return tmp_path / "TraceEva", results


def test_full_agreement_on_tricky_programs_names_nothing(cases, tmp_path, capsys):
    checkout, results = cases
    code, _, err = run(capsys, "import-results", str(checkout), str(results))
    assert code == 0, err
    code, out, err = run(capsys, "parity", str(checkout), "--release", str(checkout))
    assert code == 0, out + err
    assert "Table (all splits, paper rules, normalisation init, nested_class, stdlib): 4 of 4 cells agree" in out
    assert "Prompts: 3 of 3 agree" in out and "Answers read: 3 of 3 agree" in out
    assert out.rstrip().endswith("Result: full agreement") and ") in the sandbox (" in out.splitlines()[0]
    # the release's code ran (it imported run_llm.py), on a copy in the sandbox: what it wrote never reached the host
    assert not (checkout / "scripts" / "IMPORTED").exists()


def test_a_planted_metric_difference_is_named_cell_by_cell(cases, tmp_path, capsys):
    checkout, results = cases
    run(capsys, "import-results", str(checkout), str(results))
    planted = write_release(tmp_path / "planted", plant=("keep_new",))
    code, out, _ = run(capsys, "parity", str(checkout), "--release", str(planted), "--format", "json")
    report = json.loads(out)
    assert code == 1 and not report["agrees"]
    differing = {(c["language"]) for c in report["cells"] if not c["agrees"]}
    assert differing == {"python", "average"}
    python = next(c for c in report["cells"] if c["language"] == "python")
    assert python["ours"]["tp"] == python["theirs"]["tp"] + 1 and "tp" in python["differs"]
    code, out, _ = run(capsys, "parity", str(checkout), "--release", str(planted))
    assert "DIFFERS m Python (this tool vs the release): tp 2 vs 1, fp 3 vs 4, fn 1 vs 2, precision 40.0000% vs " \
           "20.0000%" in out
    assert "DIFFERS m Average" in out and out.rstrip().endswith("Result: 2 differences")


def test_a_planted_prompt_difference_names_the_program_and_the_place(cases, tmp_path, capsys):
    checkout, results = cases
    run(capsys, "import-results", str(checkout), str(results))
    planted = write_release(tmp_path / "planted", plant=("title_case",))
    code, out, _ = run(capsys, "parity", str(checkout), "--release", str(planted))
    assert code == 1
    assert "Prompts: 2 of 3 agree" in out
    line = next(line for line in out.splitlines() if "DIFFERS" in line)
    assert line.startswith("  DIFFERS javascript/tricky_0002: system message, character 30: this tool \"STAND-IN")
    assert "words for Javascript code" in line and "the release \"STAND-IN system words for JavaScript code" in line


def test_the_demo_agrees_cell_by_cell_with_the_release(tmp_path):
    checkout = write_release(tmp_path / "TraceEva", with_data=DEMO_DATASET)
    ws, _ = open_dataset(checkout / "data", tmp_path / "ws.sqlite")
    with ws:
        from core.results.importing import import_results
        import_results(ws, [DEMO_DATASET / "results"])
        report = check_parity(ws, usable_release(checkout), Selection(), prompts_per_language=10, runner=run_release)
    assert report.agrees, [c for c in report.cells if c.differs]
    assert len(report.cells) == 2 * 4 and len(report.prompts) == 15 and len(report.answers) == 29
    assert report.python_version.count(".") == 2 and not report.notes


def test_without_a_release_parity_says_where_to_point_it(capsys):
    code, _, err = run(capsys, "parity")
    assert code == 2 and "no TraceEval release to check against: give --release DIR" in err


def test_a_release_that_cannot_run_is_a_one_line_error(tmp_path, capsys):
    checkout = write_release(tmp_path / "TraceEva", with_data=DEMO_DATASET)
    (checkout / "scripts" / "compute_metrics.py").write_text("raise ImportError('broken on purpose')\n")
    code, _, err = run(capsys, "parity", str(checkout), "--release", str(checkout))
    assert code == 2 and "the release's functions could not run with" in err and "broken on purpose" in err
    shutil.rmtree(checkout / "scripts")
    code, _, err = run(capsys, "parity", str(checkout / "data"), "--release", str(checkout))
    assert code == 2 and "no TraceEval release here" in err



def test_a_ground_truth_gone_since_indexing_is_a_one_line_error(tmp_path):
    checkout = write_release(tmp_path / "TraceEva", with_data=DEMO_DATASET)
    ws, _ = open_dataset(checkout / "data", tmp_path / "ws.sqlite")
    with ws:
        (checkout / "data" / "benchmark" / "python" / "calcpad_0001" / "callgraph.json").unlink()
        with pytest.raises(ReleaseError) as caught:
            check_parity(ws, usable_release(checkout), Selection(), runner=run_release)
    assert "calcpad_0001/callgraph.json: cannot copy it for the release to score" in str(caught.value)
    assert "\n" not in str(caught.value)
