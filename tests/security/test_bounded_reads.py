"""Every reader is the bounded reader (issue #36, item 3): no module of core or of the CLI opens or reads a file, a
zip or tar archive or an SQLite database except through `core/safe_files.py` and `core/safe_archives.py`, which are
the bounded reader, or at one of the few places listed below, each with the reason it is safe.

The scan is of the source tree's syntax (`ast`), so it sees every call whatever it is named after an import: a
builtin `open` (or `io.open`, `os.fdopen`, `codecs.open`) for reading, `os.open` without a write flag, any
`.read_text()`, `.read_bytes()` or `.open()` for reading (pathlib's and the like), `json.load`, `json.loads` of
something read, `zipfile.ZipFile`, `tarfile`, `sqlite3.connect`, `numpy.load` of a file, `shutil`'s copies and
`unpack_archive`, and the compressed-file openers. JSON read from a file goes through `core.safe_files.parse_json`
(`read_json`), whose nesting is bounded: `json.loads` of a read, even a bounded one, is listed too."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("core", "traceeval_gui/cli")
BOUNDED_READER = ("core/safe_files.py", "core/safe_archives.py")

# (module, enclosing function, the call as written) -> why it is not a hostile file read without bounds
ALLOWED = {
    ("core/dataset/workspace_db.py", "connect", "sqlite3.connect"):
        "the one place SQLite files are opened, by the workspace's own connection (docs/security.md: one workspace, "
        "many processes)",
    ("core/dataset/workspace_db.py", "connect_private_copy", "sqlite3.connect"):
        "the private copy of a workspace to merge, read behind trusted_schema=OFF, an authorizer, a value bound, "
        "row and byte bounds and a cancel (core/dataset/untrusted_workspace.py; docs/security.md: merging)",
    ("core/dataset/untrusted_workspace.py", "_copy_file", "os.open"):
        "a workspace to merge and its -wal, copied as bytes into a private folder (a database in use, which "
        "open_bytes refuses, rightly for other readers: this process holds no connection to it): regular files only, "
        "from their stat and fstat, at most MAX_FILE_BYTES together and no more than their stat's size",
    ("core/dataset/untrusted_workspace.py", "_copy_file", "os.fdopen"):
        "the descriptor of the os.open above, read within its bounds",
    ("core/dataset/untrusted_workspace.py", "_starts_with", "os.open"):
        "the first 8 bytes of a -journal beside a workspace to merge, opened only when its stat says it is a regular "
        "file",
    ("core/dataset/untrusted_workspace.py", "_starts_with", "os.fdopen"):
        "the descriptor of the os.open above: 8 bytes read",
    ("core/dataset/untrusted_workspace.py", "_identify", "open"):
        "the first 100 bytes of the private copy _copy_file made (our own file, in a private temporary folder)",
    ("core/llm/batches/providers.py", "AnthropicBatches._request", "_OPENER.open"):
        "an HTTP request (urllib's opener), not a file: its body is read at most RESULTS_CAP_BYTES",
    ("core/instances/layout_update.py", "_write_durably", "os.open"):
        "a folder opened read-only to fsync it after a rename; nothing is read from it",
    ("core/release/checkout.py", "extracted_from", "json.loads"):
        "the checkout note core/release/archive.py writes beside the corpus it extracted (our own file in the "
        "cache), read through safe_files.read_bytes within MAX_NOTE_BYTES; a RecursionError is caught",
    ("traceeval_gui/cli/reference.py", "update", "path.read_text"):
        "this project's own docs/cli-reference.md, rewritten by a developer (`python -m traceeval_gui.cli.reference "
        "--update`), never a user's file",
}

_OPENERS = {"open", "io.open", "os.fdopen", "codecs.open", "tokenize.open", "gzip.open", "bz2.open", "lzma.open",
            "tarfile.open", "tarfile.TarFile", "zipfile.ZipFile", "ZipFile", "sqlite3.connect", "json.load",
            "shutil.copyfile", "shutil.copy", "shutil.copy2", "shutil.copytree", "shutil.copyfileobj",
            "shutil.unpack_archive", "np.load", "numpy.load", "os.open"}
_READ_METHODS = ("read_text", "read_bytes", "open")
_WRITE_MODES = set("wax+")
_WRITE_FLAGS = ("O_WRONLY", "O_RDWR")


def unbounded_reads(source: str) -> list[tuple[str, str, int]]:
    """(enclosing function, call as written, line) of every read of a file in `source` outside the bounded reader."""
    found: list[tuple[str, str, int]] = []

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, f"{scope}.{child.name}" if scope else child.name)
                continue
            if isinstance(child, ast.Call) and _reads_a_file(child):
                found.append((scope, ast.unparse(child.func), child.lineno))
                if ast.unparse(child.func) == "json.loads":
                    continue  # one read: the JSON of a file, not the read inside it as well
            visit(child, scope)

    visit(ast.parse(source), "")
    return found


def _reads_a_file(call: ast.Call) -> bool:
    name = ast.unparse(call.func)
    if name == "json.loads":
        return bool(call.args) and isinstance(call.args[0], ast.Call) and _reads_something(call.args[0])
    if name in ("np.load", "numpy.load"):
        return not (call.args and isinstance(call.args[0], ast.Call) and
                    ast.unparse(call.args[0].func) in ("io.BytesIO", "BytesIO"))  # bytes already read, bounded
    if name == "os.open":
        return not any(flag in ast.unparse(argument) for argument in call.args[1:] for flag in _WRITE_FLAGS)
    if name in _OPENERS:
        return name not in ("open", "io.open", "os.fdopen", "codecs.open") or not _writes(call, position=1)
    if isinstance(call.func, ast.Attribute) and call.func.attr in _READ_METHODS:
        return call.func.attr != "open" or not _writes(call, position=0)
    return False


def _reads_something(call: ast.Call) -> bool:
    """A call that yields a file's content: a read, a bounded one too, or `.read()` of something opened."""
    return _reads_a_file(call) or ast.unparse(call.func).rsplit(".", 1)[-1] in ("read", "read_bytes", "read_text")


