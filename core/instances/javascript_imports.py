"""JavaScript imports (`require`, `import`, `export ... from`, `import()`): which repository files a
file needs, and where each goes in the program (see `program_files` for the rules)."""
from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from core.instances.import_resolution import Dependency, Imports, Problem, captures, join, place_files
from core.instances.records import EXTRACTION_FAILED, THIRD_PARTY
from core.safe_files import parse_json
from core.symbols.parsing import Source, TsNode

PACKAGE_JSON = "package.json"
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

class _JsImport(NamedTuple):
    specifier: str
    optional: bool


class JavaScriptImports(Imports):
    language = "javascript"

    @staticmethod
    def is_test_file(name: str) -> bool:
        return name.rsplit(".", 1)[0].endswith((".test", ".spec"))

    @classmethod
    def entry_rules(cls, entry_file: str, files: Mapping[str, str]) -> str:
        es_module = '"module"' in files.get("package.json", "")
        style = ("an ES module: `import` the program's files with `./` paths relative to the program root"
                 if es_module else "CommonJS: `require` the program's files with `./` paths relative to the "
                                   "program root (`require('./lib/cart')`)")
        return f"The file is `main.js` at the program root, {style}."

    def dependencies(self, path: str) -> list[Dependency] | Problem:
        if path.endswith(".json"):
            return self._json_problem(path) or []
        problem = self.syntax_problem(path)
        if problem:
            return problem
        found: list[Dependency] = []
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
        return place_files(pairs)

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
            parse_json(self.sources[path])
        except ValueError as error:
            return Problem(EXTRACTION_FAILED, f"cannot parse {path}: {error}")
        return None

    def _module_manifest(self, start_file: str) -> str:
        """The start file's nearest package.json when it says `"type": "module"`, else ""."""
        folder = posixpath.dirname(start_file)
        while True:
            manifest = join(folder, PACKAGE_JSON)
            if manifest in self.sources:
                return manifest if _declares_module_type(self.sources[manifest]) else ""
            if not folder:
                return ""
            folder = posixpath.dirname(folder)


def _declares_module_type(text: str) -> bool:
    try:
        data = parse_json(text)
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
