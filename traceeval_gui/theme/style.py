"""The workbench's small visual vocabulary: edge-class colours, fonts and model labels.

Backgrounds and text painted by hand follow the application palette: `is_dark()` tells which set of
tints reads on it (View > Theme switches the palette; see views/theme.py)."""
from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QPalette

from core.dataset.workspace import ModelRow
from core.report.palette import EDGE_STYLES
from core.scoring.metrics import INSTANCE_RULE

# One palette for TP / FP / FN everywhere (source view, edge table, legend, graph, exports);
# "" is an edge the current model neither predicts nor misses (only model B or the trace has it).
_KINDS = ("TP", "FP", "FN")
EDGE_COLOURS = {kind: EDGE_STYLES[kind].colour for kind in _KINDS} | {"": "#455a64"}


def _blend(colour: str, base: str, share: float) -> str:
    """`share` of `colour` over `base`, as #rrggbb."""
    ours, theirs = QColor(colour), QColor(base)
    mixed = [round(a * share + b * (1 - share)) for a, b in zip(ours.getRgb()[:3], theirs.getRgb()[:3])]
    return QColor(*mixed).name()


# Row and source-line backgrounds are the class colours thinned over the page, so they keep the hue the graph
# and legend use; on a dark page they stay dark enough that the palette's light text keeps its contrast.
LIGHT_PAGE, DARK_PAGE = "#ffffff", "#1f2124"
EDGE_TINTS = {kind: _blend(colour, LIGHT_PAGE, 0.16) for kind, colour in EDGE_COLOURS.items()}
EDGE_FOCUS_TINTS = {kind: _blend(colour, LIGHT_PAGE, 0.32) for kind, colour in EDGE_COLOURS.items()}  # selected
DARK_EDGE_TINTS = {kind: _blend(colour, DARK_PAGE, 0.22) for kind, colour in EDGE_COLOURS.items()}
DARK_EDGE_FOCUS_TINTS = {kind: _blend(colour, DARK_PAGE, 0.4) for kind, colour in EDGE_COLOURS.items()}
ERROR_TEXT = {False: "#c62828", True: "#ff8a80"}  # by is_dark()
WARNING_TEXT = {False: "#8a5a00", True: "#ffcc80"}
SCORE_BAR = {False: "#dbe7f3", True: "#2c4a66"}  # the faint bar behind a score
EDGE_LABELS = {kind: EDGE_STYLES[kind].label for kind in _KINDS} | {"": "not in model A"}
EDGE_DESCRIPTIONS = {kind: EDGE_STYLES[kind].description for kind in _KINDS} | {
    "": "neither predicted by the current model nor in the ground truth (another model or the trace has it)"}
MUTED_TEXT = "#6b6f76"
ILLUSTRATIVE_NOTE = "illustrative: answers written by hand for the demo, not real model output"


def edge_colour(kind: str) -> QColor:
    return QColor(EDGE_COLOURS[kind])


def is_dark(palette: QPalette | None = None) -> bool:
    """Whether `palette` (default: the application's) has a dark window background."""
    palette = palette if palette is not None else QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


DARK_LIFT = 150  # percent: class colours on a dark background (the palette is chosen for a light one)


def on_page(colour: str | QColor, palette: QPalette | None = None) -> QColor:
    """A class colour as drawn on the page of `palette` (default: the application's): lifted on a dark one."""
    colour = QColor(colour)
    return colour.lighter(DARK_LIFT) if is_dark(palette) else colour


def edge_tint(kind: str, palette: QPalette | None = None) -> QColor:
    """The background of a row or source line of this edge class, for the current theme."""
    return QColor((DARK_EDGE_TINTS if is_dark(palette) else EDGE_TINTS)[kind])


def edge_focus_tint(kind: str, palette: QPalette | None = None) -> QColor:
    """The background of the selected edge's lines, for the current theme."""
    return QColor((DARK_EDGE_FOCUS_TINTS if is_dark(palette) else EDGE_FOCUS_TINTS)[kind])


def error_text_colour(palette: QPalette | None = None) -> QColor:
    return QColor(ERROR_TEXT[is_dark(palette)])


def score_bar_colour(palette: QPalette | None = None) -> QColor:
    return QColor(SCORE_BAR[is_dark(palette)])


def warning_text_colour(palette: QPalette | None = None) -> QColor:
    return QColor(WARNING_TEXT[is_dark(palette)])


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
