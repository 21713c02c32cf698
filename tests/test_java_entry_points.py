"""Java's entry point found cheaply (`core.symbols.java_main`) is the one the full symbol scan finds, everywhere; read
off the text (`core.symbols.java_main_text`), the same wherever the program parses."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from core.dataset.entry_points import java_main_class, java_main_file
from core.dataset.layout import _source_files
from core.symbols.java_main import main_methods, main_methods_by_full_scan
from core.symbols.java_main_text import plain_main_file
from core.symbols.parsing import Source
from resources import DEMO_DATASET
from tests.bench.synthetic import _program

CORPUS = Path(__file__).parent / "tracer_corpus" / "java"

# name: (files, the class `java_main_class` names); each is also compared with the full scan
HOSTILE: dict[str, tuple[dict[str, str], str]] = {
    "in a line comment": ({"A.java": "class A {\n  // public static void main(String[] args) {}\n  void f() {}\n}\n"},
                          ""),
    "in a block comment": ({"A.java": "class A { /* static void main(String[] a) { } */ }\n"}, ""),
    "in a javadoc": ({"A.java": "/** Run {@code main(String[] args)} */\nclass A { void run() {} }\n"}, ""),
    "in a string": ({"A.java": 'class A { String s = "static void main(String[] a) {}"; }\n'}, ""),
    "in a text block": ({"A.java": 'class A { String s = """\n  static void main(String[] a) { }\n  """; }\n'}, ""),
    "in a char and a string": ({"A.java": "class A { char c = 'm'; String main = \"main(\"; }\n"}, ""),
    "non-static main counts": ({"A.java": "class A { public void main(String[] args) { } }\n"}, "A"),
    "overloaded": ({"app/A.java": "package app;\nclass A {\n  static void main(int x) { }\n"
                                  "  static void main(String[] a, int b) { }\n  static void main(String[] a) { }\n}\n"},
                   "app.A"),
    "varargs": ({"A.java": "class A { public static void main(String... args) { } }\n"}, "A"),
    "final, C-style array": ({"A.java": "class A { static void main(final String args[]) { } }\n"}, "A"),
    "annotations": ({"A.java": "@Deprecated class A {\n  @SuppressWarnings(\"x\") public static void main(\n"
                               "      @Deprecated final String @Deprecated [] args) { }\n}\n"}, "A"),
    "java.lang.String written out": ({"A.java": "class A { static void main(java.lang.String[] a) { } }\n"}, "A"),
    "generic class whose type variable is String": (
        {"A.java": "class A<String> { static void main(String[] a) { } }\n"}, ""),
    "generic method whose type variable is String": (
        {"A.java": "class A { static <String> void main(String[] a) { } }\n"}, ""),
    "generic class, plain main": ({"A.java": "class A<T extends Comparable<T>> {\n"
                                             "  public static void main(String[] a) { }\n}\n"}, "A"),
    "own String in a file without the word main": (
        {"A.java": "class A { static void main(String[] a) { } }\n",
         "B.java": "// the domain type\nclass String { }\n"}, ""),
    "own String in a file that never says main": (
        {"A.java": "class A { static void main(String[] a) { } }\n", "B.java": "class String { }\n"}, "A"),
    "Outer.String resolves through an own type": (
        {"p/A.java": "package p;\nclass A { static void main(A.String[] a) { } }\n",
         "p/B.java": "package p;\n// domain\nclass B { }\n"}, "p.A"),
    "nested class": ({"app/Outer.java": "package app;\npublic class Outer {\n  static class Inner {\n"
                                        "    public static void main(String[] args) { }\n  }\n}\n"}, "app.Inner"),
    "local class in a generic method": (
        {"A.java": "class A {\n  <String> void f() {\n    class L { public static void main(String[] a) { } }\n"
                   "  }\n}\n"}, ""),
    "anonymous class": ({"A.java": "class A {\n  Object o = new Object() {\n"
                                   "    public void main(String[] a) { }\n  };\n}\n"}, "A$1"),
    "enum constant body": ({"E.java": "enum E { X { public void main(String[] a) { } }; }\n"}, "E$1"),
    "interface static main": ({"I.java": "interface I { static void main(String[] a) { } }\n"}, "I"),
    "abstract main has no body": ({"A.java": "abstract class A { abstract void main(String[] a); }\n"}, ""),
    "record and enum": ({"R.java": "record R(int x) { public static void main(String[] a) { } }\n",
                         "E.java": "enum E { A; public static void main(String[] a) { } }\n"}, "E"),
    "two classes with main, Main.java first": (
        {"a/B.java": "package a;\nclass B { public static void main(String[] a) { } }\n",
         "z/Main.java": "package z;\nclass Main { public static void main(String[] a) { } }\n"}, "z.Main"),
    "two classes with main in one file": (
        {"A.java": "class A { static void main(String[] a) { } }\nclass B { static void main(String[] a) { } }\n"},
        "A"),
    "unicode escape in the name": ({"A.java": "class A { static void m\\u0061in(String[] a) { } }\n"}, ""),
    "unicode escape in the type": ({"A.java": "class A { static void main(\\u0053tring[] a) { } }\n"}, ""),
    "main as a word elsewhere": ({"A.java": "class A { int main; void f() { main = 1; } }\n"}, ""),
    "comments between name and parameters": (
        {"A.java": "class A { static void main /* x */ ( // y\n String[] a) { } }\n"}, "A"),
    "syntax error before main": ({"A.java": "class A { int x = ; public static void main(String[] a) { } }\n"}, "A"),
    "no file mentions main": ({"A.java": "class A { void run() { } }\n"}, ""),
    "imported String, new String": (
        {"app/Main.java": "package app;\nimport java.lang.String;\npublic class Main {\n"
                          "  public static void main(String[] args) throws Exception { new String(args[0]); }\n}\n"},
        "app.Main"),
    "a generic method's String elsewhere in the class": (
        {"Main.java": "public class Main {\n  static <String> void f(String s) { }\n"
                      "  public static void main(String[] a) { }\n}\n"}, "Main"),
    "local class String": ({"Main.java": "public class Main {\n  void f() { class String { } }\n"
                                         "  public static void main(String[] a) { }\n}\n"}, ""),
    "enum, record, interface or annotation String": (
        {"Main.java": "public class Main { public static void main(String[] a) { } }\n",
         "p/S.java": "package p; // main\n@interface /* x */ String { }\n"}, ""),
    "class String[]": ({"Main.java": "public class Main { public static void main(String[] a) { } }\n",
                        "B.java": "// main\nclass String[] { }\n"}, ""),
    "generic main class whose type variable is String": (
        {"Main.java": "public class Main<String> { public static void main(String[] a) { } }\n"}, ""),
    "annotated class, Windows lines": (
        {"Main.java": "package p;\r\n@Deprecated\r\npublic final class Main extends Object implements Runnable {\r\n"
                      "  public void run() { }\r\n  public static void main(final String... a) { }\r\n}\r\n"},
        "p.Main"),
    "main in a string before the real one": (
        {"Main.java": "public class Main { String s = \"static void main(String[] a) {\";\n"
                      "  public static void main(String[] a) { } }\n"}, "Main"),
    "a file ordered first says main only in a comment": (
        {"Main.java": "class Main { /* no main here */ }\n",
         "a/B.java": "package a;\npublic class B { public static void main(String[] a) { } }\n"}, "a.B"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_program_gets_the_full_scans_entry_point(case: str) -> None:
    files, main_class = HOSTILE[case]
    assert main_methods(files) == main_methods_by_full_scan(files)
    assert java_main_class(files) == main_class
    assert plain_main_file(files) in (None, _full_scan_file(files))
    assert java_main_file(files) == _full_scan_file(files)


def _full_scan_file(files: dict[str, str]) -> str:
    """The entry file by the full symbol scan: the file of the first main, a Main.java first."""
    mains = main_methods_by_full_scan(files)
    mains.sort(key=lambda node: (node.file.rsplit("/", 1)[-1] != "Main.java", node.file))
    return mains[0].file if mains else ""


def test_the_text_settles_the_plain_forms_and_leaves_the_rest_to_the_parser() -> None:
    settled = {case for case, (files, _) in HOSTILE.items() if plain_main_file(files) is not None}
    assert {"imported String, new String", "a generic method's String elsewhere in the class", "varargs",
            "annotated class, Windows lines", "main in a string before the real one", "no file mentions main",
            "own String in a file that never says main"} <= settled
    assert not settled & {"in a text block", "generic class whose type variable is String", "local class String",
                          "enum, record, interface or annotation String", "class String[]", "nested class",
                          "generic main class whose type variable is String", "unicode escape in the type",
                          "anonymous class", "a file ordered first says main only in a comment"}


def _java_programs(root: Path) -> list[dict[str, str]]:
    folders = sorted(p for p in root.iterdir() if p.is_dir() and _source_files(p, "java"))
    return [{rel: (folder / rel).read_text() for rel in _source_files(folder, "java")} for folder in folders]


def test_the_demo_and_the_tracer_corpus_get_the_full_scans_entry_points() -> None:
    programs = _java_programs(DEMO_DATASET / "benchmark" / "java") + _java_programs(CORPUS)
    assert len(programs) >= 40
    for files in programs:
        assert main_methods(files) == main_methods_by_full_scan(files), sorted(files)
        assert plain_main_file(files) in (None, _full_scan_file(files)), sorted(files)
    assert sum(bool(java_main_file(files)) for files in programs) == len(programs) - 1  # compile_error declares none
    assert sum(plain_main_file(files) is not None for files in programs) >= len(programs) * 0.9


def test_synthetic_programs_get_the_full_scans_entry_points() -> None:
    rng = random.Random(3)
    for size in range(1, 120, 3):
        _, files = _program("java", rng, size)
        assert main_methods(files) == main_methods_by_full_scan(files) != []
        assert plain_main_file(files) == _full_scan_file(files) != ""


def test_damaged_programs_get_the_full_scans_entry_points() -> None:
    """Random cuts and insertions of Java's tricky tokens into the corpus: the same `main` methods, always."""
    programs = _java_programs(CORPUS)
    tokens = ["main", " ", "(", ")", "{", "}", "String", "[]", "...", "static", "void", "class X", "new Object() {",
              "/*", "*/", "//", "\n", '"', "'", '"""', "<String>", "final", "@A", "\\u006d", ";", "String[] a",
              "enum E { A { ", "interface I {", "record R(int x) {", "java.lang.String", "Main.String", "class String"]
    rng = random.Random(11)
    found = settled = 0
    for _ in range(1500):
        files = dict(rng.choice(programs))
        path = rng.choice(list(files))
        text = files[path]
        for _ in range(rng.randint(1, 5)):
            at = rng.randrange(len(text) + 1)
            cut = rng.random() < 0.4
            text = text[:at] + text[at + rng.randint(1, 20):] if cut else text[:at] + rng.choice(tokens) + text[at:]
        files[path] = text
        mains = main_methods_by_full_scan(files)
        found += bool(mains)
        assert main_methods(files) == mains, (path, text)
        plain = plain_main_file(files)
        if plain is not None and not any(Source.parse("java", name, source).tree.root_node.has_error
                                         for name, source in files.items()):
            settled += 1
            assert plain == _full_scan_file(files), (path, text)
    assert 300 < found < 1500  # both kinds of outcome were exercised
    assert settled > 50


