"""The game's figures computed from the model data by the kernel's own rules (not simulated).

`state_math(model, level, hw_halves, fs_halves)` gives one state's RTP and its parts, hit
frequency, feature frequencies, standard deviation and volatility index; see docs/MATH.md for
the method of each figure.
"""

from __future__ import annotations

from domain.game.calculator.state import StateMath, state_math

__all__ = ["StateMath", "state_math"]
