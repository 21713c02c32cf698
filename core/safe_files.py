"""Read dataset and results files as hostile input: the one place their bounds are kept.

Every reader of dataset files (program sources, callgraph.json, README.md, split files) and of
results files opens them here:
- regular files only: a FIFO, device or socket is refused from its `stat`, never opened, so
  nothing blocks on it and nothing streams from it;
- no link leaving the folder the file belongs to (`root`): a program file linked to
  `/proc/self/environ` is not read, a link that stays inside is followed;
- a size bound per kind of file, checked before and while reading;
- JSON with bounded nesting and number length: `parse_json` never fails with a RecursionError or
  ValueError (too deep a value, too long a number becomes a `Refused` marker), and `refusal` says
  why a parsed value cannot be used (nested deeper than MAX_JSON_DEPTH, a marker, a lone
  surrogate), so a results file can set aside the one record holding such a value.

A refused file raises `RefusedFile`, an OSError whose text is the problem without the file name,
so readers that already report unreadable files as `file: problem` report these the same way.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import stat
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import BinaryIO, TypeGuard

MiB = 1024 * 1024
MAX_SOURCE_BYTES = 4 * MiB  # a program source file; the released ones are far below 1 MiB
MAX_GROUND_TRUTH_BYTES = 64 * MiB  # callgraph.json
MAX_README_BYTES = 1 * MiB  # a program's README.md (two provenance lines)
MAX_SPLIT_BYTES = 64 * MiB  # a split file; the released ones are under 200 KB
MAX_RESULTS_BYTES = 2 * 1024 * MiB  # a results file: released ones hold every prompt and answer of a language
MAX_SCRIPT_BYTES = 4 * MiB  # the release's run_llm.py (about 32 KB), parsed for its prompt templates
MAX_NOTE_BYTES = 64 * 1024  # the checkout note written beside an extracted corpus: two paths
MAX_CONFIG_BYTES = 1 * MiB  # a settings file or list given by name: credentials, endpoints, prices, repositories
MAX_JSON_DEPTH = 64  # nesting levels; callgraph.json has 2, a released results file about 6
MAX_NUMBER_DIGITS = 40  # characters of one number literal in JSON (int() refuses beyond 4,300 digits)
INT64 = (-2 ** 63, 2 ** 63 - 1)  # what SQLite stores as an integer

_CHUNK = 1 << 20
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRING_OR_BRACKET = re.compile(_STRING + r"|[\[\]{}]", re.S)
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_IN_JSON = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")  # escaped (`\uD83D`) or literal


class RefusedFile(OSError):
    """A file the bounds refuse; `str(error)` is the problem, e.g. "not a regular file (a FIFO); not read"."""


class ResolvedFolder(os.PathLike[str]):
    """A folder whose links are resolved once, for reading many of its files: as the `root` of `read_bytes` it
    saves resolving the folder again for every file (indexing reads three or more files per program)."""

    __slots__ = ("given", "real")

    def __init__(self, folder: str | Path):
        self.given = os.path.abspath(folder)
        self.real = os.path.realpath(folder)

    def __fspath__(self) -> str:
        return self.given


class Refused:
    """Stands where `parse_json` left a JSON value out; `reason` says why."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason

    def __repr__(self) -> str:
        return f"Refused({self.reason!r})"


def in_use_by_sqlite(path: str | Path) -> bool:
    """Whether `path` is a database some process has open in WAL mode (its `-wal`/`-shm` are there), or one
    of those files: opening it other than through a connection (core/dataset/workspace_db.py) could drop that process's
    locks. Decided from names alone, so asking never opens anything."""
    name = str(path)
    if name.endswith(("-wal", "-shm", "-journal")):
        return True
    return os.path.lexists(f"{name}-wal") or os.path.lexists(f"{name}-shm")


