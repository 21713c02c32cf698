"""Java's entry point found cheaply (`core.symbols.java_main`) is the one the full symbol scan finds, everywhere."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from core.dataset.entry_points import java_main_class, java_main_file
from core.dataset.layout import _source_files
from core.symbols.java_main import main_methods, main_methods_by_full_scan
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
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_program_gets_the_full_scans_entry_point(case: str) -> None:
    files, main_class = HOSTILE[case]
    assert main_methods(files) == main_methods_by_full_scan(files)
    assert java_main_class(files) == main_class


def _java_programs(root: Path) -> list[dict[str, str]]:
    folders = sorted(p for p in root.iterdir() if p.is_dir() and _source_files(p, "java"))
    return [{rel: (folder / rel).read_text() for rel in _source_files(folder, "java")} for folder in folders]


def test_the_demo_and_the_tracer_corpus_get_the_full_scans_entry_points() -> None:
    programs = _java_programs(DEMO_DATASET / "benchmark" / "java") + _java_programs(CORPUS)
    assert len(programs) >= 40
    for files in programs:
        assert main_methods(files) == main_methods_by_full_scan(files), sorted(files)
    assert sum(bool(java_main_file(files)) for files in programs) == len(programs) - 1  # compile_error declares none


def test_synthetic_programs_get_the_full_scans_entry_points() -> None:
    rng = random.Random(3)
    for size in range(1, 120, 3):
        _, files = _program("java", rng, size)
        assert main_methods(files) == main_methods_by_full_scan(files) != []


def test_damaged_programs_get_the_full_scans_entry_points() -> None:
    """Random cuts and insertions of Java's tricky tokens into the corpus: the same `main` methods, always."""
    programs = _java_programs(CORPUS)
    tokens = ["main", " ", "(", ")", "{", "}", "String", "[]", "...", "static", "void", "class X", "new Object() {",
              "/*", "*/", "//", "\n", '"', "'", '"""', "<String>", "final", "@A", "\\u006d", ";", "String[] a",
              "enum E { A { ", "interface I {", "record R(int x) {", "java.lang.String", "Main.String", "class String"]
    rng = random.Random(11)
    found = 0
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
    assert 300 < found < 1500  # both kinds of outcome were exercised
