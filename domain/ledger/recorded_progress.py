"""The player's progress as a round's events record it, in either schema they were stored in.

StakePlaced (the progress before its round) and RoundSettled (after it) record the level, the
meter and the two bonus multipliers. The multipliers are stored in halves, as the player holds
them (domain.game.progress): `hold_and_win_halves`, `free_spins_halves`. The first release
stored them as numbers (`hold_and_win_multiplier: 1.5`); its events are upcast to halves as they
are read (the events' `upcast_*` methods call `upcast_multipliers_to_halves`), and a read model's
row kept from then reads with `recorded_halves`. Either way the number becomes halves exactly,
or is refused (domain.game.progress.halves_of).

The round facts that carry a multiplier (domain.game.facts) store it the same way since their
version 2, `multiplier_halves` in their payload; version 1 stored `multiplier: 1.5`
(`upcast_step_multiplier_to_halves`), and the round shows the number (`shown_step_multiplier`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.game.progress import Progress, halves_of, multiplier_of

HALVES_FIELDS = ("hold_and_win_halves", "free_spins_halves")
STEP_HALVES = "multiplier_halves"  # a round fact's multiplier (domain.game.facts), in halves
FIRST_STEP_MULTIPLIER = "multiplier"  # ... as the first release stored it, a number
FIRST_MULTIPLIER_FIELDS = ("hold_and_win_multiplier", "free_spins_multiplier")


def upcast_multipliers_to_halves(state: dict[str, Any]) -> None:
    """A stored state of the first schema rewritten in place: each multiplier becomes halves.
    A state without them is no such event (a row changed in the store): it is left as it is,
    for the hash chain to name, not refused here."""
    for old, new in zip(FIRST_MULTIPLIER_FIELDS, HALVES_FIELDS, strict=True):
        if old in state:
            state[new] = halves_of(state.pop(old))


def upcast_step_multiplier_to_halves(state: dict[str, Any]) -> None:
    """A stored round fact of the first schema rewritten in place: the multiplier of its payload
    (BoosterLanded, SpinCompleted, the features' facts) becomes halves, in the same place."""
    payload = state.get("payload")
    if isinstance(payload, dict) and FIRST_STEP_MULTIPLIER in payload:
        state["payload"] = {
            (STEP_HALVES if key == FIRST_STEP_MULTIPLIER else key): (
                halves_of(value) if key == FIRST_STEP_MULTIPLIER else value
            )
            for key, value in payload.items()
        }


def shown_step_multiplier(payload: Mapping[str, Any]) -> float:
    """A round fact's multiplier as the round shows it (3 halves -> 1.5), of either schema."""
    if STEP_HALVES in payload:
        return multiplier_of(_halves(payload[STEP_HALVES]))
    return multiplier_of(halves_of(payload[FIRST_STEP_MULTIPLIER]))


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
