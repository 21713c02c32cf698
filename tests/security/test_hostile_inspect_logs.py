"""Hostile inspect_ai logs (issue #36, item 4: an 89 KB log became 4.6 GB of memory and a 1.7 GB workspace). Each is
a real log, written by the real `inspect eval traceeval/traceeval` against the local chat server, with members
rewritten (zstd-compressed, as inspect writes them); the real `traceeval import-inspect` reads it in a subprocess:
a bomb in one sample, a bomb in all of them, an answer larger than an endpoint may send, a sample that is not JSON,
is nested 100,000 deep or is not UTF-8, too many members, a FIFO and a device. A broken sample is one line and the
log's other samples are stored; a broken log is one line and the other logs are stored."""
import json
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from core.dataset.workspace import Workspace
from core.llm.response_limits import RESPONSE_BYTES_CAP
from core.results.inspect_log import INSPECT_LOG
from core.safe_archives import MAX_RATIO
from tests.llm_server import FakeChatServer, demo_truth_answers, truth_answers
from tests.security.test_hostile_dataset import run_cli

MiB = 1024 * 1024
MODEL = "openai-api/local/fake-model"
VICTIM = "samples/python/calcpad_0001_epoch_1.json"
SAMPLES = 7  # the demo's test split


@pytest.fixture(scope="module")
def real_log(tmp_path_factory) -> Path:
    """A log of the demo's test split, made by the real inspect eval (its answers are the ground truth)."""
    pytest.importorskip("inspect_ai")
    from tests.test_inspect import _inspect_eval

    folder = tmp_path_factory.mktemp("inspect")
    with FakeChatServer(truth_answers(demo_truth_answers(folder / "answers.sqlite"))) as server:
        return _inspect_eval(server, folder)


def rewritten(log: Path, into: Path, change: Callable[[str, bytes], bytes | None] = lambda name, data: data,
              extra: dict[str, bytes] | None = None) -> Path:
    """A copy of `log` with each member's bytes replaced by `change(name, data)` (None leaves it out), and `extra`
    members added, zstd-compressed as inspect writes them."""
    from inspect_ai._util.zipfile import zipfile_compress_kwargs  # imports the zstd support inspect patches in

    with zipfile.ZipFile(log) as source, zipfile.ZipFile(into, "w", **zipfile_compress_kwargs) as target:
        for member in source.infolist():
            data = change(member.filename, source.read(member))
            if data is not None:
                target.writestr(member.filename, data)
        for name, data in (extra or {}).items():
            target.writestr(name, data)
    return into


def with_answer(data: bytes, answer: str) -> bytes:
    """A sample member whose answer (completion and first choice) is `answer`."""
    sample = json.loads(data)
    sample["output"]["completion"] = answer
    sample["output"]["choices"][0]["message"]["content"] = answer
    return json.dumps(sample).encode()


def imported(tmp_path: Path, *logs: Path) -> tuple[list[str], list[str], Path]:
    """The problem lines and the stored lines of `traceeval import-inspect LOGS`, and the workspace."""
    workspace = tmp_path / "ws.sqlite"
    done = run_cli("import-inspect", *logs, "--workspace", workspace)
    lines = done.stdout.splitlines()
    return [line for line in lines if line.startswith(("error:", "warning:"))], \
        [line for line in lines if "prediction(s) stored" in line], workspace


def stored_keys(workspace: Path) -> set[str]:
    with Workspace(workspace) as ws:
        return set(ws.predictions(MODEL))


def test_the_real_log_imports_whole(real_log, tmp_path):
    problems, stored, _ = imported(tmp_path, real_log)
    assert problems == [] and stored == [f"{MODEL}: {SAMPLES} prediction(s) stored"]


def test_a_sample_that_is_a_zip_bomb_is_skipped_and_the_others_are_stored(real_log, tmp_path):
    bomb = with_answer(b'{"output": {"choices": [{"message": {}}]}}', "1. main.run, " * (2 * MiB))  # 2 x 26 MiB
    log = rewritten(real_log, tmp_path / "bomb.eval", lambda name, data: bomb if name == VICTIM else data,
                    extra={"noise.bin": os.urandom(MiB)})  # enough for the whole to keep the ratio
    with zipfile.ZipFile(log) as zipped:
        member = zipped.getinfo(VICTIM)
    problems, stored, workspace = imported(tmp_path, log)
    assert problems == [f"error: {log}: member {VICTIM!r} holds {member.file_size:,} bytes in "
                        f"{member.compress_size:,} compressed, more than {MAX_RATIO} times as many (a zip bomb); "
                        "skipped"]
    assert stored == [f"{MODEL}: {SAMPLES - 1} prediction(s) stored"]
    assert "python/calcpad_0001" not in stored_keys(workspace)


