"""Charts drawn on the server as SVG (no script, no other host): actual RTP as rounds grow,
against the computed RTP and its 99% band, which narrows as 1/sqrt(rounds). Rounds run along a
log scale, so the first ten rounds and the last ten million both show."""

from __future__ import annotations

import math
from html import escape

from infrastructure.pages.rtp import StateRtp

WIDTH, HEIGHT = 640, 260
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 16, 16, 36
_BAND_POINTS = 60


def rtp_chart(state: StateRtp) -> str:
    """The state's actual RTP at each checkpoint (x: rounds played, log scale; y: RTP)."""
    top = max(state.rounds, *(n for n, _ in state.growth), 10)
    span = math.log10(top)
    # The scale fits every point of the line (never clipped: a state far off shows how far)
    # and the computed RTP; the band, far wider than the line on few rounds, is drawn clipped.
    values = [rtp for _, rtp in state.growth]
    if state.computed_rtp is not None:
        values.append(state.computed_rtp)
    low, high = _y_range(values)

    def x(n: float) -> float:
        return _LEFT + (WIDTH - _LEFT - _RIGHT) * (math.log10(max(n, 1)) / span)

    def y(v: float) -> float:
        clamped = min(max(v, low), high)
        return _TOP + (HEIGHT - _TOP - _BOTTOM) * (high - clamped) / (high - low)

    label = escape(_label(state))
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg" aria-label="{label}">',
        f"<title>{label}</title>",
        f'<rect x="{_LEFT}" y="{_TOP}" width="{WIDTH - _LEFT - _RIGHT}" '
        f'height="{HEIGHT - _TOP - _BOTTOM}" class="plot"/>',
    ]
    bands = [(n, state.band(n)) for n in _spread(top)]
    upper = [f"{x(n):.1f},{y(b[1]):.1f}" for n, b in bands if b]
    lower = [f"{x(n):.1f},{y(b[0]):.1f}" for n, b in reversed(bands) if b]
    if upper:
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
    if state.growth:
        n, v = state.growth[-1]
        parts.append(f'<circle class="actual" cx="{x(n):.1f}" cy="{y(v):.1f}" r="3.5"/>')
    for v in (low, (low + high) / 2, high):
        parts.append(
            f'<text class="tick" x="{_LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">'
            f"{v:.0%}</text>"
        )
    for power in range(0, int(span) + 1):
        anchor = "end" if power == int(span) and 10**power >= top else "middle"
        parts.append(
            f'<text class="tick" x="{x(10**power):.1f}" y="{HEIGHT - 12}" '
            f'text-anchor="{anchor}">{_count(10**power)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _label(state: StateRtp) -> str:
    actual = state.actual_rtp
    shown = f"{actual:.2%}" if actual is not None else "none yet"
    return f"Actual RTP of {state.state} as rounds grow: {shown} after {state.rounds:,} rounds"


def _count(n: int) -> str:
    for size, suffix in ((10**9, "G"), (10**6, "M"), (10**3, "k")):
        if n >= size:
            return f"{n // size}{suffix}"
    return str(n)


def _spread(top: int) -> list[float]:
    """Round counts at which to draw the band, evenly spaced on the log scale."""
    return [10 ** (math.log10(top) * i / _BAND_POINTS) for i in range(_BAND_POINTS + 1)]


def _y_range(values: list[float]) -> tuple[float, float]:
    """Bounds that show every value (RTP is never below 0)."""
    finite = [v for v in values if math.isfinite(v)] or [0.0, 1.0]
    low, high = max(min(finite), 0.0), max(finite)
    if high - low < 0.02:
        low, high = low - 0.01, high + 0.01
    pad = (high - low) * 0.05
    return max(low - pad, 0.0), high + pad
