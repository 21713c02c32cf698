"""Issue #36's attacks on the trace log and on what a run writes, each a real program traced by the real tracers
(CI runs them as root and again as `nobody`: `.ci/security-unprivileged`).

- A program cannot hold anything on the host's disk: no host folder is writable in the sandbox, so files it
  creates and unlinks at once land in its own tmpfs folders, inside its limits (the child-log folder of
  before let it hold 3 GiB there with status `ok`).
- What it writes to its trace log costs the host a bounded amount: lines are read from a pipe as they come,
  within a byte budget, checked and decoded at once into bounded records; the workspace keeps at most a few
  MiB a run, and stderr gets one line per kind of note.
- It cannot own its ground truth through the log's descriptor: lines without its runtime's tag are not
  edges and make the run `untrusted`; the pipe cannot be truncated, seeked or read; a log cut short (the
  descriptor closed or replaced) shows; `retrace --check` then never says "full agreement", and the
  instance builder refuses a harness that forges, however alike its runs are.
- Numbers in records are bounded (64-bit counts, pids, exit codes).
"""
from __future__ import annotations

import ast
import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from core import traces
from core.dataset.layout import load_program
from core.instances.acceptance import judge_runs
from core.instances.records import UNTRUSTED_LOG
from tests.builders import write_program
from tests.security.sandbox_attacks import (
    java_main,
    log_descriptors,
    needs_sandbox,
    program,
    run_cli_measured,
    trace,
)
from tracers import trace_for_build
from tracers.java import TRACER as JAVA
from tracers.javascript import TRACER as NODE

pytestmark = needs_sandbox
ROOT = Path(__file__).resolve().parents[2]
needs_node = pytest.mark.skipif(not NODE.check().ok, reason="Node.js 18+ is not available")
needs_java = pytest.mark.skipif(not JAVA.check().ok, reason="no JDK 17+ and ASM here")


class HostDiskWatch:
    """The most the host's disk holding the run folders grew by while a run went on (sampled every 20 ms)."""

    def __init__(self, path: str):
        self.path = path
        self.start = shutil.disk_usage(path).used
        self.grew = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._done.wait(0.02):
            self.grew = max(self.grew, shutil.disk_usage(self.path).used - self.start)

    def __enter__(self) -> HostDiskWatch:
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()


DEVICES = {f"/dev/{name}" for name in ("null", "zero", "full", "random", "urandom", "tty")}
FILL_AND_UNLINK = log_descriptors() + """
import errno
def writable_mounts():
    found = []
    for line in open('/proc/self/mountinfo'):
        fields = line.split()
        at = fields.index('-')
        if 'rw' in fields[5].split(','):
            found.append((fields[4], fields[at + 1], fields[at + 3]))  # place, kind, its options
    return found
print('writable', sorted(writable_mounts()), flush=True)
for name in ('/traceeval-log/x', '/traceeval-children/x', '/usr/x', '/x', '/dev/x', '/etc/x'):
    try:
        open(name, 'w').close()
        print('created', name, flush=True)
    except OSError as error:
        print('refused', name, errno.errorcode[error.errno], flush=True)
held, block = [], b'x' * (4 << 20)
total = 0
for point, kind, _ in writable_mounts():
    if kind != 'tmpfs':
        continue
    for n in range(1024):  # up to 4 GiB a folder, each file unlinked at once and held open
        try:
            handle = open(os.path.join(point, f'.fill{n}'), 'wb')
            os.unlink(handle.name)
            held.append(handle)
            for _ in range(16):
                handle.write(block)
                handle.flush()
                total += len(block)
        except OSError:
            break
print('held MiB', total >> 20, flush=True)
"""


