# mypy: disable-error-code="no-untyped-def"
"""The second moment of the round win (the standard deviation), by a fixed-seed sample of
screens with everything after the screen integrated exactly (Rao-Blackwell): for each screen
drawn by the kernel's own landing code, the Pumpkins' activations, Hold & Win, Free Spins and
every Clover Moon Swap the kernel could make are averaged exactly. What remains random is only
the screen, so the figure carries a small, stated standard error. (The first moments and the
hit frequency are exact: skeleton.py, swap.py.)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domain.game.calculator.features import hold_and_win_moments
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
    UNITS_PER_STAKE,
)
from domain.game.symbols import BOOSTER, COIN, N_PAYING, NGC, SCATTER

_X3 = 6

# base sums (each also summed squared, at index + N_B, for its standard error)
B_SQUARE = 0  # E[W^2 | screen]
B_LINES = 1  # the screen's line pays (their square: the normal game's line sd)
N_B = 2

# free-spin sums
F_SQUARE = 0  # E[X^2 | screen], X the spin's pays at multiplier 1
N_F = 1


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
    sums = np.zeros(2 * N_F)
    cells = np.empty(15, dtype=np.int64)
    vals = np.empty(15, dtype=np.int64)
    tr = np.zeros(1, dtype=np.int64)
    p_clover = P[P_FS_CLOVER] / 1e6
    row = np.zeros(N_F)
    for _ in range(n):
        land_free_spin(rng, P, cells, vals)
        if level >= 1:
            wild_reels(rng, P, P[P_FS_WILD_REELS], cells, vals)
        lines = float(evaluate_lines(P, cells, tr, False, 0))
        scatters = count_cells(cells, SCATTER)
        row[F_SQUARE] = lines * lines
        if lines == 0.0 and level >= 2 and scatters < 2:
            row[F_SQUARE] += p_clover * swap_moments(P, cells)[2]
        for k in range(N_F):
            sums[k] += row[k]
            sums[N_F + k] += row[k] * row[k]
    return sums


@njit(cache=True)
def base_sums(rng, P, level, hw_h, fs_h, n, g):
    sums = np.zeros(2 * N_B)
    cells = np.empty(15, dtype=np.int64)
    vals = np.empty(15, dtype=np.int64)
    tr = np.zeros(1, dtype=np.int64)
    stats = np.zeros((5, 6))
    row = np.zeros(N_B)
    for _ in range(n):
        land_base(rng, P, level, hw_h, fs_h, cells, vals)
        if level >= 1:
            wild_reels(rng, P, P[P_WILD_REELS], cells, vals)
        lines = float(evaluate_lines(P, cells, tr, False, 0))
        base = lines
        if count_cells(cells, NGC) > 0:
            base += float(coin_units(cells, vals))
        hw, fs = hw_h, fs_h
        boosted = False
        for i in range(15):
            if cells[i] == BOOSTER:
                boosted = True
                if vals[i] == 0:
                    hw = min(hw + 1, _X3)
                else:
                    fs = min(fs + 1, _X3)
        for reel in range(5):
            coins = 0
            value = 0.0
            for r in range(3):
                if cells[reel * 3 + r] == COIN:
                    coins += 1
                    value += vals[reel * 3 + r] * UNITS_PER_STAKE
            fire = 1.0 - (1.0 - g.p_activation) ** coins
            stats[reel, 0] = fire
            stats[reel, 1] = fire * value
            stats[reel, 2] = fire * value * value
            stats[reel, 3] = 1.0 - fire
            stats[reel, 4] = (1.0 - fire) * value
            stats[reel, 5] = (1.0 - fire) * value * value
        p_hw, c1, c2 = hold_and_win_moments(stats, g.hw_level, g.respin_mean, g.respin_second)
        h1 = c1 * hw / 2
        h2 = c2 * hw * hw / 4
        f1 = 0.0
        f2 = 0.0
        free_spins = count_cells(cells, SCATTER) == 3
        if free_spins:
            f1 = g.fs_mean * fs / 2
            f2 = g.fs_second * fs * fs / 4
        row[B_LINES] = lines
        row[B_SQUARE] = base * base + 2.0 * base * (h1 + f1) + h2 + f2 + 2.0 * h1 * f1
        if base == 0.0 and level >= 2 and not boosted and not free_spins:
            # a swap: no activation (so no Hold & Win), no Free Spins; W is the swap's pay
            row[B_SQUARE] += (1.0 - p_hw) * g.p_clover * swap_moments(P, cells)[2]
        for k in range(N_B):
            sums[k] += row[k]
            sums[N_B + k] += row[k] * row[k]
    return sums
