"""The files a target needs, laid out as the finished program will have them.

`repository_sources` reads a repository's source files once. `gather_files` (or a
`FileGatherer`, which keeps each file's import resolution for the next start file) follows the
start file's imports inside the repository and maps each needed file to its program path:
- Python: `import a.b`, `from a.b import c` (c may be a module), relative imports, and the
  `__init__.py` of every package on the way. A file's source root is the folder above its
  top-most package; absolute imports are looked up there, then at the repository root, then in
  `src/`. A file's program path is its path below the root it was found under
  (`src/textstats/counts.py` -> `textstats/counts.py`). An import that is neither the
  repository's nor in `sys.stdlib_module_names` is THIRD_PARTY, unless it is optional: inside
  a `try:` whose handler catches ImportError, ModuleNotFoundError, Exception or everything, or
  under `if TYPE_CHECKING:`. An optional import of a repository module is still followed.
- JavaScript: `require('./x')`, `import ... from './x'`, `export ... from './x'` and
  `import('./x')` with a literal, tried as `x`, `x.js`, `x.mjs`, `x.cjs`, `x.json`,
  `x/index.js`; required `.json` files are part of the program. Node core modules are fine;
  any other bare specifier is THIRD_PARTY (unless the call is inside a `try` block, like an
  optional Python import). Program paths are relative to the deepest folder holding every
  gathered file; when the start file's nearest package.json says `"type": "module"`, it is
  added as the program's `package.json`.
- Java: the files declaring every type the start file refers to (same package, single-type,
  on-demand and static imports, fully qualified names), transitively. A JDK import is fine;
  an import of a package the repository does not declare is THIRD_PARTY. Program path =
  `<package folders>/<File>.java`.
A file that does not parse, an import of a repository module that is not there, two files
with one program path, or more than `max_files` files: EXTRACTION_FAILED.
"""
from __future__ import annotations

import json
import os
import posixpath
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import NamedTuple

import tree_sitter as ts

from core.build.model import EXTRACTION_FAILED, THIRD_PARTY
from core.model import SOURCE_SUFFIXES
from core.symbols import extract_symbols
from core.symbols.java import TYPE_DECLARATIONS, erase_generics, package_of
from core.symbols.parsing import Source, TsNode, language

DEFAULT_MAX_FILES = 20
MAX_SOURCE_BYTES = 200_000
SKIPPED_DIRS = frozenset({"node_modules", "vendor", "third_party", "build", "dist", "target", "out", "venv", "env",
                          "__pycache__", "site-packages"})
TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec"})
DATA_SUFFIXES = {"javascript": (".json",)}  # what `require` loads besides code
PACKAGE_JSON = "package.json"
OPTIONAL_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
JDK_PREFIXES = ("java.", "javax.", "jdk.", "sun.", "com.sun.", "org.w3c.", "org.xml.")
# require('module').builtinModules of Node 20 (`node:`-prefixed specifiers are always core modules)
NODE_CORE_MODULES = frozenset({
    "_http_agent", "_http_client", "_http_common", "_http_incoming", "_http_outgoing", "_http_server",
    "_stream_duplex", "_stream_passthrough", "_stream_readable", "_stream_transform", "_stream_wrap",
    "_stream_writable", "_tls_common", "_tls_wrap", "assert", "assert/strict", "async_hooks", "buffer",
    "child_process", "cluster", "console", "constants", "crypto", "dgram", "diagnostics_channel", "dns",
    "dns/promises", "domain", "events", "fs", "fs/promises", "http", "http2", "https", "inspector",
    "inspector/promises", "module", "net", "os", "path", "path/posix", "path/win32", "perf_hooks", "process",
    "punycode", "querystring", "readline", "readline/promises", "repl", "stream", "stream/consumers",
    "stream/promises", "stream/web", "string_decoder", "sys", "timers", "timers/promises", "tls", "trace_events",
    "tty", "url", "util", "util/types", "v8", "vm", "wasi", "worker_threads", "zlib"})
