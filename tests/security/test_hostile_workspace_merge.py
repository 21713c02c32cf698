"""Merging a hostile workspace file (issue #36 item 4), through the real `traceeval audit merge`: nothing of the file
runs (no trigger fires, no view is read), every hostile file is refused in one line naming it and its problem, the
target is unchanged, and nothing is written beside the source, even in a folder nobody may write to."""
from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.audit.merge import merge_workspace
from core.audit.sampling import create_audit
from core.audit.store import AuditStore
from core.dataset.indexing import open_dataset
from core.dataset.workspace import Workspace
from core.errors import WorkspaceError
from resources import DEMO_DATASET
from tests.cli_run import run
from tests.security.hostile_workspaces import (
    AUDIT,
    HOSTILE,
    OPTIONS,
    annotated_workspace,
    hostile_copy,
    more_verdicts,
    rows,
)
from tests.security.workspace_processes import cli

HANG_TIMEOUT_S = 120  # a merge that runs the file's SQL does not end; these end in well under a second


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """Bob's annotated workspace and Ann's, which has the same audit and nothing else (both closed)."""
    folder = tmp_path_factory.mktemp("pristine")
    ann = folder / "ann.sqlite"
    ws, _ = open_dataset(DEMO_DATASET, ann)
    with ws:
        create_audit(ws, AUDIT, **OPTIONS)
    return annotated_workspace(folder / "bob.sqlite"), ann


@pytest.fixture
def target(pristine, tmp_path) -> Path:
    """A fresh copy of Ann's workspace, in a folder of its own."""
    (tmp_path / "ann").mkdir()
    return Path(shutil.copyfile(pristine[1], tmp_path / "ann" / "ann.sqlite"))


def folder_state(folder: Path, contents: bool = True) -> dict:
    """Every entry of `folder` (kind, size, time, inode and, for a regular file, its sha256) and the folder's own
    time: a file created and removed meanwhile changes the folder's time."""
    state: dict = {".": os.stat(folder).st_mtime_ns}
    for entry in os.scandir(folder):
        info = entry.stat(follow_symlinks=False)
        digest = ""
        if contents and stat.S_ISREG(info.st_mode):
            digest = hashlib.sha256(Path(entry.path).read_bytes()).hexdigest()
        state[entry.name] = (stat.S_IFMT(info.st_mode), info.st_size, info.st_mtime_ns, info.st_ino, digest)
    return state


# -- every hostile file: one line, nothing changed ---------------------------------------------------------
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_file_is_refused_in_one_line_and_nothing_changes(name, pristine, target, tmp_path, capsys):
    source = hostile_copy(pristine[0], tmp_path / "from", name)
    before, beside = rows(target), folder_state(source.parent, contents=False)
    code, out, err = run(capsys, "audit", "merge", source, "--workspace", target)
    assert (code, out) == (2, ""), err
    assert err.startswith("traceeval: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert HOSTILE[name][1] in err and source.name in err, err
    assert rows(target) == before
    assert folder_state(source.parent, contents=False) == beside


@pytest.mark.parametrize("name", ["a billion-row view", "a trigger that rewrites verdicts on upgrade",
                                  "a costly CHECK"])
def test_a_file_made_to_hang_the_merge_is_refused_by_a_traceeval_process_at_once(name, pristine, target, tmp_path):
    source = hostile_copy(pristine[0], tmp_path / "from", name)
    process = cli("audit", "merge", source, "--workspace", target)
    try:
        _out, err = process.communicate(timeout=HANG_TIMEOUT_S)
    finally:
        process.kill()
    assert process.returncode == 2 and HOSTILE[name][1] in err and err.count("\n") == 1, err


def test_ctrl_c_stops_a_long_merge_and_leaves_nothing(pristine, target, tmp_path):
    """A merge of 199,000 verdicts (every bound kept) takes seconds; Ctrl-C stops it, the target as it was."""
    source = Path(shutil.copyfile(pristine[0], tmp_path / "long.sqlite"))
    more_verdicts(source, 199_000, 600)
    private = tmp_path / "private"
    private.mkdir()
    before = rows(target)
    process = cli("audit", "merge", source, "--workspace", target, TMPDIR=str(private))
    try:
        deadline = time.monotonic() + HANG_TIMEOUT_S
        while not list(private.glob("*/clean.sqlite")) and time.monotonic() < deadline:  # reading the copy
            time.sleep(0.01)
        time.sleep(0.3)  # into the rows: SQLite's progress handler must not swallow the signal
        assert process.poll() is None, process.communicate()
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=HANG_TIMEOUT_S)
    finally:
        process.kill()
    assert process.returncode == 130 and err == "traceeval: interrupted\n", err
    assert rows(target) == before and list(private.iterdir()) == []


