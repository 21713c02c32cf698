"""The edge palette keeps every pair of classes of a view mode apart by line style AND by colour, the
colour for normal vision and for the three dichromacies (simulated), in the window and in exports."""
import itertools
import math

import numpy as np
import pytest

from core.report.graph_export import DOT_STYLES, SVG_DASHES
from core.report.palette import CVD_MIN_DELTA_E, EDGE_STYLES
from core.report.view_modes import VIEW_MODE_TABLE

# Machado, Oliveira & Fernandes (2009), "A physiologically-based model for simulation of color vision
# deficiency", severity 1.0; applied to linear RGB.
MACHADO_2009 = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
}
VISIONS = ("normal", *MACHADO_2009)
PAIRS = [(name, a, b) for name, mode in VIEW_MODE_TABLE.items() for a, b in itertools.combinations(mode.classes, 2)]


def _linear_rgb(colour: str) -> np.ndarray:
    srgb = np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _seen(colour: str, vision: str) -> np.ndarray:
    rgb = _linear_rgb(colour)
    return rgb if vision == "normal" else np.clip(np.array(MACHADO_2009[vision]) @ rgb, 0.0, 1.0)


def _lab(rgb: np.ndarray) -> tuple[float, float, float]:
    """CIELAB (D65) of a linear-RGB colour."""
    xyz = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                    [0.0193339, 0.1191920, 0.9503041]]) @ rgb / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def _ciede2000(lab1, lab2) -> float:
    """Sharma, Wu & Dalal (2005)'s formulation of CIEDE2000 (kL = kC = kH = 1)."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360 if c1 else 0.0
    h2 = math.degrees(math.atan2(b2, a2)) % 360 if c2 else 0.0
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    d_l, d_c = l2 - l1, c2 - c1
    d_h = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        h_mean = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_mean = (h1 + h2) / 2
    else:
        h_mean = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30)) + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6)) - 0.20 * math.cos(math.radians(4 * h_mean - 63)))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * c_mean
    s_h = 1 + 0.015 * c_mean * t
    r_t = (-math.sin(math.radians(60 * math.exp(-((h_mean - 275) / 25) ** 2)))
           * 2 * math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    return math.sqrt((d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (d_c / s_c) * (d_h / s_h))


def _delta_e(a: str, b: str, vision: str) -> float:
    return _ciede2000(_lab(_seen(a, vision)), _lab(_seen(b, vision)))


def test_the_colour_difference_matches_published_values():
    # Sharma, Wu & Dalal (2005), table 1, pairs 1, 7 and 17
    assert _ciede2000((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert _ciede2000((50.0, 0.0, 0.0), (50.0, -1.0, 2.0)) == pytest.approx(2.3669, abs=1e-4)
    assert _ciede2000((50.0, 2.5, 0.0), (73.0, 25.0, -18.0)) == pytest.approx(27.1492, abs=1e-4)


def test_the_simulation_changes_what_a_dichromat_cannot_tell_apart():
    """Red and green, far apart for normal vision, nearly meet for a deuteranope (the simulation works)."""
    assert _delta_e("#d62728", "#2ca02c", "normal") > 60
    assert _delta_e("#d62728", "#2ca02c", "deuteranopia") < 25


@pytest.mark.parametrize(("mode", "a", "b"), PAIRS, ids=[f"{m}-{a}-{b}" for m, a, b in PAIRS])
def test_every_pair_of_a_mode_differs_in_line_style(mode, a, b):
    sa, sb = EDGE_STYLES[a], EDGE_STYLES[b]
    assert sa.dash != sb.dash, f"{mode}: {sa.label} and {sb.label} are both {sa.dash}"
    assert SVG_DASHES[sa.dash] != SVG_DASHES[sb.dash]  # the SVG export keeps them apart too
    assert DOT_STYLES[sa.dash] != DOT_STYLES[sb.dash]


@pytest.mark.parametrize("vision", VISIONS)
@pytest.mark.parametrize(("mode", "a", "b"), PAIRS, ids=[f"{m}-{a}-{b}" for m, a, b in PAIRS])
def test_every_pair_of_a_mode_differs_in_colour_for_every_vision(mode, a, b, vision):
    delta = _delta_e(EDGE_STYLES[a].colour, EDGE_STYLES[b].colour, vision)
    assert delta >= CVD_MIN_DELTA_E, (f"{mode}: {EDGE_STYLES[a].label} and {EDGE_STYLES[b].label} are only "
                                      f"ΔE00 {delta:.1f} apart for {vision}")
