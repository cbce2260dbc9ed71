"""Charts drawn on the server as SVG (no script, no other host): actual RTP as rounds grow,
against the computed RTP and its 99% band narrowing with the rounds played."""

from __future__ import annotations

import math
from html import escape

from infrastructure.pages.rtp import StateRtp

WIDTH, HEIGHT = 640, 260
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 16, 16, 36
_BAND_STEPS = 48


def rtp_chart(state: StateRtp) -> str:
    """The state's actual RTP after each day's rounds (x: rounds played, y: RTP)."""
    rounds = max(state.rounds, 1)
    band_points = [(n, state.band(n)) for n in _spread(rounds) if state.band(n) is not None]
    values = [rtp for _, rtp in state.growth]
    if state.computed_rtp is not None:
        values.append(state.computed_rtp)
    final_band = state.band()
    if final_band is not None:
        values += list(final_band)  # the band is wider earlier on: drawn clipped to the plot
    low, high = _y_range(values)

    def x(n: float) -> float:
        return _LEFT + (WIDTH - _LEFT - _RIGHT) * (n / rounds)

    def y(v: float) -> float:
        clamped = min(max(v, low), high)
        return _TOP + (HEIGHT - _TOP - _BOTTOM) * (high - clamped) / (high - low)

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg" aria-label="{escape(_label(state))}">',
        f"<title>{escape(_label(state))}</title>",
        f'<rect x="{_LEFT}" y="{_TOP}" width="{WIDTH - _LEFT - _RIGHT}" '
        f'height="{HEIGHT - _TOP - _BOTTOM}" class="plot"/>',
    ]
    if band_points:
        upper = [f"{x(n):.1f},{y(b[1]):.1f}" for n, b in band_points if b]
        lower = [f"{x(n):.1f},{y(b[0]):.1f}" for n, b in reversed(band_points) if b]
        parts.append(f'<polygon class="band" points="{" ".join(upper + lower)}"/>')
    if state.computed_rtp is not None:
        level = y(state.computed_rtp)
        parts.append(
            f'<line class="computed" x1="{_LEFT}" x2="{WIDTH - _RIGHT}" '
            f'y1="{level:.1f}" y2="{level:.1f}"/>'
        )
    points = [f"{x(n):.1f},{y(v):.1f}" for n, v in state.growth]
    if len(points) > 1:
        parts.append(f'<polyline class="actual" points="{" ".join(points)}"/>')
    for n, v in state.growth:
        parts.append(f'<circle class="actual" cx="{x(n):.1f}" cy="{y(v):.1f}" r="3.5"/>')
    for v in (low, (low + high) / 2, high):
        parts.append(
            f'<text class="tick" x="{_LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">'
            f"{v:.1%}</text>"
        )
    parts += [
        f'<text class="tick" x="{_LEFT}" y="{HEIGHT - 12}">0</text>',
        f'<text class="tick" x="{WIDTH - _RIGHT}" y="{HEIGHT - 12}" text-anchor="end">'
        f"{state.rounds:,} rounds</text>",
        "</svg>",
    ]
    return "".join(parts)


def _label(state: StateRtp) -> str:
    actual = state.actual_rtp
    shown = f"{actual:.2%}" if actual is not None else "none yet"
    return f"Actual RTP of {state.state} as rounds grow: {shown}"


def _spread(rounds: int) -> list[int]:
    """Round counts at which to draw the band: denser at the start, where it narrows fastest."""
    return sorted({max(1, math.ceil(rounds * (i / _BAND_STEPS) ** 2)) for i in range(1, 49)})


def _y_range(values: list[float]) -> tuple[float, float]:
    """Bounds that show the values, kept to a readable window around them (0..300% at most)."""
    finite = [v for v in values if math.isfinite(v)] or [0.0, 1.0]
    low, high = max(min(finite), 0.0), min(max(finite), 3.0)
    if high - low < 0.02:
        low, high = low - 0.01, high + 0.01
    pad = (high - low) * 0.05
    return max(low - pad, 0.0), high + pad
