"""The Spin Progress meter and the two bonus multipliers: what a player carries between rounds.

Multipliers are held in halves (2 = x1.0, 3 = x1.5, ... 6 = x3.0) so that no float touches money,
and the events that record them store halves too (domain.ledger.recorded_progress). They are
numbers such as 1.5 only where they are shown (JSON answers, views, reports) and in the events
the first release stored, read back as halves. The two conversions below are the only ones.
"""

from __future__ import annotations

import math
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

    def recorded(self) -> dict[str, int | None]:
        """The progress as StakePlaced and RoundSettled record it (multipliers in halves)."""
        return {
            "level": self.level,
            "spins_to_next_level": self.spins_to_next_level,
            "hold_and_win_halves": self.hold_and_win_halves,
            "free_spins_halves": self.free_spins_halves,
        }

    def shown(self) -> dict[str, int | float | None]:
        """The progress as the player state shows it (docs/CONTRACT.md: multipliers as numbers)."""
        return {
            "level": self.level,
            "spins_to_next_level": self.spins_to_next_level,
            "hold_and_win_multiplier": self.hold_and_win_multiplier,
            "free_spins_multiplier": self.free_spins_multiplier,
        }


def multiplier_of(halves: int) -> float:
    """Halves as the multiplier shown (3 -> 1.5)."""
    return halves / 2


def halves_of(multiplier: float) -> int:
    """A shown or recorded multiplier in halves, exactly (1.5 -> 3). A number that is not a
    whole count of halves (1.25, inf, nan) is refused (ValueError), and so is anything but an
    int or a float (TypeError: a bool, a string)."""
    if isinstance(multiplier, bool) or not isinstance(multiplier, int | float):
        raise TypeError(f"a multiplier is a number, not {type(multiplier).__name__}")
    if isinstance(multiplier, int):
        return multiplier * 2
    doubled = multiplier * 2  # exact for every float that is a whole count of halves
    if not math.isfinite(doubled) or not doubled.is_integer():
        raise ValueError(f"multiplier {multiplier!r} is not a whole number of halves")
    return int(doubled)


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
