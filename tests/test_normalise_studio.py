"""The studio rule set's normalisation (opt-in, `--rules studio`): its own readings, case by case.
The paper's rules are held to the release's vectors in test_normalise.py."""
from __future__ import annotations

import json
import shutil
import subprocess
from functools import partial

import pytest

from core.scoring import normalise_studio_names
from core.scoring.normalise import MODES, normalise_edges, normalise_name
from core.scoring.rules import STUDIO

normalise_name = partial(normalise_name, rules=STUDIO)
normalise_edges = partial(normalise_edges, rules=STUDIO)

ALL = frozenset(MODES)
NONE = frozenset()
INIT = frozenset({"init"})
NESTED = frozenset({"nested_class"})
STDLIB = frozenset({"stdlib"})
REWRITES = frozenset({"init", "nested_class"})

PYTHON_CASES = [
    # init only
    ("main.Foo.__init__", INIT, "main.Foo"),
    ("main.Foo.__new__", INIT, "main.Foo"),
    ("pkg.mod.Foo.__init__", INIT, "pkg.mod.Foo"),
    ("main.Foo.__init__.helper", INIT, "main.Foo.__init__.helper"),
    ("__init__", INIT, "__init__"),
    ("main.Foo.__init__(self, x)", INIT, "main.Foo(self, x)"),
    ("main.Foo.constructor", INIT, "main.Foo.constructor"),
    ("list.append", INIT, "list.append"),
    ("print", INIT, "print"),
    ("main.Outer.Inner.m", REWRITES, "main.Outer.Inner.m"),
    # stdlib only
    ("print", STDLIB, None),
    ("print(x)", STDLIB, None),
    ("len", STDLIB, None),
    ("ValueError", STDLIB, None),
    ("exit", STDLIB, None),
    ("list.append", STDLIB, None),
    ("str.join", STDLIB, None),
    ("dict.get", STDLIB, None),
    ("dict.fromkeys", STDLIB, None),
    ("object.__init__", STDLIB, None),
    ("list.foo", STDLIB, "list.foo"),
    ("list.append.extra", STDLIB, "list.append.extra"),
    ("builtins.print", STDLIB, None),
    ("builtins", STDLIB, None),
    ("os.path.join", STDLIB, None),
    ("math.sqrt", STDLIB, None),
    ("collections.OrderedDict", STDLIB, None),
    ("sys", STDLIB, None),
    ("asyncore.loop", STDLIB, None),
    ("queue.push", STDLIB, None),
    ("test.helper", STDLIB, "test.helper"),
    ("mymath.sqrt", STDLIB, "mymath.sqrt"),
    ("main.list_items", STDLIB, "main.list_items"),
    ("main.print", STDLIB, "main.print"),
    ("main.os.path.join", STDLIB, "main.os.path.join"),
    ("main", STDLIB, "main"),
    ("main.f(a)", STDLIB, "main.f(a)"),
    ("main.Foo.__init__", STDLIB, "main.Foo.__init__"),
    ("self.run", STDLIB, "self.run"),
    # all modes
    ("main.Foo.__init__", ALL, "main.Foo"),
    ("main.Foo", ALL, "main.Foo"),
    ("main.scope.<lambda1>", ALL, "main.scope.<lambda1>"),
    ("object.__init__", ALL, None),
    ("Exception.__init__", ALL, None),
    ("super().__init__", ALL, None),
    ("list.append", ALL, None),
    ("print", ALL, None),
    ("main.list_items", ALL, "main.list_items"),
    ("  main.f ", ALL, "main.f"),
    # no modes: stripped, otherwise unchanged
    ("main.Foo.__init__", NONE, "main.Foo.__init__"),
    ("print", NONE, "print"),
    ("list.append", NONE, "list.append"),
    (" main.f\n", NONE, "main.f"),
    ("", NONE, None),
    ("   ", ALL, None),
    (".__init__", INIT, None),
]

