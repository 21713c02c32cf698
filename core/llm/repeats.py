"""Repeated runs of one model (`traceeval predict --runs N`): the settings of each run.

Run `i` is stored as `core.scoring.run_family.member_name(name, i)` (run 0 under the name itself) and is resumable
on its own, as any run is. Each run may have its own seed (sent as the request's `seed`) and temperature. At the
paper's temperature 0 the runs differ only through the seed and the endpoint's own non-determinism (batching,
floating point); without seeds they may well agree everywhere. The answer cache is keyed by seed and temperature, so
a run whose seed and temperature repeat an earlier run's does not read the cache (it would get that run's answers
back); its answers still go into it.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from core.errors import UsageError
from core.llm.endpoints import RunSettings
from core.scoring.run_family import member_name

MAX_RUNS = 100


def repeat_settings(base: RunSettings, runs: int, seeds: Sequence[int] | None = None,
                    temperatures: Sequence[float] | None = None) -> list[RunSettings]:
    """The settings of each of `runs` runs: one seed and one temperature per run (each list, when given, has one
    value per run; a single temperature is used for every run)."""
    if not 1 <= runs <= MAX_RUNS:
        raise UsageError(f"--runs must be between 1 and {MAX_RUNS} (got {runs})")
    if seeds is not None and len(seeds) != runs:
        raise UsageError(f"--seeds gives {len(seeds)} seed(s) for {runs} run(s): give one per run")
    if temperatures is not None and len(temperatures) not in (1, runs):
        raise UsageError(f"--temperatures gives {len(temperatures)} value(s) for {runs} run(s): give one, or one "
                         "per run")
    if seeds is not None and len(set(seeds)) != len(seeds):
        raise UsageError(f"--seeds repeats a seed ({', '.join(map(str, seeds))}): give each run its own")
    settings, seen = [], set()
    for run in range(runs):
        seed = seeds[run] if seeds is not None else base.seed
        temperature = base.temperature if temperatures is None else temperatures[min(run, len(temperatures) - 1)]
        identity = (seed, temperature)
        settings.append(dataclasses.replace(base, name=member_name(base.stored_name, run), seed=seed,
                                            temperature=temperature,
                                            use_cache=base.use_cache and identity not in seen))
        seen.add(identity)
    return settings


def parse_numbers(text: str | None, kind: type, option: str) -> list | None:
    """`1,2,3` as numbers of `kind` (int or float); None when not given; a UsageError naming `option` otherwise."""
    if text is None:
        return None
    try:
        return [kind(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"{option}: expected comma-separated numbers, got {text!r}") from None