JS_EXTENSIONS = ("", ".js", ".mjs", ".cjs", ".json", "/index.js")


@dataclass(frozen=True)
class FileSet:
    """A target's files: program path -> repository path (start file first), or why there are none."""

    files: dict[str, str] = field(default_factory=dict)
    reason: str = ""  # "" when fine, else EXTRACTION_FAILED | THIRD_PARTY
    detail: str = ""  # one line naming the file and the problem

    @property
    def ok(self) -> bool:
        return not self.reason


class Problem(NamedTuple):
    reason: str
    detail: str


class Dependency(NamedTuple):
    path: str  # repository path
    root: str  # Python: the source root it was found under ("" elsewhere)


# -- reading a repository ------------------------------------------------------------------


def repository_sources(repo: Path, language: str) -> dict[str, str]:
    """Repository-relative '/'-separated path -> text of every source file of `language`, by path.

    For JavaScript, `.json` files are read too (a program may `require` them as data).
    Skipped: hidden folders, dependency/build/virtualenv folders (SKIPPED_DIRS), test folders
    (TEST_DIRS, which covers `src/test`), test files (`test_*.py`, `*_test.py`, `conftest.py`,
    `*.test.js`, `*.spec.js` and their .mjs/.cjs spellings, `*Test.java`, `*Tests.java`), files
    over 200 kB, files that are not UTF-8, symlinks to files outside the repository, and
    symlinked folders (their targets inside the repository are read where they are).
    """
    root = repo.resolve()
    suffixes = SOURCE_SUFFIXES[language] + DATA_SUFFIXES.get(language, ())
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(name for name in dirnames if _walkable_dir(name))
        folder = Path(dirpath)
        for name in filenames:
            if name.endswith(suffixes) and not _is_test_file(name, language):
                text = _read_source(folder / name, root)
                if text is not None:
                    found[(folder / name).relative_to(root).as_posix()] = text
    return dict(sorted(found.items()))


def _walkable_dir(name: str) -> bool:
    return not name.startswith(".") and name not in SKIPPED_DIRS and name not in TEST_DIRS


def _is_test_file(name: str, language: str) -> bool:
    if language == "python":
        return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    if language == "javascript":
        stem = name.rsplit(".", 1)[0]
        return stem.endswith((".test", ".spec"))
    stem = name.rsplit(".", 1)[0]
    return stem.endswith(("Test", "Tests"))


def _read_source(path: Path, root: Path) -> str | None:
    if path.is_symlink():
        target = path.resolve()
        if not target.is_relative_to(root):
            return None
    try:
        if not path.is_file() or path.stat().st_size > MAX_SOURCE_BYTES:
            return None
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


# -- gathering -----------------------------------------------------------------------------


def gather_files(sources: Mapping[str, str], language: str, start_file: str,
                 max_files: int = DEFAULT_MAX_FILES) -> FileSet:
    """The files `start_file` needs (see the module docstring), or why they cannot be gathered."""
    return FileGatherer(sources, language).gather(start_file, max_files)


