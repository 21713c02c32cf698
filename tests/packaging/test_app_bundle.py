"""The packaged desktop app, built once with `packaging/build-app.sh` from this environment: it starts
off screen on the demo dataset, and its `traceeval` traces, scores, asks a model and builds instances
the way the installed package does (the frozen app has its own interpreter, module finder and
process start-up, so each of these can break there alone); `install.sh` installs and removes it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile

import pytest

from core.scoring.scores import SCORER_VERSION
from resources import DEMO_DATASET
from tests.harness_server import harness_server, repo
from tests.llm_server import FakeChatServer, demo_truth_answers, truth_answers
from tests.packaging.user_commands import ROOT, VERSION, run_user_command, user_env
from tests.release_standin import write_release

DEMO_PROGRAMS = {"python": "calcpad_0001", "javascript": "cartwheel_0001", "java": "ledgerj_0001"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(app folder, tarball) from one run of the build script, which ends by starting the app."""
    out = tmp_path_factory.mktemp("app")
    result = subprocess.run(["bash", "packaging/build-app.sh", "--python", sys.executable, "--out", str(out)],
                            cwd=ROOT, capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "TraceEval Studio — demo, 15 programs" in result.stdout  # the script's own start-up check
    return out / "traceeval-studio", out / f"traceeval-studio-{VERSION}-linux-{os.uname().machine}.tar.gz"


def test_the_window_starts_on_the_demo_dataset_on_an_x_display(built, tmp_path):
    """On a (virtual) X server, through the xcb platform plugin and the X libraries the app carries."""
    app, _ = built
    shot = tmp_path / "window.png"
    env = {k: v for k, v in user_env(tmp_path).items() if k != "QT_QPA_PLATFORM"}
    result = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", str(app / "traceeval-gui"),
                             "--screenshot", str(shot), "--instance", "javascript/eventide_0002", "--tab", "metrics"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"wrote {shot}: TraceEval Studio — demo, 15 programs\n"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000


def test_the_command_line_knows_its_version_and_scores_the_demo(built, tmp_path):
    app, _ = built
    assert run_user_command(app, "traceeval", "--version", tmp_path=tmp_path).stdout == f"traceeval {VERSION}\n"
    result = run_user_command(app, "traceeval", "score", "--format", "json", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    table = json.loads(result.stdout)
    assert {row["model"] for row in table["rows"]} == {"illustrative-strong", "illustrative-weak"}
    assert table["scorer_version"] == SCORER_VERSION  # the app scores with the same scorer version
    assert run_user_command(app, "traceeval", "validate", tmp_path=tmp_path).returncode == 0


def test_the_app_checks_paper_parity_with_the_machines_python(built, tmp_path):
    """The packaged app cannot run the release with its own executable: it runs it with python3 from PATH, in the
    sandbox (its driver is among the app's files)."""
    app, _ = built
    checkout = write_release(tmp_path / "TraceEva", with_data=DEMO_DATASET)
    assert run_user_command(app, "traceeval", "import-results", checkout, DEMO_DATASET / "results",
                            tmp_path=tmp_path).returncode == 0
    result = run_user_command(app, "traceeval", "parity", checkout, "--release", checkout, tmp_path=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("Result: full agreement") and str(app) not in result.stdout


@pytest.mark.parametrize("language", sorted(DEMO_PROGRAMS))
def test_each_tracer_runs_from_the_app(built, tmp_path, language):
    app, _ = built
    folder = DEMO_DATASET / "benchmark" / language / DEMO_PROGRAMS[language]
    result = run_user_command(app, "traceeval", "trace", folder, tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    truth = json.loads((folder / "callgraph.json").read_text(encoding="utf-8"))
    assert json.loads(result.stdout) == truth


def test_doctor_names_the_python_that_runs_traced_programs(built, tmp_path):
    app, _ = built
    result = run_user_command(app, "traceeval", "doctor", tmp_path=tmp_path)
    python_line = next(line for line in result.stdout.splitlines() if line.startswith("tracer: python"))
    assert " ok " in python_line and str(app) not in python_line  # not the app's own executable


def test_a_model_run_from_the_app_goes_through_the_openai_client(built, tmp_path):
    app, _ = built
    with FakeChatServer(truth_answers(demo_truth_answers(tmp_path / "answers.sqlite"))) as server:
        result = run_user_command(app, "traceeval", "predict", "--model", "fake-model", "--base-url", server.base_url,
                         "--split", "all", "--out", tmp_path / "results", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "fake-model" in result.stdout and "100.0  100.0  100.0" in result.stdout


def test_a_build_on_two_worker_processes_runs_in_the_app(built, tmp_path):
    """The build's worker processes are this executable started again (multiprocessing spawn)."""
    app, _ = built
    source = tmp_path / "repos" / "geomkit"
    shutil.copytree(repo("python", "geomkit"), source)
    with harness_server() as server:
        result = run_user_command(app, "traceeval", "build", source, "--language", "python", "--out",
                                  tmp_path / "built",
                         "--model", "fake-model", "--base-url", server.base_url, "--max-per-repo", "2",
                         "--jobs", "2", tmp_path=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(list((tmp_path / "built" / "benchmark" / "python").iterdir())) == 2


def test_the_tarball_holds_the_app_and_install_sh_installs_and_removes_it(built, tmp_path):
    _, tarball = built
    with tarfile.open(tarball) as archive:
        archive.extractall(tmp_path / "unpacked", filter="tar")
    unpacked = tmp_path / "unpacked" / "traceeval-studio"
    prefix = tmp_path / "prefix"
    result = subprocess.run(["bash", str(unpacked / "install.sh"), "--prefix", str(prefix)], capture_output=True,
                            text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert run_user_command(prefix / "bin", "traceeval", "--version",
                            tmp_path=tmp_path).stdout == f"traceeval {VERSION}\n"
    entry = prefix / "share" / "applications" / "io.github.traceeval.Studio.desktop"
    assert f"Exec={prefix}/lib/traceeval-studio/traceeval-gui %f" in entry.read_text().splitlines()
    checked = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True, check=False)
    assert checked.returncode == 0 and not checked.stdout.strip(), checked.stdout
    assert (prefix / "share" / "icons" / "hicolor" / "48x48" / "apps" / "traceeval-studio.png").is_file()
    assert (prefix / "share" / "metainfo" / "io.github.traceeval.Studio.metainfo.xml").is_file()

    result = subprocess.run(["bash", str(prefix / "lib" / "traceeval-studio" / "install.sh"), "--prefix",
                             str(prefix), "--uninstall"], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    caches = ("mimeinfo.cache", "icon-theme.cache")  # the desktop's own indexes, refreshed by install.sh
    assert not [p for p in prefix.rglob("*") if (p.is_file() or p.is_symlink()) and p.name not in caches]
