"""Static call-graph analyzers run as baseline models: which tools there are, and whether each can run here.

Each tool is a PyPI package (the `baselines` extra) run by a driver script of its own
(`tracers/static_runtime/run_<tool>.py`) in the interpreter that runs traced Python programs, inside the sandbox
(`tracers.static.runner`). A tool that cannot run here is named as unavailable with the reason; nothing stands in
for it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tracers.python_interpreter import InterpreterProblem, find_interpreter

RUNTIME_DIR = Path(__file__).resolve().parent.parent / "static_runtime"
EXTRA = "pip install 'traceeval-studio[baselines]'"


@dataclass(frozen=True)
class StaticTool:
    name: str  # the model is `static:<name>`
    title: str
    languages: tuple[str, ...]
    distribution: str  # the PyPI package
    probe: str  # Python run by the interpreter to say whether the tool imports: prints its version
    needs: tuple[tuple[str, str], ...]  # (language, an executable its analysis of that language runs)
    driver: str  # its script in RUNTIME_DIR ("" when no adapter is built)
    gap: str = ""  # why no adapter is built yet: the tool is listed, and named as unavailable with this reason
    # (the Debian package a tool without a PyPI distribution comes in, a file of it)
    package: tuple[str, str] = ("", "")

    @property
    def script(self) -> Path:
        return RUNTIME_DIR / self.driver


_VERSION = "from importlib import metadata; print(metadata.version({!r}))"
# PyCG 0.0.8's wheel names its package folder `PyCG` but imports `pycg`; its driver loads it under `pycg`.
_PYCG = ("import importlib.util, sys; from importlib import metadata\n"
         "if importlib.util.find_spec('pycg') is None and importlib.util.find_spec('PyCG') is None: sys.exit(1)\n"
         "print(metadata.version('pycg'))")
TOOLS = {tool.name: tool for tool in (
    StaticTool("pycg", "PyCG", ("python",), "pycg", _PYCG, (), "run_pycg.py"),
    StaticTool("pyan3", "pyan3", ("python",), "pyan3", "import pyan; " + _VERSION.format("pyan3"), (), "run_pyan.py"),
    StaticTool("code2flow", "code2flow", ("python", "javascript"), "code2flow",
               "import code2flow, os; assert os.path.isfile(os.path.join(os.path.dirname(code2flow.__file__), "
               "'node_modules', 'acorn', 'package.json')), 'no bundled acorn'; " + _VERSION.format("code2flow"),
               (("javascript", "node"),), "run_code2flow.py"),
    StaticTool("wala", "WALA", ("java",), "", "", (), "",
               gap="no adapter is built: WALA 1.5.2's class reader stops at Java 8 class files (\"unknown class "
                   "file version: 61.0\" on JDK 17's own classes); docs/baselines.md says what one needs",
               package=("libwala-java", "/usr/share/java/com.ibm.wala.core.jar")),
)}


@dataclass(frozen=True)
class ToolStatus:
    tool: str
    version: str  # "" when unavailable
    languages: dict[str, str]  # language -> "" when it can run, else why not
    problem: str = ""  # why the tool cannot run at all

    @property
    def available(self) -> bool:
        return not self.problem and any(not why for why in self.languages.values())


def tool(name: str) -> StaticTool:
    try:
        return TOOLS[name]
    except KeyError:
        raise ValueError(f"unknown analyzer {name!r} (one of {', '.join(TOOLS)})") from None


@cache
def tool_status(name: str) -> ToolStatus:
    """Whether `name` can run here (asked once per process): its version, and per language why not."""
    described = tool(name)
    if described.gap:
        package, file = described.package
        installed = f"{package} is installed" if os.path.isfile(file) else f"{package} is not installed"
        return ToolStatus(name, "", {}, f"{installed}, but {described.gap}")
    try:
        interpreter = find_interpreter()
    except InterpreterProblem as problem:
        return ToolStatus(name, "", {}, str(problem))
    try:
        done = subprocess.run([interpreter.path, "-I", "-c", described.probe], capture_output=True, text=True,
                              timeout=60, check=False, env={"PATH": os.environ.get("PATH", "")})
    except (OSError, subprocess.SubprocessError) as error:
        return ToolStatus(name, "", {}, f"{interpreter.path} does not run: {error}")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["not installed"])[-1][:200]
        return ToolStatus(name, "", {}, f"{described.distribution} is not installed for {interpreter.path} "
                                        f"({last}): {EXTRA}")
    needs = dict(described.needs)
    languages = {language: "" if language not in needs or shutil.which(needs[language]) else
                 f"{needs[language]} not found on PATH" for language in described.languages}
    return ToolStatus(name, done.stdout.strip(), languages)
