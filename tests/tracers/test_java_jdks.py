"""The Java tracer on every JDK 17 to 25 found here: how the JDK is chosen, what is refused, what
`doctor` says, and a Java 21 program (compiled at the JDK's own level on JDK 21+).

The feature corpus itself runs on the chosen JDK (`test_java_corpus.py`); CI runs it a second time
with `$TRACEEVAL_JAVA_HOME` naming the Temurin 25 JDK.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.dataset.layout import load_program
from core.errors import TracerError
from tests.cli_run import run
from tracers import java_toolchain
from tracers.java import JavaTracer
from tracers.java_toolchain import JAVA_HOME_ENV, Jdk, installed_jdks, jdk_at

MODERN = Path(__file__).resolve().parents[1] / "tracer_corpus" / "java_modern"
TEMURIN_25 = Path("/usr/lib/jvm/temurin-25-jdk-amd64")


def _working_jdks() -> list[Jdk]:
    jdks = []
    for javac, source in installed_jdks():
        try:
            jdks.append(jdk_at(javac, source))
        except TracerError:
            continue
    return jdks


JDKS = _working_jdks()
pytestmark = pytest.mark.skipif(not JDKS or not JavaTracer().check().ok, reason="no JDK 17-25 with ASM here")


def _fake_jdk(folder: Path, version_line: str) -> Path:
    """A JDK home whose javac prints `version_line` (and a java beside it that never runs)."""
    bin_folder = folder / "bin"
    bin_folder.mkdir(parents=True)
    for tool in ("javac", "java"):
        script = bin_folder / tool
        script.write_text(f"#!/bin/sh\necho '{version_line}' >&2\n", encoding="utf-8")
        script.chmod(0o755)
    return folder


@pytest.mark.parametrize("jdk", JDKS, ids=lambda jdk: jdk.version)
def test_the_setting_chooses_the_jdk(jdk, monkeypatch):
    monkeypatch.setenv(JAVA_HOME_ENV, str(jdk.home))
    assert java_toolchain.find_jdk().javac == jdk.javac
    assert installed_jdks()[0] == (jdk.javac, f"${JAVA_HOME_ENV}")
    status = JavaTracer().check()
    assert status.ok and f"JDK {jdk.version} ({jdk.javac.parent})" in status.detail


def test_path_comes_before_java_home_and_java_home_is_the_last_resort(monkeypatch, tmp_path):
    monkeypatch.delenv(JAVA_HOME_ENV, raising=False)
    monkeypatch.setenv("JAVA_HOME", str(JDKS[-1].home))
    on_path = java_toolchain.chosen_javac()
    if on_path is not None and on_path[1] == "PATH":
        assert java_toolchain.find_jdk().javac == on_path[0]
    monkeypatch.setenv("PATH", str(tmp_path))  # no javac on PATH
    assert java_toolchain.chosen_javac() == (JDKS[-1].javac, "$JAVA_HOME")
    monkeypatch.delenv("JAVA_HOME")
    with pytest.raises(TracerError, match=f"no javac on PATH and no \\${JAVA_HOME_ENV} or \\$JAVA_HOME"):
        java_toolchain.find_jdk()


def test_a_jdk_outside_17_to_25_is_refused_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv(JAVA_HOME_ENV, str(_fake_jdk(tmp_path / "jdk11", "javac 11.0.2")))
    with pytest.raises(TracerError) as refused:
        java_toolchain.find_jdk()
    line = str(refused.value)
    assert "\n" not in line and "is JDK 11.0.2; the Java tracer needs JDK 17 to 25" in line
    assert line.startswith(f"${JAVA_HOME_ENV}: {tmp_path / 'jdk11' / 'bin' / 'javac'}")
    status = JavaTracer().check()
    assert not status.ok and "JDK 11.0.2" in status.detail
    monkeypatch.setenv(JAVA_HOME_ENV, str(_fake_jdk(tmp_path / "jdk26", "javac 26-ea")))
    with pytest.raises(TracerError, match="is JDK 26-ea; the Java tracer needs JDK 17 to 25"):
        java_toolchain.find_jdk()
    monkeypatch.setenv(JAVA_HOME_ENV, str(tmp_path / "nothing"))
    with pytest.raises(TracerError, match="nothing/bin/javac does not exist"):
        java_toolchain.find_jdk()


def test_a_refused_jdk_gives_a_toolchain_status_not_a_crash(monkeypatch, tmp_path):
    monkeypatch.setenv(JAVA_HOME_ENV, str(_fake_jdk(tmp_path / "jdk11", "javac 11.0.2")))
    instance, _ = load_program(MODERN / "record_patterns", "java", [], require_ground_truth=False)
    run_ = JavaTracer().trace(instance)
    assert run_.status == "toolchain_missing" and "JDK 11.0.2" in run_.message


@pytest.mark.parametrize("jdk", JDKS, ids=lambda jdk: jdk.version)
def test_a_java_21_program_runs_on_jdk_21_and_later(jdk):
    expected = json.loads((MODERN / "record_patterns" / "expected.json").read_text(encoding="utf-8"))
    instance, _ = load_program(MODERN / "record_patterns", "java", [], require_ground_truth=False)
    tracer = JavaTracer(jdk)
    try:
        run_ = tracer.trace(instance)
    finally:
        tracer.close()
    if jdk.major < expected["min_jdk"]:
        assert run_.status == "compile_error" and run_.message.startswith("Main.java:16: error:")
        return
    assert run_.status == expected["status"], run_.message + "\n" + run_.stderr_tail
    assert {edge.edge for edge in run_.edges} == {tuple(e) for e in expected["edges"]}
    assert run_.warnings == (f"compiled for Java {jdk.major}, not 17: with --release 17, Main.java:16: error: "
                             "patterns in switch statements are not supported in -source 17",)


@pytest.mark.skipif(not (TEMURIN_25 / "bin" / "javac").is_file(), reason="no Temurin 25 JDK in /usr/lib/jvm")
def test_doctor_lists_jdk_17_and_25_as_working(capsys, monkeypatch):
    monkeypatch.delenv(JAVA_HOME_ENV, raising=False)
    _, out, _ = run(capsys, "doctor", "--format", "json")
    checks = [c for c in json.loads(out)["checks"] if c["check"].startswith("jdk: ")]
    working = {c["check"].split()[1].split(".")[0]: c for c in checks if c["ok"]}
    assert {"17", "25"} <= set(working), checks
    assert all("traced the probe program exactly" in c["detail"] for c in working.values())
    chosen = [c for c in checks if "chosen)" in c["detail"]]
    assert len(chosen) == 1 and not chosen[0]["optional"]
    assert str(TEMURIN_25) in working["25"]["detail"]
