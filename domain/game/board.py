"""The fixed board of the game: reels, rows, paylines, stakes and the max-win cap."""

from __future__ import annotations

REELS = 5
ROWS = 3

# Rows listed reel 1 to reel 5 (row 0 is the top).
PAYLINES: tuple[tuple[int, int, int, int, int], ...] = (
    (1, 1, 1, 1, 1),
    (0, 0, 0, 0, 0),
    (2, 2, 2, 2, 2),
    (0, 1, 2, 1, 0),
    (2, 1, 0, 1, 2),
    (0, 0, 1, 2, 2),
    (2, 2, 1, 0, 0),
    (1, 0, 0, 0, 1),
    (1, 2, 2, 2, 1),
    (1, 0, 1, 2, 1),
)

STAKES: tuple[int, ...] = (20, 40, 60, 80, 100, 200, 400, 600, 800, 1000, 2000, 5000, 10000)
LINES = len(PAYLINES)
MAX_WIN_X_STAKE = 10_000

# Spin Progress meter: normal-game spins needed to fill levels 0..4 (level 5 is the last).
LEVEL_SPINS: tuple[int, ...] = (10, 25, 50, 75, 100)
MAX_LEVEL = len(LEVEL_SPINS)

# Level features.
WILD_REELS_LEVEL = 1
CLOVER_LEVEL = 2
COLLECTOR_LEVEL = 3
JACKPOTS_LEVEL = 4
BOOSTER_LEVEL = 5

JACKPOTS_X_STAKE: dict[str, int] = {
    "MINI": 15,
    "MINOR": 25,
    "MAJOR": 50,
    "MAXI": 150,
    "GRAND": 2500,
}
