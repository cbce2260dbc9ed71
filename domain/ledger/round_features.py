"""The features a round may hold, by the names of the events that mark them: the one
definition the read models (counters, filters), the console and the write side's round
summaries share."""

from __future__ import annotations

from collections.abc import Sequence

FEATURE_EVENTS = {
    "free_spins": ("FreeSpinsAwarded", "FreeSpinsStarted"),
    "hold_and_win": ("HoldAndWinStarted",),
    "jackpot": ("JackpotWon",),
}


def round_features(names: Sequence[str]) -> list[str]:
    """The features of a round whose events have these names."""
    return [
        feature for feature, marks in FEATURE_EVENTS.items() if any(name in marks for name in names)
    ]
