"""Cell codes of the compiled engine and their names on screen (docs/CONTRACT.md cells)."""

from __future__ import annotations

PAYING: tuple[str, ...] = ("WITCH", "GHOST", "BAT", "CAT", "A", "K", "Q", "J", "TEN")
HIGH = PAYING[:4]
LOW = PAYING[4:]
N_PAYING = len(PAYING)

WILD = 9
SCATTER = 10
COIN = 11
NGC = 12
BOOSTER = 13
COLLECTOR = 14
CANDY = 15
EMPTY = 16

COIN_VALUES: tuple[int, ...] = (1, 2, 3, 5, 7, 10)  # x stake
JACKPOT_TIERS: tuple[str, ...] = ("MINI", "MINOR", "MAJOR", "MAXI", "GRAND")
BONUSES: tuple[str, ...] = ("HW", "FS")  # booster targets: Hold & Win, Free Spins

KINDS: tuple[str, ...] = ("base", "free_spin", "hold_and_win")


def cell_name(code: int, value: int) -> str:
    """A cell as the contract shows it; `value` is the coin's x stake, tier or booster target."""
    if code < N_PAYING:
        return PAYING[code]
    if code == COIN:
        return f"COIN:{value}"
    if code == CANDY:
        return f"CANDY:{JACKPOT_TIERS[value]}"
    if code == BOOSTER:
        return f"BOOSTER:{BONUSES[value]}"
    return _FIXED_NAMES[code]


_FIXED_NAMES = {
    WILD: "WILD",
    SCATTER: "SCATTER",
    NGC: "NGC",
    COLLECTOR: "COLLECTOR",
    EMPTY: "EMPTY",
}