class FileGatherer:
    """Gathers file sets of many start files of one repository; each file's imports are resolved once.

    `parsed` may hold trees already parsed (Java: path -> Source) so no file is parsed twice.
    """

    def __init__(self, sources: Mapping[str, str], language: str,
                 parsed: Mapping[str, Source] | None = None) -> None:
        self.sources = sources
        self.language = language
        self._imports: _Imports = IMPORTS[language](sources, parsed or {})
        self._dependencies: dict[str, list[Dependency] | Problem] = {}
        self._closures: dict[str, list[Dependency] | Problem] = {}

    def gather(self, start_file: str, max_files: int = DEFAULT_MAX_FILES) -> FileSet:
        if start_file not in self.sources:
            return FileSet({}, EXTRACTION_FAILED, f"{start_file} is not a readable source file of the repository")
        closure = self.closure(start_file)
        if isinstance(closure, Problem):
            return FileSet({}, closure.reason, closure.detail)
        if len(closure) > max_files:
            return FileSet({}, EXTRACTION_FAILED,
                           f"{start_file} needs {len(closure)} files, more than --max-files {max_files}")
        laid_out = self._imports.layout(closure)
        if isinstance(laid_out, Problem):
            return FileSet({}, laid_out.reason, laid_out.detail)
        return FileSet(laid_out)

    def closure(self, start_file: str) -> list[Dependency] | Problem:
        """Every file the start file needs, itself first, in discovery (breadth-first) order."""
        if start_file not in self._closures:
            self._closures[start_file] = self._walk(start_file)
        return self._closures[start_file]

    def _walk(self, start_file: str) -> list[Dependency] | Problem:
        first = Dependency(start_file, self._imports.own_root(start_file))
        seen = {start_file: first}
        queue = [first]
        for current in queue:  # grows while iterating: breadth-first
            found = self.dependencies(current.path)
            if isinstance(found, Problem):
                return found
            for dependency in found:
                if dependency.path not in seen:
                    seen[dependency.path] = dependency
                    queue.append(dependency)
        return queue

    def dependencies(self, path: str) -> list[Dependency] | Problem:
        if path not in self._dependencies:
            self._dependencies[path] = self._imports.dependencies(path)
        return self._dependencies[path]


class _Imports:
    """One language's import resolution (per file) and program layout (per file set)."""

    language = ""

    def __init__(self, sources: Mapping[str, str], parsed: Mapping[str, Source]) -> None:
        self.sources = sources
        self.parsed = dict(parsed)

    def source(self, path: str) -> Source:
        if path not in self.parsed:
            self.parsed[path] = Source.parse(self.language, path, self.sources[path])
        return self.parsed[path]

    def syntax_problem(self, path: str) -> Problem | None:
        problem = self.source(path).syntax_problem()
        return Problem(EXTRACTION_FAILED, f"cannot parse {problem}") if problem else None

    def own_root(self, path: str) -> str:
        return ""

    def dependencies(self, path: str) -> list[Dependency] | Problem:
        raise NotImplementedError

    def layout(self, closure: list[Dependency]) -> dict[str, str] | Problem:
        raise NotImplementedError


def _place(pairs: Iterable[tuple[str, str]]) -> dict[str, str] | Problem:
    """program path -> repository path, or EXTRACTION_FAILED when two files would share a program path."""
    files: dict[str, str] = {}
    for program_path, repo_path in pairs:
        other = files.setdefault(program_path, repo_path)
        if other != repo_path:
            return Problem(EXTRACTION_FAILED, f"{other} and {repo_path} would both be {program_path} in the program")
    return files


@cache
def _query(lang: str, pattern: str) -> ts.Query:
    return ts.Query(language(lang), pattern)


def captures(lang: str, pattern: str, node: TsNode) -> list[TsNode]:
    """Every capture of `pattern` under `node`, in source order."""
    found = ts.QueryCursor(_query(lang, pattern)).captures(node)
    return sorted((n for nodes in found.values() for n in nodes), key=lambda n: (n.start_byte, -n.end_byte))


def _identifiers(source: Source, node: TsNode) -> Iterator[str]:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "identifier":
            yield source.text(current)
        stack.extend(current.named_children)


# -- Python --------------------------------------------------------------------------------


class _PythonImport(NamedTuple):
    module: str  # dotted, without the leading dots of a relative import
    names: tuple[str, ...]  # `from module import names` (maybe submodules); () for `import module`
    level: int  # leading dots
    optional: bool
    written: str  # as written, for messages


