"""inspect_ai logs as predictions (`traceeval import-inspect`, docs/inspect.md).

Each sample of a log made by the `traceeval` inspect task (`core.inspect_task`) names its program in its metadata;
its answer (`output.completion`) is read with this project's parser against the workspace's ground-truth keys (never
the log's), and stored with the model's name from the log, its tokens, time and parse problems, so `traceeval score`
scores it as inspect's metric did.

A log is hostile input, read here within bounds rather than by inspect_ai's reader: a `.eval` log is a zip archive
of JSON members (`header.json`, one `samples/<id>_epoch_<n>.json` per sample) opened within `INSPECT_LOG`'s bounds
(`core.safe_archives`), a `.json` log is read a sample at a time (`core.results.json_pieces`), and every member is
JSON under `core.safe_files`' bounds. An answer larger than an endpoint's may be (`RESPONSE_BYTES_CAP`) is not
stored. A log that cannot be read is one problem naming the file; a sample that cannot be read is one problem naming
the sample, and the file's other samples are still imported. Answers are stored a few at a time, in the order of
inspect's own reader (by epoch, then id), so a later epoch's sample of a program replaces an earlier one's.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from core.dataset.workspace import Workspace
from core.llm.chat import valid_text
from core.llm.prompts import prompt_hash
from core.llm.response_limits import RESPONSE_BYTES_CAP
from core.llm.stored_answers import answer_prediction, cache_answer_counts
from core.problems import Problem
from core.records import Prediction
from core.results.importing import ImportReport
from core.results.json_pieces import JsonError, JsonPieces, NotUtf8
from core.safe_archives import ArchiveBounds, BoundedZip
from core.safe_files import INT64, MAX_RESULTS_BYTES, MiB, open_bytes, parse_json, refusal, size_text, why_unreadable

MAX_SAMPLE_BYTES = 64 * MiB  # one sample: its prompt, its answer (at most 16 MiB) and inspect's copies of both
INSPECT_LOG = ArchiveBounds(file_bytes=MAX_RESULTS_BYTES, members=200_000, member_bytes=MAX_SAMPLE_BYTES,
                            total_bytes=64 * 1024 * MiB)  # 200,000 samples: every program, 18 epochs
BATCH_ANSWERS = 100  # answers stored at once (and at most BATCH_CHARACTERS of them)
BATCH_CHARACTERS = 64 * MiB
HEADERS = ("header.json", "_journal/start.json")  # a finished log's header, else the one written at its start
_SAMPLE_MEMBER = re.compile(r"samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json")
_ATTACHMENT = "attachment://"


class _Unreadable(Exception):
    """A log that cannot be read as a whole; `str(error)` is the problem."""


def import_inspect_logs(ws: Workspace, paths: Sequence[str | Path], model: str | None = None) -> ImportReport:
    """Store every log's samples as predictions of the log's model (or `model`), replacing older answers of the
    same model and program."""
    report = ImportReport()
    for path in map(Path, paths):
        report.files += 1
        try:
            _import_log(ws, path, model, report)
        except _Unreadable as error:
            report.problems.append(Problem(str(path), f"not a readable inspect_ai log: {error}"))
        except OSError as error:
            report.problems.append(Problem(str(path), f"not a readable inspect_ai log: {why_unreadable(error)}"))
    return report


def _import_log(ws: Workspace, path: Path, model: str | None, report: ImportReport) -> None:
    """Read one log's samples and store their answers a batch at a time."""
    pending: list[Prediction] = []
    name, characters = "", 0

    def store() -> None:
        if pending:
            report.stored[name] = report.stored.get(name, 0) + ws.store_predictions(
                name, pending, sources=[str(path)], note=f"inspect_ai log {path.name}")
            cache_answer_counts(ws, name, pending)  # scored now, as import-results does
            pending.clear()

    for log_model, sample in (_eval_samples if path.suffix != ".json" else _json_samples)(path):
        name = model or log_model
        if not name:
            raise _Unreadable("its header names no model (give one with --model)")
        if isinstance(sample, Problem):
            report.problems.append(sample)
            continue
        prediction = _prediction(ws, sample, name, str(path), report)
        if prediction is not None:
            pending.append(prediction)
            characters += len(prediction.raw_response or "")
            if len(pending) >= BATCH_ANSWERS or characters >= BATCH_CHARACTERS:
                store()
                characters = 0
    store()


