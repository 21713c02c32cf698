"""One program as every view and export sees it, read once: its files, symbols and the overlay of the
ground truth, the given models' answers and the latest trace run.

The window's `InstanceDetail` and the evidence packet's `LoadedInstance` are this bundle plus what
each adds (the current model's diff; the models as given, A and B). Parsing the sources with
tree-sitter is the costly part, so it is a `ParsedProgram` of its own that a caller may keep.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from core.dataset.workspace import RunRow, Workspace
from core.errors import UsageError
from core.records import Instance, Node, Prediction
from core.report.overlay import InstanceOverlay, ShownPart, build_overlay
from core.scoring.normalise import MODES
from core.scoring.rules import DEFAULT_RULES
from core.symbols import SymbolTable, call_site_lines, extract_symbols
from core.traces import TraceRun

P = TypeVar("P", bound="ProgramView")


@dataclass(frozen=True, eq=False)
class ParsedProgram:
    instance: Instance
    sources: dict[str, str]  # readable files only
    unreadable: dict[str, str]  # file -> why it could not be read
    symbols: SymbolTable


def parse_program(ws: Workspace, key: str) -> ParsedProgram | None:
    """The program's files read and parsed; None when the workspace has no such program."""
    instance = ws.instance(key)
    return parse_instance(instance) if instance is not None else None


def parse_instance(instance: Instance) -> ParsedProgram:
    """The instance's files read and parsed (no workspace needed, so any thread may do it)."""
    sources, unreadable = instance.read_sources()
    return ParsedProgram(instance, sources, unreadable, extract_symbols(instance.language, sources))


@dataclass(frozen=True, eq=False)
class ProgramView(ParsedProgram):
    overlay: InstanceOverlay  # the truth, the given models that answered, the latest trace
    predictions: dict[str, Prediction]  # the given models that answered
    run: RunRow | None  # the latest trace run, if any
    _call_sites: dict[tuple[str, str], list[int]] = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def load(cls: type[P], ws: Workspace, key: str, model_names: Sequence[str], modes=MODES,
             rules: str = DEFAULT_RULES, parsed: ParsedProgram | None = None, **extra) -> P | None:
        """The program `key` with the predictions of the models named that answered it and its latest trace run
        (None when there is no such program); `parsed`: its files already parsed; `extra`: a subclass's
        own fields."""
        parsed = parsed or parse_program(ws, key)
        if parsed is None:
            return None
        predictions, run, trace = _answers_and_trace(ws, key, model_names)
        overlay = build_overlay(parsed.instance, predictions, trace, frozenset(modes), rules)
        return cls(parsed.instance, parsed.sources, parsed.unreadable, parsed.symbols, overlay, predictions, run,
                   **extra)

    def place(self, name: str) -> Node | None:
        """The node a (normalised) name refers to, or None when the program defines nothing like it."""
        node = self.symbols.place(name)
        return node if node is not None and node.file in self.sources else None

    @property
    def shown(self) -> ShownPart:
        """The bounded part of the overlay the views look at edge by edge, and how much it leaves out."""
        return self.overlay.shown()

    def groups(self) -> dict[str, str]:
        """Node -> the file defining it, for the shown names the program defines."""
        out = {}
        for name in self.shown.nodes:
            node = self.place(name)
            if node is not None:
                out[name] = node.file
        return out

    def call_sites(self, caller: str, callee: str) -> list[int]:
        """Lines in the caller's body where it calls the callee: witnessed by the latest trace when it
        saw the call, else candidates from a static look at the caller's body (approximate)."""
        if (caller, callee) not in self._call_sites:
            evidence = self.overlay.trace_evidence.get((caller, callee))
            self._call_sites[caller, callee] = list(evidence.lines) if evidence is not None and evidence.lines else \
                call_site_lines(self.symbols, self.sources, caller, callee)
        return self._call_sites[caller, callee]


def program_overlay(ws: Workspace, program: str, models: Sequence[str] | str | None = None, modes=MODES,
                    rules: str = DEFAULT_RULES) -> InstanceOverlay:
    """One program's overlay without parsing its files: the ground truth, the answers of `models` (default: every
    model that answered it) and its latest trace run, normalised as scoring does. `program`: `language/id` or an
    id naming one program. `overlay.diff(model)` gives that model's TP / FP / FN edges."""
    key = ws.program_key(program)
    instance = ws.instance(key)
    if instance is None:  # removed since program_key looked
        raise UsageError(f"no program {program!r} in the dataset")
    names = ws.model_names(models)
    predictions, _, trace = _answers_and_trace(ws, key, names)
    return build_overlay(instance, predictions, trace, frozenset(modes), rules)


def _answers_and_trace(ws: Workspace, key: str, model_names: Sequence[str]
                       ) -> tuple[dict[str, Prediction], RunRow | None, TraceRun | None]:
    """The predictions of the models named that answered `key`, its latest run's row and that run."""
    predictions = {}
    for name in dict.fromkeys(model_names):
        prediction = ws.predictions(name, [key]).get(key)
        if prediction is not None:
            predictions[name] = prediction
    runs = ws.run_rows(key)
    return predictions, runs[0] if runs else None, ws.run(runs[0].id) if runs else None
