"""A round whose trace outgrows the engine's first buffer is replayed to the same outcome (a
property over 60 rounds with a 4-word buffer, each regrown several times: slow, so it runs in
the integration tier)."""

from __future__ import annotations

import pytest
from game_support import state_progress
from hypothesis import given, settings
from hypothesis import strategies as st
from round_rules_support import HOT, STATES

from domain.game import engine
from domain.game.engine import resolve_round


@settings(max_examples=60, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), state=st.sampled_from(STATES))
def test_a_round_too_long_for_its_first_trace_buffer_is_replayed_to_the_same_outcome(
    seed: bytes, state: tuple[int, int, int]
) -> None:
    level, hw, fs = state
    progress = state_progress(level, hw, fs)
    roomy = resolve_round(HOT, progress, 100, seed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "_TRACE_WORDS", 4)  # every round outgrows it, some several times
        cramped = resolve_round(HOT, progress, 100, seed)
    assert cramped == roomy
