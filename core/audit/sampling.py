"""Choose what an audit looks at: the population of edges (or programs), and a seeded stratified sample.

Edges are compared after normalisation exactly as scoring does, so an audited FP is an FP of the score
table. Everything is deterministic: the same workspace data, options and seed give the same items in the
same order in any process (string seeds go through sha512 in `random`, never through `hash()`), which is
what lets two annotators in separate workspaces audit one sample (`Audit.fingerprint` tells).
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TypeVar

from core.audit.audits import (
    AUDIT_KINDS,
    BASELINE_AUDIT,
    EDGE_AUDIT,
    POPULATIONS,
    STRATA,
    Audit,
    AuditItem,
    blind_by_default,
    check_person_name,
    sample_fingerprint,
)
from core.audit.store import AuditStore
from core.dataset.workspace import Workspace
from core.errors import AuditError
from core.languages import registry
from core.scoring.metrics import diff_edges
from core.scoring.normalise import MODES, normalise_edges
from core.scoring.scores import mapping_pairs
from core.scoring.stats import sample_size_for_margin

T = TypeVar("T")
Stratum = tuple[str, ...]  # an item's values of the stratifying fields
PROGRAM_STRATA = ("language", "repo")  # what programs (baseline audits) can be stratified by


def population_edges(ws: Workspace, population: str, model: str = "", *, split: str | None = None,
                     languages: Sequence[str] = (), modes: Iterable[str] = MODES) -> list[AuditItem]:
    """Every edge of the population as an unsampled item (audit "", position -1), sorted by
    (language, instance, caller, callee). With a model, only programs it answered count (an unanswered
    program is not scored) and edges are classed TP / FP / FN; without one, every program counts and
    the truth edges are classed "truth"."""
    if population not in POPULATIONS:
        raise AuditError(f"unknown population {population!r} (choose from {', '.join(POPULATIONS)})")
    if population != "truth" and not model:
        raise AuditError(f"population {population!r} needs a model")
    if model and model not in {m.name for m in ws.models()}:
        known = ", ".join(m.name for m in ws.models()) or "none imported"
        raise AuditError(f"unknown model {model!r} (models: {known})")
    modes = frozenset(modes)
    rows = ws.instance_rows(list(languages) or None, split)
    predictions = ws.prediction_mappings(model) if model else {}
    if model:
        rows = [r for r in rows if r.key in predictions]
    truths = ws.ground_truth_mappings([r.key for r in rows])
    items = []
    for row in rows:
        truth = normalise_edges(mapping_pairs(truths[row.key]), row.language, modes)
        if model:
            diff = diff_edges(truth, normalise_edges(mapping_pairs(predictions[row.key]), row.language, modes))
            chosen = {"truth": ("TP", "FN"), "fp": ("FP",), "fn": ("FN",), "all": ("TP", "FP", "FN")}[population]
            classed = [(edge, cls) for cls in chosen for edge in getattr(diff, cls.lower())]
        else:
            classed = [(edge, "truth") for edge in truth]
        items += [AuditItem("", -1, row.key, row.id, row.language, row.repo, caller, callee, cls)
                  for (caller, callee), cls in classed]
    if not items:
        where = _describe(split, languages)
        of_model = f" of {model}" if model else ""
        raise AuditError(f"no edges to sample: population {population!r}{of_model} is empty{where}")
    return sorted(items, key=lambda i: (i.language, i.instance_key, i.caller, i.callee))


def allocate(stratum_sizes: Mapping[Stratum, int], size: int, seed: int | None = None) -> dict[Stratum, int]:
    """Proportional allocation by the largest-remainder (Hamilton) method.

    Each stratum first gets floor(size * N_h / N); the items left over go, one each, to the strata with
    the largest remainders (size * N_h mod N, exact integers), ties broken in an order shuffled by `seed`
    (ascending stratum key without one), so many one-program strata do not always favour the first names.
    Every stratum thus gets its exact share rounded down or up (within +-1), never more than N_h, and
    the counts add up to min(size, N). A small stratum can get 0 items when the sample is small."""
    total = sum(stratum_sizes.values())
    if size >= total:
        return dict(stratum_sizes)
    counts = {key: size * n // total for key, n in stratum_sizes.items()}
    left = size - sum(counts.values())
    tie_order = sorted(stratum_sizes)
    if seed is not None:
        random.Random(f"{seed}|ties").shuffle(tie_order)
    rank = {key: index for index, key in enumerate(tie_order)}
    by_remainder = sorted(stratum_sizes, key=lambda key: (-(size * stratum_sizes[key] % total), rank[key]))
    for key in by_remainder[:left]:
        counts[key] += 1  # a stratum with a remainder has share < N_h, so this never exceeds N_h
    return counts


def stratified_sample(candidates: Iterable[AuditItem], size: int, seed: int,
                      strata: Sequence[str] = STRATA) -> list[AuditItem]:
    """A seeded stratified random sample of `size` items (everything when size >= the population).

    The stratum of an item is its values of `strata` (fields in STRATA order, e.g. "python|calcpad|FP";
    "all" with no strata). Sizes per stratum come from `allocate` (proportional, largest remainder);
    each stratum is drawn with `random.Random(f"{seed}|{stratum}")`, and the union is shuffled with
    `random.Random(seed)` so annotators do not meet one stratum in a block. Items get positions 0..n-1,
    their stratum and its population size (for weighting estimates)."""
    fields = _strata_fields(strata, STRATA)
    drawn = _draw(list(candidates), size, seed, fields, lambda i: (i.instance_key, i.caller, i.callee))
    return [replace(item, position=position, stratum=stratum, stratum_size=n)
            for position, (item, stratum, n) in enumerate(drawn)]


def sample_questions(ws: Workspace, size_programs: int | None, seed: int, *, split: str | None = None,
                     languages: Sequence[str] = (), strata: Sequence[str] = PROGRAM_STRATA) -> list[AuditItem]:
    """The questions of a baseline audit: a stratified sample of programs (as `stratified_sample`, over
    programs; None = every program), then every caller key of each program's ground truth, in the
    `callgraph.json` key order (unnormalised, as a model is asked). Positions run through the programs in
    sampled order, then their questions; `stratum_size` counts the programs of the stratum."""
    fields = _strata_fields(strata, PROGRAM_STRATA)
    rows = ws.instance_rows(list(languages) or None, split)
    if not rows:
        raise AuditError(f"no programs to sample{_describe(split, languages)}")
    size = len(rows) if size_programs is None else size_programs
    drawn = _draw(rows, size, seed, fields, lambda r: (r.key,))
    truths = ws.ground_truth_mappings([row.key for row, _, _ in drawn])
    items: list[AuditItem] = []
    for row, stratum, n in drawn:
        items += [AuditItem("", len(items) + i, row.key, row.id, row.language, row.repo, caller, "", "", stratum, n)
                  for i, caller in enumerate(truths[row.key])]
    return items


def new_audit(ws: Workspace, name: str, *, kind: str = EDGE_AUDIT, population: str = "truth", model: str = "",
              size: int | None = None, margin: float | None = None, confidence: float = 0.95, seed: int = 0,
              strata: Sequence[str] | None = None, split: str | None = None, languages: Sequence[str] = (),
              annotators: Sequence[str] = (), modes: Iterable[str] = MODES,
              blind: bool | None = None) -> tuple[Audit, list[AuditItem]]:
    """An audit and its sampled items, not stored (`create_audit` stores them). An edge audit samples
    `size` edges, or as many as `margin` needs at `confidence`; a baseline audit samples `size` programs
    (all of them when None) and asks every question of each. `strata` defaults to STRATA for an edge
    audit and to (language, repo) for a baseline audit; `blind` (hide classes, models and scores from the
    annotators) defaults to `blind_by_default`."""
    modes = tuple(sorted(set(modes)))
    _check_options(name, kind, population, model, size, margin, confidence, languages, annotators, modes)
    if kind == BASELINE_AUDIT:
        strata = _strata_fields(PROGRAM_STRATA if strata is None else strata, PROGRAM_STRATA)
        items = sample_questions(ws, size, seed, split=split, languages=languages, strata=strata)
        population_size = len(ws.instance_rows(list(languages) or None, split))  # programs
    else:
        strata = _strata_fields(STRATA if strata is None else strata, STRATA)
        candidates = population_edges(ws, population, model, split=split, languages=languages, modes=modes)
        population_size = len(candidates)
        wanted = size if margin is None else sample_size_for_margin(margin, population_size, confidence)
        if wanted is None:
            raise AuditError("give either a sample size or a margin of error (exactly one)")  # _check_options did
        items = stratified_sample(candidates, wanted, seed, strata)
    items = [replace(item, audit=name) for item in items]
    audit = Audit(name, kind, population, model, seed, len(items), size, margin, confidence, strata, split,
                  tuple(languages), modes, population_size, tuple(annotators), sample_fingerprint(items),
                  blind=blind_by_default(kind, population) if blind is None else bool(blind))
    return audit, items


def create_audit(ws: Workspace, name: str, **options) -> Audit:
    """Sample a new audit (`new_audit` options) and store it in the workspace."""
    audit, items = new_audit(ws, name, **options)
    store = AuditStore(ws)
    store.create(audit, items)
    return store.get(name)


def _check_options(name, kind, population, model, size, margin, confidence, languages, annotators, modes) -> None:
    if not name or name != name.strip() or "\n" in name:
        raise AuditError(f"audit name must be one non-empty line without surrounding spaces: {name!r}")
    if kind not in AUDIT_KINDS:
        raise AuditError(f"unknown audit kind {kind!r} (choose from {', '.join(AUDIT_KINDS)})")
    if not 0 < confidence < 1:
        raise AuditError(f"confidence must be in (0, 1), got {confidence!r}")
    if margin is not None and not 0 < margin <= 0.5:
        raise AuditError(f"margin of error must be in (0, 0.5], got {margin!r}")
    if size is not None and size < 1:
        raise AuditError(f"sample size must be at least 1, got {size!r}")
    unknown = [lang for lang in languages if not registry.is_known(lang)] + [m for m in modes if m not in MODES]
    if unknown:
        raise AuditError(f"unknown language or normalisation mode {unknown[0]!r}")
    for annotator in annotators:
        try:
            check_person_name(annotator)
        except ValueError as error:
            raise AuditError(str(error)) from None
    if kind == BASELINE_AUDIT:
        if margin is not None:
            raise AuditError("a baseline audit samples programs: give a number of programs, not a margin of error")
        if population != "truth" or model:
            raise AuditError("a baseline audit asks the ground-truth questions: it takes no population or model")
    elif (size is None) == (margin is None):
        raise AuditError("give either a sample size or a margin of error (exactly one)")


def _strata_fields(strata: Sequence[str], allowed: Sequence[str]) -> tuple[str, ...]:
    unknown = [s for s in strata if s not in allowed]
    if unknown:
        raise AuditError(f"cannot stratify by {unknown[0]!r} here (choose from {', '.join(allowed)})")
    return tuple(s for s in allowed if s in strata)


def _draw(things: list[T], size: int, seed: int, fields: tuple[str, ...],
          order: Callable[[T], tuple]) -> list[tuple[T, str, int]]:
    """(thing, stratum, stratum size) for the sampled things, shuffled. Members of a stratum are put in
    `order` first, so the draw does not depend on the order `things` came in."""
    if size < 0:
        raise ValueError(f"sample size must be >= 0, got {size!r}")
    groups: dict[Stratum, list[T]] = {}
    for thing in things:
        groups.setdefault(tuple(getattr(thing, f) for f in fields), []).append(thing)
    counts = allocate({key: len(members) for key, members in groups.items()}, size, seed)
    drawn = []
    for key in sorted(groups):
        stratum = "|".join(key) or "all"
        members = sorted(groups[key], key=order)
        chosen = random.Random(f"{seed}|{stratum}").sample(members, counts[key])
        drawn += [(thing, stratum, len(members)) for thing in chosen]
    random.Random(seed).shuffle(drawn)
    return drawn


def _describe(split: str | None, languages: Sequence[str]) -> str:
    parts = [f"split {split!r}"] if split else []
    parts += [f"languages {', '.join(languages)}"] if languages else []
    return f" ({' and '.join(parts)})" if parts else ""
