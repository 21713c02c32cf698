"""Hostile release archives (issue #36, item 4): a zip bomb in one member, a bomb spread over many small members (the
3 MB archive that extracted 3 GiB), a member that inflates past the size it declares, and an archive of too many
members, each met by the real `traceeval info` on a release checkout in a subprocess: one line naming the archive
and the problem, and nothing extracted into the cache (`core/safe_archives.py`, `core/release/archive.py`)."""
import os
import struct
import zipfile
from pathlib import Path

import pytest

from core.release.archive import RELEASE_ARCHIVE
from core.safe_archives import MAX_RATIO
from tests.release_standin import write_release
from tests.security.test_hostile_dataset import run_cli

MiB = 1024 * 1024
MEMBER = "benchmark/python/a_0001/main.py"


def checkout_with(tmp_path: Path, write) -> tuple[Path, Path]:
    """A release checkout whose `data/traceeval.zip` is written by `write(zipfile.ZipFile)`."""
    checkout = write_release(tmp_path / "TraceEva")
    archive = checkout / "data" / "traceeval.zip"
    archive.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        write(zipped)
    return checkout, archive


def refused(tmp_path: Path, checkout: Path) -> str:
    """The one error line `traceeval info` gives for the checkout, after checking that nothing was extracted."""
    cache = tmp_path / "cache"
    done = run_cli("info", checkout, env={"TRACEEVAL_CACHE_DIR": str(cache)})
    assert done.returncode != 0 and done.stdout == "", done.stdout
    releases = cache / "releases"
    assert not releases.exists() or list(releases.iterdir()) == []  # nothing extracted, nothing left over
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_one_member_compressed_past_the_ratio_is_refused_before_anything_is_written(tmp_path):
    def write(zipped):
        zipped.writestr(MEMBER, b"\0" * (50 * MiB))  # 50 KB compressed: a thousand times
        zipped.writestr("benchmark/python/a_0001/noise.bin", os.urandom(MiB))  # the archive as a whole keeps the ratio
    checkout, archive = checkout_with(tmp_path, write)
    with zipfile.ZipFile(archive) as zipped:
        compressed = zipped.getinfo(MEMBER).compress_size
    assert refused(tmp_path, checkout) == (
        f"traceeval: error: {archive}: member {MEMBER!r} holds {50 * MiB:,} bytes in {compressed:,} compressed, more "
        f"than {MAX_RATIO} times as many (a zip bomb); nothing extracted")


def test_many_small_members_past_the_ratio_in_all_are_refused(tmp_path):
    def write(zipped):  # each member under the floor where one member's ratio is not asked
        for number in range(300):
            zipped.writestr(f"benchmark/python/p_{number:04}/main.py", b" " * MiB)
    checkout, archive = checkout_with(tmp_path, write)
    size = archive.stat().st_size
    assert size < 1 * MiB
    assert refused(tmp_path, checkout) == (
        f"traceeval: error: {archive}: its members hold {300 * MiB:,} bytes in all, more than {MAX_RATIO} times the "
        f"archive's {size:,} (a zip bomb); not read")


def test_a_member_that_inflates_past_the_size_it_declares_stops_the_extraction(tmp_path):
    checkout, archive = checkout_with(tmp_path, lambda zipped: zipped.writestr(MEMBER, b"\0" * (64 * MiB)))
    data = bytearray(archive.read_bytes())
    local, central = data.index(b"PK\x03\x04"), data.index(b"PK\x01\x02")
    struct.pack_into("<I", data, local + 22, 1000)  # the uncompressed size, in both headers: 1,000 bytes
    struct.pack_into("<I", data, central + 24, 1000)
    archive.write_bytes(bytes(data))
    assert refused(tmp_path, checkout) == (
        f"traceeval: error: {archive}: member {MEMBER!r} holds more than the 1,000 bytes it declares (a zip bomb); "
        "not read")


def test_an_archive_of_too_many_members_is_refused_from_its_end_record(tmp_path):
    count = RELEASE_ARCHIVE.members + 1

    def write(zipped):
        for number in range(count):
            zipped.writestr(f"benchmark/{number}", b"")
    checkout, archive = checkout_with(tmp_path, write)
    assert refused(tmp_path, checkout) == (
        f"traceeval: error: {archive}: {count:,} members, over the bound of {RELEASE_ARCHIVE.members:,}; not read")


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_member_compressed_in_a_way_the_reader_cannot_bound_is_refused(tmp_path, method):
    def write(zipped):
        zipped.writestr(MEMBER, b"x = 1\n", compress_type=method)
    checkout, archive = checkout_with(tmp_path, write)
    name = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma"}[method]
    assert refused(tmp_path, checkout) == (
        f"traceeval: error: {archive}: member {MEMBER!r} is compressed with {name}, which is not read; "
        "nothing extracted")
