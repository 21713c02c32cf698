"""The TraceEval prompt: the paper's assembly held to the release's vectors, golden files for demo
programs (byte for byte), the studio assembly, and what every prompt says about its wording."""
import itertools
import json
import os
from pathlib import Path

import pytest

from core.dataset.layout import load_program
from core.errors import DatasetError
from core.llm.prompt_examples import JAVA, JAVASCRIPT, PYTHON, worked_example
from core.llm.prompt_questions import java_class
from core.llm.prompt_wording import STUDIO_INSTRUCTIONS, STUDIO_LABEL, STUDIO_WORDING
from core.llm.prompts import (
    build_prompt,
    paper_code_section,
    paper_program_files,
    paper_questions,
    prompt_hash,
)
from core.scoring.answers import parse_answer
from core.scoring.rules import STUDIO
from resources import DEMO_DATASET
from tests.builders import write_program

GOLDEN = Path(__file__).parent / "golden" / "prompts"
GOLDEN_PROGRAMS = ("python/calcpad_0001", "javascript/eventide_0002", "java/ledgerj_0001")
QUESTION_VECTORS = json.loads((Path(__file__).parent / "parity" / "questions.json").read_text())["vectors"]
SUFFIX = {"python": ".py", "javascript": ".js", "java": ".java"}


def demo_instance(key: str):
    language = key.split("/")[0]
    instance, _ = load_program(DEMO_DATASET / "benchmark" / key, language, [])
    return instance


def _listing_orders(files: list[str]):
    """Every order of each folder's files, folders kept in walk order (the listing order is the file system's)."""
    folders: dict[str, list[str]] = {}
    for path in files:
        folders.setdefault(path.rpartition("/")[0], []).append(path)
    for choice in itertools.product(*(itertools.permutations(group) for group in folders.values())):
        yield [path for group in choice for path in group]


@pytest.mark.parametrize("vector", QUESTION_VECTORS,
                         ids=lambda v: f"{v['language']}-{'+'.join(v['files_in_walk_order'])}")
def test_questions_and_code_section_are_the_releases(vector):
    """The release maps files in the folder's listing order, which the vector does not record (it lists each
    folder's files sorted): the questions must come out for one order of them."""
    language = vector["language"]
    files = [f for f in vector["files_in_walk_order"] if f.endswith(SUFFIX[language])]
    keys = list(dict.fromkeys(vector["keys"]))  # the release's ground truth is a dict: a repeated key is one key
    produced = [paper_questions(language, keys, order) for order in _listing_orders(files)]
    assert vector["questions"] in produced
    if vector.get("code_section") is not None:
        assert paper_code_section(Path("/unused"), files, dict.fromkeys(files, "x\n")) == vector["code_section"]


def test_the_walk_sorts_a_folders_files_for_the_code_and_keeps_the_listing_for_the_map(tmp_path):
    write_program(tmp_path / "p", {"main.py": "", "b.py": "", "a.py": "", "notes.txt": "", "z/y.py": "", "z/x.py": "",
                                   "m.pyc": ""})
    code, listed = paper_program_files(tmp_path / "p", "python")
    own = [f for f in os.listdir(tmp_path / "p") if f.endswith(".py")]
    assert code[:3] == ["a.py", "b.py", "main.py"] and sorted(code[3:]) == ["z/x.py", "z/y.py"]
    assert listed[:3] == own and sorted(listed) == sorted(code)


def test_java_questions_skip_keys_without_a_colon_and_name_the_whole_owner():
    keys = ["demo.Main:main(java.lang.String[])", "demo.Outer", "demo.Outer$Inner:run()"]
    assert paper_questions("java", keys, []) == [
        "1. What are the target functions invoked by demo.Main:main(java.lang.String[]) in the demo.Main class?",
        "2. What are the target functions invoked by demo.Outer$Inner:run() in the demo.Outer$Inner class?"]
    # answers still map by key position: "2." answers demo.Outer, the key without a question
    assert parse_answer("2. demo.Main:main(java.lang.String[])", keys).graph.edges == (
        ("demo.Outer", "demo.Main:main(java.lang.String[])"),)


