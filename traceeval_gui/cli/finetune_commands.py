"""`traceeval finetune-set`: a selection of programs as a chat fine-tuning file (docs/finetuning.md)."""
from __future__ import annotations

import sys
from pathlib import Path

from core.errors import UsageError
from core.languages import registry
from core.payloads import json_lines
from core.scoring.rules import rules_title
from core.wording import count
from traceeval_gui.cli.common import (
    ProgressLine,
    format_option,
    open_workspace,
    print_document,
    release_option,
    rules_option,
    selected_keys,
    selection_from,
    wording_from,
)

STYLES = ("openai", "trl")  # core.llm.finetune.STYLES, named here so `--help` imports nothing heavy
STYLE_SHAPES = {"openai": '{"messages": [system, user, assistant]}',
                "trl": '{"prompt": [system, user], "completion": [assistant]}'}


def register(commands, dataset_args) -> None:
    finetune = commands.add_parser(
        "finetune-set", help="write a split (train by default) as a chat fine-tuning file (JSONL)",
        description="Write each selected program as one chat example: the exact prompt 'traceeval predict' sends "
                    "for it (your release's wording with --release) and its ground truth as the numbered answer "
                    "the paper's parser reads back to the same graph. A program whose answer would read back "
                    "differently, that asks nothing, whose sources cannot be read or that is longer than "
                    "--max-tokens is left out, and the report says why. Token counts are approximate unless "
                    "--tokenizer names the model's tokenizer.json.")
    dataset_args(finetune)
    finetune.add_argument("--out", required=True, metavar="FILE", help="the training file to write (JSONL)")
    finetune.add_argument("--style", choices=STYLES, default="openai",
                          help="the training file's shape: openai (OpenAI fine-tuning, "
                               f"{STYLE_SHAPES['openai']}) or trl (TRL's conversational prompt-completion, "
                               f"{STYLE_SHAPES['trl']}; SFTTrainer trains on the completion only)")
    finetune.add_argument("--split", choices=("train", "test", "all"), default="train",
                          help="programs to write (default: train, the split the paper fine-tuned on)")
    finetune.add_argument("--languages", default=",".join(registry.names()), help="comma-separated languages")
    finetune.add_argument("--repo", metavar="PATTERN", help="only repositories matching this glob pattern")
    finetune.add_argument("--instances", metavar="KEYS",
                          help="comma-separated program ids or language/id keys (instead of the split)")
    finetune.add_argument("--max-tokens", type=int, metavar="N",
                          help="leave out examples longer than N tokens (prompt and answer)")
    finetune.add_argument("--tokenizer", metavar="FILE",
                          help="a local Hugging Face tokenizer.json for exact token counts (needs the finetune "
                               "extra; default: approximate counts, characters / 4)")
    release_option(finetune)
    rules_option(finetune, "the prompt is assembled and the answer read back")
    format_option(finetune, help="the report: text (default) or json (counts, every example's tokens, every "
                                 "program left out and why)")
    finetune.set_defaults(handler=finetune_set_command)


def finetune_set_command(args) -> int:
    from core.llm.finetune import finetune_set
    from core.llm.token_counts import APPROXIMATE, tokenizer_counter

    if args.max_tokens is not None and args.max_tokens < 1:
        raise UsageError(f"--max-tokens must be 1 or more (got {args.max_tokens})")
    counter = tokenizer_counter(Path(args.tokenizer).expanduser()) if args.tokenizer else APPROXIMATE
    ws, _ = open_workspace(args)
    with ws:
        wording = wording_from(args, ws)
        keys = selected_keys(ws, args.instances, selection_from(args, ws))
        result = finetune_set(ws, keys, wording, args.rules, counter, args.max_tokens,
                              progress=ProgressLine("examples"))
    out = Path(args.out).expanduser()
    try:
        out.write_text(json_lines(example.record(args.style) for example in result.examples), encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{out}: cannot write: {error.strerror or error}") from None
    summary = {"file": str(out), "style": args.style, **result.summary()}
    if args.format == "json":
        print_document("finetune-set", summary)
    else:
        _print_report(summary)
    if not result.examples:
        print(f"warning: {out} holds no examples", file=sys.stderr)
    return 0


def _print_report(summary: dict) -> None:
    print(f"wrote {count(summary['written'], 'example')} to {summary['file']} ({summary['style']} style: "
          f"{STYLE_SHAPES[summary['style']]})")
    print(f"prompts: {summary['wording']}; {rules_title(summary['rules'])}")
    limit = f"; at most {summary['max_tokens']:,} per example" if summary["max_tokens"] else ""
    print(f"tokens: {summary['tokens']:,} in all, {summary['token_counts']}{limit}")
    reasons = sorted({reason for row in summary["languages"].values() for reason in row}
                     - {"written", "tokens"})
    header = f"{'language':<12}{'written':>8}{'tokens':>12}" + "".join(f"  {reason}" for reason in reasons)
    print(header)
    for language, row in summary["languages"].items():
        print(f"{registry.title(language):<12}{row['written']:>8,}{row['tokens']:>12,}"
              + "".join(f"  {row.get(reason, 0):>{len(reason)},}" for reason in reasons))
    left = summary["left_out_programs"]
    if left:
        print(f"left out: {count(len(left), 'program')}")
        for program in left:
            print(f"  {program['instance']}: {program['reason']}: {program['detail']}")
