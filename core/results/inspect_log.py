"""inspect_ai `.eval` logs as predictions (`traceeval import-inspect`, docs/inspect.md).

Each sample of a log made by the `traceeval` inspect task (`core.inspect_task`) names its program in its metadata;
its answer (`output.completion`) is read with this project's parser against the workspace's ground-truth keys (never
the log's), and stored with the model's name from the log, its tokens, time and parse problems, so `traceeval score`
scores it as inspect's metric did. The log is read with inspect_ai's own reader, loaded only here; a file it cannot
read is one problem naming the file, and other files are still imported.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from core.dataset.workspace import Workspace
from core.errors import UsageError
from core.llm.prompts import prompt_hash
from core.llm.stored_answers import answer_prediction, cache_answer_counts
from core.problems import Problem
from core.records import Prediction
from core.results.importing import ImportReport


def import_inspect_logs(ws: Workspace, paths: Sequence[str | Path], model: str | None = None) -> ImportReport:
    """Store every log's samples as predictions of the log's model (or `model`), replacing older answers of the
    same model and program."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise UsageError("reading inspect logs needs inspect_ai: pip install 'traceeval-studio[inspect]'") from None
    report = ImportReport()
    for path in paths:
        report.files += 1
        try:
            log = read_eval_log(str(path))
        except Exception as error:  # noqa: BLE001 - any malformed file: inspect raises many kinds
            first = (str(error).strip().splitlines() or [type(error).__name__])[0]
            report.problems.append(Problem(str(path), f"not a readable inspect_ai log: {first}"))
            continue
        name = model or log.eval.model
        predictions = [prediction for sample in log.samples or []
                       if (prediction := _prediction(ws, sample, name, str(path), report)) is not None]
        if predictions:
            report.stored[name] = report.stored.get(name, 0) + ws.store_predictions(
                name, predictions, sources=[str(path)], note=f"inspect_ai log {Path(path).name}")
            cache_answer_counts(ws, name, predictions)  # scored now, as import-results does
    return report


def _prediction(ws: Workspace, sample, model: str, path: str, report: ImportReport) -> Prediction | None:
    metadata = sample.metadata if isinstance(sample.metadata, dict) else {}
    key = metadata.get("instance", sample.id)
    instance = ws.instance(key) if isinstance(key, str) else None
    if instance is None:
        report.problems.append(Problem(path, f"sample {sample.id!r}: no such program in the dataset; skipped",
                                       "warning", str(sample.id)))
        return None
    if sample.error is not None:
        report.problems.append(Problem(path, f"{key}: the sample failed in inspect ({sample.error.message}); "
                                             "skipped", "warning", instance.id))
        return None
    answer = sample.output.completion if sample.output is not None else ""
    usage = sample.output.usage if sample.output is not None else None
    system = next((m.text for m in sample.input if getattr(m, "role", "") == "system"), "") \
        if isinstance(sample.input, list) else ""
    user = next((m.text for m in sample.input if getattr(m, "role", "") == "user"), "") \
        if isinstance(sample.input, list) else str(sample.input)
    wording = str(metadata.get("wording", ""))
    release = wording.split(":", 1)[1] if wording.startswith("release:") else ""
    return answer_prediction(instance, instance.ground_truth.keys, answer, model=model, finish_reason=None,
                             prompt_hash=prompt_hash(system, user, release), prompt_wording=wording, source=path,
                             tokens_in=usage.input_tokens if usage else None,
                             tokens_out=usage.output_tokens if usage else None, latency_s=sample.total_time)
