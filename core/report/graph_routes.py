"""How a long edge is drawn along its route (`GraphLayout.routes`), in the window and in the SVG export.

An edge spanning several layers passes each layer between its ends level, over a run `2 * through`
wide centred on the route point the layout kept free for it (clear of that layer's nodes), and crosses
each gap between layers as a cubic curve leaving and entering those runs level, so it reads as one
smooth line that goes around nodes instead of through them.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

Point = tuple[float, float]
Leg = tuple[Point, Point, Point, Point]  # a cubic Bézier: start, two control points, end


def route_legs(start: Point, route: Sequence[Point], end: Point, through: float,
               level_ends: bool = False) -> list[Leg]:
    """The cubic legs of an edge from `start` through the route points to `end`: curves across the gaps,
    straight (degenerate cubic) runs level through the layers. `level_ends`: leave `start` and enter `end`
    level too (boxes, whose sides the edge starts and ends on); else those legs aim straight at the node."""
    sign = 1.0 if end[0] >= start[0] else -1.0
    stops: list[Point] = [start]
    for x, y in route:
        stops += [(x - sign * through, y), (x + sign * through, y)]
    stops.append(end)
    legs: list[Leg] = []
    last = len(stops) - 2
    for i, (a, b) in enumerate(itertools.pairwise(stops)):
        if i % 2 == 1:  # a run through a layer
            legs.append((a, _lerp(a, b, 1 / 3), _lerp(a, b, 2 / 3), b))
            continue
        half = (b[0] - a[0]) / 2
        level_a = i > 0 or level_ends
        level_b = i < last or level_ends
        c1 = (a[0] + half, a[1]) if level_a else _lerp(a, b, 1 / 3)
        c2 = (b[0] - half, b[1]) if level_b else _lerp(a, b, 2 / 3)
        legs.append((a, c1, c2, b))
    return legs


def sample_legs(legs: Sequence[Leg], samples: int) -> np.ndarray:
    """Points along the legs, `samples` segments per curve and one per straight run, (k, 2)."""
    legs_array = np.asarray(legs, dtype=np.float64)  # (n, 4, 2)
    p0, c1, c2, p3 = (legs_array[:, i] for i in range(4))
    straight = _straight_mask(p0, c1, c2, p3)
    t = np.linspace(0.0, 1.0, samples + 1)[1:]
    u = 1.0 - t
    weights = np.stack([u ** 3, 3 * u ** 2 * t, 3 * u * t ** 2, t ** 3], axis=1)  # (samples, 4)
    curves = np.einsum("sk,nkd->nsd", weights, legs_array)  # (n, samples, 2)
    keep = np.ones((len(legs_array), samples), dtype=bool)
    keep[straight, :-1] = False  # a straight run: its end point only
    return np.concatenate([p0[:1], curves[keep]])


def svg_path(legs: Sequence[Leg], fmt) -> str:
    """The legs as SVG path data (`fmt` formats a number): `L` for the runs, `C` for the curves."""
    (x, y) = legs[0][0]
    parts = [f"M{fmt(x)},{fmt(y)}"]
    for p0, c1, c2, p3 in legs:
        if _straight(p0, c1, c2, p3):
            parts.append(f"L{fmt(p3[0])},{fmt(p3[1])}")
        else:
            parts.append(f"C{fmt(c1[0])},{fmt(c1[1])} {fmt(c2[0])},{fmt(c2[1])} {fmt(p3[0])},{fmt(p3[1])}")
    return " ".join(parts)


def _lerp(a: Point, b: Point, t: float) -> Point:
    return a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t


def _straight_mask(p0: np.ndarray, c1: np.ndarray, c2: np.ndarray, p3: np.ndarray) -> np.ndarray:
    """Per leg: control points on the chord at its thirds (a straight line)."""
    chord = p3 - p0
    return (np.abs(c1 - (p0 + chord / 3)) < 1e-9).all(axis=1) & (np.abs(c2 - (p0 + 2 * chord / 3)) < 1e-9).all(axis=1)


def _straight(p0: Point, c1: Point, c2: Point, p3: Point) -> bool:
    return bool(_straight_mask(*(np.asarray([p], dtype=np.float64) for p in (p0, c1, c2, p3)))[0])
