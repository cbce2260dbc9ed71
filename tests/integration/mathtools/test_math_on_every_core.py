"""`pumpkin math` computes states on every core, in the order asked (issue 26 item 4: math in
minutes). A state's figures do not depend on the process computing them: its sampled screens
have a fixed seed (tests/e2e/test_cli_math.py checks one state's figures end to end)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import pytest

from domain.game.model import MathModel, current_model
from infrastructure.mathtools import math_figures
from infrastructure.mathtools.math_figures import computed_states

STATES = [(0, 2, 2), (1, 2, 2), (5, 3, 3), (5, 6, 6)]


@dataclass
class FakeFigures:
    state: tuple[int, int, int]

    def as_dict(self) -> dict[str, Any]:
        return {"state": self.state, "pid": os.getpid()}


def fake_state_math(model: MathModel, *state: int, screens: int) -> FakeFigures:
    time.sleep(0.5)  # long enough that one worker cannot take every state
    return FakeFigures((state[0], state[1], state[2]))


def test_the_states_are_computed_side_by_side_and_answered_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(math_figures, "state_math", fake_state_math)  # forked workers inherit it
    answered = computed_states(current_model(), STATES, screens=1000, workers=2)
    assert [f["state"] for f in answered] == STATES
    assert len({f["pid"] for f in answered}) == 2
    assert os.getpid() not in {f["pid"] for f in answered}


def test_one_worker_computes_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(math_figures, "state_math", fake_state_math)
    answered = computed_states(current_model(), STATES[:2], screens=1000, workers=1)
    assert {f["pid"] for f in answered} == {os.getpid()}
