# mypy: disable-error-code="no-untyped-def"
"""Compiled helpers shared by the exact enumeration and the screen sampler: what the Pumpkins
and Hold & Win give from a screen whose reels' coins are described by per-reel statistics."""

from __future__ import annotations

import numpy as np
from numba import njit

_NO_CAP_LEVEL = 4  # before jackpots unlock at most 4 Pumpkins activate


@njit(cache=True)
def hold_and_win_moments(stats, level, respin_mean, respin_second):
    """(P(Hold & Win), E[collected; HW], E[collected^2; HW]) in units before the multiplier."""
    p_any, e1, e2, _ = hold_and_win_cross(stats, level, respin_mean, respin_second)
    return p_any, e1, e2


@njit(cache=True)
def hold_and_win_cross(stats, level, respin_mean, respin_second):
    """hold_and_win_moments and E[V * collected; HW], V the screen's coin value (what a Normal
    Game Collector on the same screen takes), units squared before the multiplier.

    stats[r] = [P(act), E[V; act], E[V^2; act], P(not), E[V; not], E[V^2; not]] for reel r,
    V its coin value; reels are independent. The Pumpkins are tried reel 1 to 5, so before
    level 4 reel 5 is not tried once reels 1-4 all activated.
    """
    p_any = 0.0
    e1 = 0.0
    e2 = 0.0
    ec = 0.0
    for mask in range(1, 32):
        capped = level < _NO_CAP_LEVEL and (mask & 15) == 15
        if capped and mask & 16:
            continue
        p = 1.0
        m1 = 0.0
        m2 = 0.0
        k = 0
        for r in range(5):
            if capped and r == 4:
                q = stats[r, 0] + stats[r, 3]
                v1 = stats[r, 1] + stats[r, 4]
                v2 = stats[r, 2] + stats[r, 5]
            elif mask & (1 << r):
                q, v1, v2 = stats[r, 0], stats[r, 1], stats[r, 2]
                k += 1
            else:
                q, v1, v2 = stats[r, 3], stats[r, 4], stats[r, 5]
            m2 = m2 * q + v2 * p + 2.0 * m1 * v1
            m1 = m1 * q + v1 * p
            p = p * q
        if p == 0.0:
            continue
        p_any += p
        e1 += k * m1 + respin_mean[k] * p
        e2 += k * k * m2 + 2.0 * k * m1 * respin_mean[k] + respin_second[k] * p
        ec += k * m2 + m1 * respin_mean[k]
    return p_any, e1, e2, ec


@njit(cache=True)
def wild_mask_chance(mask, p_wild, count_probs):
    """P(Wild Reels turns exactly the reels of `mask` wild): 1 to 4 reels, a uniform subset."""
    k = 0
    for r in range(5):
        if mask & (1 << r):
            k += 1
    if k == 0:
        return 1.0 - p_wild
    if k == 5:
        return 0.0
    subsets = 1.0
    for i in range(k):
        subsets = subsets * (5 - i) / (i + 1)
    return p_wild * count_probs[k - 1] / subsets


def reel_stats_array(rows: list[np.ndarray]) -> np.ndarray:
    return np.array(rows, dtype=np.float64).reshape(len(rows), 6)
