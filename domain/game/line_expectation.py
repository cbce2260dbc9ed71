"""Exact expectations where the game allows them: a line's win on independent cells.

Each payline takes one cell from each reel, and the cells of different reels are drawn
independently, so a line's expected pay follows from each reel's cell distribution alone: no
simulation noise. Used for the rules document and to cross-check the simulator.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from domain.game.model import MathModel
from domain.game.symbols import N_PAYING, PAYING

_OTHER = N_PAYING + 1  # anything that is neither paying nor wild
_WILD = N_PAYING


def _line_pays(paytable: Sequence[Sequence[int]], cells: Sequence[int]) -> int:
    wilds = 0
    while wilds < 5 and cells[wilds] == _WILD:
        wilds += 1
    best = paytable[0][wilds - 3] if wilds >= 3 else 0
    if wilds < 5 and cells[wilds] < N_PAYING:
        symbol = cells[wilds]
        count = wilds + 1
        while count < 5 and cells[count] in (symbol, _WILD):
            count += 1
        if count >= 3:
            best = max(best, paytable[symbol][count - 3])
    return best


def line_expectation(
    paytable: Sequence[Sequence[int]], reels: Sequence[Sequence[float]]
) -> tuple[float, float]:
    """(expected pays in line bets, probability of a win) of one line; reels[r][c] over
    c in 9 paying symbols, WILD, OTHER."""
    expected = 0.0
    hit = 0.0
    for cells in itertools.product(range(N_PAYING + 2), repeat=5):
        p = 1.0
        for reel, c in enumerate(cells):
            p *= reels[reel][c]
            if p == 0.0:
                break
        if p == 0.0:
            continue
        pays = _line_pays(paytable, cells)
        if pays:
            expected += p * pays
            hit += p
    return expected, hit


def _cell_distribution(weights: Sequence[int], scatter: float, scatter_reel: bool) -> list[float]:
    """A cell's distribution over 9 paying symbols, WILD, OTHER; weights end with WILD[, COIN]."""
    total = sum(weights)
    paying_and_wild = [w / total for w in weights[: N_PAYING + 1]]
    other = sum(weights[N_PAYING + 1 :]) / total
    keep = 1.0 - (scatter / 3 if scatter_reel else 0.0)  # a scatter takes one row of its reel
    dist = [p * keep for p in paying_and_wild]
    dist.append(other * keep + (1.0 - keep))
    return dist


def base_line_rtp(model: MathModel, scatter_ppm: int) -> tuple[float, float]:
    """Normal-game line RTP and per-line hit chance before Wild Reels, Collector and Booster."""
    d = model.definition
    reels = [
        _cell_distribution(d["base_weights"], scatter_ppm / 1e6, reel % 2 == 0) for reel in range(5)
    ]
    paytable = [d["paytable"][s] for s in PAYING]
    return line_expectation(paytable, reels)


def free_spin_line_rtp(model: MathModel, scatter_ppm: int) -> tuple[float, float]:
    """A free spin's line pays in stakes (multiplier 1) before Wild Reels and Clover."""
    d = model.definition
    scatter = scatter_ppm / 1e6
    reels = [
        _cell_distribution(d["free_spin_weights"], scatter, reel % 2 == 0) for reel in range(5)
    ]
    paytable = [d["paytable"][s] for s in PAYING]
    return line_expectation(paytable, reels)
