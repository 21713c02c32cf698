"""Java types and imports: which repository files a file needs (same package, imports, fully
qualified names), and where each goes in the program (see `program_files` for the rules)."""
from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from core.instances.import_resolution import Dependency, Imports, Problem, captures, join, place_files
from core.instances.records import EXTRACTION_FAILED, THIRD_PARTY
from core.symbols import extract_symbols
from core.symbols.java import MAIN, TYPE_DECLARATIONS, erase_generics, package_of
from core.symbols.parsing import Source

JDK_PREFIXES = ("java.", "javax.", "jdk.", "sun.", "com.sun.", "org.w3c.", "org.xml.")

JAVA_TOP_TYPES = "\n".join(f"(program ({kind} name: (identifier) @type))" for kind in TYPE_DECLARATIONS)
JAVA_ALL_TYPES = "\n".join(f"({kind} name: (identifier) @type)" for kind in TYPE_DECLARATIONS)
JAVA_REFERENCES = """
(type_identifier) @simple
((identifier) @simple (#match? @simple "^[A-Z]"))
(scoped_type_identifier) @qualified
(field_access) @qualified
(scoped_identifier) @qualified
"""


class _JavaImport(NamedTuple):
    path: str  # `a.b.C`, `a.b.*`, `a.b.C.m` (static)
    static: bool


