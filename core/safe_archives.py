"""Read zip archives as hostile input: `core.safe_files`' bounds, kept for what is inside an archive too.

A zip's central directory says how large each member is; a zip bomb says little and writes much (a 3 MB archive
can hold terabytes, members can even share their compressed bytes). Every archive this project reads (the
release's `traceeval.zip`, inspect_ai's `.eval` logs) is opened here:
- the archive file through `core.safe_files.open_bytes` (a regular file, within a size bound);
- at most `ArchiveBounds.members` members, counted from the end record before the directory is read;
- each member at most `member_bytes` and at most `ratio` times its compressed size, and all members together at
  most `total_bytes` and `ratio` times the archive's size (a member under `RATIO_FLOOR` bytes is not held to the
  ratio; the sum is: many tiny members cannot add up past it);
- members are decompressed here a piece at a time (stored, deflate, zstd), never past the size they declare, and
  their CRC is checked.

A bound the archive as a whole breaks (its size, its member count, its total) raises `RefusedFile` when it is
opened; one a member breaks (its size, its ratio, an unknown compression, encryption, damage) is that member's
`problem`, and reading it raises `RefusedFile`: a reader can skip the member and keep the others.
"""
from __future__ import annotations

import os
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from core.errors import MissingExtraError
from core.extras import require
from core.safe_files import RefusedFile, open_bytes, size_text

MAX_RATIO = 100  # extracted : compressed; source text and JSON logs compress 3-12 times (deflate, zstd)
RATIO_FLOOR = 1024 * 1024  # members this small may compress better (a file of blanks); the sum still keeps the ratio
CHUNK = 1 << 20  # bytes decompressed at a time

_STORED, _DEFLATED, _ZSTANDARD = zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, 93
_METHODS = {12: "bzip2", 14: "lzma", 9: "deflate64", 98: "PPMd", 99: "AES encryption"}
_END_RECORD, _END_RECORD_64, _LOCATOR_64 = b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07"
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, (version .. sizes), name length, extra length
_LONGEST_COMMENT = 0xFFFF


@dataclass(frozen=True)
class ArchiveBounds:
    """What one kind of archive may hold."""

    file_bytes: int  # the archive file itself
    members: int
    member_bytes: int  # one member, extracted
    total_bytes: int  # every member, extracted
    ratio: int = MAX_RATIO


class BoundedZip:
    """A zip archive opened within `bounds` (see the module's docstring); use as a context manager."""

    def __init__(self, path: str | Path, bounds: ArchiveBounds):
        self.bounds = bounds
        self._handle: BinaryIO = open_bytes(path, bounds.file_bytes)
        try:
            size = os.fstat(self._handle.fileno()).st_size
            declared = _declared_members(self._handle, size)
            if declared > bounds.members:
                raise RefusedFile(f"{declared:,} members, over the bound of {bounds.members:,}; not read")
            try:
                self._zip = zipfile.ZipFile(self._handle)
            except (zipfile.BadZipFile, ValueError, EOFError) as error:  # what zipfile raises for a broken directory
                raise RefusedFile(f"not a readable zip archive ({error})") from None
            self.members = self._zip.infolist()
            if len(self.members) > bounds.members:
                raise RefusedFile(f"{len(self.members):,} members, over the bound of {bounds.members:,}; not read")
            total = sum(member.file_size for member in self.members)
            if total > bounds.total_bytes:
                raise RefusedFile(f"its members hold {total:,} bytes in all, over the bound of "
                                  f"{size_text(bounds.total_bytes)}; not read")
            if total > bounds.ratio * size + RATIO_FLOOR:
                raise RefusedFile(f"its members hold {total:,} bytes in all, more than {bounds.ratio} times the "
                                  f"archive's {size:,} (a zip bomb); not read")
        except BaseException:
            self._handle.close()
            raise

    def __enter__(self) -> BoundedZip:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._zip.close()
        self._handle.close()

    def problem(self, member: zipfile.ZipInfo) -> str:
        """Why `member` is not read, e.g. "member 'a' is encrypted" ("" when it is read): its size, its ratio,
        its compression or encryption."""
        name = member.filename
        if member.flag_bits & 0x1:
            return f"member {name!r} is encrypted"
        if member.compress_type not in (_STORED, _DEFLATED, _ZSTANDARD):
            method = _METHODS.get(member.compress_type, f"method {member.compress_type}")
            return f"member {name!r} is compressed with {method}, which is not read"
        if member.file_size > self.bounds.member_bytes:
            return (f"member {name!r} holds {member.file_size:,} bytes, over the bound of "
                    f"{size_text(self.bounds.member_bytes)}")
        if member.file_size > max(RATIO_FLOOR, self.bounds.ratio * member.compress_size):
            return (f"member {name!r} holds {member.file_size:,} bytes in {member.compress_size:,} compressed, "
                    f"more than {self.bounds.ratio} times as many (a zip bomb)")
        return ""

    def chunks(self, member: zipfile.ZipInfo) -> Iterator[bytes]:
        """The bytes of `member`, a piece at a time: never more than it declares, its CRC checked at the end;
        RefusedFile for a member with a `problem`, or one whose bytes are not what its entry says."""
        problem = self.problem(member)
        if problem:
            raise RefusedFile(f"{problem}; not read")
        raw = _Slice(self._handle, self._data_start(member), member.compress_size)
        crc, size = 0, 0
        try:
            for chunk in _decompressed(raw, member.compress_type):
                size += len(chunk)
                if size > member.file_size:
                    raise RefusedFile(f"member {member.filename!r} holds more than the {member.file_size:,} bytes "
                                      "it declares (a zip bomb); not read")
                crc = zlib.crc32(chunk, crc)
                yield chunk
        except _Damaged as error:
            raise RefusedFile(f"member {member.filename!r} is damaged ({error}); not read") from None
        if size != member.file_size or crc != member.CRC:
            raise RefusedFile(f"member {member.filename!r} is damaged (its size or CRC does not match); not read")

    def read(self, member: zipfile.ZipInfo) -> bytes:
        """The whole of `member` (within `member_bytes`), as `chunks` reads it."""
        return b"".join(self.chunks(member))

    def _data_start(self, member: zipfile.ZipInfo) -> int:
        self._handle.seek(member.header_offset)
        header = self._handle.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size or header[:4] != b"PK\x03\x04":
            raise RefusedFile(f"member {member.filename!r} is damaged (no local header); not read")
        _, name_length, extra_length = _LOCAL_HEADER.unpack(header)
        return member.header_offset + _LOCAL_HEADER.size + name_length + extra_length