JAVASCRIPT_CASES = [
    # init only
    ("main.Foo.constructor", INIT, "main.Foo"),
    ("lib/shapes.Circle.constructor", INIT, "lib/shapes.Circle"),
    ("main.Foo.constructor(x)", INIT, "main.Foo(x)"),
    ("main.Foo.constructor.inner", INIT, "main.Foo.constructor.inner"),
    ("constructor", INIT, "constructor"),
    ("main.Foo.__init__", INIT, "main.Foo.__init__"),
    ("main.Array.map", INIT, "main.Array.map"),
    # stdlib only: globals and core modules, first segment
    ("Array.isArray", STDLIB, None),
    ("Promise.all", STDLIB, None),
    ("JSON.stringify", STDLIB, None),
    ("Math.max(a, b)", STDLIB, None),
    ("console.log", STDLIB, None),
    ("process.exit", STDLIB, None),
    ("Buffer.from", STDLIB, None),
    ("parseInt", STDLIB, None),
    ("setTimeout", STDLIB, None),
    ("require", STDLIB, None),
    ("escape", STDLIB, None),
    ("fetch", STDLIB, None),
    ("URL", STDLIB, None),
    ("fs.readFile", STDLIB, None),
    ("path.join", STDLIB, None),
    ("events", STDLIB, None),
    ("fs/promises.readFile", STDLIB, None),
    ("node:fs", STDLIB, None),
    ("node:fs.readFileSync", STDLIB, None),
    ("node:test", STDLIB, None),
    # prototype segment
    ("Array.prototype.map", STDLIB, None),
    ("main.Foo.prototype.bar", STDLIB, None),
    ("main.prototypeFactory", STDLIB, "main.prototypeFactory"),
    # qualified by a user module
    ("main.Array.map", STDLIB, None),
    ("main.fs.readFile", STDLIB, None),
    ("main.Date", STDLIB, None),
    ("main.parseInt", STDLIB, None),
    ("main.console.log", STDLIB, None),
    ("main.Promise", STDLIB, None),
    ("main.Promise.resolve", STDLIB, None),
    ("main.require", STDLIB, None),
    ("main.setTimeout", STDLIB, None),
    ("main.process.exit", STDLIB, None),
    ("main.path.join", STDLIB, None),
    ("main.Math.max(a, b)", STDLIB, None),
    ("main.node:fs", STDLIB, None),
    ("lib/util.Array.from", STDLIB, None),
    # false-positive guards
    ("main.Parser.parse", STDLIB, "main.Parser.parse"),
    ("main.Parser", STDLIB, "main.Parser"),
    ("main.process", STDLIB, "main.process"),
    ("main.path", STDLIB, "main.path"),
    ("main.escape", STDLIB, "main.escape"),
    ("main.fetch", STDLIB, "main.fetch"),
    ("main.Request.send", STDLIB, "main.Request.send"),
    ("main.Event", STDLIB, "main.Event"),
    ("main.Foo.Date", STDLIB, "main.Foo.Date"),
    ("main.obj.map", STDLIB, "main.obj.map"),
    ("main.utils.format", STDLIB, "main.utils.format"),
    ("Foo.parseInt", STDLIB, "Foo.parseInt"),
    ("this.setTimeout", STDLIB, "this.setTimeout"),
    ("main.<arrow1>", STDLIB, "main.<arrow1>"),
    ("main.f(parseInt)", STDLIB, "main.f(parseInt)"),
    ("main.Foo.constructor", STDLIB, "main.Foo.constructor"),
    # all modes
    ("main.Foo.constructor", ALL, "main.Foo"),
    ("main.Array.constructor", ALL, None),
    ("main.Array.map", ALL, None),
    ("main.fs.readFile", ALL, None),
    ("main.Date", ALL, None),
    ("main.parseInt", ALL, None),
    ("node:fs", ALL, None),
    ("main.Parser.parse", ALL, "main.Parser.parse"),
    (" main.Parser.parse ", ALL, "main.Parser.parse"),
    # no modes
    ("main.Array.map", NONE, "main.Array.map"),
    ("main.Foo.constructor", NONE, "main.Foo.constructor"),
]