def test_the_fence_never_grows_and_files_keep_their_text(tmp_path):
    source = 'DOC = """\n```python\nprint(1)\n```\n"""\n'
    folder = write_program(tmp_path / "python" / "fence_0001", {"main.py": source}, {"main": []})
    instance, _ = load_program(folder, "python", [])
    assert f"```main.py\n{source}\n```\n\n" in build_prompt(instance).user


def test_windows_line_ends_are_read_as_newlines(tmp_path):
    folder = write_program(tmp_path / "python" / "crlf_0001", {"main.py": b"def f():\r\n    pass\r\nf()\r\n"},
                           {"main": ["main.f"], "main.f": []})
    instance, _ = load_program(folder, "python", [])
    assert "```main.py\ndef f():\n    pass\nf()\n\n```" in build_prompt(instance).user


@pytest.mark.parametrize("key", GOLDEN_PROGRAMS)
def test_prompt_is_byte_identical_to_the_golden_file(key):
    prompt = build_prompt(demo_instance(key))
    golden = GOLDEN / (key.replace("/", "__") + ".txt")
    assert prompt.render().encode("utf-8") == golden.read_bytes(), \
        f"prompt changed; if on purpose, regenerate {golden} and say why in the commit"
    assert prompt.hash == prompt_hash(prompt.system, prompt.user) and prompt.release_sha256 == ""
    assert prompt.messages == [{"role": "system", "content": prompt.system},
                               {"role": "user", "content": prompt.user}]


@pytest.mark.parametrize("key", GOLDEN_PROGRAMS)
def test_without_a_release_the_prompt_says_it_is_not_the_papers_wording(key):
    prompt = build_prompt(demo_instance(key))
    assert prompt.wording == "studio" and prompt.wording_label == STUDIO_LABEL == "studio wording, not the paper's"
    assert prompt.render().startswith("[wording] studio wording, not the paper's; paper rules\n")


@pytest.mark.parametrize("key", GOLDEN_PROGRAMS)
def test_the_studio_wording_fills_the_releases_fields(key):
    instance = demo_instance(key)
    prompt = build_prompt(instance)
    word = instance.language.capitalize()  # the paper's assembly: "Javascript"
    assert prompt.system == STUDIO_WORDING.system.format(language=word)
    instructions = prompt.user.split("**Instructions**:\n")[1].split("\n\n")[0].splitlines()
    assert instructions == [f"{n}. {text}" for n, text in enumerate(STUDIO_INSTRUCTIONS, 1)]
    assert worked_example(instance.language).code in prompt.user
    code_files, map_files = paper_program_files(instance.root, instance.language)
    questions = paper_questions(instance.language, instance.ground_truth.keys, map_files)
    assert prompt.user.endswith("**Questions**:\n" + "\n".join(questions) + "\n\n**Answers**:")
    for relative in code_files:
        assert f"```{relative}\n{instance.read_source(relative)}\n```\n\n" in prompt.user


def test_worked_examples_parse_to_what_they_show():
    """The examples teach the answer format: the paper's parser must read them as intended."""
    expected_edges = {"main.py": 4, "main.js": 4, "Main.java": 3}  # Java's signature commas stay inside
    for example in (PYTHON, JAVASCRIPT, JAVA):
        keys = [f"q{n}" for n in range(len(example.questions))]
        text = "\n".join(f"{n}. {a}" for n, a in enumerate(example.answers, start=1))
        parsed = parse_answer(text, keys)
        assert parsed.problems == ()
        assert len(parsed.graph.edges) == expected_edges[example.file]


def test_prompt_hash_changes_with_the_source_and_the_wording(tmp_path):
    folder = write_program(tmp_path / "python" / "hash_0001", {"main.py": "def run():\n    pass\n"},
                           {"main": [], "main.run": []})
    instance, _ = load_program(folder, "python", [])
    before = build_prompt(instance).hash
    (folder / "main.py").write_text("def run():\n    return 1\n")
    assert build_prompt(instance).hash != before
    assert len(before) == 64
    assert prompt_hash("s", "u", "abc") != prompt_hash("s", "u", "abd") != prompt_hash("s", "u")


