"""The player's progress as a round's events record it, in either schema they were stored in.

StakePlaced (the progress before its round) and RoundSettled (after it) record the level, the
meter and the two bonus multipliers. The multipliers are stored in halves, as the player holds
them (domain.game.progress): `hold_and_win_halves`, `free_spins_halves`. The first release
stored them as numbers (`hold_and_win_multiplier: 1.5`); its events are upcast to halves as they
are read (the events' `upcast_*` methods call `upcast_multipliers_to_halves`), and a read model's
row kept from then reads with `recorded_halves`. Either way the number becomes halves exactly,
or is refused (domain.game.progress.halves_of).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.game.progress import Progress, halves_of

HALVES_FIELDS = ("hold_and_win_halves", "free_spins_halves")
FIRST_MULTIPLIER_FIELDS = ("hold_and_win_multiplier", "free_spins_multiplier")


def upcast_multipliers_to_halves(state: dict[str, Any]) -> None:
    """A stored state of the first schema rewritten in place: each multiplier becomes halves.
    A state without them is no such event (a row changed in the store): it is left as it is,
    for the hash chain to name, not refused here."""
    for old, new in zip(FIRST_MULTIPLIER_FIELDS, HALVES_FIELDS, strict=True):
        if old in state:
            state[new] = halves_of(state.pop(old))


def recorded_halves(record: Mapping[str, Any]) -> tuple[int, int]:
    """(Hold & Win, Free Spins) in halves of a recorded StakePlaced or RoundSettled of either
    schema."""
    hold_and_win, free_spins = HALVES_FIELDS
    if hold_and_win in record:
        return _halves(record[hold_and_win]), _halves(record[free_spins])
    hold_and_win, free_spins = FIRST_MULTIPLIER_FIELDS
    return halves_of(record[hold_and_win]), halves_of(record[free_spins])


def recorded_progress(record: Mapping[str, Any]) -> Progress:
    """The Progress a recorded StakePlaced (before its round) or RoundSettled (after) holds."""
    hold_and_win, free_spins = recorded_halves(record)
    return Progress(int(record["level"]), record["spins_to_next_level"], hold_and_win, free_spins)


def _halves(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"halves are a whole number, not {type(value).__name__}")
    return value