JAVA_CASES = [
    # init only
    ("pkg.Foo:<init>(int)", INIT, "pkg.Foo"),
    ("pkg.Foo:<init>()", INIT, "pkg.Foo"),
    ("pkg.Foo:<init>(java.lang.String,int)", INIT, "pkg.Foo"),
    ("pkg.Foo:<clinit>()", INIT, "pkg.Foo"),
    ("Main:<init>()", INIT, "Main"),
    ("pkg.Foo:init()", INIT, "pkg.Foo:init()"),
    ("pkg.Foo.<init>(int)", INIT, "pkg.Foo.<init>(int)"),
    ("a.b.Outer$Inner:<init>()", INIT, "a.b.Outer$Inner"),
    ("java.util.ArrayList:<init>()", INIT, "java.util.ArrayList"),
    # nested_class only
    ("a.b.Outer.Inner:m()", NESTED, "a.b.Inner:m()"),
    ("a.b.Outer$Inner:m()", NESTED, "a.b.Inner:m()"),
    ("a.b.A.B.C:m(int)", NESTED, "a.b.C:m(int)"),
    ("a.b.A$B$C:m(int)", NESTED, "a.b.C:m(int)"),
    ("Outer$Inner:m()", NESTED, "Inner:m()"),
    ("Outer.Inner:m()", NESTED, "Inner:m()"),
    ("a.b.Outer$Inner", NESTED, "a.b.Inner"),
    ("a.b.Outer$Inner(int)", NESTED, "a.b.Inner(int)"),
    ("a.b.Outer$Inner:<init>()", NESTED, "a.b.Inner:<init>()"),
    ("a.b.Outer$1:run()", NESTED, "a.b.Outer$1:run()"),
    ("a.b.Outer$Inner$1:run()", NESTED, "a.b.Inner$1:run()"),
    ("a.b.Outer.1:run()", NESTED, "a.b.Outer$1:run()"),
    ("a.b.Outer$1Local:m()", NESTED, "a.b.Outer$1Local:m()"),
    ("a.b.Foo:m()", NESTED, "a.b.Foo:m()"),
    ("Main:main(java.lang.String[])", NESTED, "Main:main(java.lang.String[])"),
    ("a.b.Foo:m(a.b.Outer.Inner)", NESTED, "a.b.Foo:m(a.b.Outer.Inner)"),
    ("a.b.Foo:m(a.b.Outer$Inner)", NESTED, "a.b.Foo:m(a.b.Outer$Inner)"),
    ("a.b.Outer.Inner.method", NESTED, "a.b.Outer.Inner.method"),
    ("System.out:println", NESTED, "System.out:println"),
    ("Main:lambda$main$0()", NESTED, "Main:lambda$main$0()"),
    ("a.b.:m()", NESTED, "a.b.:m()"),
    ("java.util.Map.Entry:getKey()", NESTED, "java.util.Entry:getKey()"),
    # stdlib only: package prefixes
    ("java.util.List:add(java.lang.Object)", STDLIB, None),
    ("java.lang.String:length()", STDLIB, None),
    ("javax.swing.JFrame:<init>()", STDLIB, None),
    ("jdk.internal.misc.Unsafe:getUnsafe()", STDLIB, None),
    ("sun.misc.Unsafe:allocateMemory(long)", STDLIB, None),
    ("com.sun.net.httpserver.HttpServer:create()", STDLIB, None),
    ("org.w3c.dom.Node:getNodeName()", STDLIB, None),
    ("org.xml.sax.XMLReader:parse(java.lang.String)", STDLIB, None),
    ("org.ietf.jgss.GSSManager:getInstance()", STDLIB, None),
    ("org.omg.CORBA.ORB:init()", STDLIB, None),
    # stdlib only: bare JDK classes
    ("String:length", STDLIB, None),
    ("String:length()", STDLIB, None),
    ("List:add(java.lang.Object)", STDLIB, None),
    ("System.out:println", STDLIB, None),
    ("System.out.println", STDLIB, None),
    ("Math:max(int,int)", STDLIB, None),
    ("Integer:parseInt", STDLIB, None),
    ("Map.Entry:getKey()", STDLIB, None),
    ("List<String>:add", STDLIB, None),
    ("StringBuilder:append(java.lang.String)", STDLIB, None),
    ("Collectors:toList()", STDLIB, None),
    ("Function:apply(java.lang.Object)", STDLIB, None),
    ("BufferedReader:readLine()", STDLIB, None),
    # stdlib false-positive guards
    ("pkg.String:length()", STDLIB, "pkg.String:length()"),
    ("Stack:push(int)", STDLIB, "Stack:push(int)"),
    ("Node:getNext()", STDLIB, "Node:getNext()"),
    ("Main:main(java.lang.String[])", STDLIB, "Main:main(java.lang.String[])"),
    ("Main:helper(java.util.List)", STDLIB, "Main:helper(java.util.List)"),
    ("javafx.application.Application:launch()", STDLIB, "javafx.application.Application:launch()"),
    ("sunflower.Seed:grow()", STDLIB, "sunflower.Seed:grow()"),
    ("com.example.Foo:bar()", STDLIB, "com.example.Foo:bar()"),
    ("org.example.Foo:bar()", STDLIB, "org.example.Foo:bar()"),
    ("Outer.String:m()", STDLIB, "Outer.String:m()"),
    ("pkg.Foo:<init>(int)", STDLIB, "pkg.Foo:<init>(int)"),
    # all modes
    ("pkg.Foo:<init>(int)", ALL, "pkg.Foo"),
    ("a.b.Outer$Inner:<init>(int)", ALL, "a.b.Inner"),
    ("a.b.Outer.Inner:m()", ALL, "a.b.Inner:m()"),
    ("java.util.Map.Entry:getKey()", ALL, None),
    ("java.lang.StringBuilder:<init>()", ALL, None),
    ("Outer.String:m()", ALL, None),
    ("Map$Entry:getKey()", ALL, None),
    ("MyMap$Entry:getKey()", ALL, "Entry:getKey()"),
    ("String:length", ALL, None),
    (" pkg.Foo:bar() ", ALL, "pkg.Foo:bar()"),
    # no modes
    ("pkg.Foo:<init>(int)", NONE, "pkg.Foo:<init>(int)"),
    ("a.b.Outer$Inner:m()", NONE, "a.b.Outer$Inner:m()"),
    ("String:length", NONE, "String:length"),
]


