"""Python imports: which repository files a file needs, and where each goes in the program
(see `program_files` for the rules)."""
from __future__ import annotations

import posixpath
import sys
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from core.instances.import_resolution import (
    Dependency,
    Imports,
    Problem,
    captures,
    dotted,
    identifiers,
    join,
    place_files,
    within,
)
from core.instances.records import EXTRACTION_FAILED, THIRD_PARTY
from core.symbols.parsing import Source, TsNode

OPTIONAL_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})

class _PythonImport(NamedTuple):
    module: str  # dotted, without the leading dots of a relative import
    names: tuple[str, ...]  # `from module import names` (maybe submodules); () for `import module`
    level: int  # leading dots
    optional: bool
    written: str  # as written, for messages


class PythonImports(Imports):
    language = "python"

    @staticmethod
    def is_test_file(name: str) -> bool:
        return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"

    @classmethod
    def entry_rules(cls, entry_file: str, files: Mapping[str, str]) -> str:
        return ("The file is `main.py` at the program root. Import the program's modules by their paths "
                "(`pkg/mod.py` is `pkg.mod`) and do the work at module level or under "
                "`if __name__ == \"__main__\":`.")

    def __init__(self, sources: Mapping[str, str], parsed: Mapping[str, Source]) -> None:
        super().__init__({path: text for path, text in sources.items() if path.endswith(".py")}, parsed)
        self.folders = {posixpath.dirname(path) for path in self.sources}
        for folder in list(self.folders):
            while folder:
                folder = posixpath.dirname(folder)
                self.folders.add(folder)
        self.roots = ["", "src"] if "src" in self.folders else [""]

    def own_root(self, path: str) -> str:
        """The folder above the file's top-most package (its own folder when it is in no package)."""
        folder = posixpath.dirname(path)
        while folder and join(folder, "__init__.py") in self.sources:
            folder = posixpath.dirname(folder)
        return folder

    def dependencies(self, path: str) -> list[Dependency] | Problem:
        problem = self.syntax_problem(path)
        if problem:
            return problem
        root = self.own_root(path)
        found = [Dependency(init, root) for init in self._package_inits(root, path)]
        for statement in _python_imports(self.source(path)):
            resolved = self._resolve(path, root, statement)
            if isinstance(resolved, Problem):
                return resolved
            found.extend(resolved)
        return found

    def layout(self, closure: list[Dependency]) -> dict[str, str] | Problem:
        return place_files((posixpath.relpath(d.path, d.root or ".") if d.root else d.path, d.path) for d in closure)

    def _package_inits(self, root: str, path: str) -> list[str]:
        """`__init__.py` of each package from the root down to the file's folder (running it imports them)."""
        folder = posixpath.dirname(path)
        inits = []
        while folder != root and folder:
            init = join(folder, "__init__.py")
            if init in self.sources and init != path:
                inits.append(init)
            folder = posixpath.dirname(folder)
        return inits[::-1]

    def _resolve(self, path: str, root: str, statement: _PythonImport) -> list[Dependency] | Problem:
        if statement.level:
            return self._resolve_relative(path, root, statement)
        for candidate_root in dict.fromkeys([root, *self.roots]):
            files = self._module_files(candidate_root, statement.module)
            if files is not None:
                return self._with_submodules(candidate_root, statement, files)
        return self._unresolved(path, statement)

    def _resolve_relative(self, path: str, root: str, statement: _PythonImport) -> list[Dependency] | Problem:
        base = posixpath.dirname(path)
        for _ in range(statement.level - 1):
            if not base:
                return Problem(EXTRACTION_FAILED, f"{path} imports {statement.written}, above the repository")
            base = posixpath.dirname(base)
        files = self._module_files(base, statement.module) if statement.module else []
        if files is None:
            if statement.optional:
                return []
            return Problem(EXTRACTION_FAILED, f"{path} imports {statement.written}, which is not in the repository")
        for name in statement.names:
            files.extend(self._module_files(base, dotted(statement.module, name)) or ())
        return [Dependency(file, root if within(root, file) else self.own_root(file)) for file in files]

    def _with_submodules(self, root: str, statement: _PythonImport, files: list[str]) -> list[Dependency]:
        """`from a.b import c`: c is a module when a/b/c.py (or a/b/c/__init__.py) exists."""
        for name in statement.names:
            files.extend(self._module_files(root, dotted(statement.module, name)) or ())
        return [Dependency(file, root) for file in files]

    def _module_files(self, root: str, dotted: str) -> list[str] | None:
        """Files importing `dotted` from `root` runs (package `__init__`s, then the module), or None when
        it is not there. A folder without `__init__.py` is a namespace package (no file of its own)."""
        files, folder = [], root
        parts = dotted.split(".")
        for index, part in enumerate(parts):
            base = join(folder, part)
            init = join(base, "__init__.py")
            if init in self.sources:
                files.append(init)
            elif index == len(parts) - 1 and base + ".py" in self.sources:
                files.append(base + ".py")
                return files
            elif base not in self.folders:
                return None
            folder = base
        return files

    def _unresolved(self, path: str, statement: _PythonImport) -> list[Dependency] | Problem:
        top = statement.module.split(".")[0]
        if statement.optional or top in sys.stdlib_module_names:
            return []
        if any(self._module_files(root, top) for root in self.roots):
            return Problem(EXTRACTION_FAILED, f"{path} imports {statement.module}, which is not in the repository")
        return Problem(THIRD_PARTY,
                       f"{path} imports {top}, which is neither in the repository nor in the standard library")


