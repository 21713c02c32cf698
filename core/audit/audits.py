"""Spot-check audits: what an audit is, the edges (or questions) it samples, and how the verdicts of
several annotators resolve into one final verdict per edge.

An edge audit asks annotators, edge by edge, whether `caller -> callee` is a real call of the program.
A baseline audit asks them the questions a model gets (one per caller) without showing the truth;
their answers are scored like a model's (`human_model_name`). Storage lives in `core.audit.store`.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from core.verdicts import LABEL_TITLES, LABELS

EDGE_AUDIT, BASELINE_AUDIT = "edges", "baseline"
AUDIT_KINDS = (EDGE_AUDIT, BASELINE_AUDIT)
# Which edges an edge audit samples from: the ground truth, a model's false positives, its false
# negatives, or all of them (the truth plus the model's predictions).
POPULATIONS = ("truth", "fp", "fn", "all")
POPULATION_TITLES = {"truth": "ground-truth edges", "fp": "the model's false positives",
                     "fn": "the model's false negatives", "all": "ground truth and the model's predictions"}
STRATA = ("language", "repo", "edge_class")


def population_phrase(population: str, model: str = "") -> str:
    """What a population's edges are, after their count ("404 false positives of gpt-4o")."""
    if population == "fp":
        return f"false positives of {model}"
    if population == "fn":
        return f"false negatives of {model}"
    if population == "all":
        return f"edges of the ground truth and {model}'s predictions"
    return f"ground-truth edges (of programs {model} answered)" if model else "ground-truth edges"


HUMAN_PREFIX = "human:"


class EdgeRef(NamedTuple):
    """One edge of one program (normalised names, as scoring sees them)."""

    instance_key: str
    caller: str
    callee: str


@dataclass(frozen=True)
class Audit:
    name: str
    kind: str = EDGE_AUDIT
    population: str = "truth"
    model: str = ""  # the model whose FPs / FNs / predictions are sampled ("" for a truth-only audit)
    seed: int = 0
    size: int = 0  # items sampled (edges, or questions for a baseline audit)
    requested_size: int | None = None  # what was asked for; None when computed from `margin`
    margin: float | None = None  # target margin of error of the sample's proportion
    confidence: float = 0.95
    strata: tuple[str, ...] = STRATA
    split: str | None = None  # None: every split
    languages: tuple[str, ...] = ()
    modes: tuple[str, ...] = ()  # the normalisation modes the edges were sampled under
    population_size: int = 0
    annotators: tuple[str, ...] = ()
    fingerprint: str = ""  # identifies the sample: equal in two workspaces only for the same items
    created_at: str = ""
    blind: bool = False  # annotators see no edge class, model or score of an edge until they judge it

    def __post_init__(self) -> None:
        if self.kind not in AUDIT_KINDS:
            raise ValueError(f"unknown audit kind {self.kind!r} (choose from {', '.join(AUDIT_KINDS)})")
        if self.population not in POPULATIONS:
            raise ValueError(f"unknown population {self.population!r} (choose from {', '.join(POPULATIONS)})")
        if self.population != "truth" and not self.model and self.kind == EDGE_AUDIT:
            raise ValueError(f"population {self.population!r} needs a model")
        unknown = set(self.strata) - set(STRATA)
        if unknown:
            raise ValueError(f"unknown stratum {sorted(unknown)[0]!r} (choose from {', '.join(STRATA)})")


@dataclass(frozen=True)
class AuditItem:
    """One sampled edge (edge audit) or one question, i.e. a caller (baseline audit: callee is "")."""

    audit: str
    position: int  # the order annotators go through the items, from 0
    instance_key: str
    instance_id: str
    language: str
    repo: str
    caller: str
    callee: str
    edge_class: str  # TP / FP / FN against the audit's model, "truth" without one, "" for questions
    stratum: str = ""  # the stratum it was drawn from ("python|calcpad|FP")
    stratum_size: int = 0  # population edges in that stratum (for weighting estimates)

    @property
    def ref(self) -> EdgeRef:
        return EdgeRef(self.instance_key, self.caller, self.callee)


@dataclass(frozen=True)
class Adjudication:
    """The final word on a disputed edge: a label, who decided and why."""

    audit: str
    ref: EdgeRef
    label: str
    adjudicator: str
    reason: str = ""
    created_at: str = ""

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(f"unknown verdict {self.label!r} (choose from {', '.join(LABELS)})")