@pytest.mark.parametrize(("name", "modes", "expected"), PYTHON_CASES)
def test_python_names(name, modes, expected):
    assert normalise_name(name, "python", modes) == expected


@pytest.mark.parametrize(("name", "modes", "expected"), JAVASCRIPT_CASES)
def test_javascript_names(name, modes, expected):
    assert normalise_name(name, "javascript", modes) == expected


@pytest.mark.parametrize(("name", "modes", "expected"), JAVA_CASES)
def test_java_names(name, modes, expected):
    assert normalise_name(name, "java", modes) == expected


def test_default_modes_are_all_modes():
    assert MODES == ("init", "nested_class", "stdlib")
    assert normalise_name("a.b.Outer$Inner:<init>(int)", "java") == "a.b.Inner"
    assert normalise_name("main.Foo.__init__", "python") == "main.Foo"
    assert normalise_name("print", "python") is None


def test_modes_as_tuple_or_frozenset_agree():
    for name in ("main.Foo.__init__", "list.append", "main.f"):
        assert normalise_name(name, "python", ("init",)) == normalise_name(name, "python", INIT)
    assert normalise_name("main.Foo.__init__", "python", ()) == "main.Foo.__init__"


def test_python_and_javascript_rules_do_not_leak_across_languages():
    assert normalise_name("main.Array.map", "python") == "main.Array.map"
    assert normalise_name("list.append", "javascript") == "list.append"
    assert normalise_name("String:length", "python") == "String:length"
    assert normalise_name("main.Foo.__init__", "java") == "main.Foo.__init__"


