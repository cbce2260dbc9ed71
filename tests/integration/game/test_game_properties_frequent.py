"""Invariants of every round on a model with every feature made frequent, so that the rare paths
(retriggers, Hold & Win inside Free Spins, boosters, candies, the max win) are exercised: many
rounds, so in the integration tier (the live model's run in the unit tier)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from round_rules_support import HOT, STATES, check_round


@settings(max_examples=400, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), state=st.sampled_from(STATES))
def test_every_round_keeps_the_rules_when_every_feature_is_frequent(
    seed: bytes, state: tuple[int, int, int]
) -> None:
    check_round(HOT, seed, state)