Sample = dict | Problem  # a sample's JSON, or why it was not read


def _eval_samples(path: Path) -> Iterator[tuple[str, Sample]]:
    """(the log's model, each sample) of a `.eval` log, samples in inspect's order; a member inspect wrote twice
    (a sample logged again) is read as its last entry, as inspect reads it."""
    with BoundedZip(path, INSPECT_LOG) as archive:
        members = {member.filename: member for member in archive.members}
        header = next((members[name] for name in HEADERS if name in members), None)
        if header is None:
            raise _Unreadable("no header.json in the archive")
        log_model = _model_of(_member_json(archive, header))
        samples = sorted((member for name, member in members.items() if _SAMPLE_MEMBER.fullmatch(name)),
                         key=lambda member: _sample_order(member.filename))
        for member in samples:
            try:
                problem = archive.problem(member)  # its size, its ratio: this sample is skipped, the rest are read
                if problem:
                    raise _Unreadable(problem)
                sample = _member_json(archive, member)
            except _Unreadable as error:
                yield log_model, Problem(str(path), f"{error}; skipped")
                continue
            yield log_model, sample if isinstance(sample, dict) else \
                Problem(str(path), f"member {member.filename!r} is not a sample (not an object); skipped")


def _member_json(archive: BoundedZip, member) -> object:
    try:
        text = archive.read(member).decode("utf-8")
        return parse_json(text)
    except OSError as error:
        raise _Unreadable(why_unreadable(error).removesuffix("; not read")) from None
    except UnicodeDecodeError as error:
        raise _Unreadable(f"member {member.filename!r} is not valid UTF-8 (byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise _Unreadable(f"member {member.filename!r} is not JSON ({error.msg} at line {error.lineno})") from None


def _sample_order(name: str) -> tuple[int, str]:
    found = _SAMPLE_MEMBER.fullmatch(name)
    return (int(found["epoch"][:18]), found["id"]) if found else (0, name)


def _json_samples(path: Path) -> Iterator[tuple[str, Sample]]:
    """(the log's model, each sample) of a `.json` log, read a sample at a time (samples before the `eval` header
    are held until it is read, as inspect writes it first)."""
    held: list[Sample] = []
    log_model: str | None = None
    with open_bytes(path, MAX_RESULTS_BYTES) as handle:
        pieces = JsonPieces(handle, MAX_RESULTS_BYTES)
        try:
            if pieces.peek() != "{":
                raise _Unreadable("not a JSON object")
            for name in pieces.members():
                if name == "eval" and log_model is None:
                    log_model = _model_of({"eval": pieces.value()})
                    yield from ((log_model, sample) for sample in held)
                    held.clear()
                elif name == "samples" and pieces.peek() == "[":
                    for number in pieces.items():
                        sample = pieces.value()
                        sample = sample if isinstance(sample, dict) else \
                            Problem(str(path), f"sample {number + 1} is not an object; skipped")
                        if log_model is None:
                            held.append(sample)
                        else:
                            yield log_model, sample
                else:
                    pieces.value()
        except (JsonError, NotUtf8) as error:
            raise _Unreadable(str(error)) from None
    yield from (("", sample) for sample in held)  # no header: --model names the model, else the log is refused


def _model_of(header: object) -> str:
    """The model a log's header names ("" when none)."""
    spec = header.get("eval") if isinstance(header, dict) else None
    name = spec.get("model") if isinstance(spec, dict) else None
    return name if isinstance(name, str) and not refusal(name) else ""


def _prediction(ws: Workspace, sample: dict, model: str, path: str, report: ImportReport) -> Prediction | None:
    metadata = _object(sample.get("metadata"))
    sample_id = sample.get("id")
    named = f"sample {str(sample_id)[:200]!r}"
    key = metadata.get("instance", sample_id)
    instance = ws.instance(key) if isinstance(key, str) and not refusal(key) else None
    if instance is None:
        report.problems.append(Problem(path, f"{named}: no such program in the dataset; skipped", "warning",
                                       str(sample_id)))
        return None
    error = sample.get("error")
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        report.problems.append(Problem(path, f"{key}: the sample failed in inspect ({_clipped(message)}); skipped",
                                       "warning", instance.id))
        return None
    attachments, output = _object(sample.get("attachments")), _object(sample.get("output"))
    answer = _completion(output, attachments)
    messages = sample.get("input")
    system = _role_text(messages, "system", attachments) if isinstance(messages, list) else ""
    user = _role_text(messages, "user", attachments) if isinstance(messages, list) else _text(messages, attachments)
    wording = metadata.get("wording", "")
    wording = wording if isinstance(wording, str) else ""
    unusable = refusal((system, user, wording))
    if unusable:
        report.problems.append(Problem(path, f"{key}: not read: {unusable}; skipped", "error", instance.id))
        return None
    if len(answer) * 4 > RESPONSE_BYTES_CAP and len(answer.encode("utf-8", "surrogatepass")) > RESPONSE_BYTES_CAP:
        report.problems.append(Problem(path, f"{key}: the answer is larger than {size_text(RESPONSE_BYTES_CAP)}, the "
                                             "bound on an endpoint's answer; skipped", "error", instance.id))
        return None
    usage = _object(output.get("usage"))
    release = wording.split(":", 1)[1] if wording.startswith("release:") else ""
    time = sample.get("total_time")
    latency = float(time) if isinstance(time, (int, float)) and not isinstance(time, bool) else None
    return answer_prediction(instance, instance.ground_truth.keys, valid_text(answer), model=model,
                             finish_reason=None, prompt_hash=prompt_hash(system, user, release),
                             prompt_wording=wording, source=path, tokens_in=_count(usage.get("input_tokens")),
                             tokens_out=_count(usage.get("output_tokens")),
                             latency_s=latency)


def _completion(output: dict, attachments: dict) -> str:
    """The answer as inspect gives it: `completion`, else the text of the first choice's message."""
    completion = _text(output.get("completion"), attachments)
    if completion:
        return completion
    choices = output.get("choices")
    message = _object(choices[0] if isinstance(choices, list) and choices else None).get("message")
    return _text(message.get("content"), attachments) if isinstance(message, dict) else ""


def _role_text(messages: list, role: str, attachments: dict) -> str:
    """The text of the first message of `role`."""
    found = next((m for m in messages if isinstance(m, dict) and m.get("role") == role), None)
    return _text(found.get("content"), attachments) if found is not None else ""


def _text(content: object, attachments: dict) -> str:
    """A message's text as inspect's `ChatMessage.text` gives it: the string, or its text parts joined by new lines;
    an `attachment://` reference is read from the sample's attachments."""
    if isinstance(content, list):
        return "\n".join(_text(part.get("text"), attachments) for part in content
                         if isinstance(part, dict) and part.get("type") == "text")
    if not isinstance(content, str):
        return ""
    if content.startswith(_ATTACHMENT):
        attached = attachments.get(content[len(_ATTACHMENT):])
        return attached if isinstance(attached, str) else content
    return content


def _object(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _count(value: object) -> int | None:
    return value if type(value) is int and 0 <= value <= INT64[1] else None


def _clipped(message: object) -> str:
    text = message if isinstance(message, str) and not refusal(message) else "no message"
    return " ".join(text.split())[:200]
