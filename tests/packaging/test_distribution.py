"""The sdist and wheel: `python -m build` makes the sdist and then the wheel from it (so the sdist
alone is enough to build), and the wheel installs with pip into a fresh virtual environment where
both commands work on the bundled demo dataset, icons and templates."""
from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.packaging.user_commands import ROOT, VERSION, run_user_command

RESOURCES = ["resources/demo/benchmark/python/calcpad_0001/callgraph.json", "resources/demo/traceeval_split",
             "resources/demo/results/illustrative-weak_java_t0.0_r0.json", "resources/build/harness_prompt.md",
             "resources/icons/traceeval-studio.svg", "resources/icons/hicolor/48x48/apps/traceeval-studio.png",
             "tracers/js_runtime/runtime.js", "tracers/java_agent/traceeval/agent/TraceAgent.java",
             "tracers/python_runtime/run.py", "tracers/release_runtime/parity_driver.py"]


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], capture_output=True,
                            text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "!!" not in result.stdout + result.stderr, "setuptools warned about the package layout"
    sdist, = out.glob("*.tar.gz")
    wheel, = out.glob("*.whl")
    return sdist, wheel


@pytest.fixture(scope="module")
def fresh_venv(dists, tmp_path_factory) -> Path:
    """bin/ of a new virtual environment with only the wheel (and its dependencies) installed."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    result = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"{dists[1]}[gui]"], capture_output=True,
                            text=True, timeout=900, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return venv / "bin"


def test_the_wheel_holds_the_code_resources_and_entry_points_and_nothing_else(dists):
    with zipfile.ZipFile(dists[1]) as wheel:
        names = wheel.namelist()
        entry_points = wheel.read(f"traceeval_studio-{VERSION}.dist-info/entry_points.txt").decode()
    for resource in RESOURCES:
        assert any(name.startswith(resource) for name in names), resource
    assert any(name.startswith("tracers/python_runtime/_profiler.") and name.endswith(".so") for name in names)
    with zipfile.ZipFile(dists[1]) as wheel:  # the sandbox launcher, linked by setup.py, installed executable
        assert wheel.getinfo("tracers/traceeval-launch").external_attr >> 16 & 0o111
    assert {name.split("/")[0] for name in names} == {"core", "tracers", "traceeval_gui", "resources",
                                                      f"traceeval_studio-{VERSION}.dist-info"}
    assert not [name for name in names if "__pycache__" in name or name.startswith("resources/screenshots")]
    assert "traceeval = traceeval_gui.cli.main:main" in entry_points
    assert "traceeval-gui = traceeval_gui.app:main" in entry_points


def test_the_sdist_holds_what_building_needs(dists):
    with tarfile.open(dists[0]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"pyproject.toml", "setup.py", "README.md", "tracers/python_runtime/_profiler.c",
            "tracers/sandbox_launcher.c"} <= names
    assert all(resource in names or any(n.startswith(resource) for n in names) for resource in RESOURCES)
    assert not [name for name in names if name.startswith((".venv", ".git", "dist/",
                                                           "build/")) or "__pycache__" in name]


def test_the_installed_commands_work_on_the_bundled_demo(fresh_venv, tmp_path):
    assert run_user_command(fresh_venv, "traceeval", "--version", tmp_path=tmp_path).stdout == f"traceeval {VERSION}\n"
    assert subprocess.run([str(fresh_venv / "pip"), "check"], capture_output=True, timeout=120,
                          check=False).returncode == 0
    validated = run_user_command(fresh_venv, "traceeval", "validate", tmp_path=tmp_path)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    doctor = run_user_command(fresh_venv, "traceeval", "doctor", tmp_path=tmp_path).stdout
    assert f"at {fresh_venv / 'python'}" in doctor and "C extension" in doctor  # the wheel's own profiler
    demo = fresh_venv.parent / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages" / \
        "resources" / "demo" / "benchmark" / "java" / "shapekit_0001"
    traced = run_user_command(fresh_venv, "traceeval", "trace", demo, tmp_path=tmp_path)
    assert traced.returncode == 0, traced.stderr
    shot = tmp_path / "window.png"
    shown = run_user_command(fresh_venv, "traceeval-gui", "--screenshot", shot, tmp_path=tmp_path)
    assert shown.stdout == f"wrote {shot}: TraceEval Studio — demo, 15 programs\n", shown.stderr
