"""The Spin Progress meter: 10, 25, 50, 75, 100 normal-game spins; unlock on the next spin."""

from __future__ import annotations

import pytest
from game_support import state_progress

from domain.game.progress import (
    NEW_PLAYER,
    X1,
    X1_5,
    Progress,
    count_spin,
    unlock_if_due,
)


def play_spins(n: int, progress: Progress = NEW_PLAYER) -> tuple[Progress, list[int]]:
    unlocks = []
    for spin in range(1, n + 1):
        progress, unlocked = unlock_if_due(progress)
        if unlocked is not None:
            unlocks.append(spin)
        progress = count_spin(progress)
    return progress, unlocks


def test_a_new_player_needs_ten_spins() -> None:
    assert NEW_PLAYER.level == 0
    assert NEW_PLAYER.spins_to_next_level == 10


def test_after_fifteen_spins_the_counter_reads_twenty() -> None:
    progress, unlocks = play_spins(15)
    assert (progress.level, progress.spins_to_next_level, unlocks) == (1, 20, [11])


def test_levels_unlock_on_spins_11_36_86_161_and_261() -> None:
    progress, unlocks = play_spins(400)
    assert unlocks == [11, 36, 86, 161, 261]
    assert progress.level == 5
    assert progress.spins_to_next_level is None


def test_the_counter_waits_at_zero_until_the_next_spin() -> None:
    progress, _ = play_spins(10)
    assert (progress.level, progress.spins_to_next_level) == (0, 0)


def test_level_five_starts_both_multipliers_at_one_and_a_half() -> None:
    progress, _ = play_spins(261)
    assert (progress.hold_and_win_halves, progress.free_spins_halves) == (X1_5, X1_5)
    assert progress.hold_and_win_multiplier == 1.5


def test_multipliers_are_one_below_level_five() -> None:
    progress, _ = play_spins(260)
    assert (progress.level, progress.hold_and_win_halves) == (4, X1)


def test_round_states_outside_the_rules_are_refused() -> None:
    with pytest.raises(ValueError):
        state_progress(3, 3, 2)
    with pytest.raises(ValueError):
        state_progress(5, 2, 3)
    with pytest.raises(ValueError):
        state_progress(6)


def test_multipliers_are_halves_converted_in_one_place_both_ways() -> None:
    from domain.game.progress import X1, X3, halves_of, multiplier_of
    from domain.ledger.recorded_progress import recorded_progress

    assert [multiplier_of(h) for h in range(X1, X3 + 1)] == [1.0, 1.5, 2.0, 2.5, 3.0]
    assert all(halves_of(multiplier_of(h)) == h for h in range(X1, X3 + 1))
    recorded = recorded_progress({"level": 5, "spins_to_next_level": None,
                                  "hold_and_win_halves": 5, "free_spins_halves": 3})
    assert (recorded.hold_and_win_halves, recorded.free_spins_halves) == (5, 3)
    assert (recorded.hold_and_win_multiplier, recorded.free_spins_multiplier) == (2.5, 1.5)