class JavaImports(Imports):
    language = "java"

    @staticmethod
    def is_test_file(name: str) -> bool:
        return name.rsplit(".", 1)[0].endswith(("Test", "Tests"))

    @classmethod
    def harness_path(cls, target_file: str, sources_by_program_path: Mapping[str, str]) -> str:
        """`<package folders>/Main.java` in the target file's package (so it can use package-private code)."""
        source = Source.parse("java", target_file, sources_by_program_path.get(target_file, ""))
        return join(package_of(source).replace(".", "/"), "Main.java")

    @classmethod
    def entry_clash(cls, files: Mapping[str, str], harness_path: str) -> str:
        """A gathered `Main.java` declares `main`, or a file of the default package does while the harness
        is there too."""
        harness_in_default = "/" not in harness_path
        holders = {path: text for path, text in files.items() if "main" in text}
        for node in extract_symbols("java", holders).nodes:
            if not node.name.endswith(MAIN):
                continue
            if posixpath.basename(node.file) == "Main.java":
                return f"{node.file} already declares main, the entry point would be ambiguous"
            if harness_in_default and "/" not in node.file:
                return f"{node.file} declares main in the default package, next to the harness"
        return ""

    @classmethod
    def entry_rules(cls, entry_file: str, files: Mapping[str, str]) -> str:
        package = entry_file.rpartition("/")[0].replace("/", ".")
        declaration = f"`package {package};`" if package else "no package declaration (the default package)"
        return (f"The file is `{entry_file}`: {declaration}, then `public class Main` with "
                "`public static void main(String[] args)`.")

    def __init__(self, sources: Mapping[str, str], parsed: Mapping[str, Source]) -> None:
        super().__init__({path: text for path, text in sources.items() if path.endswith(".java")}, parsed)
        self.packages: dict[str, dict[str, list[str]]] = {}  # package -> top-level type -> files
        self.package_of: dict[str, str] = {}
        self._mentioned: dict[str, tuple[list[str], list[str]]] = {}
        for path in self.sources:
            source = self.source(path)
            package = self.package_of[path] = package_of(source)
            declared = self.packages.setdefault(package, {})
            for node in captures("java", JAVA_TOP_TYPES, source.tree.root_node):
                declared.setdefault(source.text(node), []).append(path)

    def dependencies(self, path: str) -> list[Dependency] | Problem:
        problem = self.syntax_problem(path)
        if problem:
            return problem
        source = self.source(path)
        found: dict[str, None] = {}
        imports = _java_imports(source)
        for statement in imports:
            resolved = self._resolve_import(path, statement)
            if isinstance(resolved, Problem):
                return resolved
            found.update(dict.fromkeys(resolved))
        for file in self._referenced_files(path, source, imports):
            found.setdefault(file, None)
        found.pop(path, None)
        return [Dependency(file, "") for file in found]

    def layout(self, closure: list[Dependency]) -> dict[str, str] | Problem:
        pairs = []
        for dependency in closure:
            package = self.package_of[dependency.path]
            name = posixpath.basename(dependency.path)
            pairs.append((join(package.replace(".", "/"), name), dependency.path))
        return place_files(pairs)

    # -- imports

    def _resolve_import(self, path: str, statement: _JavaImport) -> list[str] | Problem:
        if statement.path.startswith(JDK_PREFIXES):
            return []
        parts = statement.path.split(".")
        if parts[-1] == "*" and not statement.static and ".".join(parts[:-1]) in self.packages:
            return self._on_demand_package(path, ".".join(parts[:-1]))
        file = self._qualified_file(path, parts)
        if file:
            return [file]
        if any(".".join(parts[:i]) in self.packages for i in range(1, len(parts))):
            return Problem(EXTRACTION_FAILED, f"{path} imports {statement.path}, which is not in the repository")
        return Problem(THIRD_PARTY,
                       f"{path} imports {statement.path}, which is neither in the repository nor in the JDK")

    def _on_demand_package(self, path: str, package: str) -> list[str]:
        """`import a.b.*;` compiles only when a.b has a file in the program: keep one unless a
        referenced type brings one in (the references are resolved after the imports)."""
        if any(self._referenced_from(path, package)):
            return []
        declared = self.packages[package]
        return [min(file for files in declared.values() for file in files)] if declared else []

    def _referenced_from(self, path: str, package: str) -> Iterator[str]:
        declared = self.packages.get(package, {})
        names, _ = self._references(path)
        return (name for name in names if name in declared)

    def _qualified_file(self, path: str, parts: list[str]) -> str:
        """The file declaring the type a dotted name starts with (`a.b.C.D.m` -> the file of a.b.C)."""
        for split in range(1, len(parts)):
            declared = self.packages.get(".".join(parts[:split]))
            if declared and parts[split] in declared:
                return _nearest(path, declared[parts[split]])
        return ""

    # -- references

    def _references(self, path: str) -> tuple[list[str], list[str]]:
        """(simple names, dotted names) the file mentions outside its package and import lines, in order."""
        if path not in self._mentioned:
            self._mentioned[path] = self._scan_references(self.source(path))
        return self._mentioned[path]

    @staticmethod
    def _scan_references(source: Source) -> tuple[list[str], list[str]]:
        body_start = _java_body_start(source)
        simple: dict[str, None] = {}
        qualified: dict[str, None] = {}
        for node in captures("java", JAVA_REFERENCES, source.tree.root_node):
            if node.start_byte < body_start:
                continue
            text = erase_generics(source.text(node))
            if node.type in ("type_identifier", "identifier"):
                simple.setdefault(text, None)
            elif text[:1].islower():
                qualified.setdefault(text, None)
        return list(simple), list(qualified)

    def _referenced_files(self, path: str, source: Source, imports: list[_JavaImport]) -> Iterator[str]:
        own = set(_captured_texts(source, JAVA_ALL_TYPES))
        package = self.package_of[path]
        single = {statement.path.rsplit(".", 1)[-1] for statement in imports
                  if not statement.static and not statement.path.endswith(".*")}
        on_demand = [statement.path[:-2] for statement in imports if statement.path.endswith(".*")]
        simple, qualified = self._references(path)
        for name in simple:
            if name not in own and name not in single:  # single-type imports are resolved already
                file = self._simple_file(path, name, [package, *on_demand])
                if file:
                    yield file
        for dotted in qualified:
            file = self._qualified_file(path, dotted.split("."))
            if file:
                yield file

    def _simple_file(self, path: str, name: str, packages: list[str]) -> str:
        for package in packages:
            files = self.packages.get(package, {}).get(name)
            if files:
                return _nearest(path, [file for file in files if file != path] or files)
        return ""


def _java_imports(source: Source) -> list[_JavaImport]:
    imports = []
    for child in source.tree.root_node.named_children:
        if child.type == "import_declaration":
            parts = [source.text(c) if c.type != "asterisk" else "*" for c in child.named_children
                     if c.type in ("scoped_identifier", "identifier", "asterisk")]
            static = any(c.type == "static" for c in child.children)
            imports.append(_JavaImport("".join(".".join(parts).split()), static))
    return imports


def _java_body_start(source: Source) -> int:
    """Byte offset after the package and import declarations."""
    start = 0
    for child in source.tree.root_node.named_children:
        if child.type in ("package_declaration", "import_declaration"):
            start = child.end_byte
    return start


def _captured_texts(source: Source, pattern: str) -> list[str]:
    return [source.text(node) for node in captures("java", pattern, source.tree.root_node)]


def _nearest(path: str, files: list[str]) -> str:
    """Of several files declaring one type, the one sharing the longest folder prefix with `path`."""
    return min(files, key=lambda file: (-len(posixpath.commonprefix([path, file])), file))