def test_an_unreadable_source_file_is_a_one_line_error(tmp_path):
    folder = write_program(tmp_path / "python" / "gone_0001", {"main.py": "def run():\n    pass\n", "b.py": ""},
                           {"main": [], "main.run": []})
    instance, _ = load_program(folder, "python", [])
    (folder / "b.py").write_bytes(b"\xff\xfe")
    with pytest.raises(DatasetError, match=r"b\.py: cannot read source file for the prompt"):
        build_prompt(instance)
    (folder / "b.py").unlink()
    (folder / "b.py").symlink_to("/etc/hostname")
    with pytest.raises(DatasetError, match=r"b\.py: cannot read source file for the prompt: a link to /etc/hostname, "
                                           r"outside gone_0001/; not read"):
        build_prompt(instance)
    (folder / "b.py").unlink()
    os.mkfifo(folder / "b.py")
    with pytest.raises(DatasetError, match=r"b\.py: cannot read source file for the prompt: not a regular file "
                                           r"\(a FIFO\)"):
        build_prompt(instance)  # and never blocks opening the FIFO


# -- the studio assembly (opt-in) ---------------------------------------------------------------------------
def test_studio_question_wording_per_language(tmp_path):
    py = write_program(tmp_path / "python" / "pkgdemo_0001", {
        "main.py": "from pkg.util import helper\n\ndef run():\n    helper()\n\nrun()\n",
        "pkg/__init__.py": "X = 1\n",
        "pkg/util.py": "def helper():\n    pass\n"},
        {"main": ["main.run"], "main.run": ["pkg.util.helper"], "pkg": [], "pkg.util": [], "pkg.util.helper": []})
    instance, _ = load_program(py, "python", [])
    prompt = build_prompt(instance, rules=STUDIO)
    assert prompt.render().startswith("[wording] studio wording, not the paper's; studio rules, not the paper's")
    questions = prompt.user.split("**Questions**:\n")[1].splitlines()
    assert questions[:5] == [
        '1. What are the module-level function calls in the file "main.py"?',
        '2. What are the function calls inside the "main.run" function in the file "main.py"?',
        '3. What are the module-level function calls in the file "pkg/__init__.py"?',
        '4. What are the module-level function calls in the file "pkg/util.py"?',
        '5. What are the function calls inside the "pkg.util.helper" function in the file "pkg/util.py"?']
    assert "Examine the Python program" in prompt.user and "File: main.py\n```python\n" in prompt.user

    js = write_program(tmp_path / "javascript" / "jsdemo_0001", {
        "main.js": "const u = require('./lib/util');\nu.helper();\n",
        "lib/util.js": "function helper() {}\nmodule.exports = { helper };\n"},
        {"main": ["lib/util.helper"], "lib/util": [], "lib/util.helper": []})
    instance, _ = load_program(js, "javascript", [])
    user = build_prompt(instance, rules=STUDIO).user
    assert user.split("**Questions**:\n")[1].splitlines()[:3] == [
        '1. What are the module-level function calls in the file "main.js"?',
        '2. What are the module-level function calls in the file "lib/util.js"?',
        '3. What are the function calls inside the "lib/util.helper" function in the file "lib/util.js"?']
    assert "JavaScript Code Provided" in user

    assert java_class("com.acme.Outer$Inner:run(int)") == "Inner"
    assert java_class("Main:<init>()") == "Main"
    assert java_class("a.b.Shape:area()") == "Shape"


def test_studio_fences_grow_past_backticks_in_a_file(tmp_path):
    source = 'DOC = """\n```python\nprint(1)\n```\n"""\n\ndef run():\n    pass\n'
    folder = write_program(tmp_path / "python" / "fence_0001", {"main.py": source}, {"main": [], "main.run": []})
    instance, _ = load_program(folder, "python", [])
    assert f"File: main.py\n````python\n{source}````" in build_prompt(instance, rules=STUDIO).user
