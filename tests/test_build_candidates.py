"""Finding candidate targets in a repository and gathering the files each needs (core.instances.candidates,
core.instances.program_files), over the six test repositories in tests/build_repos and small ones built here."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from core.errors import BuildError
from core.instances.candidates import find_candidates
from core.instances.program_files import FileGatherer, entry_clash, gather_files, harness_path, repository_sources
from core.instances.records import ENTRY_NAME_TAKEN, EXTRACTION_FAILED, THIRD_PARTY, Candidate
from core.symbols import extract_symbols
from tests.builders import write_program

ROOT = Path(__file__).resolve().parent.parent
REPOS = ROOT / "tests" / "build_repos"
HARNESSES = REPOS / "harnesses"
SIX = [("python", "geomkit"), ("python", "textstats"), ("javascript", "cartkit"), ("javascript", "mdlite"),
       ("java", "bankcore"), ("java", "graphutil")]
EXPECTED = {
    "geomkit": ["geomkit.measure.summary", "geomkit.shapes.Shape", "geomkit.shapes.Shape.describe",
                "geomkit.measure.make_shapes", "geomkit.shapes.Circle", "geomkit.shapes.Circle.scaled"],
    "textstats": ["textstats.report.build_report", "textstats.report.compare",
                  "textstats.counts.average_sentence_length", "textstats.counts.Vocabulary"],
    "cartkit": ["index.quickTotal", "cart.Cart", "cart.Cart.total", "cart.Cart.receipt", "format.line",
                "pricing.finalPrice"],
    "mdlite": ["parser.parse", "escape.escapeText", "parser.parseHeading", "parser.flushParagraph",
               "render.renderBlock", "render.render"],
    "bankcore": ["org.bank.report.Statement", "org.bank.report.Statement:render(org.bank.Ledger,java.lang.String)",
                 "org.bank.Account", "org.bank.Ledger", "org.bank.Transfer",
                 "org.bank.Transfer:applyTo(org.bank.Ledger)"],
    "graphutil": ["net.graphs.Bfs:shortest(net.graphs.Graph,java.lang.String,java.lang.String)", "net.graphs.Bfs",
                  "net.graphs.Dfs", "net.graphs.Dfs:hasCycle(net.graphs.Graph)"],
}
_found: dict[tuple[str, str], tuple] = {}


def found(language: str, repo: str):
    """find_candidates over one of the six repositories, computed once per test session."""
    if (language, repo) not in _found:
        _found[(language, repo)] = find_candidates(REPOS / language / repo, language)
    return _found[(language, repo)]


def candidate(language: str, repo: str, name: str) -> Candidate:
    return next(c for c in found(language, repo)[0] if c.name == name)


def program_texts(language: str, repo: str, c: Candidate) -> dict[str, str]:
    return {program: (REPOS / language / repo / original).read_text(encoding="utf-8")
            for program, original in c.files.items()}


# -- the six repositories ------------------------------------------------------------------


@pytest.mark.parametrize("language,repo", SIX)
def test_candidates_of_the_test_repositories_in_order(language, repo):
    candidates, _ = found(language, repo)
    assert [c.name for c in candidates] == EXPECTED[repo]
    assert all(len(c.internal_callees) >= 2 for c in candidates)
    counts = [len(c.internal_callees) for c in candidates]
    assert counts == sorted(counts, reverse=True)


@pytest.mark.parametrize("language,repo", SIX)
def test_candidate_names_are_the_finished_programs_node_names(language, repo):
    for c in found(language, repo)[0]:
        texts = program_texts(language, repo, c)
        table = extract_symbols(language, texts)
        assert next(iter(c.files)) == c.file
        if c.kind == "class":
            node = next(n for n in table.classes if n.name == c.name)
            assert c.members and all(member in table.by_name for member in c.members)
        else:
            node = table.by_name[c.name]
            assert c.members == ()
        assert (node.file, node.start_line) == (c.file, c.line)
        assert all(callee in table.by_name for callee in c.internal_callees)
        assert c.name not in c.internal_callees


@pytest.mark.parametrize("language,repo", SIX)
def test_every_candidate_has_a_canned_harness(language, repo):
    folder = HARNESSES / language / repo
    harnesses = {path.relative_to(folder).as_posix()[:-len(".txt")] for path in folder.rglob("*.txt")}
    assert harnesses == {c.name for c in found(language, repo)[0]}


def test_candidates_are_deterministic_across_hash_seeds():
    script = ("import sys; from pathlib import Path; from core.instances.candidates import find_candidates\n"
              "for language, repo in [('python', 'geomkit'), ('javascript', 'cartkit'), ('java', 'bankcore')]:\n"
              "    c, p = find_candidates(Path(sys.argv[1]) / language / repo, language)\n"
              "    print(repr([(x.name, x.internal_callees, list(x.files.items()), x.members) for x in c]), p)\n")
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run([sys.executable, "-c", script, str(REPOS)], cwd=ROOT, env=env,
                                capture_output=True, text=True, check=False, timeout=120)
        assert result.returncode == 0, result.stderr
        outputs.add(result.stdout)
    assert len(outputs) == 1
    assert find_candidates(REPOS / "python" / "geomkit", "python") == found("python", "geomkit")


def test_test_folders_and_files_of_the_repositories_are_skipped():
    assert "tests/test_shapes.py" not in repository_sources(REPOS / "python" / "geomkit", "python")
    assert sorted(repository_sources(REPOS / "java" / "bankcore", "java")) == [
        "src/main/java/org/bank/Account.java", "src/main/java/org/bank/Ledger.java",
        "src/main/java/org/bank/Money.java", "src/main/java/org/bank/Transfer.java",
        "src/main/java/org/bank/report/Statement.java"]


@pytest.mark.parametrize("language,repo,name,needle", [
    ("python", "geomkit", "geomkit.plot.plot_summary", "geomkit/plot.py imports numpy"),
    ("javascript", "cartkit", "lib/legacy.summarise", "lib/legacy.js imports lodash"),
    ("java", "graphutil", "net.graphs.Cache:route(java.lang.String,java.lang.String)",
     "src/main/java/net/graphs/Cache.java imports com.google.common.cache.CacheBuilder"),
])
def test_third_party_imports_are_problems_naming_the_import(language, repo, name, needle):
    problem = next(p for p in found(language, repo)[1] if p.name == name)
    assert problem.reason == THIRD_PARTY
    assert problem.detail.startswith(needle)
    assert "\n" not in problem.detail


def test_an_optional_import_in_the_repository_is_ignored():
    """geomkit/measure.py imports yaml inside try/except ImportError: its targets are candidates."""
    summary = candidate("python", "geomkit", "geomkit.measure.summary")
    assert summary.files == {"geomkit/measure.py": "geomkit/measure.py", "geomkit/__init__.py": "geomkit/__init__.py",
                             "geomkit/shapes.py": "geomkit/shapes.py", "geomkit/units.py": "geomkit/units.py"}
    assert all(p.file != "geomkit/measure.py" for p in found("python", "geomkit")[1])


def test_python_src_layout_maps_to_the_package():
    report = candidate("python", "textstats", "textstats.report.build_report")
    assert report.file == "textstats/report.py"
    assert report.files == {"textstats/report.py": "src/textstats/report.py",
                            "textstats/__init__.py": "src/textstats/__init__.py",
                            "textstats/counts.py": "src/textstats/counts.py",
                            "textstats/tokenize_text.py": "src/textstats/tokenize_text.py"}
    assert report.original_file == "src/textstats/report.py"
    assert report.internal_callees == ("textstats.tokenize_text.sentences", "textstats.counts.average_sentence_length",
                                       "textstats.counts.top_words", "textstats.report.format_table")
    vocabulary = candidate("python", "textstats", "textstats.counts.Vocabulary")
    assert vocabulary.kind == "class"
    assert vocabulary.members == ("textstats.counts.Vocabulary.__init__", "textstats.counts.Vocabulary.richness")
    assert "textstats/report.py" not in vocabulary.files


def test_java_program_paths_follow_packages_and_pull_in_other_packages():
    render = candidate("java", "bankcore", "org.bank.report.Statement:render(org.bank.Ledger,java.lang.String)")
    assert render.kind == "method"
    assert render.files == {
        "org/bank/report/Statement.java": "src/main/java/org/bank/report/Statement.java",
        "org/bank/Ledger.java": "src/main/java/org/bank/Ledger.java",
        "org/bank/Account.java": "src/main/java/org/bank/Account.java",
        "org/bank/Money.java": "src/main/java/org/bank/Money.java",
        "org/bank/Transfer.java": "src/main/java/org/bank/Transfer.java"}
    texts = program_texts("java", "bankcore", render)
    assert harness_path("java", render.file, texts) == "org/bank/report/Main.java"
    account = candidate("java", "bankcore", "org.bank.Account")
    assert list(account.files) == ["org/bank/Account.java", "org/bank/Money.java"]
    assert harness_path("java", account.file, program_texts("java", "bankcore", account)) == "org/bank/Main.java"


def test_javascript_layout_json_data_and_es_modules():
    cart = candidate("javascript", "cartkit", "cart.Cart")
    assert cart.files == {"cart.js": "lib/cart.js", "pricing.js": "lib/pricing.js", "format.js": "lib/format.js",
                          "tax-rates.json": "lib/tax-rates.json"}
    assert cart.members == ("cart.Cart.constructor", "cart.Cart.addItem", "cart.Cart.subtotal", "cart.Cart.total",
                            "cart.Cart.receipt")
    quick = candidate("javascript", "cartkit", "index.quickTotal")
    assert list(quick.files) == ["index.js", "lib/cart.js", "lib/pricing.js", "lib/format.js", "lib/tax-rates.json"]
    assert "lib/cart.Cart.constructor" in quick.internal_callees
    parse = candidate("javascript", "mdlite", "parser.parse")
    assert parse.files == {"parser.js": "src/parser.js", "util/strings.js": "src/util/strings.js",
                           "package.json": "package.json"}
    assert all("package.json" not in c.files for c in found("javascript", "cartkit")[0])


def test_harness_paths():
    assert harness_path("python", "textstats/report.py", {}) == "main.py"
    assert harness_path("javascript", "cart.js", {}) == "main.js"
    assert harness_path("java", "Tool.java", {"Tool.java": "class Tool {}"}) == "Main.java"
    assert harness_path("java", "a/b/C.java", {"a/b/C.java": "package a.b;\nclass C {}"}) == "a/b/Main.java"


# -- small repositories built here ---------------------------------------------------------


def test_repository_sources_skips_what_is_not_the_programs_source(tmp_path):
    repo = write_program(tmp_path / "repo", {
        "pkg/core.py": "X = 1\n", "pkg/test_core.py": "", "pkg/core_test.py": "", "conftest.py": "",
        "tests/helpers.py": "", "test/x.py": "", "spec/y.py": "", "src/test/z.py": "", "__tests__/w.py": "",
        ".venv/lib/site.py": "", ".git/hook.py": "", "node_modules/m/index.py": "", "venv/a.py": "", "env/b.py": "",
        "build/lib/c.py": "", "dist/d.py": "", "vendor/e.py": "", "third_party/f.py": "", "target/g.py": "",
        "out/h.py": "", "pkg/__pycache__/i.py": "", "lib/site-packages/j.py": "",
        "big.py": "x = 1\n" * 40_000, "latin1.py": "s = 'caf\xe9'\n".encode("latin-1"), "README.md": "",
        "web/app.js": "", "web/app.test.js": "", "web/app.spec.js": "", "web/data.json": "{}",
        "java/Foo.java": "class Foo {}", "java/FooTest.java": "", "java/FooTests.java": "",
    })
    outside = write_program(tmp_path / "outside", {"secret.py": "KEY = 1\n"})
    (repo / "pkg" / "linked.py").symlink_to(outside / "secret.py")
    (repo / "pkg" / "alias.py").symlink_to(repo / "pkg" / "core.py")
    assert list(repository_sources(repo, "python")) == ["pkg/alias.py", "pkg/core.py"]
    assert repository_sources(repo, "python")["pkg/core.py"] == "X = 1\n"
    assert list(repository_sources(repo, "javascript")) == ["web/app.js", "web/data.json"]
    assert list(repository_sources(repo, "java")) == ["java/Foo.java"]


def test_python_imports_relative_absolute_packages_and_submodules():
    sources = {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "from . import helpers\n",
        "pkg/sub/run.py": "from .helpers import fmt\nfrom . import other\nimport os.path\n",
        "pkg/sub/helpers.py": "from ..core import base\nfrom .. import util\nfmt = str\n",
        "pkg/sub/other.py": "from pkg.core.base import VALUE\n",
        "pkg/core/__init__.py": "",
        "pkg/core/base.py": "import pkg.util as u\nVALUE = 1\n",
        "pkg/util.py": "",
        "pkg/unused.py": "",
    }
    file_set = gather_files(sources, "python", "pkg/sub/run.py")
    assert file_set.ok
    assert list(file_set.files) == ["pkg/sub/run.py", "pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/helpers.py",
                                    "pkg/sub/other.py", "pkg/core/__init__.py", "pkg/core/base.py", "pkg/util.py"]


def test_python_program_path_is_below_the_source_root_the_file_was_found_under():
    sources = {"tools/run.py": "from textstats import counts\nimport helper\n", "tools/helper.py": "",
               "src/textstats/__init__.py": "", "src/textstats/counts.py": ""}
    assert gather_files(sources, "python", "tools/run.py").files == {
        "run.py": "tools/run.py", "textstats/__init__.py": "src/textstats/__init__.py",
        "textstats/counts.py": "src/textstats/counts.py", "helper.py": "tools/helper.py"}


@pytest.mark.parametrize("code,optional", [
    ("try:\n    import yaml\nexcept ImportError:\n    yaml = None\n", True),
    ("try:\n    import ujson as json\nexcept ModuleNotFoundError:\n    import json\n", True),
    ("try:\n    from lxml import etree\nexcept (ValueError, ImportError) as error:\n    etree = None\n", True),
    ("try:\n    import yaml\nexcept Exception:\n    pass\n", True),
    ("try:\n    import yaml\nexcept:\n    pass\n", True),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pandas\n", True),
    ("try:\n    import yaml\nexcept ValueError:\n    pass\n", False),
    ("try:\n    pass\nexcept ImportError:\n    import yaml\n", False),
    ("def later():\n    import yaml\n", False),
])
def test_optional_python_imports(code, optional):
    file_set = gather_files({"mod.py": code}, "python", "mod.py")
    assert file_set.ok == optional
    if not optional:
        assert file_set.reason == THIRD_PARTY
        assert file_set.detail == "mod.py imports yaml, which is neither in the repository nor in the standard library"


def test_python_missing_repository_module_and_syntax_errors_are_extraction_failures():
    sources = {"pkg/__init__.py": "", "pkg/a.py": "import pkg.nope\n", "pkg/b.py": "from .gone import x\n",
               "pkg/c.py": "from . import bad\n", "pkg/bad.py": "def broken(:\n    pass\n"}
    missing = gather_files(sources, "python", "pkg/a.py")
    assert (missing.reason, missing.detail) == (EXTRACTION_FAILED,
                                                "pkg/a.py imports pkg.nope, which is not in the repository")
    gone = gather_files(sources, "python", "pkg/b.py")
    assert gone.detail == "pkg/b.py imports .gone, which is not in the repository"
    broken = gather_files(sources, "python", "pkg/c.py")
    assert (broken.reason, broken.detail) == (EXTRACTION_FAILED, "cannot parse pkg/bad.py: syntax error at line 1")


def test_javascript_imports_relative_index_json_core_modules_and_packages():
    sources = {
        "src/a.js": ("const b = require('../lib/b.js');\nconst fs = require('fs');\nconst p = require('node:path');\n"
                     "const data = require('./data.json');\nimport('./c').then(() => 0);\nconst d = require('./d');\n"
                     "try { require('fsevents'); } catch (error) {}\n"),
        "lib/b.js": "module.exports = require('./sub');\n",
        "lib/sub/index.js": "export * from '../e.mjs';\n",
        "lib/e.mjs": "import { EventEmitter } from 'events';\nexport const e = 1;\n",
        "src/c.cjs": "", "src/d.js": "module.exports = 1;\n", "src/data.json": '{"a": 1}',
        "src/uses_pkg.js": "const deep = require('@scope/pkg/deep');\n",
        "src/missing.js": "require('./nowhere');\n",
        "src/bad.js": "require('./broken.json');\n", "src/broken.json": "{nope",
    }
    file_set = gather_files(sources, "javascript", "src/a.js")
    assert file_set.files == {"src/a.js": "src/a.js", "lib/b.js": "lib/b.js", "src/data.json": "src/data.json",
                              "src/c.cjs": "src/c.cjs", "src/d.js": "src/d.js", "lib/sub/index.js": "lib/sub/index.js",
                              "lib/e.mjs": "lib/e.mjs"}
    assert gather_files(sources, "javascript", "src/d.js").files == {"d.js": "src/d.js"}
    third = gather_files(sources, "javascript", "src/uses_pkg.js")
    assert (third.reason, third.detail) == (
        THIRD_PARTY, "src/uses_pkg.js imports @scope/pkg, which is neither in the repository nor a Node core module")
    missing = gather_files(sources, "javascript", "src/missing.js")
    assert (missing.reason, missing.detail) == (EXTRACTION_FAILED,
                                                "src/missing.js imports ./nowhere, which is not in the repository")
    assert gather_files(sources, "javascript", "src/bad.js").detail.startswith("cannot parse src/broken.json")


def test_javascript_es_module_package_json_is_the_nearest_one():
    sources = {"package.json": '{"type": "module"}', "app/package.json": '{"name": "app"}',
               "app/run.js": "import { x } from './x.js';\n", "app/x.js": "export const x = 1;\n",
               "lib/run.js": "import { y } from './y.js';\n", "lib/y.js": "export const y = 2;\n"}
    assert gather_files(sources, "javascript", "app/run.js").files == {"run.js": "app/run.js", "x.js": "app/x.js"}
    assert gather_files(sources, "javascript", "lib/run.js").files == {"run.js": "lib/run.js", "y.js": "lib/y.js",
                                                                       "package.json": "package.json"}


def test_java_resolution_imports_on_demand_static_and_qualified_names():
    sources = {
        "src/com/x/App.java": ("package com.x;\nimport com.x.util.*;\nimport static com.x.model.Point.origin;\n"
                               "public class App {\n    void run() { Helper.go(); com.x.model.Shape s = null; "
                               "java.util.List<Item> items; }\n}\n"),
        "src/com/x/Item.java": "package com.x;\nclass Item {}\n",
        "src/com/x/util/Helper.java": "package com.x.util;\npublic class Helper { public static void go() {} }\n",
        "src/com/x/util/Unused.java": "package com.x.util;\npublic class Unused {}\n",
        "src/com/x/model/Point.java": "package com.x.model;\npublic class Point { public static Point origin() "
                                      "{ return null; } }\n",
        "src/com/x/model/Shape.java": "package com.x.model;\npublic interface Shape {}\n",
        "src/com/x/Star.java": "package com.x;\nimport com.x.model.*;\nclass Star {}\n",
        "src/com/x/Gone.java": "package com.x;\nimport com.x.model.Missing;\nclass Gone {}\n",
        "src/com/x/Ext.java": ("package com.x;\nimport javax.swing.JFrame;\nimport org.w3c.dom.Node;\n"
                               "import org.apache.commons.lang3.StringUtils;\nclass Ext {}\n"),
    }
    assert gather_files(sources, "java", "src/com/x/App.java").files == {
        "com/x/App.java": "src/com/x/App.java", "com/x/model/Point.java": "src/com/x/model/Point.java",
        "com/x/util/Helper.java": "src/com/x/util/Helper.java", "com/x/Item.java": "src/com/x/Item.java",
        "com/x/model/Shape.java": "src/com/x/model/Shape.java"}
    # an on-demand import of a package nothing is used from still needs one of its files to compile
    assert list(gather_files(sources, "java", "src/com/x/Star.java").files) == ["com/x/Star.java",
                                                                                "com/x/model/Point.java"]
    gone = gather_files(sources, "java", "src/com/x/Gone.java")
    assert gone.reason == EXTRACTION_FAILED
    assert gone.detail == "src/com/x/Gone.java imports com.x.model.Missing, which is not in the repository"
    ext = gather_files(sources, "java", "src/com/x/Ext.java")
    assert ext.reason == THIRD_PARTY
    assert ext.detail == ("src/com/x/Ext.java imports org.apache.commons.lang3.StringUtils, "
                          "which is neither in the repository nor in the JDK")


def test_java_two_files_with_one_program_path_cannot_be_gathered():
    sources = {"a/p/Start.java": "package p;\nclass Start { Foo foo; Bar bar; }\n",
               "a/p/Foo.java": "package p;\nclass Foo {}\n",
               "b/p/Foo.java": "package p;\nclass Bar {}\n"}
    file_set = gather_files(sources, "java", "a/p/Start.java")
    assert file_set.reason == EXTRACTION_FAILED
    assert file_set.detail == "a/p/Foo.java and b/p/Foo.java would both be p/Foo.java in the program"


def test_too_many_files_is_an_extraction_failure(tmp_path):
    chain = {f"m{i}.py": f"import m{i + 1}\n\ndef f{i}():\n    return m{i + 1}.f{i + 1}() + g{i}()\n\n\n"
                         f"def g{i}():\n    return 1\n" for i in range(5)}
    chain["m5.py"] = "def f5():\n    return 5\n"
    file_set = gather_files(chain, "python", "m0.py", max_files=3)
    assert (file_set.reason, file_set.detail) == (EXTRACTION_FAILED, "m0.py needs 6 files, more than --max-files 3")
    assert len(gather_files(chain, "python", "m0.py", max_files=6).files) == 6
    candidates, problems = find_candidates(write_program(tmp_path, chain), "python", max_files=3)
    assert [c.name for c in candidates] == ["m3.f3", "m4.f4"]
    assert [(p.name, p.reason) for p in problems] == [("m0.f0", EXTRACTION_FAILED), ("m1.f1", EXTRACTION_FAILED),
                                                      ("m2.f2", EXTRACTION_FAILED)]
    assert problems[1].detail == "m1.py needs 5 files, more than --max-files 3"


def test_a_gatherer_resolves_each_file_once_across_start_files():
    sources = {"a.py": "import shared\n", "b.py": "import shared\n", "shared.py": "import os\n"}
    gatherer = FileGatherer(sources, "python")
    assert gatherer.gather("a.py").files == {"a.py": "a.py", "shared.py": "shared.py"}
    resolved = gatherer.dependencies("shared.py")
    assert gatherer.gather("b.py").files == {"b.py": "b.py", "shared.py": "shared.py"}
    assert gatherer.dependencies("shared.py") is resolved


# -- entry clashes -------------------------------------------------------------------------

USES_MAIN_PY = {
    "app/__init__.py": "",
    "app/main.py": "def banner():\n    return 'hi'\n",
    "app/tools.py": "def shout(text):\n    return text.upper()\n",
    "app/cli.py": "from app import main, tools\n\n\ndef run():\n    return tools.shout(main.banner())\n",
    "main.py": "from app.cli import run\n\nprint(run())\n",
    "report.py": ("import main\nfrom app import tools\n\n\ndef build():\n    return tools.shout(main.__name__) + "
                  "helper()\n\n\ndef helper():\n    return '!'\n"),
}


def test_python_program_with_its_own_main_py_at_the_root_is_an_entry_clash(tmp_path):
    candidates, problems = find_candidates(write_program(tmp_path, USES_MAIN_PY), "python")
    assert [c.name for c in candidates] == ["app.cli.run"]  # app/main.py is not at the program root
    assert [(p.name, p.reason, p.detail) for p in problems] == [
        ("report.build", ENTRY_NAME_TAKEN, "the program already has main.py")]


def test_java_program_with_a_main_class_declaring_main_is_an_entry_clash(tmp_path):
    repo = write_program(tmp_path, {
        "src/main/java/demo/Main.java": ("package demo;\n\npublic class Main {\n"
                                         "    public static void main(String[] args) {\n"
                                         "        System.out.println(Util.twice(Util.one()));\n    }\n}\n"),
        "src/main/java/demo/Util.java": ("package demo;\n\npublic class Util {\n"
                                         "    public static int one() { return 1; }\n"
                                         "    public static int twice(int x) { return x * 2; }\n"
                                         "    public static int both() { return twice(one()); }\n}\n"),
        "src/main/java/demo/app/Runner.java": ("package demo.app;\n\nimport demo.Main;\nimport demo.Util;\n\n"
                                               "public class Runner {\n"
                                               "    void go() { Main.main(new String[0]); Util.one(); }\n}\n"),
    })
    candidates, problems = find_candidates(repo, "java")
    assert [c.name for c in candidates] == ["demo.Util:both()"]  # its program does not need demo/Main.java
    assert [(p.name, p.reason) for p in problems] == [("demo.app.Runner", ENTRY_NAME_TAKEN),
                                                      ("demo.app.Runner:go()", ENTRY_NAME_TAKEN)]
    assert problems[0].detail == "demo/Main.java already declares main, the entry point would be ambiguous"


def test_entry_clash_rules():
    assert entry_clash("python", {"main.py": "", "lib.py": ""}, "main.py") == "the program already has main.py"
    assert entry_clash("python", {"pkg/main.py": ""}, "main.py") == ""
    assert entry_clash("javascript", {"main.js": "", "lib.js": ""}, "main.js") == "the program already has main.js"
    assert entry_clash("java", {"a/Main.java": "package a;\nclass Main {}\n"}, "a/Main.java") == \
        "the program already has a/Main.java"
    tool = "public class Tool { public static void main(String[] args) {} }\n"
    assert entry_clash("java", {"Tool.java": tool}, "Main.java") == \
        "Tool.java declares main in the default package, next to the harness"
    assert entry_clash("java", {"p/Tool.java": "package p;\n" + tool}, "p/Main.java") == ""
    assert entry_clash("java", {"Tool.java": tool}, "p/Main.java") == ""


# -- errors and scale ----------------------------------------------------------------------


def test_a_folder_without_sources_is_a_build_error(tmp_path):
    repo = write_program(tmp_path / "docs-only", {"README.md": "# nothing\n", "tests/test_x.py": "def test(): pass\n",
                                               "package.json": "{}"})
    for language in ("python", "javascript", "java"):
        with pytest.raises(BuildError) as raised:
            find_candidates(repo, language)
        assert str(raised.value).startswith(f"{repo}: no {language} source files")
        assert "\n" not in str(raised.value)


def test_functions_that_are_not_targets(tmp_path):
    repo = write_program(tmp_path, {"tool.py": (
        "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\n"
        "def main():\n    return a() + b()\n\n\n"
        "def outer():\n    def inner():\n        return a() + b()\n    return inner()\n\n\n"
        "def lambdas():\n    return (lambda: a() + b())()\n\n\n"
        "def twice():\n    return twice_helper() + a() + b()\n\n\n"
        "def twice_helper():\n    return 0\n")})
    candidates, _ = find_candidates(repo, "python")
    assert [(c.name, c.internal_callees) for c in candidates] == [
        ("tool.twice", ("tool.twice_helper", "tool.a", "tool.b"))]
    candidates, _ = find_candidates(repo, "python", min_callees=1)
    assert [(c.name, c.internal_callees) for c in candidates] == [
        ("tool.twice", ("tool.twice_helper", "tool.a", "tool.b")), ("tool.outer", ("tool.outer.inner",))]


def test_a_large_repository_takes_seconds(tmp_path):
    files = {}
    for i in range(300):
        imports = f"from pkg import m{i - 1}\n" if i else ""
        calls = f"m{i - 1}.f(x) + " if i else ""
        files[f"pkg/m{i}.py"] = (f"{imports}\n\ndef f(x):\n    return {calls}g(x) + h(x)\n\n\n"
                                 f"def g(x):\n    return x\n\n\ndef h(x):\n    return x + 1\n\n\n"
                                 f"class Thing{i}:\n    def run(self):\n        return f(1) + g(2)\n")
    files["pkg/__init__.py"] = ""
    repo = write_program(tmp_path, files)
    started = time.perf_counter()
    candidates, problems = find_candidates(repo, "python")
    assert time.perf_counter() - started < 10
    assert len(candidates) + len(problems) == 900  # f, Thing<i> and Thing<i>.run of each file
    assert {p.reason for p in problems} == {EXTRACTION_FAILED}  # pkg/m19.py and above need more than 20 files
    assert len(problems) == 281 * 3


# -- the canned harnesses run ----------------------------------------------------------------


def _run_harness(language: str, repo: str, c: Candidate, folder: Path) -> subprocess.CompletedProcess:
    texts = program_texts(language, repo, c)
    entry = harness_path(language, c.file, texts)
    texts[entry] = (HARNESSES / language / repo / f"{c.name}.txt").read_text(encoding="utf-8")
    write_program(folder, texts)
    run = {"cwd": folder, "capture_output": True, "text": True, "timeout": 60}
    if language == "python":
        return subprocess.run([sys.executable, "-E", "main.py"], check=False, **run)
    if language == "javascript":
        return subprocess.run(["node", "main.js"], check=False, **run)
    java_files = [path for path in texts if path.endswith(".java")]
    compiled = subprocess.run(["javac", "-d", "classes", *java_files], cwd=folder, capture_output=True, text=True,
                              check=False, timeout=120)
    if compiled.returncode:
        return compiled
    main_class = entry[:-len(".java")].replace("/", ".")
    return subprocess.run(["java", "-cp", "classes", main_class], cwd=folder, capture_output=True, text=True,
                          check=False, timeout=60)


@pytest.mark.parametrize("language,repo", SIX)
def test_canned_harnesses_run(language, repo):
    tool = {"python": None, "javascript": "node", "java": "javac"}[language]
    if tool and shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    for c in found(language, repo)[0]:
        with tempfile.TemporaryDirectory() as folder:
            result = _run_harness(language, repo, c, Path(folder))
        assert result.returncode == 0, f"{c.name}: {result.stderr[-2000:]}"
        assert result.stdout.strip(), c.name


def test_problem_details_are_json_safe_one_liners():
    for language, repo in SIX:
        for problem in found(language, repo)[1]:
            assert json.loads(json.dumps(problem.detail)) == problem.detail
            assert problem.detail and "\n" not in problem.detail
