"""The workbench's small visual vocabulary: edge-class colours, fonts and model labels."""
from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontDatabase

from core.metrics import INSTANCE_RULE
from core.palette import EDGE_STYLES
from core.workspace import ModelRow

# One palette for TP / FP / FN everywhere (source view, edge table, legend, graph, exports);
# "" is an edge the current model neither predicts nor misses (only model B or the trace has it).
_KINDS = ("TP", "FP", "FN")
EDGE_COLOURS = {kind: EDGE_STYLES[kind].colour for kind in _KINDS} | {"": "#455a64"}
EDGE_TINTS = {"TP": "#e2f2e3", "FP": "#fce4e4", "FN": "#efe1f7", "": "#eceff1"}  # rows, source lines
EDGE_FOCUS_TINTS = {"TP": "#c2e4c4", "FP": "#f7c6c6", "FN": "#dbc3ec", "": "#cfd8dc"}  # the selected edge
EDGE_LABELS = {kind: EDGE_STYLES[kind].label for kind in _KINDS} | {"": "not in model A"}
EDGE_DESCRIPTIONS = {kind: EDGE_STYLES[kind].description for kind in _KINDS} | {
    "": "neither predicted by the current model nor in the ground truth (another model or the trace has it)"}
MUTED_TEXT = "#6b6f76"
ILLUSTRATIVE_NOTE = "illustrative: answers written by hand for the demo, not real model output"


def edge_colour(kind: str) -> QColor:
    return QColor(EDGE_COLOURS[kind])


def edge_tint(kind: str) -> QColor:
    return QColor(EDGE_TINTS[kind])


def monospace_font(point_size: int = 10) -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPointSize(max(point_size, font.pointSize() if font.pointSize() > 0 else point_size))
    return font


def model_label(model: ModelRow) -> str:
    """How a model is named in menus: illustrative models say so."""
    return f"{model.name} (illustrative)" if model.illustrative else model.name


def model_tooltip(model: ModelRow) -> str:
    lines = [f"<b>{model.name}</b>: {model.predictions:,} predictions"]
    if model.illustrative:
        lines.append(ILLUSTRATIVE_NOTE)
    if model.note:
        lines.append(model.note)
    return "<br>".join(lines)


def f1_column_tooltip(model: ModelRow) -> str:
    lines = [f"Per-program F1 of <b>{model_label(model)}</b>, after normalisation.",
             f"Per-program rule: {INSTANCE_RULE}.",
             "Empty: no result for this program (not scored)."]
    if model.illustrative:
        lines.insert(1, ILLUSTRATIVE_NOTE + ".")
    return "<br>".join(lines)