class _Slice:
    """`length` bytes of `handle` from `start`, read as a stream (the compressed bytes of one member)."""

    def __init__(self, handle: BinaryIO, start: int, length: int):
        self.handle, self.at, self.left = handle, start, length

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        if size <= 0:
            return b""
        self.handle.seek(self.at)
        data = self.handle.read(size)
        if not data:
            raise EOFError("the archive ends inside a member")
        self.at, self.left = self.at + len(data), self.left - len(data)
        return data


class _Damaged(Exception):
    """Compressed bytes that do not decompress."""


def _decompressed(raw: _Slice, method: int) -> Iterator[bytes]:
    """The bytes `raw` decompresses to, at most CHUNK at a time whatever the compression ratio; `_Damaged` when
    they do not decompress."""
    try:
        yield from _inflated(raw, method)
    except (zlib.error, EOFError) as error:
        raise _Damaged(str(error)) from None


def _inflated(raw: _Slice, method: int) -> Iterator[bytes]:
    if method == _STORED:
        while chunk := raw.read(CHUNK):
            yield chunk
    elif method == _DEFLATED:
        inflate = zlib.decompressobj(-zlib.MAX_WBITS)
        while not inflate.eof:
            data = inflate.unconsumed_tail or raw.read(CHUNK)
            if not data:
                raise EOFError("the compressed data ends early")
            if chunk := inflate.decompress(data, CHUNK):
                yield chunk
    else:
        reader, error_kind = _zstd_reader(raw)
        try:
            while chunk := reader.read(CHUNK):
                yield chunk
        except error_kind as error:
            raise _Damaged(str(error)) from None


def _zstd_reader(raw: _Slice) -> tuple:
    """A stream of zstd's output that gives at most the size asked per read, and the error it raises for damaged
    bytes (Python 3.14's own module, else the zstandard package that inspect_ai brings)."""
    try:
        from compression import zstd  # type: ignore[import-not-found]  # Python 3.14+
        return zstd.ZstdFile(raw), zstd.ZstdError
    except ImportError:
        pass
    try:
        zstandard = require("zstandard", "inspect", "reading zstd-compressed archives (inspect_ai logs)")
    except MissingExtraError as error:
        raise RefusedFile(f"{error}; not read") from None
    return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True), zstandard.ZstdError


def _declared_members(handle: BinaryIO, size: int) -> int:
    """The member count the archive's end record declares (0 when there is none: zipfile then says why)."""
    tail_size = min(size, _LONGEST_COMMENT + 22 + 20)
    handle.seek(size - tail_size)
    tail = handle.read(tail_size)
    at = tail.rfind(_END_RECORD)
    if at < 0 or len(tail) < at + 22:
        return 0
    count = struct.unpack_from("<H", tail, at + 10)[0]
    locator = at - 20
    if count == 0xFFFF and locator >= 0 and tail[locator:locator + 4] == _LOCATOR_64:
        offset = struct.unpack_from("<Q", tail, locator + 8)[0]
        if offset + 56 <= size:
            handle.seek(offset)
            record = handle.read(56)
            if record[:4] == _END_RECORD_64:
                count = struct.unpack_from("<Q", record, 32)[0]
    return count
