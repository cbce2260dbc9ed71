# mypy: disable-error-code="no-untyped-def"
"""Exact expectations over a spin's skeleton: everything that lands apart from the free cells.

A normal-game screen is its skeleton (the scatter rows of reels 1, 3 and 5, the Normal Game
Collector's place, the Booster's place and bonus, the Wild Reels) plus its free cells, which land
independently from the cell weights. Every skeleton is enumerated with its probability (the
kernel's draws, in the kernel's order: scatters, cells, Collector, Booster, then Wild Reels
overwrite whole reels); given a skeleton each line's cells are independent, each reel's coins are
binomial, and the scatters, the Collector and the Booster that survive are known. Approximation:
the 12-coin cap is left out (a 13th coin has probability below 1e-12).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domain.game.board import PAYLINES
from domain.game.calculator.features import hold_and_win_cross, wild_mask_chance
from domain.game.calculator.pairs import N_LINES, PATTERNS, add_pairs, line_codes
from domain.game.calculator.second import N_BP, accumulate, feature_square
from domain.game.calculator.swap import (
    CELL_FREE,
    CELL_OTHER,
    CELL_WILD,
    REEL_STATUSES,
    REELS_1_3,
    REELS_4_5,
    reel_status,
)

_LINES = np.array(PAYLINES, dtype=np.int64)
_FREE = CELL_FREE
_WILD = CELL_WILD
_OTHER = CELL_OTHER
_X3 = 6

# accumulator slots of base_skeletons
S_FS = 0  # P(Free Spins)
S_HW = 1  # P(Hold & Win)
S_COLLECTED = 2  # E[Normal Game Collector pays], units
S_HW_MEAN = 3  # E[Hold & Win pays], units (multiplier applied)
S_HW_SECOND = 4
S_FS_MEAN = 5  # E[Free Spins pays], units (multiplier applied)
S_FS_SECOND = 6
S_BOOSTER = 7  # P(a Booster stays on the screen)
S_WILD_REELS = 8
S_COLLECTOR = 9  # P(a Normal Game Collector stays on the screen)
S_FEATURE_SQUARE = 10  # E[(Collector + Hold & Win + Free Spins pays)^2], units squared
N_S = 11

# kinds of skeleton in base_skeletons' screens (plus SCREEN_KINDS when a Collector stays)
SCREEN_PLAIN = 0  # Clover Moon Swap may follow
SCREEN_BOOSTED = 1  # a Booster stays: no swap
SCREEN_FREE_SPINS = 2  # 3 scatters stay: no swap, Free Spins follow
SCREEN_KINDS = 3


@njit(cache=True)
def _reels_1_to_3(status):
    return (
        reel_status(status, 0)
        + REEL_STATUSES * reel_status(status, 1)
        + REEL_STATUSES**2 * reel_status(status, 2)
    )


@njit(cache=True)
def _reels_4_and_5(status):
    return reel_status(status, 3) + REEL_STATUSES * reel_status(status, 4)


@njit(cache=True)
def _screen(
    status,
    scatter,
    ngc_cell,
    booster_cell,
    bonus,
    mask,
    p,
    level,
    hw_h,
    fs_h,
    g,
    out,
    patterns,
    screens,
    sec,
):
    """Accumulate one skeleton (before Wild Reels) under Wild Reels `mask`, probability p;
    `sec`: second.py's accumulators (line codes, pairs, by pattern, by free cells)."""
    st = status.copy()
    scatters = 0
    free_per_reel = np.zeros(5, dtype=np.int64)
    for reel in range(5):
        for row in range(3):
            i = reel * 3 + row
            if mask & (1 << reel):
                st[i] = _WILD
            else:
                if scatter[i]:
                    scatters += 1
                if st[i] == _FREE:
                    free_per_reel[reel] += 1
    boosted = booster_cell >= 0 and not mask & (1 << (booster_cell // 3))
    collector = ngc_cell >= 0 and not mask & (1 << (ngc_cell // 3))
    kind = SCREEN_FREE_SPINS if scatters == 3 else (SCREEN_BOOSTED if boosted else SCREEN_PLAIN)
    screens[_reels_1_to_3(st), _reels_4_and_5(st), kind + (SCREEN_KINDS if collector else 0)] += p
    hw, fs = hw_h, fs_h
    if boosted:
        out[S_BOOSTER] += p
        if bonus == 0:
            hw = min(hw + 1, _X3)
        else:
            fs = min(fs + 1, _X3)
    if mask:
        out[S_WILD_REELS] += p
    free = free_per_reel.sum()
    if collector:
        out[S_COLLECTOR] += p
        out[S_COLLECTED] += p * free * g.coin_mean
    stats = np.empty((5, 6))
    for reel in range(5):
        stats[reel] = g.reel_stats[free_per_reel[reel]]
    p_hw, c1, c2, _ = hold_and_win_cross(stats, level, g.respin_mean, g.respin_second)
    out[S_HW] += p * p_hw
    out[S_HW_MEAN] += p * c1 * hw / 2
    out[S_HW_SECOND] += p * c2 * hw * hw / 4
    f1 = 0.0
    f2 = 0.0
    if scatters == 3:
        f1 = g.fs_mean * fs / 2
        f2 = g.fs_second * fs * fs / 4
        out[S_FS] += p
        out[S_FS_MEAN] += p * f1
        out[S_FS_SECOND] += p * f2
    out[S_FEATURE_SQUARE] += p * feature_square(stats, level, hw / 2, collector, f1, f2, g)
    codes, pair_acc, by_pattern, h_acc = sec
    accumulate(st, free_per_reel, p, hw / 2, collector, f1, codes, pair_acc, by_pattern, h_acc)
    for line in range(N_LINES):
        patterns[line, codes[line]] += p


@njit(cache=True)
def _with_wild_reels(
    status, scatter, ngc, booster, bonus, p, level, hw, fs, g, out, patterns, screens, sec
):
    for mask in range(32 if level >= 1 else 1):
        q = wild_mask_chance(mask, g.p_wild, g.wild_counts) if level >= 1 else 1.0
        if q > 0.0:
            _screen(
                status,
                scatter,
                ngc,
                booster,
                bonus,
                mask,
                p * q,
                level,
                hw,
                fs,
                g,
                out,
                patterns,
                screens,
                sec,
            )


@njit(cache=True)
def base_skeletons(level, hw_h, fs_h, g):
    """Enumerate every normal-game skeleton; returns (accumulators, line patterns, screens,
    second.py's accumulators): screens[reels 1-3 status, reels 4-5 status, kind] is the
    probability of the skeletons of that status and kind (see SCREEN_*), for the whole-screen
    figures (swap.py)."""
    out = np.zeros(N_S)
    patterns = np.zeros((10, 243))
    screens = np.zeros((REELS_1_3, REELS_4_5, 2 * SCREEN_KINDS))
    sec = (
        np.zeros(N_LINES, dtype=np.int64),
        np.zeros((32, PATTERNS * PATTERNS)),
        np.zeros((N_BP, PATTERNS)),
        np.zeros((PATTERNS, 4**5)),
    )
    status = np.zeros(15, dtype=np.int64)
    scatter = np.zeros(15, dtype=np.int64)
    booster_on = level >= 5 and (hw_h < _X3 or fs_h < _X3)
    for s0 in range(-1, 3):
        for s2 in range(-1, 3):
            for s4 in range(-1, 3):
                p = 1.0
                status[:] = _FREE
                scatter[:] = 0
                for reel, row in ((0, s0), (2, s2), (4, s4)):
                    if row < 0:
                        p *= 1.0 - g.p_scatter
                    else:
                        p *= g.p_scatter / 3
                        status[reel * 3 + row] = _OTHER
                        scatter[reel * 3 + row] = 1
                reels_for_ngc = 5
                if g.kernel >= 2:  # kernel 2: the Collector lands on a reel with no scatter
                    reels_for_ngc = 2 + (s0 < 0) + (s2 < 0) + (s4 < 0)
                for ngc in range(-1, 10 if level >= 3 else 0):
                    st = status.copy()
                    sc = scatter.copy()
                    if ngc < 0:
                        q = 1.0 - g.p_collector if level >= 3 else 1.0
                        ngc_cell = -1
                    else:
                        reel = ngc // 2
                        ngc_cell = reel * 3 + ngc % 2
                        if g.kernel >= 2 and scatter[reel * 3 : reel * 3 + 3].sum() > 0:
                            continue
                        q = g.p_collector / (2 * reels_for_ngc)
                        for i in (ngc_cell, ngc_cell + 1):
                            st[i] = _OTHER
                            sc[i] = 0  # the Collector covers a scatter under it
                    if not booster_on:
                        _with_wild_reels(
                            st,
                            sc,
                            ngc_cell,
                            -1,
                            0,
                            p * q,
                            level,
                            hw_h,
                            fs_h,
                            g,
                            out,
                            patterns,
                            screens,
                            sec,
                        )
                        continue
                    _with_wild_reels(
                        st,
                        sc,
                        ngc_cell,
                        -1,
                        0,
                        p * q * (1.0 - g.p_booster),
                        level,
                        hw_h,
                        fs_h,
                        g,
                        out,
                        patterns,
                        screens,
                        sec,
                    )
                    free = 0
                    for i in range(15):
                        if st[i] == _FREE:
                            free += 1
                    for cell in range(15):
                        if st[cell] != _FREE:
                            continue
                        for bonus in range(2):
                            if hw_h < _X3 and fs_h < _X3:
                                share = 0.5
                            elif (bonus == 0) == (hw_h < _X3):
                                share = 1.0
                            else:
                                continue
                            bt = st.copy()
                            bt[cell] = _OTHER
                            pb = p * q * g.p_booster / free * share
                            _with_wild_reels(
                                bt,
                                sc,
                                ngc_cell,
                                cell,
                                bonus,
                                pb,
                                level,
                                hw_h,
                                fs_h,
                                g,
                                out,
                                patterns,
                                screens,
                                sec,
                            )
    return out, patterns, screens, sec


@njit(cache=True)
def free_spin_skeletons(level, p_scatter, p_wild, wild_counts):
    """A free spin's skeletons by the scatters that stay (c): the line patterns
    patterns[c, line, code], screens[reels 1-3 status, reels 4-5 status, c] (swap.py), and the
    pairs of line patterns (pairs.py)."""
    patterns = np.zeros((4, 10, 243))
    screens = np.zeros((REELS_1_3, REELS_4_5, 4))
    pair_acc = np.zeros((32, PATTERNS * PATTERNS))
    codes = np.zeros(N_LINES, dtype=np.int64)
    status = np.zeros(15, dtype=np.int64)
    for s0 in range(-1, 3):
        for s2 in range(-1, 3):
            for s4 in range(-1, 3):
                p = 1.0
                status[:] = _FREE
                for reel, row in ((0, s0), (2, s2), (4, s4)):
                    if row < 0:
                        p *= 1.0 - p_scatter
                    else:
                        p *= p_scatter / 3
                        status[reel * 3 + row] = _OTHER
                for mask in range(32 if level >= 1 else 1):
                    q = wild_mask_chance(mask, p_wild, wild_counts) if level >= 1 else 1.0
                    if q == 0.0:
                        continue
                    st = status.copy()
                    scatters = 0
                    for reel in range(5):
                        for row in range(3):
                            i = reel * 3 + row
                            if mask & (1 << reel):
                                st[i] = _WILD
                            elif st[i] == _OTHER:
                                scatters += 1
                    line_codes(st, codes)
                    add_pairs(codes, p * q, pair_acc)
                    for line in range(N_LINES):
                        patterns[scatters, line, codes[line]] += p * q
                    screens[_reels_1_to_3(st), _reels_4_and_5(st), scatters] += p * q
    return patterns, screens, pair_acc
