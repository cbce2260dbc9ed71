# mypy: disable-error-code="no-untyped-def"
"""Clover Moon Swap's second moment, the one term of the round win's second moment that is not
enumerated (second.py and pairs.py give the rest exactly), by a fixed-seed sample of screens with
the swap's own choices averaged exactly: for each screen drawn by the kernel's own landing code
that may be swapped (it won nothing and triggered nothing), P(no Pumpkin activates) times the
swap's chance times E[its pays^2] over every swap the kernel could make. What remains random is
only the screen, so the figure carries a small, stated standard error. A swap pays only on a
screen that pays nothing else, so its square adds to the rest's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domain.game.kernel import (
    apply_swap,
    coin_units,
    count_cells,
    evaluate_lines,
    land_base,
    land_free_spin,
    swap_runs,
    wild_reels,
)
from domain.game.state_vector import (
    P_CLOVER_W,
    P_FS_CLOVER,
    P_FS_WILD_REELS,
    P_WILD_REELS,
)
from domain.game.symbols import BOOSTER, COIN, N_PAYING, NGC, SCATTER

# sums (each also summed squared, at index + N, for its standard error)
SWAP_SQUARE = 0  # E[the swap's pays^2 | screen], units squared
N_SUMS = 1


@njit(cache=True)
def swap_moments(P, cells):
    """Over Clover Moon Swap's own choices (symbol by weight, a candidate line, a length):
    (P(a swap can be made), E[new screen's line pays], E[its square]), units."""
    runs = np.zeros(10, dtype=np.int64)
    candidates = swap_runs(cells, runs)
    if candidates == 0:
        return 0.0, 0.0, 0.0
    total = 0.0
    for s in range(N_PAYING):
        total += P[P_CLOVER_W + s]
    tr = np.zeros(1, dtype=np.int64)
    copy = np.empty(15, dtype=np.int64)
    m1 = 0.0
    m2 = 0.0
    for s in range(N_PAYING):
        ps = P[P_CLOVER_W + s] / total
        if ps == 0.0:
            continue
        for line in range(10):
            if runs[line] < 3:
                continue
            lengths = runs[line] - 2
            for length in range(3, runs[line] + 1):
                copy[:] = cells
                apply_swap(copy, s, line, length)
                win = float(evaluate_lines(P, copy, tr, False, 0))
                q = ps / candidates / lengths
                m1 += q * win
                m2 += q * win * win
    return 1.0, m1, m2


@njit(cache=True)
def free_spin_sums(rng, P, level, n):
    """A free spin's swap (multiplier 1): sums[0] its E[pays^2 | screen], sums[1] the squares."""
    sums = np.zeros(2 * N_SUMS)
    cells = np.empty(15, dtype=np.int64)
    vals = np.empty(15, dtype=np.int64)
    tr = np.zeros(1, dtype=np.int64)
    p_clover = P[P_FS_CLOVER] / 1e6
    for _ in range(n):
        land_free_spin(rng, P, cells, vals)
        if level >= 1:
            wild_reels(rng, P, P[P_FS_WILD_REELS], cells, vals)
        x = 0.0
        if count_cells(cells, SCATTER) < 2 and evaluate_lines(P, cells, tr, False, 0) == 0:
            x = p_clover * swap_moments(P, cells)[2]
        sums[SWAP_SQUARE] += x
        sums[N_SUMS + SWAP_SQUARE] += x * x
    return sums


@njit(cache=True)
def base_sums(rng, P, level, hw_h, fs_h, n, p_activation, p_clover):
    """The normal game's swap: sums[0] its E[pays^2 | screen], sums[1] the squares."""
    sums = np.zeros(2 * N_SUMS)
    cells = np.empty(15, dtype=np.int64)
    vals = np.empty(15, dtype=np.int64)
    tr = np.zeros(1, dtype=np.int64)
    for _ in range(n):
        land_base(rng, P, level, hw_h, fs_h, cells, vals)
        if level >= 1:
            wild_reels(rng, P, P[P_WILD_REELS], cells, vals)
        x = 0.0
        if (
            count_cells(cells, SCATTER) < 3
            and count_cells(cells, BOOSTER) == 0
            and evaluate_lines(P, cells, tr, False, 0) == 0
            and (count_cells(cells, NGC) == 0 or coin_units(cells, vals) == 0)
        ):
            # no Pumpkin may activate: every coin fails
            fail = (1.0 - p_activation) ** count_cells(cells, COIN)
            x = fail * p_clover * swap_moments(P, cells)[2]
        sums[SWAP_SQUARE] += x
        sums[N_SUMS + SWAP_SQUARE] += x * x
    return sums