def test_files_created_and_unlinked_at_once_hold_nothing_on_the_host_disk(tmp_path):
    with HostDiskWatch(os.path.dirname(tmp_path)) as watch:
        run = trace(program(tmp_path / "fill_0001", "python", FILL_AND_UNLINK), "python", wall_s=60, file_mb=64)
    out = run.stdout_tail
    writable = ast.literal_eval(out.split("writable ", 1)[1].splitlines()[0])
    for point, kind, options in writable:  # no host folder: size-limited tmpfs, device nodes, /proc
        assert (kind == "tmpfs" and "size=" in options) or kind in ("proc", "devpts") or (
            kind == "devtmpfs" and point in DEVICES), (point, kind, options)
    assert "created" not in out and out.count("refused") == 6, out
    held = int(out.split("held MiB ")[1].split()[0]) if "held MiB" in out else 0
    assert held <= 256 + 64 + 256 + 64, out  # /tmp, /dev/shm, the program folder (each tmpfs, in memory)
    assert watch.grew < 512 * 2**20, f"the host disk grew by {watch.grew >> 20} MiB during the run"
    print(f"create-and-unlink: {run.status}, held {held} MiB in its tmpfs folders, host disk +{watch.grew >> 20} MiB")


DISTINCT_LINES = log_descriptors() + """
def helper():
    return 1
helper()
stream, size, n, chunk = f'0@{os.getpid()}', 0, 0, []
for fd in log_descriptors():
    while size < 64 << 20:
        line = f'{n:032x} {stream} {n + 5} ["E","main.py:{n}:F::f{n}","main.py:{n + 1}:F::g{n}",{n}]\\n'.encode()
        chunk.append(line)
        size += len(line)
        n += 1
        if len(chunk) == 40:
            try:
                os.write(fd, b''.join(chunk))
            except OSError:
                break
            chunk = []
print('wrote MiB', size >> 20, flush=True)
"""

DISTINCT_RECORDS = """
import gc
def helper():
    return 1
helper()
recorder = next(o for o in gc.get_objects() if type(o).__name__ == 'Recorder')
n = 0
while n < 1_000_000:  # through the runtime itself: lines with a good tag, each a new call site whose frames are
    line = n % 20_000 + 1  # lambdas of a module of 20,000 (each frame must be placed among its nodes)
    recorder.write(b'["E","lambdas.py:%d:L:%d.%d.0:<lambda>","main.py:3:F::helper",%d]' % (line, line, n, n))
    n += 1
print('wrote records', n, flush=True)
"""
LAMBDAS = "".join(f"f{n} = lambda: {n}\n" for n in range(20_000))


@pytest.mark.parametrize(("source", "status", "because"), [
    (DISTINCT_LINES, traces.UNTRUSTED, "lines that are not the tracer's"),
    (DISTINCT_RECORDS, traces.LIMIT, "the trace log reports over 50,000 distinct call sites"),
], ids=["forged-lines", "records-through-the-runtime"])
def test_a_64_mib_log_of_distinct_records_costs_the_host_a_bounded_amount(tmp_path, source, status, because):
    folder = program(tmp_path / "flood_0001", "python", source)
    (folder / "lambdas.py").write_text(LAMBDAS)
    workspace = tmp_path / "w.sqlite"
    code, wall, peak_mb = run_cli_measured(["trace", str(folder), "--format", "json", "--timeout", "120",
                                            "--workspace", str(workspace)], ROOT, tmp_path / "err.txt")
    err = (tmp_path / "err.txt").read_text()
    size = sum(path.stat().st_size for path in tmp_path.glob("w.sqlite*"))
    print(f"{status} flood: exit {code}, {wall:.1f} s, peak RSS {peak_mb:.0f} MB, workspace {size >> 20} MiB, "
          f"stderr {len(err):,} bytes")
    assert code == 1 and f": {status}: " in err and because in err, err[-2000:]
    assert wall < 90 and peak_mb < 600, (wall, peak_mb)  # was 34-190 s and 1.2-4.8 GB
    assert size < 32 * 2**20 and len(err) < 20_000  # was 197-350 MB and 189-334 MB of "unresolved frame" lines
    assert err.count("\n") <= 3


