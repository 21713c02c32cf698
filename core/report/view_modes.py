"""The graph's view modes, in one table, and the one rule for which mode is really drawn.

A view mode says how edges are classed: model A against the ground truth, model A against model B,
the latest trace against the ground truth, or the ground truth alone. A mode whose inputs are missing
(no chosen model, no result for the program, no trace run) shows the ground truth instead, and every
view, export and command says why with the reason `effective_mode` gives.
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

MODEL_A, MODEL_B, TRACE = "model A", "model B", "trace"  # what a mode can need


@dataclass(frozen=True)
class ViewMode:
    name: str
    title: str  # in the window's menus and graph toolbar
    heading: str  # a graph picture's title; {a} and {b} are the models
    description: str  # the evidence packet's words; {a} and {b} are the models
    classes: tuple[str, ...]  # its edge classes (keys of core.report.palette.EDGE_STYLES), in legend order
    worst_first: tuple[str, ...]  # which class speaks for a line or node with several edges
    correct: frozenset[str]  # the classes "errors only" hides
    needs: tuple[str, ...]  # MODEL_A, MODEL_B, TRACE: without them the ground truth is shown


TRUTH = "truth"
VIEW_MODE_TABLE = {mode.name: mode for mode in (
    ViewMode("model", "Model A vs truth", "TP / FP / FN of {a}", "{a} against the ground truth (TP / FP / FN)",
             ("TP", "FP", "FN"), ("FN", "FP", "TP"), frozenset({"TP"}), (MODEL_A,)),
    ViewMode("compare", "Model A vs model B", "{a} (A) against {b} (B)",
             "{a} (A) against {b} (B): who is right about each edge",
             ("both_right", "only_a_right", "only_b_right", "both_wrong"),
             ("both_wrong", "only_b_right", "only_a_right", "both_right"), frozenset({"both_right"}),
             (MODEL_A, MODEL_B)),
    ViewMode("trace", "Latest trace vs truth", "latest trace against the ground truth",
             "the latest trace against the ground truth", ("agrees", "trace_only", "truth_only"),
             ("truth_only", "trace_only", "agrees"), frozenset({"agrees"}), (TRACE,)),
    ViewMode(TRUTH, "Ground truth only", "ground truth", "the ground truth only", (TRUTH,), (TRUTH,),
             frozenset({TRUTH}), ()),
)}
VIEW_MODES = tuple(VIEW_MODE_TABLE)
CORRECT_CLASSES = frozenset().union(*(mode.correct for mode in VIEW_MODE_TABLE.values()))


def view_mode(name: str) -> ViewMode:
    """The mode named; ValueError names the choices."""
    try:
        return VIEW_MODE_TABLE[name]
    except KeyError:
        raise ValueError(f"unknown view mode {name!r} (choose from {', '.join(VIEW_MODES)})") from None


def effective_mode(requested: str, model_a: str | None, model_b: str | None, answered: Collection[str],
                   has_trace: bool, program: str = "this program") -> tuple[str, str]:
    """(the mode drawn, why it is not the requested one: "" when it is).

    `answered`: the models with a result for the program; `program` names it in the reason.
    """
    needs = view_mode(requested).needs
    if TRACE in needs and not has_trace:
        return TRUTH, f"no trace run is stored for {program}"
    if MODEL_B in needs and (model_a is None or model_b is None):
        return TRUTH, "comparing needs two models (model A and model B)"
    if MODEL_B in needs and model_a == model_b:
        return TRUTH, "model A and model B are the same model"
    if MODEL_A in needs and model_a is None:
        return TRUTH, "no model is chosen as model A"
    missing = [name for need, name in ((MODEL_A, model_a), (MODEL_B, model_b))
               if need in needs and name is not None and name not in answered]  # (not None: checked above)
    if missing:
        return TRUTH, f"{' and '.join(missing)} {'have' if len(missing) > 1 else 'has'} no result for {program}"
    return requested, ""