def test_a_log_that_is_a_zip_bomb_in_all_is_refused_and_the_other_logs_are_stored(real_log, tmp_path):
    answer = "1. main.run, " * MiB  # 13 MiB per sample, a few kB compressed
    bomb = rewritten(real_log, tmp_path / "bomb.eval",
                     lambda name, data: with_answer(data, answer) if name.startswith("samples/") else data)
    size = bomb.stat().st_size
    assert size < 200 * 1024
    with zipfile.ZipFile(bomb) as zipped:
        total = sum(member.file_size for member in zipped.infolist())
    problems, stored, _ = imported(tmp_path, bomb, real_log)
    assert problems == [f"error: {bomb}: not a readable inspect_ai log: its members hold {total:,} bytes in all, more "
                        f"than {MAX_RATIO} times the archive's {size:,} (a zip bomb); not read"]
    assert stored == [f"{MODEL}: {SAMPLES} prediction(s) stored"]


def test_an_answer_larger_than_an_endpoint_may_send_is_not_stored(real_log, tmp_path):
    callees = os.urandom(RESPONSE_BYTES_CAP // 3).hex()  # hexadecimal names: compressed about twice, not a bomb
    answer = "1. " + ", ".join(f"main.f{callees[at:at + 8]}" for at in range(0, len(callees), 8))
    assert len(answer) > RESPONSE_BYTES_CAP
    log = rewritten(real_log, tmp_path / "huge.eval",
                    lambda name, data: with_answer(data, answer) if name == VICTIM else data)
    problems, stored, workspace = imported(tmp_path, log)
    assert problems == [f"error: {log}: python/calcpad_0001: the answer is larger than 16 MiB, the bound on an "
                        "endpoint's answer; skipped"]
    assert stored == [f"{MODEL}: {SAMPLES - 1} prediction(s) stored"]
    assert "python/calcpad_0001" not in stored_keys(workspace)


@pytest.mark.parametrize(("member", "problem"), [
    (b"[" * 100_000 + b"]" * 100_000, "is not a sample (not an object); skipped"),
    (b'{"id": "python/calcpad_0001", "output": ' + b"[" * 100_000, "is not JSON ("),
    (b'{"id": "\xff"}', "is not valid UTF-8 (byte 8)"),
], ids=["nested 100,000 deep", "broken JSON", "not UTF-8"])
def test_a_sample_that_cannot_be_read_is_its_own_problem(real_log, tmp_path, member, problem):
    log = rewritten(real_log, tmp_path / "broken.eval", lambda name, data: member if name == VICTIM else data)
    problems, stored, _ = imported(tmp_path, log)
    assert len(problems) == 1 and problems[0].startswith(f"error: {log}: member {VICTIM!r} ")
    assert problem in problems[0]
    assert stored == [f"{MODEL}: {SAMPLES - 1} prediction(s) stored"]


def test_a_log_of_too_many_members_a_fifo_and_a_device_are_one_line_each(real_log, tmp_path):
    many = rewritten(real_log, tmp_path / "many.eval",
                     extra={f"_journal/{number}.json": b"" for number in range(INSPECT_LOG.members)})
    fifo = tmp_path / "fifo.eval"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.eval"
    os.symlink("/dev/zero", zero)
    problems, stored, _ = imported(tmp_path, many, fifo, zero, real_log)
    with zipfile.ZipFile(many) as zipped:
        count = len(zipped.infolist())
    assert problems == [
        f"error: {many}: not a readable inspect_ai log: {count:,} members, over the bound of "
        f"{INSPECT_LOG.members:,}; not read",
        f"error: {fifo}: not a readable inspect_ai log: not a regular file (a FIFO); not read",
        f"error: {zero}: not a readable inspect_ai log: not a regular file (a device); not read"]
    assert stored == [f"{MODEL}: {SAMPLES} prediction(s) stored"]


def test_a_json_log_is_read_a_sample_at_a_time_with_the_same_bounds(real_log, tmp_path):
    """inspect's other format, written by inspect_ai itself from the real log, with one answer past the bound."""
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(real_log))
    victim = next(sample for sample in log.samples if sample.id == "python/calcpad_0001")
    victim.output.completion = "1. " + "main.f, " * (RESPONSE_BYTES_CAP // 8)
    path = tmp_path / "log.json"
    write_eval_log(log, str(path), format="json")
    problems, stored, workspace = imported(tmp_path, path)
    assert problems == [f"error: {path}: python/calcpad_0001: the answer is larger than 16 MiB, the bound on an "
                        "endpoint's answer; skipped"]
    assert stored == [f"{MODEL}: {SAMPLES - 1} prediction(s) stored"]
    assert "python/calcpad_0001" not in stored_keys(workspace)
