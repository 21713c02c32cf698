"""`traceeval doctor`'s JDK rows: every JDK found, its version, and whether the tracer works on it.

Working is proved, not assumed: each JDK traces a tiny program (a call, a lambda, a JDK-class
frame merge) and must give exactly its edges. Probes run in parallel, once per process.
"""
from __future__ import annotations

import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

from core.dataset.layout import load_program
from core.errors import TracerError
from tracers.base import TraceOptions
from tracers.java import JavaTracer
from tracers.java_toolchain import chosen_javac, installed_jdks, jdk_at
from tracers.sandbox import Limits

PROBE_SOURCE = """import java.util.*;

public class Main {
    static int size(boolean linked) {
        AbstractList<String> list = linked ? new LinkedList<>() : new ArrayList<>();
        Runnable add = () -> list.add(word());
        add.run();
        return list.size();
    }

    static String word() {
        return "ok";
    }

    public static void main(String[] args) {
        System.out.println(size(true) + size(false));
    }
}
"""
PROBE_EDGES = {("Main:main(java.lang.String[])", "Main:size(boolean)"), ("Main:size(boolean)", "Main:word()")}
Row = tuple[str, bool, str]


def jdk_rows() -> tuple[list[Row], list[Row]]:
    """(the chosen JDK's row, or none; the other JDKs' rows): only the chosen one must work."""
    found = installed_jdks()
    chosen = chosen_javac()
    with ThreadPoolExecutor(max(1, min(4, len(found)))) as pool:
        rows = list(pool.map(lambda item: _row(*item, item == chosen), found))
    return ([row for item, row in zip(found, rows) if item == chosen],
            [row for item, row in zip(found, rows) if item != chosen])


@cache
def _row(javac: Path, source: str, chosen: bool) -> Row:
    home = javac.parent.parent
    where = f"{home} (from {source}{', chosen' if chosen else ''})"
    try:
        jdk = jdk_at(javac, source)
    except TracerError as error:
        return f"jdk: {home}", False, str(error)
    problem, seconds = probe(JavaTracer(jdk))
    if problem:
        return f"jdk: {jdk.version}", False, f"{where}: {problem}"
    return f"jdk: {jdk.version}", True, f"{where}: traced the probe program exactly in {seconds:.1f} s"


def probe(tracer: JavaTracer) -> tuple[str, float]:
    """('' or the problem, seconds): trace the probe program with `tracer` and compare its edges."""
    clock = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="traceeval-jdk-probe-") as folder:
            (Path(folder) / "Main.java").write_text(PROBE_SOURCE, encoding="utf-8")
            loaded = load_program(Path(folder), "java", [], require_ground_truth=False)
            if loaded is None:
                return "the probe program did not load", 0.0
            run = tracer.trace(loaded[0], TraceOptions(Limits(wall_s=60)))
    finally:
        tracer.close()
    if run.status != "ok":
        return f"the probe program ended {run.status}: {run.message}", 0.0
    got = {edge.edge for edge in run.edges}
    if got != PROBE_EDGES or run.warnings:
        return f"wrong edges for the probe program: {sorted(got)} {run.warnings}", 0.0
    return "", time.monotonic() - clock
