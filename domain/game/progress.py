"""The Spin Progress meter and the two bonus multipliers: what a player carries between rounds.

Multipliers are held in halves (2 = x1.0, 3 = x1.5, ... 6 = x3.0) so that no float touches money.
They are numbers such as 1.5 only where they are shown: in JSON answers and in the fields of the
events that record them (kept as first written, so old events replay identically). The two
conversions below are the only ones.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from domain.game.board import BOOSTER_LEVEL, LEVEL_SPINS, MAX_LEVEL

X1 = 2  # x1.0 in halves
X1_5 = 3  # x1.5: where both multipliers start and return to at level 5
X3 = 6  # x3.0: the boost cap


@dataclass(frozen=True)
class Progress:
    level: int = 0
    spins_to_next_level: int | None = LEVEL_SPINS[0]
    hold_and_win_halves: int = X1
    free_spins_halves: int = X1

    @property
    def hold_and_win_multiplier(self) -> float:
        return multiplier_of(self.hold_and_win_halves)

    @property
    def free_spins_multiplier(self) -> float:
        return multiplier_of(self.free_spins_halves)


def multiplier_of(halves: int) -> float:
    """Halves as the multiplier shown and recorded (3 -> 1.5)."""
    return halves / 2


def halves_of(multiplier: float) -> int:
    """A shown or recorded multiplier in halves (1.5 -> 3)."""
    return round(multiplier * 2)


def recorded_progress(
    level: int, spins_to_next_level: int | None, hw_multiplier: float, fs_multiplier: float
) -> Progress:
    """The Progress an event records (StakePlaced's before, RoundSettled's after)."""
    return Progress(level, spins_to_next_level, halves_of(hw_multiplier), halves_of(fs_multiplier))


NEW_PLAYER = Progress()


def unlock_if_due(progress: Progress) -> tuple[Progress, int | None]:
    """Step 2 of a normal spin: a counter that reached 0 on the previous spin unlocks a level."""
    if progress.level >= MAX_LEVEL or progress.spins_to_next_level != 0:
        return progress, None
    level = progress.level + 1
    counter = LEVEL_SPINS[level] if level < MAX_LEVEL else None
    if level >= BOOSTER_LEVEL:
        return Progress(level, counter, X1_5, X1_5), level
    return replace(progress, level=level, spins_to_next_level=counter), level


def count_spin(progress: Progress) -> Progress:
    """Step 11: the meter counts a normal-game spin (it stays full at level 5)."""
    if progress.spins_to_next_level is None or progress.spins_to_next_level == 0:
        return progress
    return replace(progress, spins_to_next_level=progress.spins_to_next_level - 1)
