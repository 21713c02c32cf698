"""TraceEval as an inspect_ai task (docs/inspect.md): `inspect eval traceeval/traceeval --model PROVIDER/MODEL`.

Samples are this project's exact prompts (`core.llm.prompts.build_prompt`: the system and the user message, in the
release's wording when one is given or found, as `traceeval predict` sends them); the scorer reads each answer with
this project's parser and counts TP/FP/FN against the normalised ground truth exactly as `traceeval score` does
(`core.scoring.scores.answer_counts`); the metric sums the counts per language (micro) and averages the languages
(macro), so its figures are the paper table's for the same answers. `core.results.inspect_log` imports the log
back as predictions.

inspect_ai is the `inspect` extra's; only inspect (through the `inspect_ai` entry point) and the importer load this
module. inspect names a task by the top-level package of its module (here `core`, and nothing when installed
editable), so the task is also registered as `traceeval/traceeval`, the name the entry point is found by.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.registry import RegistryInfo, registry_add, registry_info
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from core.dataset.indexing import dataset_path, open_dataset
from core.errors import ReleaseError, UnconfirmedRelease, UsageError
from core.languages import registry
from core.llm.prompts import build_prompt
from core.records import CallGraph
from core.release.checkout import prompt_wording
from core.scoring.answers import answer_text, parse_answer
from core.scoring.metrics import Counts, macro_average, micro_scores, sum_counts
from core.scoring.normalise import MODES
from core.scoring.rules import DEFAULT_RULES, parse_rules
from core.scoring.scores import Selection, answer_counts, default_split, parse_languages

TASK_NAME = "traceeval/traceeval"
PAPER_CONFIG = GenerateConfig(temperature=0.0, max_tokens=4096)  # the paper's request (docs/benchmark.md)


@metric
def paper_table(languages: list[str] | None = None) -> Metric:
    """Precision, recall and F1 per language (counts summed over its programs) and their unweighted average over
    `languages` (default: every language), a language with no scored program counting 0, as in the paper."""
    averaged = list(languages) if languages else registry.names()

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        per_language: dict[str, list[Counts]] = {language: [] for language in averaged}
        for sample in scores:
            value = sample.score.value
            language = (sample.sample_metadata or {}).get("language")
            if isinstance(value, dict) and language in per_language:
                per_language[language].append(Counts(int(value["tp"]), int(value["fp"]), int(value["fn"])))
        table = {language: micro_scores(sum_counts(counts)) for language, counts in per_language.items()}
        out: dict[str, float] = {}
        for name, scores_ in [*table.items(), ("average", macro_average(table))]:
            out.update({f"{name}_precision": scores_.precision, f"{name}_recall": scores_.recall,
                        f"{name}_f1": scores_.f1})
        return out

    return compute


@scorer(metrics=[paper_table()])
def traceeval_scorer(rules: str = DEFAULT_RULES) -> Scorer:
    """TP/FP/FN of the answer against the sample's ground truth (normalised with every paper mode)."""

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata
        truth = CallGraph.from_dict(metadata["truth"])
        answer = state.output.completion
        parsed = parse_answer(answer, truth.keys, rules)
        counts = answer_counts(truth, parsed.graph, metadata["language"], MODES, rules)
        return Score(value={"tp": counts.tp, "fp": counts.fp, "fn": counts.fn}, answer=answer,
                     explanation="; ".join(parsed.problems) or None)

    return score


@task
def traceeval(dataset: str | None = None, split: str | None = None, languages: str | None = None,
              repo: str | None = None, release: str | None = None, rules: str = DEFAULT_RULES,
              workspace: str | None = None, splits: str | None = None) -> Task:
    """TraceEval on `dataset` (a released layout, a release checkout or a folder of programs; default: the
    bundled demo): `split` test|train|all (default: test when the dataset has split files), `languages` a comma
    list, `repo` a glob on repository names, `release` your checkout of the TraceEval release for the paper's
    wording, `rules` paper|studio, `workspace` the workspace file (default: one per dataset)."""
    try:
        rules = parse_rules(rules)
        chosen = parse_languages(languages) if languages else registry.names()
    except ValueError as error:
        raise UsageError(str(error)) from None
    root = dataset_path(dataset)
    ws, _ = open_dataset(root, workspace, splits)
    with ws:
        try:
            wording = prompt_wording(release, Path(ws.setting("dataset_root") or root))
        except UnconfirmedRelease as unconfirmed:  # nobody to ask in an eval: name it, which confirms it
            raise ReleaseError(f"{unconfirmed.checkout}: a TraceEval release found next to the dataset, not "
                               f"confirmed (scripts sha256 {unconfirmed.sha256[:16]}): name it with "
                               f"-T release={unconfirmed.checkout} to use its wording") from None
        chosen_split = default_split(ws) if split is None else (None if split == "all" else split)
        instances = [ws.instance(row.key) for row in Selection(chosen, chosen_split, repo).rows(ws)]
    samples = [_sample(instance, wording, rules) for instance in instances if instance is not None]
    if not samples:
        raise UsageError(f"{root}: no programs selected (split {split or chosen_split or 'all'}, languages "
                         f"{', '.join(chosen)}{', repo ' + repo if repo else ''})")
    return Task(dataset=MemoryDataset(samples, name="traceeval"), solver=generate(), scorer=traceeval_scorer(rules),
                metrics=[paper_table(list(chosen))], config=PAPER_CONFIG)


def _sample(instance, wording, rules: str) -> Sample:
    prompt = build_prompt(instance, wording=wording, rules=rules)
    truth = instance.ground_truth
    metadata: dict[str, Any] = {"instance": instance.key, "language": instance.language, "keys": list(truth.keys),
                                "truth": truth.to_dict(), "prompt_hash": prompt.hash, "wording": prompt.wording,
                                "rules": rules}
    return Sample(input=[ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.user)],
                  target=answer_text(truth.keys, truth.to_dict()), id=instance.key, metadata=metadata)


def _register_as_traceeval() -> None:
    """Also file the task under TASK_NAME, whatever inspect derived from this module's package."""
    info = registry_info(traceeval)
    if info.name != TASK_NAME:
        registry_add(traceeval, RegistryInfo(type="task", name=TASK_NAME, metadata=info.metadata))


_register_as_traceeval()
