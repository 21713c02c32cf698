"""Node labels: the shortest qualified suffix that tells a node from every other node of the picture."""
import json

import pytest

from core.report.graph_labels import distinct_labels, short_name
from resources import DEMO_DATASET


def test_a_name_alone_in_the_picture_gets_its_last_scope():
    assert distinct_labels(["calc.parser.Parser.parse", "calc.main"]) == ["parse", "main"]


def test_methods_of_one_name_are_told_apart_by_their_class():
    names = ["shapes/shape.Shape.area", "shapes/circle.Circle.area", "shapes/polygon.Rect.area", "main.main"]
    assert distinct_labels(names) == ["Shape.area", "Circle.area", "Rect.area", "main"]


def test_the_file_qualifies_a_name_when_the_class_is_not_enough():
    names = ["shapes/polygon.Triangle.area", "legacy/polygon.Triangle.area", "shapes/circle.Triangle.area"]
    assert distinct_labels(names) == ["shapes/polygon.Triangle.area", "legacy/polygon.Triangle.area",
                                      "circle.Triangle.area"]


def test_anonymous_functions_and_special_methods_keep_their_owner():
    names = ["main.<arrow1>", "main.<arrow2>", "shapes/shape.<arrow1>", "main.Token.__init__", "main.Node.__init__"]
    assert distinct_labels(names) == ["main.<arrow1>", "main.<arrow2>", "shape.<arrow1>", "Token.__init__",
                                      "Node.__init__"]
    assert short_name("main.<lambda1>") == "main.<lambda1>" and short_name("<module>") == "<module>"


def test_java_names_keep_class_and_short_types_until_they_collide():
    names = ["com.bank.Ledger:open(com.bank.Account)", "com.bank.Ledger:open(com.audit.Account)",
             "com.bank.Main:main(java.lang.String[])", "com.a.Util:f()", "com.b.Util:f()"]
    assert distinct_labels(names) == ["Ledger:open(com.bank.Account)", "Ledger:open(com.audit.Account)",
                                      "Main:main(String[])", "a.Util:f()", "b.Util:f()"]


def test_a_name_that_is_a_suffix_of_another_is_told_apart():
    assert distinct_labels(["area", "x.area", "y.x.area"]) == ["area", "x.area", "y.x.area"]


@pytest.mark.parametrize("graph", sorted(DEMO_DATASET.glob("benchmark/*/*/callgraph.json")),
                         ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_labels_are_unique_within_every_demo_program(graph):
    data = json.loads(graph.read_text())
    names = sorted(set(data) | {callee for callees in data.values() for callee in callees})
    labels = distinct_labels(names)
    assert len(set(labels)) == len(names)
    for name, label in zip(names, labels):
        assert name.endswith(label) or ":" in name  # a suffix (Java's types are shortened)


def test_labels_are_unique_at_two_hundred_nodes():
    names = [f"pkg{i % 7}.mod{i % 5}.Class{i % 11}.method{i % 13}" for i in range(200)]
    names = sorted(set(names))
    labels = distinct_labels(names)
    assert len(set(labels)) == len(names)
    assert max(len(label.split(".")) for label in labels) < 4  # not the whole name everywhere