def _python_imports(source: Source) -> Iterator[_PythonImport]:
    for node in captures("python", "(import_statement) @i (import_from_statement) @f", source.tree.root_node):
        optional = _optional_python_import(source, node)
        if node.type == "import_statement":
            for name in node.children_by_field_name("name"):
                module = _imported_name(source, name)
                yield _PythonImport(module, (), 0, optional, module)
        else:
            yield _from_import(source, node, optional)


def _from_import(source: Source, node: TsNode, optional: bool) -> _PythonImport:
    module_node = node.child_by_field_name("module_name")
    level, module = 0, source.text(module_node)
    if module_node is not None and module_node.type == "relative_import":
        prefix = next((c for c in module_node.children if c.type == "import_prefix"), None)
        level = source.text(prefix).count(".")
        dotted = next((c for c in module_node.named_children if c.type == "dotted_name"), None)
        module = source.text(dotted)
    names = tuple(_imported_name(source, name) for name in node.children_by_field_name("name"))
    return _PythonImport(module.replace(" ", ""), names, level, optional, source.text(module_node))


def _imported_name(source: Source, node: TsNode) -> str:
    if node.type == "aliased_import":
        name = node.child_by_field_name("name")
        if name is None:
            raise ValueError(f"an aliased import without a name at {node.start_point}")  # the grammar requires one
        node = name
    return source.text(node).replace(" ", "")


def _optional_python_import(source: Source, node: TsNode) -> bool:
    """Inside `try:` with a handler catching ImportError (or wider), or under `if TYPE_CHECKING:`."""
    child, parent = node, node.parent
    while parent is not None:
        if parent.type == "try_statement" and child == parent.child_by_field_name("body") and any(
                _catches_import_error(source, clause) for clause in parent.named_children
                if clause.type == "except_clause"):
            return True
        if parent.type == "if_statement" and child == parent.child_by_field_name("consequence") and source.text(
                parent.child_by_field_name("condition")).endswith("TYPE_CHECKING"):
            return True
        child, parent = parent, parent.parent
    return False


def _catches_import_error(source: Source, clause: TsNode) -> bool:
    caught = [child for child in clause.named_children if child.type != "block"]
    if not caught:
        return True  # a bare `except:`
    value = caught[0]
    if value.type == "as_pattern" and value.named_child_count:
        value = value.named_children[0]
    return any(name in OPTIONAL_IMPORT_ERRORS for name in identifiers(source, value))
