"""The Java tracer's toolchain: JDK/ASM discovery, the agent build, the warm compile server, the plan."""
from __future__ import annotations

import os
import shutil
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core.errors import TracerError
from tracers import java_toolchain
from tracers.java import TRACER
from tracers.java_compiler import CompileServer
from tracers.java_plan import class_key, descriptor_types

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "benchmark" / "java"
needs_jdk = pytest.mark.skipif(not TRACER.check().ok, reason="no JDK 17-25 / ASM here")


@needs_jdk
def test_check_names_the_jdk_and_asm(monkeypatch):
    status = TRACER.check()
    jdk = java_toolchain.find_jdk()
    assert status.ok and f"JDK {jdk.version}" in status.detail and "asm" in status.detail.lower()
    monkeypatch.delenv(java_toolchain.JAVA_HOME_ENV, raising=False)
    on_path = shutil.which("javac")
    if on_path:  # without the setting, PATH's javac (symlinks resolved), not a newer JDK in /usr/lib/jvm
        assert java_toolchain.find_jdk().javac == Path(os.path.realpath(on_path))


def test_missing_asm_says_which_package_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(java_toolchain, "ASM_FOLDER", tmp_path)
    with pytest.raises(TracerError, match="libasm-java"):
        java_toolchain.asm_jars()
    status = TRACER.check()
    assert not status.ok and "libasm-java" in status.detail


@needs_jdk
def test_agent_jar_is_built_into_the_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("TRACEEVAL_CACHE_DIR", str(tmp_path))
    jar = java_toolchain.agent_jar(java_toolchain.find_jdk())
    assert jar.is_file() and jar.parent.parent == tmp_path
    with zipfile.ZipFile(jar) as archive:
        manifest = archive.read("META-INF/MANIFEST.MF").decode()
        names = archive.namelist()
        header = archive.read("traceeval/agent/TraceAgent.class")[:8]
    assert int.from_bytes(header[6:8], "big") == 61  # class files of Java 17 (--release 17), whatever the JDK
    assert "Premain-Class: traceeval.agent.TraceAgent" in manifest and "asm.jar" in manifest
    assert "traceeval/agent/CompileServer.class" in names
    assert java_toolchain.agent_jar(java_toolchain.find_jdk()) == jar  # reused, not rebuilt


@needs_jdk
def test_compile_server_survives_a_crash_and_serves_threads(tmp_path):
    jdk = java_toolchain.find_jdk()
    classpath = ":".join(str(p) for p in (java_toolchain.agent_jar(jdk), *java_toolchain.asm_jars()))
    server = CompileServer(jdk.java, classpath)
    try:
        programs = sorted(DEMO.iterdir())

        def compile_one(index: int):
            root = programs[index % len(programs)]
            out = tmp_path / f"out{index}"
            out.mkdir()
            return server.compile(root, out, sorted(root.rglob("*.java")), 60)

        first = compile_one(0)
        assert first.ok and any(c.internal_name == "Main" for c in first.classes)
        server._process.kill()  # a dead server is restarted by the next request
        server._process.wait()
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(compile_one, range(1, 5)))
        assert all(result.ok for result in results)
        assert not server.compile(programs[0], tmp_path, [], 60).ok  # no files: an error, not a hang
        out = tmp_path / "slow"
        out.mkdir()
        late = server.compile(programs[0], out, sorted(programs[0].rglob("*.java")), 0.001)
        assert not late.ok and "did not finish" in late.errors[0].message
        assert compile_one(6).ok  # restarted after the timeout killed it
    finally:
        server.close()


def test_class_keys_follow_the_symbol_naming():
    assert class_key("com/acme/Outer$Inner") == ("com.acme", "Inner")
    assert class_key("Main$1") == ("", "Main$1")
    assert class_key("Main$1$1") == ("", "Main$1$1")
    assert class_key("Main$1Local") == ("", "Local")
    assert class_key("a/Outer$Inner$2") == ("a", "Inner$2")
    assert class_key("Main") == ("", "Main")


def test_descriptor_types_are_simple_names():
    assert descriptor_types("(Ljava/lang/String;[IJ[[La/B$C;)V") == ["String", "int[]", "long", "C[][]"]
    assert descriptor_types("()V") == []
