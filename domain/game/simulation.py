"""The simulator's compiled loop: many rounds through the same kernel as live play.

Round i of a run keyed by a 256-bit master seed is the live round keyed by the master seed with
its last 8 bytes replaced by i (little-endian), so any simulated round can be replayed alone.
Results are integer sums, so runs split across workers merge exactly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domain.game.kernel import play
from domain.game.rng import STATE_WORDS, rekey
from domain.game.state_vector import (
    N_OUT,
    O_BASE_WIN,
    O_BOOSTER,
    O_CANDY,
    O_CLOVER,
    O_COLLECTOR,
    O_FS_SPINS,
    O_FS_TRIGGERED,
    O_FS_WIN,
    O_GRAND,
    O_HW_TRIGGERED,
    O_HW_WIN,
    O_MAX_WIN,
    O_WILD_REELS,
    O_WIN,
)

# Accumulator slots (int64) of one run.
A_ROUNDS = 0
A_WIN = 1
A_HITS = 2
A_FS = 3
A_HW = 4
A_BASE_WIN = 5
A_FS_WIN = 6
A_HW_WIN = 7
A_MAX_WIN_HITS = 8
A_GRAND = 9
A_CANDY = 10  # 4 tiers
A_FS_SPINS = 14
A_WILD_REELS = 15
A_CLOVER = 16
A_COLLECTOR = 17
A_BOOSTER = 18
A_LARGEST = 19
A_LARGEST_INDEX = 20
A_WIN_SQ_HI = 21  # sum of squared wins, split to stay exact: hi * 2**32 + lo
A_WIN_SQ_LO = 22
N_ACC = 23

# Win distribution buckets, in x stake: 0, (0,1), [1,2), [2,5), [5,10), [10,20), [20,50),
# [50,100), [100,250), [250,500), [500,1000), [1000,2500), [2500,5000), [5000,10000), 10000.
BUCKET_EDGES_X = (0, 1, 2, 5, 10, 20, 50, 100, 250, 500, 1000, 2500, 5000, 10000)
N_BUCKETS = len(BUCKET_EDGES_X) + 1
_EDGES_UNITS = np.array([e * 20 for e in BUCKET_EDGES_X], dtype=np.int64)


@njit(cache=True)
def _bucket(win: int) -> int:
    if win == 0:
        return 0
    b = 1
    while b < _EDGES_UNITS.shape[0] and win >= _EDGES_UNITS[b]:
        b += 1
    return b


@njit(cache=True)
def run_key(master_key):  # type: ignore[no-untyped-def]
    """The key words of a run's rounds: the master seed's first 24 bytes, then the round index."""
    key = np.empty(8, dtype=np.int64)
    for j in range(6):
        key[j] = master_key[j]
    return key


@njit(cache=True)
def rekey_round(state, key, index):  # type: ignore[no-untyped-def]
    """`state` at the start of round `index` of the run keyed by `key` (from run_key): the master
    seed with its last 8 bytes replaced by the index, little-endian."""
    lo_mask = (1 << 32) - 1
    key[6] = index & lo_mask
    key[7] = (index >> 32) & lo_mask
    rekey(state, key)


@njit(cache=True)
def run_rounds(master_key, first, count, P, level, hw_h, fs_h, acc, buckets, curve, every):  # type: ignore[no-untyped-def]
    """Play rounds first..first+count-1 of a run; add their results into acc and buckets.

    `curve[k]` receives the cumulative win after (k + 1) * every rounds (for convergence charts).
    """
    rng = np.zeros(STATE_WORDS, dtype=np.uint32)
    key = run_key(master_key)
    out = np.zeros(N_OUT, dtype=np.int64)
    trace = np.zeros(1, dtype=np.int64)
    lo_mask = (1 << 32) - 1
    for n in range(count):
        index = first + n
        rekey_round(rng, key, index)
        play(rng, P, level, hw_h, fs_h, trace, False, out)
        win = out[O_WIN]
        acc[A_ROUNDS] += 1
        acc[A_WIN] += win
        sq = win * win  # < 2**36 (win <= 200,000 units)
        acc[A_WIN_SQ_LO] += sq & lo_mask
        acc[A_WIN_SQ_HI] += sq >> 32
        if acc[A_WIN_SQ_LO] > lo_mask:
            acc[A_WIN_SQ_HI] += acc[A_WIN_SQ_LO] >> 32
            acc[A_WIN_SQ_LO] &= lo_mask
        if win > 0:
            acc[A_HITS] += 1
        acc[A_FS] += out[O_FS_TRIGGERED]
        acc[A_HW] += out[O_HW_TRIGGERED]
        acc[A_BASE_WIN] += out[O_BASE_WIN]
        acc[A_FS_WIN] += out[O_FS_WIN]
        acc[A_HW_WIN] += out[O_HW_WIN]
        acc[A_MAX_WIN_HITS] += out[O_MAX_WIN]
        acc[A_GRAND] += out[O_GRAND]
        for t in range(4):
            acc[A_CANDY + t] += out[O_CANDY + t]
        acc[A_FS_SPINS] += out[O_FS_SPINS]
        acc[A_WILD_REELS] += out[O_WILD_REELS]
        acc[A_CLOVER] += out[O_CLOVER]
        acc[A_COLLECTOR] += out[O_COLLECTOR]
        acc[A_BOOSTER] += out[O_BOOSTER]
        if win > acc[A_LARGEST]:
            acc[A_LARGEST] = win
            acc[A_LARGEST_INDEX] = index
        buckets[_bucket(win)] += 1
        if every > 0 and (n + 1) % every == 0:
            k = (n + 1) // every - 1
            if k < curve.shape[0]:
                curve[k] = acc[A_WIN]