def read_bytes(path: str | Path, limit: int, root: str | Path | ResolvedFolder | None = None) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them; with `root`, only when the file,
    links resolved, is inside `root`. FileNotFoundError when it is not there; RefusedFile otherwise."""
    with open_bytes(path, limit, root) as handle:
        chunks, size = [], 0
        while chunk := handle.read(min(_CHUNK, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise grown_past(limit)
        return b"".join(chunks)


def open_bytes(path: str | Path, limit: int, root: str | Path | ResolvedFolder | None = None) -> BinaryIO:
    """The regular file `path` opened for reading (unbuffered), as `read_bytes` checks it; a reader that takes
    it a piece at a time keeps to `limit` itself (`grown_past`)."""
    target = os.fspath(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if root is not None:
        target = _inside(target, root)
        flags |= getattr(os, "O_NOFOLLOW", 0)  # resolved already: a link appearing now is a swap
    _check_kind(os.stat(target).st_mode)
    if in_use_by_sqlite(target):  # opening it here would drop that process's locks (core/dataset/workspace_db.py)
        raise RefusedFile("a database in use (a workspace), not a file to read; not read")
    try:
        descriptor = os.open(target, flags)
    except OSError as error:
        if error.errno == getattr(os, "ELOOP", None):
            raise RefusedFile("became a link while being opened; not read") from None
        raise
    handle = os.fdopen(descriptor, "rb", buffering=0)
    try:
        info = os.fstat(descriptor)
        _check_kind(info.st_mode)
        if info.st_size > limit:
            raise RefusedFile(f"{info.st_size:,} bytes, over the bound of {size_text(limit)}; not read")
    except BaseException:
        handle.close()
        raise
    return handle


def bounded_lines(handle: BinaryIO, line_limit: int, limit: int) -> Iterator[tuple[int, bytes | None]]:
    """(number from 1, bytes without the newline) of each line of `handle`, a piece at a time; a line longer than
    `line_limit` is given as None and never held whole. RefusedFile once more than `limit` bytes were read."""
    parts: list[bytes] = []
    number, held, skipping, total = 1, 0, False, 0
    while chunk := handle.read(_CHUNK):
        total += len(chunk)
        if total > limit:
            raise grown_past(limit)
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            line = None if skipping or held + end - start > line_limit else b"".join([*parts, chunk[start:end]])
            yield number, line
            number, parts, held, skipping, start = number + 1, [], 0, False, end + 1
        if not skipping:
            parts.append(chunk[start:])
            held += len(chunk) - start
            if held > line_limit:
                parts, held, skipping = [], 0, True
    if skipping or held:
        yield number, None if skipping else b"".join(parts)


def grown_past(limit: int) -> RefusedFile:
    """The refusal of a file that grew past `limit` while it was read."""
    return RefusedFile(f"grew past the bound of {size_text(limit)} while being read; not read")


def read_text(path: str | Path, limit: int, root: str | Path | ResolvedFolder | None = None,
              errors: str = "strict") -> str:
    """`read_bytes` decoded as UTF-8; text that is not UTF-8 is a RefusedFile (unless `errors` says otherwise)."""
    data = read_bytes(path, limit, root)
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as error:
        raise RefusedFile(f"not valid UTF-8 (byte {error.start})") from None


def read_json(path: str | Path, limit: int, root: str | Path | ResolvedFolder | None = None) -> object:
    """The JSON value of the file `path`: `read_text`, then `parse_json`. OSError (a `RefusedFile` too) when the file
    cannot be read, json.JSONDecodeError when it is not JSON."""
    return parse_json(read_text(path, limit, root))


def why_unreadable(error: OSError) -> str:
    """The problem of a file that could not be read, for a `file: problem` line."""
    return str(error) if isinstance(error, RefusedFile) else f"cannot read: {error.strerror or error}"


def inside(path: str | Path, root: str | Path) -> bool:
    """Whether `path`, links resolved, is `root` or inside it (links resolved too)."""
    try:
        _inside(os.fspath(path), root)
    except RefusedFile:
        return False
    return True


def parse_json(text: str, object_pairs_hook=None) -> object:
    """`json.loads(text)` that neither recurses without end nor converts numbers without bound: a number
    literal longer than MAX_NUMBER_DIGITS is a `Refused` marker, and so is every value nested deeper than
    MAX_JSON_DEPTH when the nesting is too deep for the parser. Invalid JSON raises json.JSONDecodeError.
    Check what is taken from the result with `refusal` (it finds the markers, and any nesting deeper than
    MAX_JSON_DEPTH the parser did read)."""
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook, **_number_hooks())
    except RecursionError:  # only then is the text scanned for its nesting (it costs as much as parsing)
        cut, decoder = cut_deep(text)
        return json.loads(cut, object_pairs_hook=object_pairs_hook, parse_int=decoder.parse_int,
                          parse_float=decoder.parse_float)


def _number_hooks(deep_placeholder: str = "") -> dict:
    """The decoder's number hooks: a number longer than MAX_NUMBER_DIGITS becomes a `Refused` marker, as
    does `deep_placeholder` (the literal `_cut_deep` put where a value nested too deep was)."""
    deep = Refused(f"nested deeper than {MAX_JSON_DEPTH} levels")

    def number(literal: str, convert):
        if len(literal) <= MAX_NUMBER_DIGITS:
            return convert(literal)
        if deep_placeholder and literal == deep_placeholder:
            return deep
        return Refused(f"a number of {len(literal):,} characters (the bound is {MAX_NUMBER_DIGITS})")

    return {"parse_int": lambda literal: number(literal, int), "parse_float": lambda literal: number(literal, float)}


def bounded_decoder() -> json.JSONDecoder:
    """A decoder for `raw_decode` with `parse_json`'s number bounds (a too long number is a `Refused` marker)."""
    return json.JSONDecoder(**_number_hooks())


