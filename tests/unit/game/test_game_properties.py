"""Invariants of every round, on random seeds, in every state, on the live model (the model with
every feature made frequent plays many more rounds in the integration tier:
tests/integration/game/test_game_properties_frequent.py)."""

from __future__ import annotations

import pytest
from game_support import state_progress
from hypothesis import given, settings
from hypothesis import strategies as st
from round_rules_support import HOT, STATES, check_round

from domain.game import engine
from domain.game.engine import resolve_round
from domain.game.model import current_model


@settings(max_examples=300, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), state=st.sampled_from(STATES))
def test_every_round_of_the_live_model_keeps_the_rules(
    seed: bytes, state: tuple[int, int, int]
) -> None:
    check_round(current_model(), seed, state)


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
