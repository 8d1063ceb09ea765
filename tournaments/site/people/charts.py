"""A line chart as geometry for a server-rendered SVG: no JavaScript, no library, no CDN.

Pure Python on plain numbers (no Django): the template draws what :func:`line_chart` computes
(polylines, dots, an optional band between two lines, ticks with labels on both axes).

>>> chart = line_chart(["start", "A", "B"], {"ordinal": [0.0, 2.5, 4.0]})
>>> [t.label for t in chart.y_ticks]
['0', '1', '2', '3', '4']
>>> [t.label for t in chart.x_ticks]
['start', 'A', 'B']
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Tick:
    """A tick on an axis: its value, its position in the SVG's coordinates and its label."""

    value: float
    pos: float
    label: str


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    value: float
    label: str  # what the dot's tooltip names (a tournament)


@dataclass(frozen=True)
class Line:
    key: str
    points: str  # "x,y x,y ..." for <polyline points>
    dots: list[Dot]


@dataclass(frozen=True)
class LineChart:
    width: int
    height: int
    left: float  # the plot area inside the axes
    top: float
    right: float
    bottom: float
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    lines: list[Line]
    band: str  # "x,y ..." for a <polygon> between two lines, or ""

    @property
    def y_label_x(self) -> float:
        """Where the y ticks' labels end (right-aligned left of the axis)."""
        return self.left - 8

    @property
    def x_label_y(self) -> float:
        return self.bottom + 24

    @property
    def tick_end(self) -> float:
        return self.bottom + 5

    @property
    def x_title(self) -> tuple[float, float]:
        """Where the x axis's title goes: centred under the labels."""
        return (round((self.left + self.right) / 2, 1), self.bottom + 52)


def nice_step(span: float, count: int) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving about ``count`` intervals.

    >>> nice_step(10, 5), nice_step(0.9, 4), nice_step(37, 5)
    (2.0, 0.5, 10.0)
    """
    raw = span / max(1, count)
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    for factor in (1, 2, 5, 10):
        if raw <= factor * power * (1 + 1e-9):
            return float(factor * power)
    return float(10 * power)  # pragma: no cover - the loop always returns


def _label(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
    text = f"{value:.{decimals}f}"
    return "0" if text.strip("-0.") == "" else text


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``low``..``high``.

    >>> nice_ticks(3.2, 17.9)
    [0.0, 5.0, 10.0, 15.0, 20.0]
    """
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    step = nice_step(high - low, count)
    start = math.floor(low / step + 1e-9) * step
    ticks = []
    value = start
    while value < high + step * (1 - 1e-9):
        ticks.append(round(value, 10))
        if value >= high - 1e-9:
            break
        value += step
    return ticks


def line_chart(
    labels: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    band: tuple[str, str] | None = None,
    tips: Sequence[str] | None = None,
    width: int = 560,
    height: int = 280,
    max_x_labels: int = 7,
) -> LineChart:
    """The geometry of a line chart of ``series`` (each as many values as ``labels``), evenly
    spaced along x in order; ``band``: fill between two of the series; ``tips``: what each
    point's tooltip names (default: its x label)."""
    # Margins for labels of up to 22 units (the phone's font size: see people.css).
    left, right, top, bottom = 56.0, width - 20.0, 16.0, height - 60.0
    values = [v for line in series.values() for v in line]
    ticks = nice_ticks(min(values), max(values)) if values else [0.0, 1.0]
    low, high = ticks[0], ticks[-1]
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    n = len(labels)

    def x(i: int) -> float:
        return left + (right - left) * (i / (n - 1) if n > 1 else 0.5)

    def y(v: float) -> float:
        return bottom - (bottom - top) * ((v - low) / (high - low))

    lines = []
    coords: dict[str, list[tuple[float, float]]] = {}
    for key, line in series.items():
        pts = [(round(x(i), 1), round(y(v), 1)) for i, v in enumerate(line)]
        coords[key] = pts
        lines.append(
            Line(
                key=key,
                points=" ".join(f"{px},{py}" for px, py in pts),
                dots=[
                    Dot(px, py, v, (tips or labels)[i])
                    for i, ((px, py), v) in enumerate(zip(pts, line, strict=True))
                ],
            )
        )
    polygon = ""
    if band is not None and band[0] in coords and band[1] in coords:
        ring = coords[band[0]] + coords[band[1]][::-1]
        polygon = " ".join(f"{px},{py}" for px, py in ring)
    every = max(1, math.ceil(n / max_x_labels))
    shown = [i for i in range(n) if i % every == 0]
    if n and shown[-1] != n - 1:
        # The last point is the one people look for: it always has its label (the one before
        # it gives way if they would touch).
        if n - 1 - shown[-1] < every / 2 and len(shown) > 1:
            shown.pop()
        shown.append(n - 1)
    return LineChart(
        width=width,
        height=height,
        left=left,
        top=top,
        right=right,
        bottom=bottom,
        x_ticks=[Tick(float(i), round(x(i), 1), labels[i]) for i in shown],
        y_ticks=[Tick(v, round(y(v), 1), _label(v, step)) for v in ticks],
        lines=lines,
        band=polygon,
    )