# pieces of generated programs: plain forms, near misses and traps for the text (a nested or own `String`, type
# variables, annotations, comments and strings that say main, records, enums and interfaces)
_HEADS = ("", "package app;\n", "package a.b;\nimport java.util.*;\n", "import java.lang.String;\n",
          "// main entry\n", "/* main */\n", "package p; // the main package\n")
_CLASS_PREFIXES = ("", "public ", "final ", "public final ", "@Deprecated\n", '@SuppressWarnings("x") ', "abstract ",
                   "@Deprecated public ")
_CLASS_KINDS = ("class", "class", "class", "interface", "enum", "record")
_CLASS_TAILS = ("", " extends Object", " implements Runnable", "<T>", "<String>", "<T extends Comparable<T>>",
                " extends java.util.ArrayList<String>", "(int x)")
_MODIFIERS = ("public static ", "static ", "public ", "", "private static ", "static final ",
              "public static synchronized ", "@Override public static ", "static <String> ", "static <T> ",
              "abstract ", "native static ")
_PARAMETERS = ("String[] args", "String... args", "final String[] a", "String args[]", "java.lang.String[] a",
               "String[][] a", "String a", "String[] a, int b", "", "Main.String[] a", "final String ... a")
_BODIES = ("{ }", '{ System.out.println("main"); }', '{ new String("x"); }', "{ run(); }", ";",
           "throws Exception { }", '{ String main = "main"; }', "{ class String { } }", "{ Runnable r = () -> { }; }")
