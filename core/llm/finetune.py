"""Fine-tuning sets: each selected program as one chat example, the exact prompt a model is evaluated with
(`core.llm.prompts.build_prompt`, the wording and rule set `traceeval predict` uses) and, as the assistant's
answer, its ground truth written as the numbered answer the parser reads back (`core.scoring.answers.answer_text`).

An example goes in only when its answer reads back to exactly the ground-truth graph under the rule set's parser:
a name the parser would split (a comma outside brackets), cut short (an unclosed `(` or `<`), drop (an empty or
blank name) or read as "no calls" (a lone `none`) would teach a model an answer the benchmark scores differently,
so that program is left out and the report says which name and why. Programs are also left out when they ask
nothing (no ground-truth keys), when a source file cannot be read (the prompt would be wrong), and when the whole
example is longer than the maximum length.

Styles (the training file's shape, one JSON object per line):
- openai: OpenAI's chat fine-tuning format, `{"messages": [system, user, assistant]}`;
- trl: TRL's conversational prompt-completion form, `{"prompt": [system, user], "completion": [assistant]}`,
  which `SFTTrainer` reads with the model's chat template and trains on the completion's tokens only.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.dataset.workspace import Workspace
from core.errors import DatasetError
from core.languages import registry
from core.llm.prompt_wording import STUDIO_WORDING, PromptWording
from core.llm.prompts import Prompt, build_prompt
from core.llm.token_counts import APPROXIMATE, TokenCounter
from core.records import CallGraph, Instance
from core.scoring.answers import answer_text, parse_answer
from core.scoring.rules import DEFAULT_RULES

STYLES = ("openai", "trl")
TOO_LONG = "too long"
UNRENDERABLE = "answer does not read back"
NO_QUESTIONS = "no ground truth to ask about"
UNREADABLE = "unreadable source"
REASONS = (TOO_LONG, UNRENDERABLE, NO_QUESTIONS, UNREADABLE)

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Example:
    """One training example: the prompt, the answer and their token counts."""

    prompt: Prompt
    answer: str
    prompt_tokens: int
    answer_tokens: int

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.answer_tokens

    def record(self, style: str) -> dict[str, Any]:
        """The example as one line of the training file in `style` (see the module's docstring)."""
        assistant = {"role": "assistant", "content": self.answer}
        if style == "openai":
            return {"messages": [*self.prompt.messages, assistant]}
        if style == "trl":
            return {"prompt": self.prompt.messages, "completion": [assistant]}
        raise ValueError(f"unknown style {style!r} (choose from {', '.join(STYLES)})")


@dataclass(frozen=True)
class LeftOut:
    instance_key: str
    language: str
    reason: str  # one of REASONS
    detail: str


@dataclass
class FinetuneSet:
    examples: list[Example] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    counter: str = APPROXIMATE.label  # how tokens were counted
    max_tokens: int | None = None
    wording: str = STUDIO_WORDING.label
    rules: str = DEFAULT_RULES

    @property
    def tokens(self) -> int:
        return sum(example.tokens for example in self.examples)

    def by_language(self) -> dict[str, dict[str, int]]:
        """Per language: examples written, tokens, and programs left out per reason."""
        out: dict[str, dict[str, int]] = {}
        for example in self.examples:
            row = out.setdefault(example.prompt.language, {"written": 0, "tokens": 0})
            row["written"] += 1
            row["tokens"] += example.tokens
        for left in self.left_out:
            row = out.setdefault(left.language, {"written": 0, "tokens": 0})
            row[left.reason] = row.get(left.reason, 0) + 1
        order = registry.names()
        return dict(sorted(out.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order)))

    def summary(self) -> dict[str, Any]:
        """The report as plain data (the JSON report's body)."""
        reasons = {reason: sum(left.reason == reason for left in self.left_out) for reason in REASONS}
        return {"written": len(self.examples), "tokens": self.tokens, "token_counts": self.counter,
                "max_tokens": self.max_tokens, "wording": self.wording, "rules": self.rules,
                "left_out": {reason: n for reason, n in reasons.items() if n},
                "languages": self.by_language(),
                "examples": [{"instance": e.prompt.instance_key, "language": e.prompt.language,
                              "prompt_hash": e.prompt.hash, "prompt_tokens": e.prompt_tokens,
                              "answer_tokens": e.answer_tokens} for e in self.examples],
                "left_out_programs": [{"instance": left.instance_key, "language": left.language,
                                       "reason": left.reason, "detail": left.detail} for left in self.left_out]}


def truth_answer(truth: CallGraph, rules: str = DEFAULT_RULES) -> tuple[str | None, str]:
    """(the numbered answer for the ground truth, "") when the rule set's parser reads it back to exactly that
    graph, else (None, why not), naming the first question whose answer reads back differently."""
    mapping = truth.to_dict()
    text = answer_text(truth.keys, mapping)
    read = parse_answer(text, truth.keys, rules).graph
    if read == truth:
        return text, ""
    back = read.to_dict()
    for number, key in enumerate(truth.keys, start=1):
        if set(back.get(key, ())) != set(mapping[key]):
            lost = [name for name in mapping[key] if name not in back.get(key, ())]
            shown = ", ".join(repr(name) for name in lost[:3]) or "nothing"
            return None, (f"question {number} ({key!r}): callee {shown} would read back as "
                          f"{back.get(key, [])!r}")
    return None, "the answer reads back to another graph"


def build_example(instance: Instance, wording: PromptWording = STUDIO_WORDING, rules: str = DEFAULT_RULES,
                  counter: TokenCounter = APPROXIMATE, max_tokens: int | None = None) -> Example | LeftOut:
    """One program's example, or why it is left out."""
    truth = instance.ground_truth
    if not truth.keys:
        return LeftOut(instance.key, instance.language, NO_QUESTIONS, "callgraph.json has no callers")
    answer, why = truth_answer(truth, rules)
    if answer is None:
        return LeftOut(instance.key, instance.language, UNRENDERABLE, why)
    try:
        prompt = build_prompt(instance, wording=wording, rules=rules)
    except DatasetError as error:
        return LeftOut(instance.key, instance.language, UNREADABLE, str(error))
    example = Example(prompt, answer, counter.count(prompt.system) + counter.count(prompt.user),
                      counter.count(answer))
    if max_tokens is not None and example.tokens > max_tokens:
        return LeftOut(instance.key, instance.language, TOO_LONG,
                       f"{example.tokens:,} tokens, over the maximum of {max_tokens:,}")
    return example


def finetune_set(ws: Workspace, keys: Sequence[str], wording: PromptWording = STUDIO_WORDING,
                 rules: str = DEFAULT_RULES, counter: TokenCounter = APPROXIMATE, max_tokens: int | None = None,
                 progress: Progress | None = None) -> FinetuneSet:
    """The examples of the programs `keys` (in that order) and the programs left out, with why."""
    out = FinetuneSet(counter=counter.label, max_tokens=max_tokens, wording=wording.label, rules=rules)
    for done, key in enumerate(keys, start=1):
        instance = ws.instance(key)
        if instance is None:
            raise DatasetError(f"{ws.path}: no program {key} in the workspace")
        built = build_example(instance, wording, rules, counter, max_tokens)
        if isinstance(built, Example):
            out.examples.append(built)
        else:
            out.left_out.append(built)
        if progress is not None:
            progress(done, len(keys), key)
    return out
