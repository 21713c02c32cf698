"""Java symbol extraction: names, kinds and spans as docs/benchmark.md names them."""
from core.records import Node
from core.symbols import call_site_lines, extract_symbols
from tests.symbols_cases.programs import JAVA


def rows(table):
    return [(n.name, n.kind, n.start_line) for n in table.nodes]


def test_every_node_of_a_multi_file_program_in_source_order():
    table = extract_symbols("java", JAVA)
    assert rows(table) == [
        ("com.shop.Main:<clinit>()", "initializer", 10),
        ("com.shop.Main:main(java.lang.String[])", "method", 14),
        ("com.shop.Main$1:run()", "method", 20),  # anonymous class; span starts at @Override
        ("com.shop.Main:log(java.lang.Object)", "method", 30),
        ("com.shop.Main:log(java.lang.String,int)", "method", 34),
        ("com.shop.Main:best(List,T[])", "method", 38),  # erased generics, type variable kept
        ("com.shop.Cart:<init>()", "constructor", 9),
        ("com.shop.Cart:<init>(int)", "constructor", 13),
        ("com.shop.Cart:add(com.shop.model.Item)", "method", 16),
        ("com.shop.Cart:total()", "method", 20),
        ("com.shop.Cart:merge(com.shop.Cart,com.shop.model.Item[],int[],Map)", "method", 30),
        ("com.shop.Line:<init>(com.shop.model.Item,java.lang.Thread,java.lang.Class)",
         "constructor", 34),
        ("com.shop.Line:render(java.lang.Throwable,java.lang.Runnable)", "method", 37),
        ("com.shop.model.Item:<init>(java.lang.String,int)", "constructor", 7),
        ("com.shop.model.Item:getName()", "method", 12),
        ("com.shop.model.Item:price()", "method", 16),
        ("com.shop.model.Priced:isFree()", "method", 25),  # abstract price() is no node
        ("com.shop.model.Priced:zero()", "method", 29),  # its lambda is no node
        ("com.shop.model.Size$1:factor()", "method", 36),  # enum constant body
        ("com.shop.model.Size:<init>()", "constructor", 41),
        ("com.shop.model.Size:factor()", "method", 44),
        ("com.shop.model.Price:<init>(int,java.lang.String)", "constructor", 48),  # compact
        ("com.shop.model.Price:validate(int)", "method", 52),
    ]
    assert [(c.name, c.start_line) for c in table.classes] == [
        ("com.shop.Main", 7), ("com.shop.Main$1", 19),
        ("com.shop.Cart", 6), ("com.shop.Line", 33),
        ("com.shop.model.Item", 3), ("com.shop.model.Priced", 22), ("com.shop.model.Size", 34),
        ("com.shop.model.Size$1", 35), ("com.shop.model.Price", 47),
    ]
    assert table.problems == ()


def test_spans():
    table = extract_symbols("java", JAVA)
    assert table.by_name["com.shop.Main:<clinit>()"] == Node(
        "com.shop.Main:<clinit>()", "initializer", "com/shop/Main.java", 10, 4, 12, 5)
    assert table.by_name["com.shop.model.Size:factor()"] == Node(
        "com.shop.model.Size:factor()", "method", "com/shop/model/Item.java", 44, 4, 44, 30)


def test_parameter_types():
    source = (
        "import java.util.Map;\n"
        "public class Solo<K> {\n"
        "  public static void main(String... args) { new Solo<String>().go(null, null, null); }\n"
        "  void go(final Map.Entry<K, String> e, @Deprecated Object[][] grid, java.lang.String s) {}\n"
        "  <T> void each(Iterable<? extends T> xs, T first, K key, Solo.Node n, Thread... ts) {}\n"
        "  static class Node { Node() { } }\n"
        "  class String { }\n"  # an own type shadows java.lang
        "  void own(String s) {}\n"
        "}\n"
    )
    assert [n.name for n in extract_symbols("java", {"Solo.java": source}).nodes] == [
        "Solo:main(String[])",  # the member class String (line 7) shadows java.lang.String
        "Solo:go(Map.Entry,java.lang.Object[][],java.lang.String)",
        "Solo:each(Iterable,T,K,Node,java.lang.Thread[])",
        "Node:<init>()",
        "Solo:own(String)",
    ]


def test_anonymous_classes_are_numbered_per_enclosing_class():
    source = (
        "package p;\n"
        "class A {\n"
        "  Runnable r = new Runnable() { public void run() {\n"
        "    new Thread() { public void run() {} }.start(); } };\n"
        "  static class B { Object o = new Object() { public String toString() { return \"\"; } }; }\n"
        "  void later() { Runnable q = new Runnable() { public void run() {} }; }\n"
        "}\n"
    )
    assert rows(extract_symbols("java", {"p/A.java": source})) == [
        ("p.A$1:run()", "method", 3),
        ("p.A$1$1:run()", "method", 4),
        ("p.B$1:toString()", "method", 5),
        ("p.A:later()", "method", 6),
        ("p.A$2:run()", "method", 6),
    ]


def test_syntax_error_is_reported_and_the_rest_still_extracted():
    broken = "class Main {\n  void a() {}\n  void b( { }\n  void c() {}\n}\n"
    table = extract_symbols("java", {"Main.java": broken, "Empty.java": ""})
    assert table.problems == ("Main.java: syntax error at line 3",)
    assert {"Main:a()", "Main:c()"} <= set(table.by_name)


def test_call_sites_in_the_callers_own_body():
    table = extract_symbols("java", JAVA)
    main = "com.shop.Main:main(java.lang.String[])"
    lines = lambda caller, callee: call_site_lines(table, JAVA, caller, callee)  # noqa: E731
    assert lines(main, "com.shop.Cart:<init>()") == [15]
    assert lines(main, "com.shop.Cart:add(com.shop.model.Item)") == [17]
    assert lines(main, "com.shop.Main:log(java.lang.Object)") == [26, 27]  # lambda, Main::log
    assert lines(main, "com.shop.model.Item:getName()") == [27]  # Item::getName
    assert lines(main, "com.shop.Main$1:run()") == [25]
    assert lines(main, "com.shop.Cart:total()") == []  # inside the anonymous class
    assert lines("com.shop.Main$1:run()", "com.shop.Cart:total()") == [22]
    item = "com.shop.model.Item:<init>(java.lang.String,int)"
    assert lines("com.shop.Main:<clinit>()", item) == [11]
    assert lines("com.shop.Cart:<init>()", "com.shop.Cart:<init>(int)") == [10]  # this(16)
    assert lines("com.shop.model.Price:<init>(int,java.lang.String)",
                 "com.shop.model.Price:validate(int)") == [49]
    assert lines("com.shop.model.Priced:isFree()", "com.shop.model.Item:price()") == [26]
    assert lines("com.shop.Cart:add(com.shop.model.Item)", "java.util.ArrayList:<init>()") == [17]
    assert lines(main, "com.shop.Main:best(List,T[])") == []
    assert lines("com.shop.Main:nothing()", "com.shop.Cart:<init>()") == []


def test_super_calls_match_the_superclass_constructor():
    source = "class A { A(int x) {} }\nclass B extends A {\n  B() {\n    super(1);\n  }\n}\n"
    files = {"A.java": source}
    table = extract_symbols("java", files)
    assert call_site_lines(table, files, "B:<init>()", "A:<init>(int)") == [4]
