"""What a model run would send, before anything is sent: the prompts, their input tokens, an estimate
of the output tokens and, when prices are known, of the cost. One home for `traceeval predict --dry-run`
and the Run Model dialog's estimate.

Input tokens are counted per message (system and user) and summed, by the model's tokenizer when it is known here
(`core.llm.token_counts.counter_for`: a tokenizer file given, tiktoken for an OpenAI model whose encoding is cached)
or approximated from the characters (core.llm.prompts.approximate_tokens); the estimate says which. Output
tokens are estimated per question: the median tokens per question of the answers already stored for
the model (the endpoint's count, else approximated from the answer's length), else of the answers of
the workspace's other models, else an assumed `ASSUMED_TOKENS_PER_QUESTION`; a prompt never counts
more than the run's max tokens. With `batch` the cost takes the price's batch discount (50% unless the price
file says otherwise: OpenAI's Batch API and Anthropic's Message Batches).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import median

from core.dataset.workspace import Workspace
from core.errors import WorkspaceError
from core.llm.endpoints import RunSettings
from core.llm.prices import Price, PriceTable
from core.llm.prompt_wording import STUDIO_WORDING, PromptWording
from core.llm.prompts import approximate_tokens, build_prompt
from core.llm.token_counts import APPROXIMATE, TokenCounter
from core.wording import count

ASSUMED_TOKENS_PER_QUESTION = 12  # a short answer line per question: "3. a.b, c.d"
PROGRESS_EVERY = 200

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class OutputEstimate:
    tokens_per_question: float
    basis: str  # how the figure was found, a phrase: "median of 15 answers stored for gpt-4o"


@dataclass(frozen=True)
class DryRun:
    model: str  # the endpoint's model id (prices are by it)
    prompts: int
    characters: int
    questions: int
    output_tokens: int
    output: OutputEstimate
    price: Price | None
    input_tokens: int = 0  # summed per message, as `tokenizer` counts
    tokenizer: str = APPROXIMATE.label  # how the input tokens were counted
    batch: bool = False  # priced as a batch (the price's batch discount off)

    @property
    def price_factor(self) -> float:
        """What share of the list price is paid: 1, or 1 - the batch discount."""
        return 1.0 - self.price.batch_discount if self.batch and self.price else 1.0

    @property
    def input_cost(self) -> float | None:
        return self.input_tokens * self.price.input_per_mtok * self.price_factor / 1_000_000 if self.price else None

    @property
    def output_cost(self) -> float | None:
        return self.output_tokens * self.price.output_per_mtok * self.price_factor / 1_000_000 if self.price else None

    @property
    def cost(self) -> float | None:
        input_cost, output_cost = self.input_cost, self.output_cost  # both None without a price
        return None if input_cost is None or output_cost is None else input_cost + output_cost


def dry_run(ws: Workspace, keys: Sequence[str], settings: RunSettings, wording: PromptWording = STUDIO_WORDING,
            prices: PriceTable | None = None, progress: Progress | None = None, counter: TokenCounter = APPROXIMATE,
            batch: bool = False) -> DryRun:
    """Build the prompt of every key in `keys` (the programs to send: see llm_runner.pending_keys; a key given
    twice is sent twice, as repeated runs do) and estimate what sending them costs. `progress(done, total,
    message)` is called every few hundred prompts (it may raise to stop the work)."""
    output = output_estimate(ws, settings.stored_name)
    chars = questions = output_tokens = input_tokens = 0
    for done, key in enumerate(keys):
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, len(keys), "building the prompts")
        instance = ws.instance(key)
        if instance is None:
            raise WorkspaceError(f"no program {key!r} in the workspace {ws.path}")
        prompt = build_prompt(instance, wording=wording, rules=settings.rules)
        chars += len(prompt.system) + len(prompt.user)
        input_tokens += counter.count(prompt.system) + counter.count(prompt.user)
        questions += len(prompt.keys)
        output_tokens += min(math.ceil(output.tokens_per_question * len(prompt.keys)), settings.max_tokens)
    return DryRun(settings.model, len(keys), chars, questions, output_tokens, output,
                  prices.price(settings.model) if prices is not None else None, input_tokens, counter.label, batch)


def output_estimate(ws: Workspace, model: str) -> OutputEstimate:
    """Tokens per question of `model`'s stored answers, else of the other models', else the assumption."""
    for sizes, whose in ((ws.answer_sizes(model), f"stored for {model}"),
                         (ws.answer_sizes(), "stored for other models")):
        ratios = [(tokens if tokens is not None else approximate_tokens(chars)) / questions
                  for tokens, chars, questions in sizes if questions > 0 and (tokens or chars)]
        if ratios:
            return OutputEstimate(median(ratios), f"median of {count(len(ratios), 'answer')} {whose}")
    return OutputEstimate(float(ASSUMED_TOKENS_PER_QUESTION), "assumed: no answers stored yet")