_MEMBERS = ("int x = 1;", "void run() { }", "static class Inner { }", "static class String { }", "class String { }",
            'String s = "class String {";', "// public static void main(String[] a) { }",
            "/* static void main(String[] a) { } */", "Object o = new Object() { void main(String[] a) { } };",
            "static { }", "int[] a = {1, 2};", "<String> void g(String s) { }", "enum E { A, B }",
            "static class Nested { public static void main(String[] a) { } }", "String f(String s) { return s; }",
            "record R(String s) { }", "interface I { }", "char c = '\\'';", 'String t = "\\"";')
_OTHER_CLASSES = ("class Helper { }\n", "class String { }\n", "// domain\nclass String { }\n", "enum String { A }\n",
                  "class Util { static void main(String[] a) { } }\n", "/* main */ class Box<String> { }\n",
                  "interface Runner { void main(String[] a); }\n", 'class Other { String main() { return ""; } }\n')


def _generated_program(rng: random.Random) -> dict[str, str]:
    files = {}
    for name in rng.sample(["Main", "App", "Z", "B"], rng.randint(1, 3)):
        members = rng.sample(_MEMBERS, rng.randint(0, 3))
        if rng.random() < 0.9:
            main = f"{rng.choice(_MODIFIERS)}void main({rng.choice(_PARAMETERS)}) {rng.choice(_BODIES)}"
            members.insert(rng.randint(0, len(members)), main)
        kind, tail = rng.choice(_CLASS_KINDS), rng.choice(_CLASS_TAILS)
        if kind == "record" and "(" not in tail:
            tail = "(int x)"
        if kind == "enum":
            members.insert(0, "A, B;")
        body = "\n    ".join(members)
        other = rng.choice(_OTHER_CLASSES) if rng.random() < 0.3 else ""
        files[f"{rng.choice(['', 'app/', 'z/', 'a/'])}{name}.java"] = (
            f"{rng.choice(_HEADS)}{rng.choice(_CLASS_PREFIXES)}{kind} {name}{tail} {{\n    {body}\n}}\n{other}")
    return files


def test_generated_programs_that_parse_get_the_parsers_entry_file() -> None:
    """What the text settles is what the parser finds (`main_methods`, as indexing did before), for every generated
    program without syntax errors."""
    rng = random.Random(5)
    settled = 0
    for _ in range(2500):
        files = _generated_program(rng)
        plain = plain_main_file(files)
        if plain is None or any(Source.parse("java", path, text).tree.root_node.has_error
                                for path, text in files.items()):
            continue
        settled += 1
        mains = main_methods(files)
        mains.sort(key=lambda node: (node.file.rsplit("/", 1)[-1] != "Main.java", node.file))
        assert plain == (mains[0].file if mains else ""), files
    assert settled > 50
