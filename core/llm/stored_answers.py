"""One answer from a model, as every way of asking stores it: parsed with the paper's parser against the prompt's
question keys, marked when it was cut off at the token limit, priced, and its counts cached for the score table.

The model runner (`core.llm.runner`, one request per program) and the batch collector (`core.llm.batches`,
answers read back from a provider's results file) both end here, so an answer reads and scores the same
whichever way it came.
"""
from __future__ import annotations

from collections.abc import Sequence

from core.dataset.workspace import Workspace
from core.records import Instance, Prediction
from core.scoring.answers import parse_answer
from core.scoring.metrics import count_edges
from core.scoring.normalise import MODES, normalise_edges
from core.scoring.scores import NormalisedTruths, scoring_key

CUT_OFF_PROBLEM = "answer cut off at max_tokens (finish_reason=length)"


def answer_prediction(instance: Instance, keys: Sequence[str], content: str | None, *, model: str,
                      finish_reason: str | None, prompt_hash: str, prompt_wording: str, source: str,
                      tokens_in: int | None = None, tokens_out: int | None = None, latency_s: float | None = None,
                      cost_usd: float | None = None, reasoning: str | None = None,
                      reasoning_tokens: int | None = None) -> Prediction:
    """The stored prediction for one answer: its text kept as it came, its graph as the paper's parser reads it
    against `keys` (the prompt's questions, in order), and its problems (a cut-off answer says so); the model's
    reasoning, when it sent one, is kept beside the answer."""
    parsed = parse_answer(content, tuple(keys))
    problems = parsed.problems + ((CUT_OFF_PROBLEM,) if finish_reason == "length" else ())
    return Prediction(instance_id=instance.id, model=model, language=instance.language, graph=parsed.graph,
                      raw_response=content, parse_problems=problems, prompt_hash=prompt_hash,
                      prompt_wording=prompt_wording, tokens_in=tokens_in, tokens_out=tokens_out,
                      latency_s=latency_s, cost_usd=cost_usd, source=source, reasoning=reasoning,
                      reasoning_tokens=reasoning_tokens)


def cache_answer_counts(ws: Workspace, model: str, predictions: Sequence[Prediction],
                        truths: NormalisedTruths | None = None) -> None:
    """Cache each answer's counts as `core.scoring.scores.instance_counts` computes them (all modes on), from the
    predictions in hand: instance_counts would re-read every prediction of the model. `truths` keeps the
    normalised ground truths between calls (a run stores its answers a few at a time)."""
    modes = frozenset(MODES)
    truths = truths if truths is not None else NormalisedTruths(ws, modes)
    languages = {p.key: p.language for p in predictions}
    normalised = truths(list(languages), languages)
    counts = {p.key: count_edges(normalised.get(p.key, frozenset()),  # edge_ends: no edge tuples are kept on the graph
                                 normalise_edges(zip(*p.graph.edge_ends()), p.language, modes))
              for p in predictions}
    ws.store_counts(model, scoring_key(modes), counts)