def cut_deep(text: str) -> tuple[str, json.JSONDecoder]:
    """`text` with each value that opens deeper than MAX_JSON_DEPTH (counting from the start of `text`) cut out,
    and the decoder that reads what stands in its place as a `Refused` marker: for a text whose parsing ran out
    of recursion."""
    placeholder = "9" + "".join(str(secrets.randbelow(10)) for _ in range(MAX_NUMBER_DIGITS + 20))
    return _cut_deep(text, placeholder), json.JSONDecoder(**_number_hooks(placeholder))


def may_hold_surrogate(text: str) -> bool:
    """Whether JSON `text` holds or escapes a surrogate, the one thing `refusal` looks for in strings: when not,
    the strings parsed from it need no walk."""
    return not (text.isascii() and "\\u" not in text) and bool(_SURROGATE_IN_JSON.search(text))


def is_call_mapping(data: object) -> TypeGuard[dict[str, list[str]]]:
    """Whether parsed JSON is an object of lists of strings, a `{caller: [callees]}`, checked without a loop in
    Python (JSON gives exact dicts, lists and strings; a `Refused` marker is none of them)."""
    return type(data) is dict and set(map(type, data.values())) <= {list} and \
        set(map(type, chain.from_iterable(data.values()))) <= {str}


def refusal(value: object) -> str:
    """Why a value from `parse_json` cannot be used as it is ("" when it can): nesting deeper than
    MAX_JSON_DEPTH, a `Refused` marker in it, or a string (or key) with a lone surrogate, which can be
    neither stored nor printed."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                return f"a string with a lone surrogate (\\u{ord(found.group()):04x})"
        elif isinstance(item, (dict, list)):
            if depth == MAX_JSON_DEPTH:
                return f"nested deeper than {MAX_JSON_DEPTH} levels"
            if isinstance(item, dict):
                stack.extend((key, depth) for key in item)
                item = item.values()
            stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, Refused):
            return item.reason
    return ""


def _inside(target: str, root: str | Path | ResolvedFolder) -> str:
    """`target` with its links resolved, when that is inside `root`; else RefusedFile."""
    if not isinstance(root, ResolvedFolder):
        root = ResolvedFolder(root)
    real_root, given = root.real, os.path.abspath(target)
    below = given.startswith(root.given) and given[len(root.given):len(root.given) + 1] == os.sep
    relative = given[len(root.given) + 1:] if below else os.path.relpath(given, root.given)
    real = _resolved_below(real_root, relative)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise RefusedFile(f"a link to {real}, outside {os.path.basename(real_root) or real_root}/; not read")
    return real


def _resolved_below(real_root: str, relative: str) -> str:
    """`real_root/relative` with links resolved: one lstat per component while none is a link (the common
    case, and much cheaper than realpath from `/`), realpath as soon as one is."""
    path = real_root
    for part in relative.split(os.sep):
        if part in ("", "."):
            continue
        if part == "..":
            return os.path.realpath(os.path.join(real_root, relative))
        path = os.path.join(path, part)
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return os.path.realpath(os.path.join(real_root, relative))
        except FileNotFoundError:
            return path
    return path


def _check_kind(mode: int) -> None:
    for test, kind in _KINDS:
        if test(mode):
            raise RefusedFile(f"not a regular file ({kind}); not read")
    if not stat.S_ISREG(mode):
        raise RefusedFile("not a regular file; not read")


def size_text(limit: int) -> str:
    """A bound as it is written in messages: "64 MiB", "4,096 bytes"."""
    return f"{limit // MiB:,} MiB" if limit >= MiB else f"{limit:,} bytes"


def _cut_deep(text: str, placeholder: str) -> str:
    """`text` with each value that opens deeper than MAX_JSON_DEPTH replaced by `placeholder`."""
    pieces, depth, kept_from, cut_at = [], 0, 0, None
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth == MAX_JSON_DEPTH + 1:
                cut_at = match.start()
        elif token in "]}":
            if depth == MAX_JSON_DEPTH + 1 and cut_at is not None:
                pieces += [text[kept_from:cut_at], placeholder]
                kept_from, cut_at = match.end(), None
            depth -= 1
    pieces.append(text[kept_from:] if cut_at is None else text[kept_from:cut_at] + placeholder)
    return "".join(pieces)
