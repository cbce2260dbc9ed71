"""Invariants of every round, on random seeds, in every state, on the live model (the model with
every feature made frequent plays many more rounds in the integration tier:
tests/integration/game/test_game_properties_frequent.py, and a round outgrowing its trace buffer
in tests/integration/game/test_game_trace_buffer.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from round_rules_support import STATES, check_round

from domain.game.model import current_model


@settings(max_examples=300, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), state=st.sampled_from(STATES))
def test_every_round_of_the_live_model_keeps_the_rules(
    seed: bytes, state: tuple[int, int, int]
) -> None:
    check_round(current_model(), seed, state)


