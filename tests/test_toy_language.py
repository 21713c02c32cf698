"""A fourth language needs new modules only: a toy language, written by this test into a folder of its own
(its `Language`, a symbol extractor, naming rules, a worked example, an interpreter and a tracer), registered
at run time, goes through every layer: a dataset of `.toy` programs loads, entry points are found, symbols
extracted and placed, prompts built, answers parsed and scored, the program traced in the sandbox through the
normal tracer path, and the command line lists and accepts the language. A plugin's distribution adds it the
same way through the `traceeval.languages` entry-point group.

Toy syntax: `fn NAME:` starts a function whose body is the indented lines after it; `call NAME` calls a
function of the same file, `call MODULE.NAME` one of another file (`lib/util.toy` is the module `lib.util`);
`print TEXT` prints; `#` starts a comment. Lines that are not in a function run when the file is the entry file.
Names are dotted: the module node `main`, its functions `main.run`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.dataset.layout import load_dataset
from core.languages import by_suffix, get, load, names, registered
from core.llm.prompt_wording import STUDIO_WORDING
from core.llm.prompts import build_prompt
from core.scoring.answers import parse_answer
from core.scoring.rules import PAPER, STUDIO
from core.symbols import call_site_lines, extract_symbols
from tests.builders import write_program
from tests.cli_run import run

PACKAGE = "toylang_for_tests"

MODULES = {
    "__init__.py": '"""A toy language, written by tests/test_toy_language.py."""\n',
    "language.py": f'''
        from core.languages import Language

        LANGUAGE = Language(
            name="toy",
            title="Toy",
            suffixes=(".toy",),
            aliases=("tl",),
            entry_files=("main.toy",),
            entry_missing="main.toy not found",
            paper_suffix=".toy",
            fence_tag="toy",
            fence_names=("toy",),
            studio_example="{PACKAGE}.prompting:EXAMPLE",
            paper_normalisation="{PACKAGE}.naming:normalise",
            studio_normalisation="{PACKAGE}.naming:normalise",
            symbols="{PACKAGE}.symbols:SYMBOLS",
            tracer="{PACKAGE}.tracer:TRACER",
        )
    ''',
    "syntax.py": '''
        """The toy grammar, shared by the symbol extractor and the interpreter (standard library only)."""
        from dataclasses import dataclass, field


        @dataclass
        class Function:
            name: str  # qualified: module.name (the module node's name is the module itself)
            start: int
            end: int
            end_col: int
            calls: list = field(default_factory=list)  # (target as written, line)


        def module_name(path):
            return path[:-len(".toy")].replace("/", ".") if path.endswith(".toy") else path


        def parse(path, text):
            """(functions, problem): the module node first, then each `fn` in source order."""
            module = module_name(path)
            lines = text.split("\\n")
            top = Function(module, 1, len(lines), len(lines[-1]))
            functions, current, problem = [top], None, None
            for number, line in enumerate(lines, start=1):
                statement = line.strip()
                if not statement or statement.startswith("#"):
                    continue
                if line.startswith("fn ") and statement.endswith(":"):
                    current = Function(f"{module}.{statement[3:-1].strip()}", number, number, len(line))
                    functions.append(current)
                    continue
                owner = current if current is not None and line.startswith("    ") else top
                if owner is top:
                    current = None
                else:
                    owner.end, owner.end_col = number, len(line)
                if statement.startswith("call "):
                    owner.calls.append((statement[5:].strip(), number))
                elif not statement.startswith("print ") and problem is None:
                    problem = f"{path}: syntax error at line {number}"
            return functions, problem
    ''',
    "symbols.py": f'''
        from core.records import Node
        from core.symbols.dotted import DottedSymbols
        from core.symbols.scan import CallSite, FileScan
        from {PACKAGE}.syntax import module_name, parse


        def extract_file(path, text, want_calls=False):
            functions, problem = parse(path, text)
            scan = FileScan()
            for index, function in enumerate(functions):
                kind = "module" if index == 0 else "function"
                scan.nodes.append(Node(function.name, kind, path, function.start, 0, function.end, function.end_col))
                scan.call_names[function.name] = {{function.name.rpartition(".")[2]}}
                if want_calls:
                    scan.calls += [CallSite(function.name, target.rpartition(".")[2], line)
                                   for target, line in function.calls]
            return scan, problem


        SYMBOLS = DottedSymbols(extract_file, module_name, constructors=())
    ''',
    "naming.py": '''
        def normalise(name, modes):
            """Toy has no constructors and no standard library: every name is scored as written."""
            return name
    ''',
    "prompting.py": '''
        from core.llm.prompt_examples import WorkedExample

        EXAMPLE = WorkedExample(
            file="main.toy",
            code="fn start:\\n    call stop\\nfn stop:\\n    print done\\ncall start\\n",
            questions=('What are the module-level function calls in the file "main.toy"?',
                       'What are the function calls inside the "main.start" function in the file "main.toy"?',
                       'What are the function calls inside the "main.stop" function in the file "main.toy"?'),
            answers=("main.start", "main.stop", ""),
            naming='Names are the module and the function: "main.start"; the file itself is "main".',
        )
    ''',
    "interpreter.py": f'''
        """Runs a toy program and writes the trace log (tracers/trace_records.py) with the runtime's writer
        (tracers/python_runtime/log.py): `interpreter.py FOLDER ENTRY LOG_PY`."""
        import importlib.util
        import json
        import os
        import sys
        from pathlib import Path

        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from {PACKAGE}.syntax import module_name, parse  # noqa: E402


        def main(folder, entry, log_py):
            spec = importlib.util.spec_from_file_location("traceeval_log", log_py)
            writer = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(writer)
            log = writer.open_log(os.environ)  # before anything of the program runs
            functions = {{}}
            for path in sorted(Path(folder).rglob("*.toy")):
                relative = path.relative_to(folder).as_posix()
                for function in parse(relative, path.read_text(encoding="utf-8"))[0]:
                    functions[function.name] = function
            counts = {{}}

            def record(*fields):
                log.write(json.dumps(fields).encode())

            def run(function, depth=0):
                module = function.name if "." not in function.name else function.name.rsplit(".", 1)[0]
                for target, line in function.calls:
                    callee = functions.get(target if "." in target else f"{{module}}.{{target}}")
                    if callee is None:
                        raise NameError(f"no function {{target}} (line {{line}})")
                    site = (function.name, callee.name, line)
                    if site not in counts:
                        record("E", *site)
                    counts[site] = counts.get(site, 0) + 1
                    if depth < 50:
                        run(callee, depth + 1)
            try:
                run(functions[module_name(entry)])
            except NameError as error:
                record("X", f"NameError: {{error}}")
                return 1
            finally:
                log.write_all([json.dumps(["C", *site, count]).encode() for site, count in counts.items()])
                log.close()
            return 0


        if __name__ == "__main__":
            sys.exit(main(*sys.argv[1:4]))
    ''',
    "tracer.py": '''
        """The toy tracer: the interpreter run in the sandbox, its log read like every runtime's."""
        import sys
        import time
        from dataclasses import replace
        from pathlib import Path

        from core import traces
        from core.symbols import extract_symbols
        from tracers import tracelog
        from tracers.base import ToolchainStatus, TraceOptions
        from tracers.python_runtime import RUNTIME_DIR
        from tracers.run_folder import run_folder
        from tracers.sandbox import run_sandboxed
        from tracers.sandbox_view import install_root

        INTERPRETER = Path(__file__).with_name("interpreter.py")
        LOG_WRITER = Path(RUNTIME_DIR) / "log.py"


        class ToyTracer:
            language = "toy"
            name = "toy-interpreter"
            version = "1.0"

            def check(self):
                return ToolchainStatus("toy", True, f"toy interpreter on Python {sys.version.split()[0]}")

            def trace(self, instance, options=None):
                options = options or TraceOptions()
                started_at, clock = tracelog.now_iso(), time.perf_counter()
                sources = {path: instance.read_source(path) for path in instance.files if path.endswith(".toy")}
                table = extract_symbols("toy", sources)
                timings = {"symbols": time.perf_counter() - clock}
                if instance.entry_point not in sources:
                    return tracelog.stopped_run(self, instance.key, started_at, traces.NO_ENTRY_POINT,
                                                "no main.toy to run", nodes=table.nodes, timings=timings)
                clock = time.perf_counter()
                with run_folder(instance.root) as folder:
                    argv = [sys.executable, "-I", "-B", str(INTERPRETER), str(folder.program), instance.entry_point,
                            str(LOG_WRITER)]
                    result = run_sandboxed(argv, folder, limits=options.limits, cancel=options.cancel, trace_log=True,
                                           read_only=[*install_root(sys.executable), INTERPRETER.parent, LOG_WRITER])
                timings["run"] = time.perf_counter() - clock
                run = tracelog.build_run(
                    instance_key=instance.key, language="toy", tracer=self.name, version=self.version,
                    started_at=started_at, nodes=table.nodes, result=result, limits=options.limits,
                    name_of=lambda frame: frame if frame in table.by_name else None, keep_self_edges=False,
                    timings=timings, warnings=folder.notes)
                return replace(run, duration_s=sum(timings.values()), timings=timings)


        TRACER = ToyTracer()
    ''',
}

MAIN = """\
# a toy program
fn run:
    call lib.greet
    call helper
fn helper:
    call lib.say
call run
"""
LIB = """\
fn greet:
    call say
fn say:
    print hello
"""
TRUTH = {"main": ["main.run"], "main.run": ["lib.greet", "main.helper"], "main.helper": ["lib.say"],
         "lib": [], "lib.greet": ["lib.say"], "lib.say": []}
EDGES = {(caller, callee) for caller, callees in TRUTH.items() for callee in callees}


def write_toy_language(folder: Path) -> Path:
    """The toy language's package in `folder` (which goes on sys.path)."""
    package = folder / PACKAGE
    package.mkdir(parents=True)
    for name, text in MODULES.items():
        (package / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """The toy language, registered for this module's tests (and only for them)."""
    folder = write_toy_language(tmp_path_factory.mktemp("toy_language"))
    sys.path.insert(0, str(folder))
    try:
        with registered(load(f"{PACKAGE}.language:LANGUAGE")) as language:
            yield language
    finally:
        sys.path.remove(str(folder))
        for module in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[module]


@pytest.fixture
def dataset(tmp_path, toy):
    root = tmp_path / "ds"
    write_program(root / "benchmark" / "toy" / "toy_0001", {"main.toy": MAIN, "lib.toy": LIB}, TRUTH)
    write_program(root / "benchmark" / "python" / "py_0001", {"main.py": "def f():\n    pass\n\nf()\n"},
                  {"main": ["main.f"], "main.f": []})
    return root


def test_the_registry_knows_it_after_the_papers_three(toy):
    assert names() == ("python", "javascript", "java", "toy")
    assert get("TL") is toy and by_suffix("games/snake.toy") is toy


def test_a_toy_dataset_loads_with_its_entry_points(dataset):
    loaded = load_dataset(dataset)
    assert [p for p in loaded.problems if p.severity == "error"] == []
    toy = {instance.key: instance for instance in loaded.instances}["toy/toy_0001"]
    assert toy.language == "toy" and toy.entry_point == "main.toy"
    assert sorted(toy.files) == ["lib.toy", "main.toy"]
    assert toy.ground_truth.edges == tuple((c, e) for c, es in TRUTH.items() for e in es)


def test_symbols_are_extracted_placed_and_their_call_sites_found(toy):
    files = {"main.toy": MAIN, "lib.toy": LIB, "README.md": "not code"}
    table = extract_symbols("toy", files)
    assert [node.name for node in table.nodes] == ["main", "main.run", "main.helper", "lib", "lib.greet", "lib.say"]
    assert (table.by_name["main.run"].start_line, table.by_name["main.run"].end_line) == (2, 4)
    assert table.place("lib/greet") is table.by_name["lib.greet"]  # tolerant placement, as for dotted names
    assert table.place("helper") is table.by_name["main.helper"]
    assert call_site_lines(table, files, "main.run", "lib.greet") == [3]
    assert call_site_lines(table, files, "main", "main.run") == [7]
    assert extract_symbols("toy", {"main.toy": "jump\n"}).problems == ("main.toy: syntax error at line 1",)


def test_prompts_are_built_in_both_rule_sets(dataset):
    instance = next(i for i in load_dataset(dataset).instances if i.language == "toy")
    paper = build_prompt(instance, rules=PAPER)
    assert "```lib.toy\n" in paper.user and "```main.toy\n" in paper.user  # the release's code section
    assert '1. What are the module-level function calls in the file "main.toy"?' in paper.user
    assert '2. What are the function calls inside the "main.run" function in the file "main.toy"?' in paper.user
    assert "Toy" in paper.system
    studio = build_prompt(instance, rules=STUDIO, wording=STUDIO_WORDING)
    assert "File: main.toy\n```toy\n" in studio.user
    assert "**Example Toy Code**" in studio.user and "call stop" in studio.user  # the toy's own worked example
    assert '"lib.say" function in the file "lib.toy"' in studio.user


def test_answers_are_parsed_and_scored_on_the_command_line(dataset, tmp_path, capsys):
    instance = next(i for i in load_dataset(dataset).instances if i.language == "toy")
    keys = instance.ground_truth.keys
    answer = "1. main.run\n2. lib.greet, main.helper, lib.nothing\n3. lib.say\n4.\n5.\n6."
    parsed = parse_answer(answer, keys)
    assert parsed.graph.edges == (("main", "main.run"), ("main.run", "lib.greet"), ("main.run", "main.helper"),
                                  ("main.run", "lib.nothing"), ("main.helper", "lib.say"))
    results = tmp_path / "answers.jsonl"
    results.write_text(json.dumps({"instance_id": "toy_0001", "language": "toy", "model": "m",
                                   "raw_response": answer}) + "\n")
    ws = ["--workspace", tmp_path / "w.sqlite"]
    assert run(capsys, "import-results", dataset, results, *ws)[0] == 0
    code, out, err = run(capsys, "score", dataset, "--languages", "tl", "--split", "all", "--format", "json", *ws)
    assert code == 0, err
    row = json.loads(out)["rows"][0]["languages"]["toy"]
    # TP 4 (all but lib.greet -> lib.say), FP 1 (lib.nothing), FN 1
    assert (row["precision"], row["recall"], row["f1"]) == (pytest.approx(0.8), pytest.approx(0.8), pytest.approx(0.8))
    code, out, _ = run(capsys, "info", dataset, "--format", "json", *ws)
    assert code == 0 and json.loads(out)["languages"]["toy"]["programs"] == 1


def test_the_program_is_traced_through_the_normal_tracer_path(dataset, tmp_path, capsys):
    from tracers import check_toolchains, trace_instance

    instance = next(i for i in load_dataset(dataset).instances if i.language == "toy")
    traced = trace_instance(instance)
    assert traced.status == "ok", (traced.status, traced.message, traced.stderr_tail)
    assert {(e.caller, e.callee) for e in traced.edges} == EDGES
    assert next(e for e in traced.edges if e.caller == "main.run" and e.callee == "lib.greet").lines == (3,)
    assert any(status.language == "toy" and status.ok for status in check_toolchains())
    code, out, err = run(capsys, "trace", dataset / "benchmark" / "toy" / "toy_0001", "--language", "toy",
                         "--workspace", tmp_path / "w.sqlite")
    assert code == 0, err
    assert json.loads(out) == TRUTH


def test_a_plugin_adds_the_language_through_the_entry_point_group(tmp_path):
    """A distribution on the path that names the toy `Language` in `traceeval.languages`: a fresh `traceeval`
    process lists and accepts it, with no registration in code."""
    folder = write_toy_language(tmp_path / "site")
    info = folder / "toylang_for_tests-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toylang-for-tests\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[traceeval.languages]\ntoy = {PACKAGE}.language:LANGUAGE\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-m", "traceeval_gui.cli.main", "trace", "--help"], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "{python,javascript,java,toy}" in done.stdout
