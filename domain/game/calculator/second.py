# mypy: disable-error-code="no-untyped-def"
"""The round win's second moment over the normal game's skeletons, exactly.

Given a skeleton (skeleton.py) the round win is W = L + C + H + F (+ a Clover Moon Swap's pays,
which only a screen with W = 0 gets: swap.py and sampler.py), L the line pays, C the Normal Game
Collector's coins, H Hold & Win, F Free Spins. F depends on the skeleton alone; C and H on the
free cells' coins, reel by reel (features.py); L on the free cells' symbols. So per skeleton:
- E[(C + H + F)^2] from the reels' coin statistics (`feature_square`);
- E[L^2]: each line's pattern and each pair of lines' patterns are accumulated with the
  skeleton's probability, and the pairs' figures computed once per pattern (pairs.py);
- E[L F] = E[L] E[F];
- E[L C] and E[L H]: a line pays only if its first three cells are not coins, so given the line's
  cells only the coin-or-not of its cells on reels 4 and 5 moves C and H: the line's pays split by
  that (pairs.coin_split_by_pattern) times C's and H's expectations with those cells known
  (each reel's statistics with the line's cell taken out, or put in as a coin).
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit

from domain.game.calculator.features import hold_and_win_cross
from domain.game.calculator.pairs import N_LINES, PATTERNS, add_pairs, line_codes

FREE_TUPLES = 4**5  # free cells per reel (0-3 each), as a base-4 number
# rows of by_pattern
BP_COLLECTOR = 0  # P(the pattern on a screen with a Collector)
BP_COLLECTOR_FREE = 1  # the same times the screen's free cells
BP_FREE_SPINS = 2  # the same times E[F | skeleton]
N_BP = 3


def reel_stats_with_coin(
    n_free: int, coin: float, activation: float, mu: float, var: float
) -> np.ndarray:
    """hold_and_win.reel_start_stats for a reel with one more cell known to be a coin."""
    out = np.zeros(6)
    for c in range(n_free + 1):
        p = comb(n_free, c) * coin**c * (1 - coin) ** (n_free - c)
        coins = c + 1
        fire = 1.0 - (1.0 - activation) ** coins
        v1, v2 = coins * mu, coins * var + (coins * mu) ** 2
        for base, q in ((0, fire), (3, 1.0 - fire)):
            out[base] += p * q
            out[base + 1] += p * q * v1
            out[base + 2] += p * q * v2
    return out


@njit(cache=True)
def feature_square(stats, level, hwm, collector, f1, f2, g):
    """E[(C + H + F)^2 | skeleton], units squared; hwm the Hold & Win multiplier."""
    p_hw, c1, c2, cross = hold_and_win_cross(stats, level, g.respin_mean, g.respin_second)
    ev = 0.0
    spread = 0.0
    for reel in range(5):
        m1 = stats[reel, 1] + stats[reel, 4]
        spread += stats[reel, 2] + stats[reel, 5] - m1 * m1
        ev += m1
    ev2 = ev * ev + spread
    k = 1.0 if collector else 0.0
    h1 = hwm * c1
    return k * ev2 + hwm * hwm * c2 + f2 + 2.0 * hwm * k * cross + 2.0 * k * ev * f1 + 2.0 * h1 * f1


@njit(cache=True)
def accumulate(st, free_per_reel, p, hwm, collector, f1, codes, pair_acc, by_pattern, h_acc):
    """One skeleton's (cell statuses `st`, probability p) part of the line terms."""
    line_codes(st, codes)
    add_pairs(codes, p, pair_acc)
    tup = 0
    free = 0
    for reel in range(5):
        tup += free_per_reel[reel] * 4**reel
        free += free_per_reel[reel]
    for line in range(N_LINES):
        code = codes[line]
        if collector:
            by_pattern[BP_COLLECTOR, code] += p
            by_pattern[BP_COLLECTOR_FREE, code] += p * free
        by_pattern[BP_FREE_SPINS, code] += p * f1
        h_acc[code, tup] += p * hwm


@njit(cache=True)
def _line_and_hold_and_win(h_acc, coin_split, reel_stats, coin_stats, level, mean, second):
    """E[L H] in line bets x units: every (pattern, free cells per reel) accumulated."""
    total = 0.0
    stats = np.zeros((5, 6))
    for code in range(PATTERNS):
        for tup in range(FREE_TUPLES):
            w = h_acc[code, tup]
            if w == 0.0:
                continue
            for a4 in range(2):
                for a5 in range(2):
                    pay = coin_split[code, a4, a5]
                    if pay == 0.0:
                        continue
                    for reel in range(5):
                        n = (tup // 4**reel) % 4
                        if (code // 3**reel) % 3 == 0:  # the line's cell is free
                            coin = (reel == 3 and a4 == 1) or (reel == 4 and a5 == 1)
                            stats[reel] = coin_stats[n - 1] if coin else reel_stats[n - 1]
                        else:
                            stats[reel] = reel_stats[n]
                    e1 = hold_and_win_cross(stats, level, mean, second)[1]
                    total += w * pay * e1
    return total


def line_cross_terms(
    by_pattern: np.ndarray,
    h_acc: np.ndarray,
    coin_split: np.ndarray,
    reel_stats: np.ndarray,
    coin_stats: np.ndarray,
    level: int,
    respin_mean: np.ndarray,
    respin_second: np.ndarray,
    coin_value_mean: float,
    coin_mean: float,
) -> float:
    """E[L (C + H + F)] in line bets x units. `coin_value_mean`: E[a coin's value];
    `coin_mean`: E[a free cell's coin value] (P(coin) times it)."""
    pays = coin_split.sum(axis=(1, 2))
    on_coins = coin_split[:, 1, :].sum(axis=1) + coin_split[:, :, 1].sum(axis=1)
    free = np.array([sum((c // 3**r) % 3 == 0 for r in range(5)) for c in range(PATTERNS)])
    collector = float(
        by_pattern[BP_COLLECTOR] @ (coin_value_mean * on_coins - coin_mean * free * pays)
    )
    collector += float(by_pattern[BP_COLLECTOR_FREE] @ (coin_mean * pays))
    free_spins = float(by_pattern[BP_FREE_SPINS] @ pays)
    hold_and_win = float(
        _line_and_hold_and_win(
            h_acc, coin_split, reel_stats, coin_stats, level, respin_mean, respin_second
        )
    )
    return collector + free_spins + hold_and_win
