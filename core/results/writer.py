"""Write a model's predictions as released results files (`<slug>_<language>_t<T>_r<i>.json`),
so the authors' scripts can read what this tool produced or re-scored. A repeated run's stored name
`<name>@r<i>` (`core.scoring.run_family`) is written as run `i` of `<name>`.

Per-record `metrics` and `edge_diff` use the paper's rule (zero denominators give 0) after
the given normalisation and rule set (the paper's by default); `aggregate_metrics` is the micro
score over the file's records. The metadata names the rule set and the prompts' wording ("studio
wording, not the paper's" unless the answers came from prompts in the user's release's words),
and each record keeps its prompt's hash and wording tag, and a reasoning model's thinking (`reasoning`,
`reasoning_tokens`) when it has any.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from core.dataset.workspace import Workspace
from core.errors import WorkspaceError
from core.languages import registry
from core.llm.prompt_wording import wording_label
from core.records import Prediction
from core.results.indented_json import write_indented
from core.scoring.answers import scored_graph
from core.scoring.metrics import diff_edges, micro_scores, sum_counts
from core.scoring.normalise import MODES, normalise_edges
from core.scoring.rules import DEFAULT_RULES, rules_title
from core.scoring.run_family import split_member


def model_slug(model: str) -> str:
    """The released files' spelling: `claude-sonnet-4.6` -> `claude-sonnet-4_6`."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", model.replace(".", "_")).strip("_") or "model"


def write_released_results(ws: Workspace, model: str, out_dir: Path, modes: Iterable[str] = MODES,
                           metadata: dict | None = None, temperature: float = 0.0, run_id: int | None = None,
                           rules: str = DEFAULT_RULES) -> list[Path]:
    """One file per language the model has predictions for; returns the paths written. The run index is the
    stored name's (`name@r2` is run 2 of `name`) unless `run_id` is given."""
    modes = frozenset(modes)
    base, member_run = split_member(model)
    run_id = member_run if run_id is None else run_id
    out_dir.mkdir(parents=True, exist_ok=True)
    predictions = ws.predictions(model)
    written = []
    for language in registry.names():
        keys = sorted(k for k, p in predictions.items() if p.language == language)
        if not keys:
            continue
        truths = ws.ground_truths(keys)
        results, counts = {}, []
        for key in keys:
            prediction, truth = predictions[key], truths[key]
            graph = scored_graph(prediction, truth.keys, rules)
            diff = diff_edges(normalise_edges(truth.edges, language, modes, rules),
                              normalise_edges(zip(*graph.edge_ends()), language, modes, rules))
            counts.append(diff.counts)
            scores = micro_scores(diff.counts)
            instance = ws.instance(key)
            if instance is None:  # it has a prediction and a ground truth, so it is indexed
                raise WorkspaceError(f"no program {key!r} in the workspace {ws.path}")
            results[prediction.instance_id] = {
                "raw_response": prediction.raw_response or "",
                "prediction": graph.to_dict(),
                "prompt_hash": prediction.prompt_hash, "prompt_wording": prediction.prompt_wording,
                "ground_truth": truth.to_dict(),
                "metrics": {"tp": diff.counts.tp, "fp": diff.counts.fp, "fn": diff.counts.fn,
                            "precision": scores.precision, "recall": scores.recall, "f1": scores.f1},
                "edge_diff": {"tp": diff.tp, "fp": diff.fp, "fn": diff.fn},  # pairs, written as JSON lists
                "input": {"files": len(instance.files), "parse_problems": list(prediction.parse_problems)},
                **_reasoning(prediction),
            }
        total = sum_counts(counts)
        aggregate = micro_scores(total)
        meta = {"model": base, "language": language, "temperature": temperature, "run_id": run_id,
                "timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "num_benchmarks": len(results),
                "aggregate_metrics": {"tp": total.tp, "fp": total.fp, "fn": total.fn,
                                      "precision": aggregate.precision, "recall": aggregate.recall,
                                      "f1": aggregate.f1, "normalisation": sorted(modes)},
                "rules": rules, "rules_title": rules_title(rules),
                "prompt_wording": _wordings(predictions[key].prompt_wording for key in keys),
                **(metadata or {})}
        path = out_dir / f"{model_slug(base)}_{language}_t{temperature}_r{run_id}.json"
        with path.open("w", encoding="utf-8") as stream:  # as json.dumps(indent=2) writes it, a piece at a time
            write_indented({"metadata": meta, "results": results}, stream)
            stream.write("\n")
        written.append(path)
    return written


def _reasoning(prediction: Prediction) -> dict:
    """A reasoning model's thinking, as extra record keys (the released scripts read only the keys they know);
    nothing for an answer without any, so other files stay as the release writes them."""
    extra: dict = {}
    if prediction.reasoning is not None:
        extra["reasoning"] = prediction.reasoning
    if prediction.reasoning_tokens is not None:
        extra["reasoning_tokens"] = prediction.reasoning_tokens
    return extra


def _wordings(tags: Iterable[str]) -> str | list[str]:
    """One label when every answer's prompt had the same wording, else each label once."""
    labels = sorted({wording_label(tag) for tag in tags})
    return labels[0] if len(labels) == 1 else labels
