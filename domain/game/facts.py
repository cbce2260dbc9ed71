"""What a round records: an ordered list of named facts, each becoming one stored event.

The engine produces the facts of the play (from `LevelUnlocked` to `MaxWinReached`); the Player
aggregate wraps them between `StakePlaced` (seed, model version, state before) and `RoundSettled`.
Payloads are JSON values; money in them is integer minor units; screens are 5 reels of 3 cells;
a multiplier is an integer count of halves (`multiplier_halves`: 3 is x1.5), as the player holds
it (domain.game.progress); the round as shown (domain.ledger.recall) turns it into the number.

Fact names and payloads (a `step` is the index of the round's step, from 0):
- LevelUnlocked {level, spins_to_next_level}
- SymbolsLanded {step, kind: base|free_spin|hold_and_win, screen}
- WildReelsTriggered {step, reels: [1..5], screen}
- CloverMoonSwapped {step, symbol, positions: [[reel, row]], screen}
- NormalGameCollectorCollected {step, coins: [{reel, row, value}], win}
- BoosterLanded {step, bonus: HW|FS, multiplier_halves}
- PumpkinActivated {step, reel, phase: base|hold_and_win}
- FreeSpinsAwarded {step, count, scatters, spins_left}
- SpinCompleted {step, kind, screen, line_wins: [{line, symbol, count, win}], multiplier_halves,
                win}
- HoldAndWinStarted {step, collectors: [reel], screen, coins: [{reel, row, value}],
                     multiplier_halves, collected, win}
- PrizesCollected {step, coins: [{reel, row, value}], jackpots: [{reel, row, tier, value}],
                   collectors: [reel], respins_left, collected, multiplier_halves, win}
- JackpotWon {step, tier, amount}
- HoldAndWinEnded {collected, multiplier_halves, win}
- FreeSpinsStarted {spins, multiplier_halves}
- FreeSpinsEnded {spins_played, multiplier_halves, win}
- MaxWinReached {step, cap}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

JSON = Any  # a JSON value: dict, list, str, int, float, bool or None

ROUND_FACTS = (
    "LevelUnlocked",
    "SymbolsLanded",
    "WildReelsTriggered",
    "CloverMoonSwapped",
    "NormalGameCollectorCollected",
    "BoosterLanded",
    "PumpkinActivated",
    "FreeSpinsAwarded",
    "SpinCompleted",
    "HoldAndWinStarted",
    "PrizesCollected",
    "JackpotWon",
    "HoldAndWinEnded",
    "FreeSpinsStarted",
    "FreeSpinsEnded",
    "MaxWinReached",
)


@dataclass(frozen=True)
class Fact:
    name: str
    payload: Mapping[str, JSON]