def test_repeated_calls_give_the_same_answer():
    first = [normalise_name("main.Foo.__init__", "python"), normalise_name("print", "python")]
    second = [normalise_name("main.Foo.__init__", "python"), normalise_name("print", "python")]
    assert first == second == ["main.Foo", None]


def test_edges_are_rewritten_and_dropped_when_either_end_is_dropped():
    edges = [
        ("main", "main.Foo.__init__"),
        ("main", "print"),
        ("print", "main.f"),
        ("main.Foo.__init__", "main.helper"),
        (" main", "main.g "),
        ("main", ""),
    ]
    assert normalise_edges(edges, "python") == frozenset({
        ("main", "main.Foo"),
        ("main.Foo", "main.helper"),
        ("main", "main.g"),
    })


def test_edges_collapse_java_constructor_overloads():
    edges = [
        ("pkg.Main:main(java.lang.String[])", "pkg.Foo:<init>(int)"),
        ("pkg.Main:main(java.lang.String[])", "pkg.Foo:<init>()"),
        ("pkg.Main:main(java.lang.String[])", "java.util.ArrayList:<init>()"),
        ("pkg.Main:main(java.lang.String[])", "pkg.Outer$Inner:run()"),
        ("pkg.Outer.Inner:run()", "System.out:println"),
    ]
    assert normalise_edges(edges, "java") == frozenset({
        ("pkg.Main:main(java.lang.String[])", "pkg.Foo"),
        ("pkg.Main:main(java.lang.String[])", "pkg.Inner:run()"),
    })


def test_edge_that_becomes_a_self_edge_is_kept():
    edges = [("pkg.Foo:<init>(int)", "pkg.Foo:<init>()")]
    assert normalise_edges(edges, "java") == frozenset({("pkg.Foo", "pkg.Foo")})


def test_edges_with_no_modes_are_only_stripped():
    edges = [("main", " main.Foo.__init__"), ("main", "print"), ("main", " ")]
    assert normalise_edges(edges, "python", ()) == frozenset({
        ("main", "main.Foo.__init__"),
        ("main", "print"),
    })


def test_edges_accept_any_iterable_and_return_a_frozenset():
    result = normalise_edges((edge for edge in [("main", "main.Array.map"), ("main", "main.f")]),
                             "javascript")
    assert isinstance(result, frozenset)
    assert result == frozenset({("main", "main.f")})
    assert normalise_edges([], "java") == frozenset()


def test_paper_example_pairs_match_after_normalisation():
    assert normalise_name("main.Foo", "python") == normalise_name("main.Foo.__init__", "python")
    assert (normalise_name("a.b.Outer.Inner:m()", "java")
            == normalise_name("a.b.Outer$Inner:m()", "java") == "a.b.Inner:m()")


def test_builtin_type_methods_come_from_the_real_types():
    assert "append" in normalise_studio_names.PYTHON_BUILTIN_TYPE_ATTRS["list"]
    assert "join" in normalise_studio_names.PYTHON_BUILTIN_TYPE_ATTRS["str"]
    assert "append" not in normalise_studio_names.PYTHON_BUILTIN_TYPE_ATTRS["str"]
    assert normalise_name("str.append", "python") == "str.append"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_core_module_list_matches_node_20():
    version = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout
    if not version.startswith("v20."):
        pytest.skip(f"the list is Node 20's; this is node {version.strip()}")
    listed = subprocess.run(
        ["node", "-e", "console.log(JSON.stringify(require('module').builtinModules))"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert frozenset(json.loads(listed)) == normalise_studio_names.NODE_CORE_MODULES