# -- a fuzz-ish set: damaged bytes anywhere ---------------------------------------------------------------
@pytest.mark.parametrize("seed", range(48))
def test_a_file_damaged_anywhere_merges_or_is_refused_in_one_line(seed, pristine, target, tmp_path):
    rng = random.Random(seed)
    data = bytearray(pristine[0].read_bytes())
    page = 4096
    how = seed % 4
    if how == 0:  # bytes flipped anywhere
        for _ in range(rng.randint(1, 32)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif how == 1:  # a whole page overwritten
        start = rng.randrange(len(data) // page) * page
        data[start:start + page] = rng.randbytes(page)
    elif how == 2:  # the first page (header and schema) damaged
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(16, page)] = rng.randrange(256)
    else:  # cut anywhere
        del data[rng.randrange(len(data)):]
    source = tmp_path / "damaged.sqlite"
    source.write_bytes(bytes(data))
    with Workspace(target) as ws:
        try:
            merge_workspace(ws, source)
        except WorkspaceError as error:
            assert str(error).startswith(f"{source}: ") and "\n" not in str(error)
            assert rows(target) == rows(pristine[1])
        store = AuditStore(ws)  # whatever was merged, the store reads it all
        for audit in store.audits():
            store.labels(audit.name), store.adjudications(audit.name), store.annotators(audit.name)


# -- nothing beside the source ------------------------------------------------------------------------------
HOLD = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("update verdicts set note = 'said in the WAL' where id = 1")
print("ready", flush=True)
sys.stdin.readline()
"""


def test_nothing_is_written_beside_the_source_closed_or_open_in_another_process(pristine, target, tmp_path, capsys):
    folder = tmp_path / "bob"
    folder.mkdir()
    source = Path(shutil.copyfile(pristine[0], folder / "bob.sqlite"))
    closed = folder_state(folder)
    assert list(closed) == [".", "bob.sqlite"]
    code, out, err = run(capsys, "audit", "merge", source, "--workspace", target)
    assert code == 0 and "5 verdicts" in out, err
    assert folder_state(folder) == closed  # no -wal, -shm or -journal appeared; nothing changed

    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(source)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline() == "ready\n"
        live = folder_state(folder)
        assert set(live) == {".", "bob.sqlite", "bob.sqlite-wal", "bob.sqlite-shm"} and live["bob.sqlite-wal"][1] > 0
        code, out, err = run(capsys, "audit", "merge", source, "--workspace", target)
        assert code == 0 and "1 verdict" in out, err  # the note changed in the WAL: a new verdict row
        assert folder_state(folder) == live
        db = sqlite3.connect(target)
        assert db.execute("select count(*) from verdicts where note = 'said in the WAL'").fetchone()[0] == 1
        db.close()
    finally:
        holder.communicate("\n", timeout=30)
    assert holder.returncode == 0


@pytest.fixture
def unwritable_folder(tmp_path):
    """A folder this user cannot write to: chattr +i for root (who may write anywhere else), else no write bit."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    yield folder
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(folder)], check=False, capture_output=True)
    folder.chmod(0o755)


def _lock(folder: Path) -> None:
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return
    done = subprocess.run(["chattr", "+i", str(folder)], check=False, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"root cannot make a folder read-only here (chattr +i: {done.stderr.strip()})")


def test_a_workspace_in_a_folder_nobody_may_write_to_merges(pristine, target, unwritable_folder, capsys):
    source = Path(shutil.copyfile(pristine[0], unwritable_folder / "bob.sqlite"))
    _lock(unwritable_folder)
    with pytest.raises(OSError):
        (unwritable_folder / "probe").write_text("")
    before = folder_state(unwritable_folder)
    started = time.monotonic()
    code, out, err = run(capsys, "audit", "merge", source, "--workspace", target)
    assert code == 0, err
    assert "5 verdicts, 1 adjudication, 1 answer added" in out and time.monotonic() - started < 60
    assert folder_state(unwritable_folder) == before