class _PythonImports(_Imports):
    language = "python"

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
        while folder and _join(folder, "__init__.py") in self.sources:
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
        return _place((posixpath.relpath(d.path, d.root or ".") if d.root else d.path, d.path) for d in closure)

    def _package_inits(self, root: str, path: str) -> list[str]:
        """`__init__.py` of each package from the root down to the file's folder (running it imports them)."""
        folder = posixpath.dirname(path)
        inits = []
        while folder != root and folder:
            init = _join(folder, "__init__.py")
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
            files.extend(self._module_files(base, _dotted(statement.module, name)) or ())
        return [Dependency(file, root if _within(root, file) else self.own_root(file)) for file in files]

    def _with_submodules(self, root: str, statement: _PythonImport, files: list[str]) -> list[Dependency]:
        """`from a.b import c`: c is a module when a/b/c.py (or a/b/c/__init__.py) exists."""
        for name in statement.names:
            files.extend(self._module_files(root, _dotted(statement.module, name)) or ())
        return [Dependency(file, root) for file in files]

    def _module_files(self, root: str, dotted: str) -> list[str] | None:
        """Files importing `dotted` from `root` runs (package `__init__`s, then the module), or None when
        it is not there. A folder without `__init__.py` is a namespace package (no file of its own)."""
        files, folder = [], root
        parts = dotted.split(".")
        for index, part in enumerate(parts):
            base = _join(folder, part)
            init = _join(base, "__init__.py")
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
        node = node.child_by_field_name("name")
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
    return any(name in OPTIONAL_IMPORT_ERRORS for name in _identifiers(source, value))


def _within(root: str, path: str) -> bool:
    return not root or path.startswith(root + "/")


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _dotted(module: str, name: str) -> str:
    return f"{module}.{name}" if module else name


# -- JavaScript ----------------------------------------------------------------------------


class _JsImport(NamedTuple):
    specifier: str
    optional: bool


class _JavaScriptImports(_Imports):
    language = "javascript"

    def dependencies(self, path: str) -> list[Dependency] | Problem:
        if path.endswith(".json"):
            return self._json_problem(path) or []
        problem = self.syntax_problem(path)
        if problem:
            return problem
        found = []
        for statement in _js_imports(self.source(path)):
            resolved = self._resolve(path, statement)
            if isinstance(resolved, Problem):
                return resolved
            found.extend(Dependency(file, "") for file in resolved)
        return found

    def layout(self, closure: list[Dependency]) -> dict[str, str] | Problem:
        paths = [d.path for d in closure]
        base = posixpath.commonpath([posixpath.dirname(p) or "." for p in paths]) if paths else ""
        base = "" if base == "." else base
        pairs = [(posixpath.relpath(p, base) if base else p, p) for p in paths]
        manifest = self._module_manifest(paths[0])
        if manifest:
            pairs.append((PACKAGE_JSON, manifest))
        return _place(pairs)

    def _resolve(self, path: str, statement: _JsImport) -> list[str] | Problem:
        specifier = statement.specifier
        if specifier.startswith(("./", "../")) or specifier in (".", ".."):
            return self._resolve_relative(path, statement)
        if specifier.startswith("node:") or specifier in NODE_CORE_MODULES or statement.optional:
            return []
        if specifier.startswith("/"):
            return Problem(EXTRACTION_FAILED, f"{path} imports {specifier}, an absolute path")
        return Problem(THIRD_PARTY,
                       f"{path} imports {_package_name(specifier)}, which is neither in the repository "
                       "nor a Node core module")

    def _resolve_relative(self, path: str, statement: _JsImport) -> list[str] | Problem:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), statement.specifier))
        if target == ".." or target.startswith("../"):
            return Problem(EXTRACTION_FAILED, f"{path} imports {statement.specifier}, outside the repository")
        candidates = [target + extension for extension in JS_EXTENSIONS] if target != "." else ["index.js"]
        for candidate in candidates:
            if candidate in self.sources:
                return [candidate]
        if statement.optional:
            return []
        return Problem(EXTRACTION_FAILED, f"{path} imports {statement.specifier}, which is not in the repository")

    def _json_problem(self, path: str) -> Problem | None:
        try:
            json.loads(self.sources[path])
        except ValueError as error:
            return Problem(EXTRACTION_FAILED, f"cannot parse {path}: {error}")
        return None

    def _module_manifest(self, start_file: str) -> str:
        """The start file's nearest package.json when it says `"type": "module"`, else ""."""
        folder = posixpath.dirname(start_file)
        while True:
            manifest = _join(folder, PACKAGE_JSON)
            if manifest in self.sources:
                return manifest if _declares_module_type(self.sources[manifest]) else ""
            if not folder:
                return ""
            folder = posixpath.dirname(folder)


