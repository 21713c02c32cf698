"""`SymbolTable.place`: exact names first, then the sloppy ones tracers and models write."""
import pytest

from core.symbols import extract_symbols
from tests.symbols_cases.programs import JAVA, JAVASCRIPT, PYTHON


@pytest.fixture(scope="module")
def python():
    return extract_symbols("python", PYTHON)


@pytest.fixture(scope="module")
def javascript():
    return extract_symbols("javascript", JAVASCRIPT)


@pytest.fixture(scope="module")
def java():
    return extract_symbols("java", JAVA)


def placed(table, name):
    node = table.place(name)
    return None if node is None else (node.name, node.kind)


@pytest.mark.parametrize("name, expected", [
    ("main.fib", ("main.fib", "function")),
    ("main", ("main", "module")),
    ("main.fib(10)", ("main.fib", "function")),
    ("  main.fib ", ("main.fib", "function")),
    ("main.Registry", ("main.Registry.__init__", "constructor")),
    ("main.Registry.Entry", ("main.Registry.Entry", "class")),  # no __init__: the class itself
    ("pkg.shapes.Square", ("pkg.shapes.Square", "class")),
    ("pkg.shapes.Square.__init__", ("pkg.shapes.Square", "class")),
    ("pkg.shapes.Circle.__new__", ("pkg.shapes.Circle.__init__", "constructor")),
    ("main.memo.<locals>.wrapper", ("main.memo.wrapper", "function")),
    ("pkg/shapes.area_of", ("pkg.shapes.area_of", "function")),
    ("pkg.__init__.version", ("pkg.version", "function")),
    ("main.<module>", ("main", "module")),
    ("pkg.__init__", ("pkg", "module")),
    ("main.Registry.<lambda>", ("main.Registry.<lambda1>", "lambda")),
    ("Registry.size", ("main.Registry.size", "method")),  # module prefix forgotten
    ("shapes.área", ("pkg.shapes.área", "function")),  # tried under the package `pkg`
    ("shapes.area", None),  # no fuzzy spelling
    ("main.wrapper", ("main.memo.wrapper", "function")),  # enclosing scope left out
    ("main.Entry.describe", ("main.Registry.Entry.describe", "method")),
    ("main.Foo.size", None),  # a scope that is not there
    ("main.nothing", None),
    ("builtins.print", None),
    ("", None),
])
def test_python_names(python, name, expected):
    assert placed(python, name) == expected


@pytest.mark.parametrize("name, expected", [
    ("main.Shape", ("main.Shape.constructor", "constructor")),
    ("main.Shape.constructor", ("main.Shape.constructor", "constructor")),
    ("main.Shape.prototype.area", ("main.Shape.area", "method")),
    ("lib.util.helper", ("lib/util.helper", "function")),
    ("lib/util.Counter", ("lib/util.Counter.constructor", "constructor")),
    ("Counter.inc", ("lib/util.Counter.inc", "method")),  # found in the second module
    ("main.hidden", ("main.<anonymous2>.hidden", "function")),
    ("main.<arrow>", ("main.<arrow1>", "arrow")),
    ("main.api.stop()", ("main.api.stop", "method")),
    ("main.nested.deep", ("main.api.nested.deep", "method")),
    ("main.area", None),  # Shape.area or Square.area: ambiguous
    ("main.Array.map", None),
])
def test_javascript_names(javascript, name, expected):
    assert placed(javascript, name) == expected


@pytest.mark.parametrize("name, expected", [
    ("com.shop.Cart:<init>(int)", "com.shop.Cart:<init>(int)"),
    ("com.shop.Cart:Cart(int)", "com.shop.Cart:<init>(int)"),
    ("com.shop.Cart", "com.shop.Cart:<init>()"),  # first constructor
    ("com.shop.Cart:<init>", "com.shop.Cart:<init>()"),
    ("com.shop.Main:log", "com.shop.Main:log(java.lang.Object)"),  # first overload
    ("com.shop.Main:log(String,int)", "com.shop.Main:log(java.lang.String,int)"),
    ("com.shop.Main:log(java.lang.String, int)", "com.shop.Main:log(java.lang.String,int)"),
    ("com.shop.Main:log(final String msg, int level)", "com.shop.Main:log(java.lang.String,int)"),
    ("com.shop.Main:log(Object,Object)", "com.shop.Main:log(java.lang.String,int)"),  # arity
    ("com.shop.Main:best(java.util.List<T>,T...)", "com.shop.Main:best(List,T[])"),
    ("com.shop.Main:main(String[])", "com.shop.Main:main(java.lang.String[])"),
    ("com.shop.model.Item:<init>(long)",  # the only constructor
     "com.shop.model.Item:<init>(java.lang.String,int)"),
    ("com.shop.Cart$Line:render(Throwable,Runnable)",
     "com.shop.Line:render(java.lang.Throwable,java.lang.Runnable)"),
    ("com.shop.Cart.Line:<init>(Item,Thread,Class)",
     "com.shop.Line:<init>(com.shop.model.Item,java.lang.Thread,java.lang.Class)"),
    ("com.shop.Main$1:run()", "com.shop.Main$1:run()"),
    ("com.shop.model.Size$1:factor", "com.shop.model.Size$1:factor()"),
    ("com.shop.model.Item.getName()", "com.shop.model.Item:getName()"),
    ("Item:getName()", "com.shop.model.Item:getName()"),
    ("com.shop.model.Item#price", "com.shop.model.Item:price()"),
    ("wrong.pkg.Cart:total()", "com.shop.Cart:total()"),
    ("com.shop.Main:<clinit>", "com.shop.Main:<clinit>()"),
    ("com.shop.model.Priced", "com.shop.model.Priced"),  # no constructor: the class
    ("com.shop.model.Priced:price()", None),  # abstract: nothing runs there
    ("com.shop.Main:missing()", None),
    ("java.util.List:add(java.lang.Object)", None),
])
def test_java_names(java, name, expected):
    node = java.place(name)
    assert (node.name if node else None) == expected


def test_java_package_decides_between_same_named_classes():
    files = {"a/Util.java": "package a;\nclass Util { static void f() {} }\n",
             "b/Util.java": "package b;\nclass Util { static void f() {} }\n"}
    table = extract_symbols("java", files)
    assert table.place("b.Util:f").file == "b/Util.java"
    assert table.place("a.Util:f()").file == "a/Util.java"
    assert table.place("Util:f()").file == "a/Util.java"


def test_unplaced_names_are_reported_once_in_order(python):
    names = ["main.fib", "main.nope", "os.path.join", "main.nope", "main.Registry"]
    assert python.unplaced(names) == ["main.nope", "os.path.join"]


def test_places_are_stable_and_exact_names_win(javascript):
    assert javascript.place("main.stop").name == "main.stop"
    assert javascript.place("main.api.stop").name == "main.api.stop"
    assert javascript.place("main.Shape") is javascript.place("main.Shape")
