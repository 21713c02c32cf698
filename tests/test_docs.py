"""The project's documents point only at things that exist: README.md and docs/*.md.

Checked without importing anything (this also runs with Qt blocked): every repository path written in
backticks (`core/scoring/answers.py`, `tests/gui/`), every dotted name in backticks under our packages
(`core.scoring.answers.parse_answer`, `traceeval_gui.state.jobs.Job`, found by reading the module's source),
every relative link and image (and its `#anchor` when it names a Markdown heading). No document cites a file that lives
outside the repository, and the README lists every document in docs/.
"""
from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP_FOLDERS = ("core", "tracers", "traceeval_gui", "tests", "resources", "packaging", "docs", ".ci")
PACKAGES = ("core", "tracers", "traceeval_gui")
PATH = re.compile(rf"^(?:{'|'.join(re.escape(folder) for folder in TOP_FOLDERS)})/[\w./{{}},-]*$")
DOTTED = re.compile(rf"^(?:{'|'.join(PACKAGES)})(?:\.\w+)+$")
FENCE = re.compile(r"^ {0,4}```.*?^ {0,4}```[^\n]*$", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
OUTSIDE = ("DESIGN" + ".md", "TRACEEVAL" + ".md", "../" + "shared")  # split so this file does not cite them


def prose(path: Path) -> str:
    """The document without its fenced code blocks (commands and output, not references)."""
    return FENCE.sub("", path.read_text(encoding="utf-8"))


def code_spans(path: Path) -> list[str]:
    return re.findall(r"`([^`\n]+)`", prose(path))


def expand_braces(text: str) -> list[str]:
    """`core/symbols/{python,java}.py` -> both paths."""
    found = re.search(r"\{([^{}]*)\}", text)
    if found is None:
        return [text]
    return [expanded for choice in found.group(1).split(",")
            for expanded in expand_braces(text[:found.start()] + choice.strip() + text[found.end():])]


@cache
def module_file(dotted: str) -> Path | None:
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@cache
def defined_names(path: Path) -> dict[str, ast.AST]:
    """Top-level names of a module (functions, classes, assignments, imports) -> their node."""
    names: dict[str, ast.AST] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        names.update(_bound(node))
    return names


def _bound(node: ast.AST) -> dict[str, ast.AST]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name: node}
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {name.id: node for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0]: node for alias in node.names}
    return {}


def resolves(dotted: str) -> bool:
    """A module, or a name defined in one, or a name defined in a class of one."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        path = module_file(".".join(parts[:split]))
        if path is None:
            continue
        rest = parts[split:]
        if not rest:
            return True
        node = defined_names(path).get(rest[0])
        for name in rest[1:]:
            if not isinstance(node, ast.ClassDef):
                return False
            node = next((found for child in node.body for key, found in _bound(child).items() if key == name), None)
        return node is not None
    return False


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", prose(path), re.MULTILINE):
        base = anchor = slug(heading)
        number = 0
        while anchor in found:
            number += 1
            anchor = f"{base}-{number}"
        found.add(anchor)
    return found


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("document", DOCUMENTS, ids=relative)
def test_every_path_in_backticks_exists(document):
    missing = [span for span in code_spans(document) if PATH.match(span) and "<" not in span
               for path in expand_braces(span) if not (ROOT / path).exists()]
    assert not missing, f"{relative(document)} names paths that do not exist: {missing}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=relative)
def test_every_dotted_name_in_backticks_is_defined(document):
    missing = [span for span in code_spans(document) if DOTTED.match(span) and not resolves(span)]
    assert not missing, f"{relative(document)} names modules or functions that do not exist: {missing}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=relative)
def test_every_relative_link_resolves_inside_the_repository(document):
    broken = []
    for target in LINK.findall(prose(document)):
        if re.match(r"^[a-z]+:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        linked = (document.parent / file_part).resolve() if file_part else document
        missing = not linked.is_relative_to(ROOT) or not linked.exists()
        if missing or (anchor and linked.suffix == ".md" and anchor not in anchors(linked)):
            broken.append(target)
    assert not broken, f"{relative(document)} has links to nothing: {broken}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=relative)
def test_no_document_cites_a_file_outside_the_repository(document):
    text = document.read_text(encoding="utf-8")
    assert not [name for name in OUTSIDE if name in text]


def test_no_source_cites_the_missing_design_files():
    sources = [path for folder in PACKAGES + ("tests",) for path in (ROOT / folder).rglob("*.py")]
    citing = [relative(path) for path in sources + [ROOT / "pyproject.toml"]
              if any(name in path.read_text(encoding="utf-8", errors="replace") for name in OUTSIDE[:2])]
    assert not citing


def test_readme_lists_every_document():
    readme = prose(ROOT / "README.md")
    listed = set(re.findall(r"^- \[[^\]]+\]\((docs/[^)#]+\.md)\)", readme, re.MULTILINE))
    assert {relative(path) for path in DOCUMENTS[1:]} <= listed


def test_each_rule_section_of_the_benchmark_names_the_tests_that_check_it():
    sections = re.split(r"^## ", prose(ROOT / "docs" / "benchmark.md"), flags=re.MULTILINE)[1:]
    rules = [section for section in sections if not section.startswith("Known limits")]
    assert len(rules) >= 7
    for section in rules:
        checked = section.split("**Checked by**:", 1)
        assert len(checked) == 2 and re.search(r"`tests/[\w/]+\.py`", checked[1]), section.splitlines()[0]


def test_the_checks_catch_what_they_look_for():
    """The helpers on known names, so a pattern that silently matches nothing is noticed."""
    assert resolves("core.scoring.answers.parse_answer") and resolves("core.report.overlay.OverlayEdge.kind")
    assert resolves("core.symbols.extract_symbols") and resolves("core.errors")
    assert not resolves("core.scoring.answers.no_such_function")
    assert not resolves("core.report.overlay.OverlayEdge.nothing")
    assert expand_braces("core/symbols/{python,java}.py") == ["core/symbols/python.py", "core/symbols/java.py"]
    assert slug("Metric (paper parity)") == "metric-paper-parity" and slug("A spot-check audit") == "a-spot-check-audit"
    spans = code_spans(ROOT / "docs" / "architecture.md")
    assert sum(bool(PATH.match(span)) for span in spans) > 50 and sum(bool(DOTTED.match(span)) for span in spans) > 20
