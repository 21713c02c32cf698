"""The human baseline: an annotator's answers to a baseline audit, stored and scored like a model's.

Answers are written out as the numbered answer a model would give and read back with the paper's
parser, so a human is scored by exactly the rules a model is (and the Answer tab shows their lines).
A question the annotator has not answered yet gets no line: it is reported as unanswered.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from core.audit.audits import human_model_name
from core.audit.store import AuditStore
from core.dataset.workspace import Workspace
from core.records import Instance, Prediction
from core.scoring.answers import answer_text, parse_answer


def baseline_prediction(instance: Instance, model: str, answers: Mapping[str, Sequence[str]]) -> Prediction:
    keys = instance.ground_truth.keys
    raw = answer_text(keys, answers)
    parsed = parse_answer(raw, keys)
    return Prediction(instance.id, model, instance.language, parsed.graph, raw, parsed.problems, source="annotator")


def refresh_baseline_predictions(ws: Workspace, audit: str, annotator: str,
                                 instance_keys: Iterable[str] | None = None) -> int:
    """Store the annotator's answers as predictions of `human:<annotator>` (programs with at least one
    answer; all of them, or only `instance_keys`). Returns how many programs were stored."""
    by_program: dict[str, dict[str, tuple[str, ...]]] = {}
    for (key, caller), answer in AuditStore(ws).answers(audit, annotator).items():
        by_program.setdefault(key, {})[caller] = answer.callees
    wanted = by_program.keys() if instance_keys is None else set(instance_keys) & by_program.keys()
    model = human_model_name(annotator)
    predictions = []
    for key in sorted(wanted):
        instance = ws.instance(key)
        if instance is not None:
            predictions.append(baseline_prediction(instance, model, by_program[key]))
    if predictions:
        ws.store_predictions(model, predictions, note=f"human baseline: {annotator} in audit {audit}")
    return len(predictions)
