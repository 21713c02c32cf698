"""The TraceEval prompt: golden files for demo programs (byte for byte), and the contract's pieces
checked one by one so a golden file cannot drift away from TRACEEVAL.md unnoticed."""
from pathlib import Path

import pytest

from core.answers import parse_answer
from core.datasets import load_program
from core.errors import DatasetError
from core.prompt_examples import EXAMPLES
from core.prompts import INSTRUCTIONS, build_prompt, java_class, prompt_hash
from resources import DEMO_DATASET
from tests.builders import write_program

GOLDEN = Path(__file__).parent / "golden" / "prompts"
GOLDEN_PROGRAMS = ("python/calcpad_0001", "javascript/eventide_0002", "java/ledgerj_0001")


def demo_instance(key: str):
    language = key.split("/")[0]
    instance, _ = load_program(DEMO_DATASET / "benchmark" / key, language, [])
    return instance


@pytest.mark.parametrize("key", GOLDEN_PROGRAMS)
def test_prompt_is_byte_identical_to_the_golden_file(key):
    prompt = build_prompt(demo_instance(key))
    golden = GOLDEN / (key.replace("/", "__") + ".txt")
    assert prompt.render().encode("utf-8") == golden.read_bytes(), \
        f"prompt changed; if on purpose, regenerate {golden} and say why in the commit"
    assert prompt.hash == prompt_hash(prompt.system, prompt.user)
    assert prompt.messages == [{"role": "system", "content": prompt.system},
                               {"role": "user", "content": prompt.user}]


@pytest.mark.parametrize("key", GOLDEN_PROGRAMS)
def test_prompt_follows_the_contract(key):
    instance = demo_instance(key)
    prompt = build_prompt(instance)
    title = {"python": "Python", "javascript": "JavaScript", "java": "Java"}[instance.language]
    assert prompt.system.startswith(f"You are an expert in {title} programming")
    for skill in ("resolve aliases", "track assignments", "follow return values", "understand inheritance"):
        assert skill in prompt.system
    # seven numbered instructions, in order
    instructions = prompt.user.split("**Instructions**:\n")[1].split("\n\n")[0].splitlines()
    assert [line.split(". ", 1)[0] for line in instructions] == [str(n) for n in range(1, 8)]
    assert len(INSTRUCTIONS) == 7
    for needle in ("comma-separated", "explanations", "constructor", "alias", "passed as arguments",
                   "empty", "fully qualified"):
        assert needle in prompt.user.split("**Instructions**:")[1].split("**Example")[0]
    # the worked example, then every file fenced and labelled with its relative path
    assert EXAMPLES[instance.language].code in prompt.user
    for relative in instance.files:
        fence = f"File: {relative}\n```{instance.language}\n{instance.read_source(relative)}"
        assert fence in prompt.user
    # one question per ground-truth key, in key order, numbered from 1
    questions = prompt.user.split("**Questions**:\n")[1].split("\n\n**Answers**:")[0].splitlines()
    assert prompt.keys == instance.ground_truth.keys
    assert len(questions) == len(prompt.keys)
    for number, (line, key) in enumerate(zip(questions, prompt.keys), start=1):
        assert line.startswith(f"{number}. ")
        assert key in line
    assert prompt.user.endswith("**Answers**:\n")


def test_question_wording_per_language(tmp_path):
    py = write_program(tmp_path / "python" / "pkgdemo_0001", {
        "main.py": "from pkg.util import helper\n\ndef run():\n    helper()\n\nrun()\n",
        "pkg/__init__.py": "X = 1\n",
        "pkg/util.py": "def helper():\n    pass\n"},
        {"main": ["main.run"], "main.run": ["pkg.util.helper"], "pkg": [], "pkg.util": [], "pkg.util.helper": []})
    instance, _ = load_program(py, "python", [])
    questions = build_prompt(instance).user.split("**Questions**:\n")[1].splitlines()
    assert questions[:5] == [
        '1. What are the module-level function calls in the file "main.py"?',
        '2. What are the function calls inside the "main.run" function in the file "main.py"?',
        '3. What are the module-level function calls in the file "pkg/__init__.py"?',
        '4. What are the module-level function calls in the file "pkg/util.py"?',
        '5. What are the function calls inside the "pkg.util.helper" function in the file "pkg/util.py"?']

    js = write_program(tmp_path / "javascript" / "jsdemo_0001", {
        "main.js": "const u = require('./lib/util');\nu.helper();\n",
        "lib/util.js": "function helper() {}\nmodule.exports = { helper };\n"},
        {"main": ["lib/util.helper"], "lib/util": [], "lib/util.helper": []})
    instance, _ = load_program(js, "javascript", [])
    questions = build_prompt(instance).user.split("**Questions**:\n")[1].splitlines()
    assert questions[:3] == [
        '1. What are the module-level function calls in the file "main.js"?',
        '2. What are the module-level function calls in the file "lib/util.js"?',
        '3. What are the function calls inside the "lib/util.helper" function in the file "lib/util.js"?']

    assert java_class("com.acme.Outer$Inner:run(int)") == "Inner"
    assert java_class("Main:<init>()") == "Main"
    assert java_class("a.b.Shape:area()") == "Shape"


def test_a_file_containing_backticks_gets_a_longer_fence(tmp_path):
    source = 'DOC = """\n```python\nprint(1)\n```\n"""\n\ndef run():\n    pass\n'
    folder = write_program(tmp_path / "python" / "fence_0001", {"main.py": source}, {"main": [], "main.run": []})
    instance, _ = load_program(folder, "python", [])
    user = build_prompt(instance).user
    assert f"File: main.py\n````python\n{source}````" in user


def test_worked_examples_parse_to_what_they_show():
    """The examples teach the answer format: the paper's parser must read them as intended."""
    expected_edges = {"main.py": 4, "main.js": 4, "Main.java": 3}  # Java's signature commas stay inside
    for example in EXAMPLES.values():
        keys = [q.split('"')[1] if '"' in q and "module-level" not in q else f"q{n}"
                for n, q in enumerate(example.questions)]
        text = "\n".join(f"{n}. {a}" for n, a in enumerate(example.answers, start=1))
        parsed = parse_answer(text, keys)
        assert parsed.problems == ()
        assert len(parsed.graph.edges) == expected_edges[example.file]


def test_prompt_hash_changes_with_the_source(tmp_path):
    folder = write_program(tmp_path / "python" / "hash_0001", {"main.py": "def run():\n    pass\n"},
                           {"main": [], "main.run": []})
    instance, _ = load_program(folder, "python", [])
    before = build_prompt(instance).hash
    (folder / "main.py").write_text("def run():\n    return 1\n")
    assert build_prompt(instance).hash != before
    assert len(before) == 64


def test_an_unreadable_source_file_is_a_one_line_error(tmp_path):
    folder = write_program(tmp_path / "python" / "gone_0001", {"main.py": "def run():\n    pass\n"},
                           {"main": [], "main.run": []})
    instance, _ = load_program(folder, "python", [])
    (folder / "main.py").unlink()
    with pytest.raises(DatasetError, match=r"main\.py: cannot read source file for the prompt"):
        build_prompt(instance)