def _writes(call: ast.Call, position: int) -> bool:
    """Whether an `open` call's mode (positional at `position`, or `mode=`) is a constant that writes."""
    mode = next((keyword.value for keyword in call.keywords if keyword.arg == "mode"), None)
    if mode is None and len(call.args) > position:
        mode = call.args[position]
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and bool(_WRITE_MODES & set(mode.value))


def scanned_modules() -> list[Path]:
    return sorted(path for folder in SCANNED for path in (ROOT / folder).rglob("*.py"))


def test_every_file_read_in_core_and_the_cli_goes_through_the_bounded_reader():
    seen, unbounded = set(), []
    for path in scanned_modules():
        module = path.relative_to(ROOT).as_posix()
        if module in BOUNDED_READER:
            continue
        for scope, call, line in unbounded_reads(path.read_text(encoding="utf-8")):
            if (module, scope, call) in ALLOWED:
                seen.add((module, scope, call))
            else:
                unbounded.append(f"{module}:{line}: {call}(...) in {scope or 'the module'}")
    assert unbounded == [], "reads that bypass core/safe_files.py (read through it, or list it with its reason):\n" \
        + "\n".join(unbounded)
    assert set(ALLOWED) - seen == set(), \
        "allowed reads no longer in the code: remove them from ALLOWED"


def test_the_scan_finds_each_kind_of_read_and_passes_writes_and_bounded_reads():
    source = '''
import json, sqlite3, zipfile, os, numpy as np, io
from core.safe_files import read_text
def reads(path, text):
    open(path)
    open(path, "rb")
    path.read_text()
    path.read_bytes()
    path.open(encoding="utf-8")
    json.load(handle)
    json.loads(path.read_text())
    json.loads(open(path).read())
    json.loads(read_text(path, 10))
    zipfile.ZipFile(path)
    sqlite3.connect(path)
    np.load(path)
    os.open(path, os.O_RDONLY)
class Writer:
    def writes(self, path, text):
        open(path, "w")
        open(path, mode="xb")
        path.open("a")
        os.open(path, os.O_WRONLY | os.O_CREAT)
        json.loads(text)
        read_text(path, 10)
        np.load(io.BytesIO(text))
'''
    found = [(scope, call) for scope, call, _ in unbounded_reads(source)]
    assert found == [("reads", call) for call in (
        "open", "open", "path.read_text", "path.read_bytes", "path.open", "json.load", "json.loads", "json.loads",
        "json.loads", "zipfile.ZipFile", "sqlite3.connect", "np.load", "os.open")]