@dataclass(frozen=True)
class AnnotatorAnswer:
    """A human's answer to one question of a baseline audit: the callees of `caller`."""

    audit: str
    annotator: str
    instance_key: str
    caller: str
    callees: tuple[str, ...]
    created_at: str = ""


@dataclass(frozen=True)
class FinalVerdict:
    """How the annotators' verdicts on one edge resolve: adjudicated, unanimous, single or disputed."""

    label: str | None  # None while disputed
    how: str  # "adjudicated" | "unanimous" | "single" | "disputed"
    by: tuple[str, ...]  # the adjudicator, or the annotators whose verdicts count
    reason: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)  # annotator -> label

    @property
    def title(self) -> str:
        return LABEL_TITLES[self.label] if self.label else "disputed"


def final_verdicts(labels: Mapping[EdgeRef, Mapping[str, str]],
                   adjudications: Mapping[EdgeRef, Adjudication]) -> dict[EdgeRef, FinalVerdict]:
    """One final verdict per edge with any verdict or adjudication. An adjudication always wins;
    otherwise annotators who agree decide, and differing labels leave the edge disputed.
    `labels`: edge -> {annotator: label} (current verdicts, withdrawn ones left out)."""
    finals = {}
    for ref in dict.fromkeys([*labels, *adjudications]):
        given = dict(sorted(labels.get(ref, {}).items()))
        adjudication = adjudications.get(ref)
        if adjudication is not None:
            finals[ref] = FinalVerdict(adjudication.label, "adjudicated", (adjudication.adjudicator,),
                                       adjudication.reason, given)
        elif len(set(given.values())) == 1:
            finals[ref] = FinalVerdict(next(iter(given.values())), "unanimous" if len(given) > 1 else "single",
                                       tuple(given), "", given)
        elif given:
            finals[ref] = FinalVerdict(None, "disputed", tuple(given), "", given)
    return finals


def label_fits(item: AuditItem, label: str, everywhere: bool = False) -> bool:
    """"not_exercised" says the ground truth missed a real call, so it only fits edges outside the truth (FPs),
    unless it is offered on every edge (`everywhere`, see `not_exercised_everywhere`)."""
    return everywhere or label != "not_exercised" or item.edge_class == "FP"


def not_exercised_everywhere(audit: Audit, items: Iterable[AuditItem]) -> bool:
    """Whether "not_exercised" fits every edge of the audit: in a blind audit with any FP, refusing it on the
    edges of the ground truth would tell the annotator their class."""
    return audit.blind and any(item.edge_class == "FP" for item in items)


def blind_by_default(kind: str, population: str) -> bool:
    """Truth audits are blind unless asked otherwise: an annotator told an edge was missed by a model is
    biased towards the model."""
    return kind == EDGE_AUDIT and population == "truth"


def disagreements(labels: Mapping[EdgeRef, Mapping[str, str]]) -> list[EdgeRef]:
    """Edges two or more annotators labelled differently (adjudicated or not), in the order given."""
    return [ref for ref, given in labels.items() if len(set(given.values())) > 1]


class SampledItem(Protocol):
    """What a sample's fingerprint reads of each item: an `AuditItem`, or a stored item row."""

    @property
    def position(self) -> int: ...
    @property
    def instance_key(self) -> str: ...
    @property
    def caller(self) -> str: ...
    @property
    def callee(self) -> str: ...


def sample_fingerprint(items: Iterable[SampledItem]) -> str:
    digest = hashlib.sha256()
    for item in items:
        digest.update(f"{item.position}\t{item.instance_key}\t{item.caller}\t{item.callee}\n".encode())
    return digest.hexdigest()[:16]


def human_model_name(annotator: str) -> str:
    """The model name a baseline annotator's answers are stored and scored under."""
    return f"{HUMAN_PREFIX}{annotator}"


def check_person_name(name: str, role: str = "annotator") -> str:
    """A usable annotator / adjudicator name, or ValueError saying what is wrong with it."""
    if not name or name != name.strip():
        raise ValueError(f"{role} name must be non-empty, without surrounding spaces: {name!r}")
    if len(name) > 64 or any(ch in name for ch in "\n\t"):
        raise ValueError(f"{role} name must be one line of at most 64 characters: {name!r}")
    return name
