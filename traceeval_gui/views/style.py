"""The workbench's small visual vocabulary: edge-class colours, fonts and model labels."""
from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontDatabase

from core.metrics import INSTANCE_RULE
from core.workspace import ModelRow

# One palette for TP / FP / FN everywhere (source view, edge table, legend, later the graph).
EDGE_COLOURS = {"TP": "#2e7d32", "FP": "#c62828", "FN": "#6a1b9a"}
EDGE_TINTS = {"TP": "#e2f2e3", "FP": "#fce4e4", "FN": "#efe1f7"}  # backgrounds: rows, source lines
EDGE_FOCUS_TINTS = {"TP": "#c2e4c4", "FP": "#f7c6c6", "FN": "#dbc3ec"}  # the selected edge's lines
EDGE_LABELS = {"TP": "found", "FP": "hallucinated", "FN": "missed"}
EDGE_DESCRIPTIONS = {
    "TP": "true positive: predicted and in the ground truth",
    "FP": "false positive: predicted but not in the ground truth (hallucinated, or a real call "
          "the harness never ran)",
    "FN": "false negative: in the ground truth but not predicted (missed)",
}
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
