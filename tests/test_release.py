"""The user's TraceEval release: found where a user keeps it, its templates read without running it, the
prompt built from them byte for byte as the release's own `build_prompt` builds it, and the corpus found
(or extracted from its archive) when the checkout itself is opened."""
from __future__ import annotations

import importlib.util
import io
import json
import os
import shutil
import stat
import sys
import zipfile
from pathlib import Path

import pytest

from core.dataset.layout import load_program
from core.errors import ReleaseError
from core.llm.prompt_wording import STUDIO_WORDING
from core.llm.prompts import build_prompt
from core.release.archive import dataset_folder, extract_corpus
from core.release.checkout import (
    RELEASE_ENV,
    ReleaseLocation,
    locate_release,
    prompt_wording,
    read_release_wording,
)
from resources import DEMO_DATASET
from tests.builders import write_program
from tests.cli_run import run
from tests.release_standin import write_release


def _import_standin(script: Path):
    spec = importlib.util.spec_from_file_location(f"standin_{abs(hash(script))}", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _demo_instances():
    for language_folder in sorted((DEMO_DATASET / "benchmark").iterdir()):
        for folder in sorted(language_folder.iterdir()):
            instance, _ = load_program(folder, language_folder.name, [])
            yield instance


# -- reading the templates -------------------------------------------------------------------------------------
def test_the_templates_are_read_as_literals_and_the_file_is_never_run(tmp_path):
    script = write_release(tmp_path / "TraceEva") / "scripts" / "run_llm.py"
    wording = read_release_wording(script)
    assert not (script.parent / "IMPORTED").exists()  # ast only
    assert wording.system == "STAND-IN system words for {language} code. They are not the paper's."
    assert wording.user.startswith("## STAND-IN task for {language}\n\n{example}")
    assert wording.examples["javascript"] == "**Stand-in JavaScript example** {braces stay as they are}"
    assert wording.source == "release" and wording.path == str(script.resolve())
    assert wording.sha256 == __import__("hashlib").sha256(script.read_bytes()).hexdigest()
    assert wording.tag == f"release:{wording.sha256}"
    assert wording.label == f"the TraceEval release's wording ({script.resolve()}, sha256 {wording.sha256[:12]})"


@pytest.mark.parametrize(("change", "message"), [
    (lambda text: text.replace("JAVA_EXAMPLE = ", "JAVA_SAMPLE = "), "no JAVA_EXAMPLE at module level"),
    (lambda text: text.replace('SYSTEM_PROMPT = (', 'SYSTEM_PROMPT = f"{1}" + ('), "SYSTEM_PROMPT is not a plain "
                                                                                   "string literal"),
    (lambda text: text + "\ndef broken(:\n", "not Python the templates can be read from"),
    (lambda text: text.replace("**Answers**:", "**Answers** {answers}:"), "USER_PROMPT has the field {answers}"),
    (lambda text: text.replace("STAND-IN system", "STAND-IN {"), "SYSTEM_PROMPT is not a format template"),
    (lambda text: text + "\nX = " + "(" * 200_000 + ")" * 200_000 + "\n", "run_llm.py: "),
])
def test_a_run_llm_the_templates_cannot_be_read_from_is_a_one_line_error(tmp_path, change, message):
    script = write_release(tmp_path / "TraceEva") / "scripts" / "run_llm.py"
    script.write_text(change(script.read_text()))
    with pytest.raises(ReleaseError) as caught:
        read_release_wording(script)
    assert message in str(caught.value) and str(script.resolve()) in str(caught.value)
    assert "\n" not in str(caught.value) and not (script.parent / "IMPORTED").exists()


def test_a_later_assignment_wins_as_running_the_file_would(tmp_path):
    script = write_release(tmp_path / "TraceEva") / "scripts" / "run_llm.py"
    script.write_text(script.read_text() + '\nJS_EXAMPLE: str = "second"\n')
    assert read_release_wording(script).examples["javascript"] == "second"


def test_an_oversized_file_is_not_read(tmp_path):
    script = write_release(tmp_path / "TraceEva") / "scripts" / "run_llm.py"
    with script.open("a") as handle:
        handle.write("#" * (5 * 1024 * 1024))
    with pytest.raises(ReleaseError, match=r"over the bound of 4 MiB"):
        read_release_wording(script)


# -- where the release is found ---------------------------------------------------------------------------------
def test_the_release_is_found_given_from_the_environment_or_next_to_the_dataset(tmp_path, monkeypatch):
    """Named (given, or in the environment) or found next to the dataset: only a found one waits for a confirmation
    (tests/security/test_found_release.py)."""
    checkout = write_release(tmp_path / "TraceEva", with_data=DEMO_DATASET)
    script = (checkout / "scripts" / "run_llm.py").resolve()
    for given in (checkout, checkout / "scripts", script):
        assert locate_release(given) == ReleaseLocation(script, found=False)
    assert locate_release(None, checkout / "data") == ReleaseLocation(script, found=True)  # TraceEva/data: TraceEva
    assert locate_release(None, DEMO_DATASET) is None
    other = write_release(tmp_path / "other")
    monkeypatch.setenv(RELEASE_ENV, str(other))
    assert locate_release(None, checkout / "data") == ReleaseLocation((other / "scripts" / "run_llm.py").resolve(),
                                                                      found=False)
    assert locate_release(checkout, None) == ReleaseLocation(script, found=False)  # the path given comes first
    monkeypatch.setenv(RELEASE_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(ReleaseError, match=f"nowhere \\(from \\${RELEASE_ENV}\\): no TraceEval release here"):
        locate_release(None, None)
    monkeypatch.delenv(RELEASE_ENV)
    with pytest.raises(ReleaseError, match=r"no TraceEval release here"):
        locate_release(tmp_path)
    assert prompt_wording(None, DEMO_DATASET) is STUDIO_WORDING


# -- the prompt, byte for byte as the release builds it ------------------------------------------------------------
def _crafted_programs(root: Path) -> list[tuple[Path, str]]:
    return [
        (write_program(root / "python" / "nomain_0001", {"app.py": "def f():\n    g()\n", "helpers.py": "def g():\n"
                                                        "    pass\n", "pkg/__init__.py": "", "pkg/mod.py": "x = 1\n",
                                                        "notes.txt": "not code\n"},
                       {"app": [], "app.f": ["helpers.g"], "helpers.g": [], "pkg": [], "pkg.mod": [], "other.h": [],
                        "main_x.f": []}), "python"),
        (write_program(root / "javascript" / "index_0001", {"index.js": "f();\n", "lib/index.js": "function f(){}\n",
                                                             "lib/util.js": "", "x.mjs": "", "y.cjs": ""},
                       {"index": ["lib.index.f"], "lib": [], "lib.index.f": [], "lib/util": [], "a.b": []}),
         "javascript"),
        (write_program(root / "java" / "nested_0001",
                       {"Main.java": "package demo;\npublic class Main {\n  public static void main(String[] a) {}"
                                     "\n}\n",
                        "demo/Outer.java": "package demo;\nclass Outer {}\n"},
                       {"demo.Main:main(java.lang.String[])": [], "demo.Outer": [], "demo.Outer$Inner:run()": [],
                        "Main:<init>()": []}), "java"),
        (write_program(root / "python" / "fences_0001", {"main.py": 'S = """\n```\n"""\n', "b.py": "\r\n\r\n"},
                       {"main": [], "b": []}), "python"),
    ]


def test_a_prompt_in_the_releases_words_is_byte_identical_to_the_releases_own(tmp_path):
    script = write_release(tmp_path / "TraceEva") / "scripts" / "run_llm.py"
    wording = read_release_wording(script)
    standin = _import_standin(script)
    instances = list(_demo_instances())
    for folder, language in _crafted_programs(tmp_path / "crafted"):
        instances.append(load_program(folder, language, [])[0])
    for instance in instances:
        ground_truth = json.loads((instance.root / "callgraph.json").read_text())
        theirs = standin.build_prompt(str(instance.root), ground_truth, instance.language)
        ours = build_prompt(instance, wording=wording)
        assert ours.messages == theirs, instance.key
        assert ours.wording == wording.tag and ours.release_sha256 == wording.sha256
        assert ours.render().startswith("[wording] the TraceEval release's wording (")


def test_the_prompt_hash_follows_the_release_file(tmp_path):
    script = write_release(tmp_path / "TraceEva") / "scripts" / "run_llm.py"
    instance = next(_demo_instances())
    first = build_prompt(instance, wording=read_release_wording(script))
    script.write_text(script.read_text() + "\n# a comment changes nothing in the text\n")
    second = build_prompt(instance, wording=read_release_wording(script))
    assert first.messages == second.messages and first.hash != second.hash


# -- opening a checkout ------------------------------------------------------------------------------------------
def _zip_corpus(checkout: Path, members: dict[str, bytes] | None = None) -> Path:
    archive = checkout / "data" / "traceeval.zip"
    archive.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        if members is None:
            for path in sorted((DEMO_DATASET / "benchmark").rglob("*")):
                if path.is_file():
                    zipped.write(path, path.relative_to(DEMO_DATASET).as_posix())
        else:
            for name, data in members.items():
                zipped.writestr(name, data)
    shutil.copytree(DEMO_DATASET / "traceeval_split", checkout / "data" / "traceeval_split", dirs_exist_ok=True)
    return archive


def test_a_checkout_with_its_corpus_opens_as_its_data_folder(tmp_path, capsys):
    checkout = write_release(tmp_path / "TraceEva", with_data=DEMO_DATASET)
    assert dataset_folder(checkout) == checkout / "data" == dataset_folder(checkout / "data")
    assert dataset_folder(DEMO_DATASET) == DEMO_DATASET
    code, out, err = run(capsys, "info", str(checkout), "--format", "json")
    assert code == 0, err
    assert json.loads(out)["programs"] == 15


def test_a_checkout_with_only_the_archive_is_extracted_once_with_progress(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO())  # off a terminal: a found release is not asked about
    checkout = write_release(tmp_path / "TraceEva")
    archive = _zip_corpus(checkout)
    seen = []
    corpus = dataset_folder(checkout, lambda done, total, message: seen.append((done, total, message)))
    assert (corpus / "benchmark" / "python").is_dir() and (corpus / "traceeval_split" / "test_ids.json").is_file()
    assert seen and seen[-1][0] == seen[-1][1] and "extracting traceeval.zip" in seen[-1][2]
    assert json.loads((corpus / "release.json").read_text())["checkout"] == str(checkout.resolve())
    assert not list(corpus.parent.glob(".extracting-*"))
    again = []
    assert extract_corpus(archive, checkout, lambda *a: again.append(a)) == corpus and again == []  # once
    # the extracted corpus remembers its release, and a command on the checkout opens the corpus
    assert locate_release(None, corpus) == ReleaseLocation((checkout / "scripts" / "run_llm.py").resolve(), found=True)
    code, out, err = run(capsys, "prompt", "calcpad_0001", "--dataset", str(checkout), "--format", "json")
    assert code == 2 and out == "" and "a TraceEval release found next to the dataset, not confirmed" in err
    code, out, err = run(capsys, "prompt", "calcpad_0001", "--dataset", str(checkout), "--format", "json",
                         "--release", str(checkout))  # naming it confirms it
    assert code == 0, err
    assert json.loads(out)["wording_tag"].startswith("release:")


@pytest.mark.parametrize(("name", "problem"), [
    ("../escape.py", "a path outside the folder"),
    ("/etc/evil.py", "a path outside the folder"),
    ("benchmark\\..\\x.py", "a path outside the folder"),
    ("C:/x.py", "a path outside the folder"),
])
def test_an_archive_member_outside_its_folder_stops_the_extraction(tmp_path, name, problem):
    checkout = write_release(tmp_path / "TraceEva")
    _zip_corpus(checkout, {"benchmark/python/a_0001/main.py": b"x = 1\n", name: b"x"})
    with pytest.raises(ReleaseError) as caught:
        dataset_folder(checkout)
    assert f"member {name!r} is {problem}" in str(caught.value) and "nothing extracted" in str(caught.value)
    assert not (tmp_path / "escape.py").exists()
    assert not any(p.name.startswith("TraceEva-") for p in (Path(os.environ["TRACEEVAL_CACHE_DIR"]) / "releases")
                   .iterdir())


def test_links_repeats_and_encrypted_members_are_refused(tmp_path):
    checkout = write_release(tmp_path / "TraceEva")
    archive = _zip_corpus(checkout, {"benchmark/python/a_0001/main.py": b"x = 1\n"})
    with zipfile.ZipFile(archive, "a") as zipped:
        link = zipfile.ZipInfo("benchmark/python/a_0001/callgraph.json")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zipped.writestr(link, "/proc/self/environ")
    with pytest.raises(ReleaseError, match=r"is a link or special file"):
        dataset_folder(checkout)
    archive = _zip_corpus(checkout, {"benchmark/a": b"1"})
    with zipfile.ZipFile(archive, "a") as zipped, pytest.warns(UserWarning, match="Duplicate name"):
        zipped.writestr("benchmark/a", b"2")
    with pytest.raises(ReleaseError, match=r"is in the archive twice"):
        dataset_folder(checkout)
    archive = _zip_corpus(checkout, {"benchmark/a": b"1"})
    data = bytearray(archive.read_bytes())
    for marker in (b"PK\x03\x04", b"PK\x01\x02"):  # set the "encrypted" flag in both headers
        at = data.index(marker)
        flag_at = at + (6 if marker == b"PK\x03\x04" else 8)
        data[flag_at] |= 1
    archive.write_bytes(bytes(data))
    with pytest.raises(ReleaseError, match=r"is encrypted"):
        dataset_folder(checkout)


def test_a_member_that_is_not_what_its_header_says_leaves_nothing_behind(tmp_path):
    checkout = write_release(tmp_path / "TraceEva")
    archive = _zip_corpus(checkout, {"benchmark/python/a_0001/main.py": b"A" * 5000})
    data = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as zipped:
        info = zipped.infolist()[0]
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + 2] ^= 0xFF  # corrupt the compressed bytes: the CRC no longer matches
    archive.write_bytes(bytes(data))
    with pytest.raises(ReleaseError, match=r"traceeval.zip: member .benchmark/python/a_0001/main.py. is damaged"):
        dataset_folder(checkout)
    releases = Path(os.environ["TRACEEVAL_CACHE_DIR"]) / "releases"
    assert [p.name for p in releases.iterdir()] == []


def test_an_archive_bigger_than_the_free_space_is_refused(tmp_path, monkeypatch):
    checkout = write_release(tmp_path / "TraceEva")
    _zip_corpus(checkout)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10, 10, 10))
    with pytest.raises(ReleaseError, match=r"GB to extract, 0.0 GB free"):
        dataset_folder(checkout)


def test_the_window_opens_a_checkout_given_on_the_command_line(tmp_path):
    checkout = write_release(tmp_path / "TraceEva")
    _zip_corpus(checkout)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(Path(__file__).parent.parent)}
    out = tmp_path / "shot.png"
    result = __import__("subprocess").run([sys.executable, "-m", "traceeval_gui.app", str(checkout), "--screenshot",
                                           str(out)], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "15 programs" in result.stdout and out.is_file()