FORGERS = {
    "python": ("main.py", log_descriptors() + """
def real():
    return 1
def never():
    return 2
real()
record = b'["E","main.py:1:M::<module>","main.py:4:F::never",9]'
for fd in log_descriptors():
    os.write(fd, record + b'\\n')  # the record alone, as the log's lines were
    for seq in range(40):  # guessed stream and sequence numbers, a tag without the key
        os.write(fd, b'%s 0@%d %d %s\\n' % (b'0' * 32, os.getpid(), seq, record))
with open('/traceeval-log/records', 'wb', buffering=0) as pipe:  # the pipe by its name
    pipe.write(b'- 0@2 0 ' + record + b'\\n')
print('forged', flush=True)
""", ("main", "main.never")),
    "javascript": ("main.js", """
const fs = require('fs');
function real() { return 1; }
function never() { return 2; }
real();
for (const name of fs.readdirSync('/proc/self/fd')) {
  let target = '';
  try { target = fs.readlinkSync(`/proc/self/fd/${name}`); } catch (error) { continue; }
  if (target.includes('traceeval-log')) {
    const record = '["E","main","main.never",9]';
    fs.writeSync(Number(name), record + '\\n');
    for (let seq = 0; seq < 40; seq++) {
      fs.writeSync(Number(name), `${'0'.repeat(32)} 0@${process.pid} ${seq} ${record}\\n`);
    }
  }
}
console.log('forged');
""", ("main", "main.never")),
    "java": ("Main.java", java_main("""        real();
        try (FileOutputStream pipe = new FileOutputStream("/traceeval-log/records", true)) {
            for (int caller = 0; caller < 4; caller++) {
                for (int callee = 0; callee < 4; callee++) {
                    String record = "[\\"E\\",\\"" + caller + "\\",\\"" + callee + "\\",9]";
                    pipe.write((record + "\\n").getBytes());
                    for (int seq = 0; seq < 20; seq++) {
                        pipe.write(("00000000000000000000000000000000 0@1 " + seq + " " + record + "\\n").getBytes());
                    }
                }
            }
        }
        System.out.println("forged");""").replace("\n    }\n}\n", "\n    }\n    static int real() { return 1; }\n"
                                                  "    static int never() { return 2; }\n}\n"),
             ("Main:main(java.lang.String[])", "Main:never()")),
}


@pytest.mark.parametrize("language", [
    "python", pytest.param("javascript", marks=needs_node), pytest.param("java", marks=needs_java)])
def test_records_forged_through_the_log_are_no_edges_and_the_run_is_untrusted(tmp_path, language):
    entry, source, forged = FORGERS[language]
    folder = tmp_path / "forger_0001"
    folder.mkdir()
    (folder / entry).write_text(source)
    run = trace(folder, language)
    assert "forged" in run.stdout_tail, run.message + run.stderr_tail
    assert run.status == traces.UNTRUSTED, run.message
    assert "lines that are not the tracer's" in run.message and "(the program: ok: " in run.message
    assert forged not in run.graph.edge_set
    assert any(edge.callee.endswith(("main.real", "Main:real()")) for edge in run.edges)  # what really ran stays


TRUNCATE = log_descriptors() + """
def real():
    return 1
real()
for fd in log_descriptors():
    for name, attempt in (('ftruncate', lambda: os.ftruncate(fd, 0)), ('seek', lambda: os.lseek(fd, 0, 0)),
                          ('read', lambda: os.read(fd, 10)),
                          ('truncate', lambda: os.truncate('/traceeval-log/records', 0)),
                          ('reopen', lambda: os.open(f'/proc/self/fd/{fd}', os.O_RDONLY)),
                          ('open', lambda: os.open('/traceeval-log/records', os.O_RDONLY)),
                          ('chmod', lambda: os.chmod('/traceeval-log/records', 0o666)),
                          ('unlink', lambda: os.unlink('/traceeval-log/records'))):
        try:
            attempt()
            print('done', name, flush=True)
        except OSError as error:
            print('refused', name, flush=True)
def later():
    return 2
later()
"""


def test_the_log_cannot_be_truncated_seeked_read_or_replaced_so_real_edges_stay(tmp_path):
    run = trace(program(tmp_path / "truncate_0001", "python", TRUNCATE), "python")
    assert run.status == traces.OK, run.message
    assert "done" not in run.stdout_tail and run.stdout_tail.count("refused") == 8, run.stdout_tail
    assert {("main", "main.real"), ("main", "main.later")} <= run.graph.edge_set