def _declares_module_type(text: str) -> bool:
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("type") == "module"


def _package_name(specifier: str) -> str:
    parts = specifier.split("/")
    return "/".join(parts[:2]) if specifier.startswith("@") else parts[0]


JS_IMPORTS_QUERY = "(call_expression) @c (import_statement) @i (export_statement) @e"


def _js_imports(source: Source) -> Iterator[_JsImport]:
    for node in captures("javascript", JS_IMPORTS_QUERY, source.tree.root_node):
        if node.type == "call_expression":
            specifier = _literal_call_argument(source, node)
        else:
            specifier = _string_value(source, node.child_by_field_name("source"))
        if specifier:
            yield _JsImport(specifier, _inside_js_try(node))


def _literal_call_argument(source: Source, call: TsNode) -> str:
    """`require('x')` / `import('x')` with one string literal -> 'x', else ""."""
    function = call.child_by_field_name("function")
    if function is None or not (function.type == "import" or
                                (function.type == "identifier" and source.text(function) == "require")):
        return ""
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.named_child_count != 1:
        return ""
    return _string_value(source, arguments.named_children[0])


def _string_value(source: Source, node: TsNode | None) -> str:
    if node is None or node.type != "string":
        return ""
    return "".join(source.text(part) for part in node.named_children if part.type == "string_fragment")


def _inside_js_try(node: TsNode) -> bool:
    child, parent = node, node.parent
    while parent is not None:
        if parent.type == "try_statement" and child == parent.child_by_field_name("body"):
            return True
        child, parent = parent, parent.parent
    return False


# -- Java ----------------------------------------------------------------------------------

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


class _JavaImports(_Imports):
    language = "java"

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
            pairs.append((_join(package.replace(".", "/"), name), dependency.path))
        return _place(pairs)

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


IMPORTS: dict[str, type[_Imports]] = {"python": _PythonImports, "javascript": _JavaScriptImports,
                                      "java": _JavaImports}


# -- the harness's place -------------------------------------------------------------------


def harness_path(language: str, target_file: str, sources_by_program_path: Mapping[str, str]) -> str:
    """Where the program's entry file goes: `main.py` / `main.js` at the program root, or
    `<package folders>/Main.java` in the target file's package (so it can use package-private code)."""
    if language == "python":
        return "main.py"
    if language == "javascript":
        return "main.js"
    source = Source.parse("java", target_file, sources_by_program_path.get(target_file, ""))
    return _join(package_of(source).replace(".", "/"), "Main.java")


def entry_clash(language: str, files: Mapping[str, str], harness_path: str) -> str:
    """"" when the harness can be the program's entry point, else one line saying what is in the way
    (ENTRY_NAME_TAKEN): a gathered file already has its path; Java: a gathered `Main.java` declares
    `main`, or a file of the default package does while the harness is there too."""
    if harness_path in files:
        return f"the program already has {harness_path}"
    if language != "java":
        return ""
    harness_in_default = "/" not in harness_path
    holders = {path: text for path, text in files.items() if "main" in text}
    for node in extract_symbols("java", holders).nodes:
        if not node.name.endswith(":main(java.lang.String[])"):
            continue
        if posixpath.basename(node.file) == "Main.java":
            return f"{node.file} already declares main, the entry point would be ambiguous"
        if harness_in_default and "/" not in node.file:
            return f"{node.file} declares main in the default package, next to the harness"
    return ""
