"""How each edge class looks, in the window and in every export: colour AND line style, so the
classes stay apart in print and for colour-blind readers.

Within a view mode every class has its own line style, and the colours are chosen (from Paul Tol's
and Okabe & Ito's palettes) so that every pair of a mode stays at least CVD_MIN_DELTA_E apart
(CIEDE2000) for normal vision and under simulated protanopia, deuteranopia and tritanopia
(tests/test_palette_colour_vision.py checks both)."""
from __future__ import annotations

from typing import NamedTuple

CVD_MIN_DELTA_E = 20.0  # CIEDE2000; 2.3 is a just-noticeable difference, 20+ reads as another colour


class EdgeStyle(NamedTuple):
    colour: str
    dash: str  # "solid" | "dash" | "dot" | "dashdot"
    label: str
    description: str


EDGE_STYLES = {
    "TP": EdgeStyle("#44aa99", "solid", "found", "true positive: predicted and in the ground truth"),
    "FP": EdgeStyle("#a50026", "dash", "hallucinated",
                    "false positive: predicted but not in the ground truth (hallucinated, or a real call "
                    "the harness never ran)"),
    "FN": EdgeStyle("#5e3c99", "dot", "missed", "false negative: in the ground truth but not predicted (missed)"),
    "both_right": EdgeStyle("#44aa99", "solid", "both right", "both models are right about this edge"),
    "only_a_right": EdgeStyle("#7e57c2", "dashdot", "only A right", "model A is right, model B is wrong"),
    "only_b_right": EdgeStyle("#e69f00", "dash", "only B right", "model B is right, model A is wrong"),
    "both_wrong": EdgeStyle("#a50026", "dot", "both wrong", "both models are wrong (both missed it, "
                            "or both hallucinated it)"),
    "agrees": EdgeStyle("#44aa99", "solid", "traced", "in the ground truth and seen by the latest trace"),
    "trace_only": EdgeStyle("#e69f00", "dashdot", "trace only", "seen by the latest trace, not in the ground truth"),
    "truth_only": EdgeStyle("#5e3c99", "dot", "not traced", "in the ground truth, not seen by the latest trace"),
    "truth": EdgeStyle("#455a64", "solid", "ground truth", "an edge of the ground truth"),
}
# Files are told apart by a qualitative palette (Okabe-Ito, its black swapped for a brown that shows on
# a dark background too), cycled.
FILE_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#8c564b")
UNPLACED_COLOUR = "#b0b4ba"  # names not defined in the program (library calls, hallucinated names)
# Audit verdicts (core.verdicts.LABELS), in the window and in reports.
VERDICT_COLOURS = {"correct": "#2e7d32", "wrong": "#c62828", "not_exercised": "#1565c0", "unsure": "#8a5a00"}
