"""A run family: the repeated runs of one model, stored as one workspace model per run.

Run 0 is stored under the model's own name, so a single run (and the paper's table for it) is what it always was;
run i > 0 is stored as `<name>@r<i>`. The released results files spell the same runs `<slug>_<language>_t<T>_r<i>.json`
(`core.results.writer`), and importing such files gives back the same names (`core.results.reader`). Temperature and
seed of each run are kept in its model run's parameters (`traceeval runs`), not in the name.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

RUN_MARK = "@r"
_MEMBER = re.compile(r"^(?P<base>.+)@r(?P<run>\d+)$")


def member_name(base: str, run: int) -> str:
    """The stored name of run `run` of `base`: `base` itself for run 0, else `base@r<run>`."""
    if run < 0:
        raise ValueError(f"a run index is 0 or more (got {run})")
    return base if run == 0 else f"{base}{RUN_MARK}{run}"


def split_member(name: str) -> tuple[str, int]:
    """(`base`, run index) of a stored name: `gpt@r2` -> ("gpt", 2), `gpt` -> ("gpt", 0)."""
    matched = _MEMBER.match(name)
    return (matched.group("base"), int(matched.group("run"))) if matched else (name, 0)


def families(names: Iterable[str]) -> dict[str, list[tuple[int, str]]]:
    """Each base name with its runs `(index, stored name)` in run order, for the names given (bases in first-seen
    order). A base with only run 0 is a family of one."""
    grouped: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for name in names:
        base, run = split_member(name)
        grouped[base].append((run, name))
    return {base: sorted(runs) for base, runs in grouped.items()}