CUT = log_descriptors() + """
def real():
    return 1
real()
mode = open('mode.txt').read().strip()
for fd in log_descriptors():
    if mode == 'close':
        os.close(fd)
    else:
        os.dup2(os.open('/dev/null', os.O_WRONLY), fd)
def hidden():
    return 2
hidden()
"""


@pytest.mark.parametrize("mode", ["close", "replace"])
def test_a_log_cut_short_by_its_program_makes_the_run_untrusted(tmp_path, mode):
    folder = program(tmp_path / "cut_0001", "python", CUT)
    (folder / "mode.txt").write_text(mode)
    run = trace(folder, "python")
    assert run.status == traces.UNTRUSTED, run.message
    assert "the program's log has no closing record" in run.message
    assert ("main", "main.real") in run.graph.edge_set and ("main", "main.hidden") not in run.graph.edge_set


def test_retrace_check_never_reports_full_agreement_for_a_forger(tmp_path):
    entry, source, _ = FORGERS["python"]
    truth = {"main": ["main.real", "main.never"], "main.real": [], "main.never": []}
    write_program(tmp_path / "ds" / "benchmark" / "python" / "forger_0001", {entry: source}, truth)
    code, _, _ = run_cli_measured(["retrace", str(tmp_path / "ds"), "--check", "--workspace",
                                      str(tmp_path / "w.sqlite")], ROOT, tmp_path / "err.txt")
    err = (tmp_path / "err.txt").read_text()
    assert code == 1, err
    assert "(1 untrusted;" in err and "full agreement" not in err


def test_the_instance_builder_refuses_a_deterministic_forger(tmp_path):
    entry, source, _ = FORGERS["python"]
    folder = tmp_path / "forger_0001"
    folder.mkdir()
    (folder / entry).write_text(source)
    instance, _ = load_program(folder, "python", [], require_ground_truth=False)
    runs = trace_for_build(instance, 3, 20.0)
    assert [run.status for run in runs] == [traces.UNTRUSTED] * 3
    judgement = judge_runs(runs, "main.never", [], "harness.py", 1)
    assert judgement.reason == UNTRUSTED_LOG and "run 1 of 3: untrusted" in judgement.detail


HUGE_NUMBERS = """
import gc
def helper():
    return 1
helper()
recorder = next(o for o in gc.get_objects() if type(o).__name__ == 'Recorder')
ids = list(recorder.ids)
module, function = (next(k for k in ids if k.endswith(end)).encode() for end in (':<module>', ':helper'))
site = b'"%s","%s",5' % (module, function)  # the call of helper() above, as the runtime logged it
digits = b'9' * 4000
recorder.write(b'["C",' + site + b',' + digits + b']')
recorder.write(b'["S",' + digits + b',["tool"]]')
recorder.write(b'["S",7,["tool"]]')
recorder.write(b'["Q",7,' + digits + b']')
recorder.write(b'["U","frame","reason",' + digits + b']')
recorder.write(b'["C",' + site + b',%d]' % (2**63 - 1))
"""


def test_huge_numbers_in_records_are_refused_and_never_stored_or_printed_whole(tmp_path):
    folder = program(tmp_path / "numbers_0001", "python", HUGE_NUMBERS)
    code, _, _ = run_cli_measured(["trace", str(folder), "--format", "json", "--workspace", str(tmp_path / "w.sqlite")],
                                  ROOT, tmp_path / "err.txt")
    err = (tmp_path / "err.txt").read_text()
    from core.dataset.workspace import Workspace

    with Workspace(tmp_path / "w.sqlite") as ws:
        (row,) = ws.run_rows("python/numbers_0001")
        run = ws.run(row.id)
    stored = json.dumps(run.to_dict())
    assert code == 0 and run.status == traces.OK, err
    assert "9" * 100 not in stored and "9" * 100 not in err
    edge = next(e for e in run.edges if e.callee == "main.helper")
    assert edge.count == 2**63 - 1  # the sum of 1 call and 2**63 - 1 is kept at the 64-bit bound
    assert [child.exit_code for child in run.children] == [None]  # S 7 listed; its forged exit code left out
    assert sum("is a 4,000-digit number: left out" in warning for warning in run.warnings) == 4, run.warnings
