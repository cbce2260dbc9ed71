"""The bonus multipliers as a round's events record them: halves, exactly, in either schema."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from ledger_support import open_plain_session

from domain.game.progress import halves_of
from domain.ledger.player import Player
from domain.ledger.recorded_progress import (
    recorded_halves,
    recorded_progress,
    upcast_multipliers_to_halves,
)


@pytest.mark.parametrize(
    ("multiplier", "halves"), [(1.0, 2), (1.5, 3), (2.0, 4), (2.5, 5), (3.0, 6), (1, 2), (3, 6)]
)
def test_a_multiplier_is_its_exact_number_of_halves(multiplier: float, halves: int) -> None:
    assert halves_of(multiplier) == halves
    assert type(halves_of(multiplier)) is int


@pytest.mark.parametrize("multiplier", [1.25, 1.1, 2.75, 1.5000000001, float("inf"), float("nan")])
def test_a_number_that_is_not_whole_halves_is_refused(multiplier: float) -> None:
    with pytest.raises(ValueError, match="halves"):
        halves_of(multiplier)


@pytest.mark.parametrize("multiplier", [True, False, "1.5", None, b"1.5", [1.5]])
def test_anything_but_a_number_is_refused(multiplier: Any) -> None:
    with pytest.raises(TypeError):
        halves_of(multiplier)


FIRST_SCHEMA = {"level": 5, "spins_to_next_level": None,
                "hold_and_win_multiplier": 2.5, "free_spins_multiplier": 1.5}


def test_a_first_schema_state_is_upcast_in_place_to_halves() -> None:
    state = dict(FIRST_SCHEMA)
    upcast_multipliers_to_halves(state)
    assert state == {"level": 5, "spins_to_next_level": None,
                     "hold_and_win_halves": 5, "free_spins_halves": 3}
    with pytest.raises(ValueError):
        upcast_multipliers_to_halves({"hold_and_win_multiplier": 1.25, "free_spins_multiplier": 1})
    other = {"session_id": "s"}  # another event's state under this name: left for the chain
    upcast_multipliers_to_halves(other)
    assert other == {"session_id": "s"}


def test_either_schema_reads_as_the_same_halves_and_progress() -> None:
    state = dict(FIRST_SCHEMA)
    upcast_multipliers_to_halves(state)
    assert recorded_halves(FIRST_SCHEMA) == recorded_halves(state) == (5, 3)
    assert recorded_progress(FIRST_SCHEMA) == recorded_progress(state)
    with pytest.raises(TypeError):
        recorded_halves({"hold_and_win_halves": 2.0, "free_spins_halves": 2})
    with pytest.raises(TypeError):
        recorded_halves({"hold_and_win_halves": True, "free_spins_halves": 2})


def test_stake_placed_and_round_settled_are_upcast_through_every_version() -> None:
    stake_v1 = {"hold_and_win_multiplier": 1.5, "free_spins_multiplier": 3.0}
    for upcast in (Player.StakePlaced.upcast_v1_v2, Player.StakePlaced.upcast_v2_v3):
        upcast(stake_v1)
    assert stake_v1 == {"free_round": None, "hold_and_win_halves": 3, "free_spins_halves": 6}
    settled_v1 = {"hold_and_win_multiplier": 2.0, "free_spins_multiplier": 1.0}
    Player.RoundSettled.upcast_v1_v2(settled_v1)
    assert settled_v1 == {"hold_and_win_halves": 4, "free_spins_halves": 2}
    assert (Player.StakePlaced.class_version, Player.RoundSettled.class_version) == (3, 2)


def test_new_round_events_store_integer_halves() -> None:
    player = Player.register("hal")
    player.deposit(10_000, "d1", datetime.now(UTC))
    open_plain_session(player, "s1", "f" * 64)
    player.spin("s1", 20, "r1", bytes(range(32)))
    events = {type(e).__name__: vars(e) for e in player.collect_events()}
    for name in ("StakePlaced", "RoundSettled"):
        assert (events[name]["hold_and_win_halves"], events[name]["free_spins_halves"]) == (2, 2)
        assert not {"hold_and_win_multiplier", "free_spins_multiplier"} & events[name].keys()
    assert player.state()["hold_and_win_multiplier"] == 1.0  # shown as a number, as before


def test_a_round_parked_by_a_read_model_reads_in_either_schema() -> None:
    from projections.statistics import played_state

    current = dict(FIRST_SCHEMA)
    upcast_multipliers_to_halves(current)
    assert played_state(FIRST_SCHEMA) == played_state(current)
    assert (played_state(current).hold_and_win_halves, played_state(current).free_spins_halves) == (
        5, 3
    )
