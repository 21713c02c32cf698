"""The dry run of a model run: the prompts it would send, their tokens, the output estimate and its
basis, and the cost with prices (core.llm.dry_run, shared by `traceeval predict --dry-run` and the window)."""
import dataclasses
import math

import pytest

from core.llm.dry_run import ASSUMED_TOKENS_PER_QUESTION, dry_run
from core.llm.endpoints import RunSettings
from core.llm.prices import Price, PriceTable
from core.llm.prompts import approximate_tokens, build_prompt
from core.llm.runner import pending_keys

SETTINGS = RunSettings("http://127.0.0.1:9/v1", "new-model")


def test_prompts_and_input_tokens_are_those_of_the_prompts_built(ws):
    keys = [row.key for row in ws.instance_rows()][:4]
    estimate = dry_run(ws, keys, SETTINGS)
    prompts = [build_prompt(ws.instance(key)) for key in keys]
    chars = sum(len(p.system) + len(p.user) for p in prompts)
    tokens = sum(approximate_tokens(len(p.system)) + approximate_tokens(len(p.user)) for p in prompts)  # per message
    assert (estimate.prompts, estimate.characters, estimate.input_tokens) == (4, chars, tokens)
    assert estimate.tokenizer == "approximate (characters / 4)"
    assert estimate.questions == sum(len(p.keys) for p in prompts)
    assert estimate.price is None and estimate.cost is None


def test_output_comes_from_this_models_answers_then_other_models_then_an_assumption(ws):
    keys = [row.key for row in ws.instance_rows()]
    others = dry_run(ws, keys, SETTINGS)  # the demo stores two illustrative models, none for new-model
    assert others.output.basis.endswith("answers stored for other models")
    own = dry_run(ws, keys, dataclasses.replace(SETTINGS, model="illustrative-weak"))
    assert own.output.basis.endswith("answers stored for illustrative-weak")
    for model in ("illustrative-strong", "illustrative-weak"):
        ws.remove_model(model)
    assumed = dry_run(ws, keys, SETTINGS)
    assert assumed.output.basis == "assumed: no answers stored yet"
    assert assumed.output_tokens == ASSUMED_TOKENS_PER_QUESTION * assumed.questions


def test_reported_output_tokens_win_over_the_answers_length(ws):
    key = ws.instance_rows()[0].key
    stored = next(iter(ws.predictions("illustrative-strong", [key]).values()))
    questions = len(ws.instance(key).ground_truth.keys)
    ws.store_predictions("metered", [dataclasses.replace(stored, model="metered", tokens_out=5 * questions)])
    estimate = dry_run(ws, [key], dataclasses.replace(SETTINGS, model="metered"))
    assert estimate.output.tokens_per_question == 5 and estimate.output_tokens == 5 * questions
    assert estimate.output.basis == "median of 1 answer stored for metered"


def test_a_prompt_counts_at_most_max_tokens_of_output(ws):
    keys = [row.key for row in ws.instance_rows()]
    estimate = dry_run(ws, keys, dataclasses.replace(SETTINGS, max_tokens=10))
    assert estimate.output_tokens == 10 * len(keys)


def test_cost_with_a_price_for_the_model(ws):
    keys = pending_keys(ws, SETTINGS, [row.key for row in ws.instance_rows()])
    estimate = dry_run(ws, keys, SETTINGS, prices=PriceTable({"new-*": Price(3.0, 15.0)}))
    assert math.isclose(estimate.input_cost, estimate.input_tokens * 3.0 / 1e6)
    assert math.isclose(estimate.cost, (estimate.input_tokens * 3.0 + estimate.output_tokens * 15.0) / 1e6)
    assert dry_run(ws, keys, SETTINGS, prices=PriceTable({"other": Price(1.0, 1.0)})).cost is None


def test_progress_can_stop_the_work(ws):
    class Stop(Exception):
        pass

    def progress(done, total, message):
        raise Stop

    with pytest.raises(Stop):
        dry_run(ws, [row.key for row in ws.instance_rows()], SETTINGS, progress=progress)
