# mypy: disable-error-code="no-untyped-def"
"""The random draws of the tilted kernel (domain.game.tilted_kernel): the same calls as the
live kernel's (domain.game.rng), on the tilted stream (generator, Q, tally) instead of the
generator.

The tilted kernel is run with the model's parameters P encoded (`encode_chances`): each
triggering chance holds -(slot + 1) instead of its parts per million, so that `chance` knows
which chance it draws. Each chance and weighted draw then reads the same slot of Q (a parameter
vector of the model's layout, more generous) and counts its outcome in `tally`, from which the
round's exact likelihood ratio follows (domain.game.importance). `below` (rows, reels, positions,
and Hold & Win's coin-or-empty draw before jackpots unlock) is never tilted.

Tally layout (int64, 3 x N_PARAMS):
    [slot]                        outcomes drawn at a slot: a chance that came true, a weighted
                                  draw's outcome (first + i)
    [N_PARAMS + slot]             chances that did not come true
    [2 N_PARAMS + first+count-1]  weighted draws over the table slots first .. first+count-1
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domain.game import rng as _rng
from domain.game.state_vector import N_PARAMS

PPM = 1_000_000
TALLY_WORDS = 3 * N_PARAMS
MISSES = N_PARAMS
TABLE_DRAWS = 2 * N_PARAMS


def encode_chances(P: np.ndarray, slots: tuple[int, ...]) -> np.ndarray:
    """P with each chance slot holding -(slot + 1): what the tilted kernel is given."""
    coded = P.copy()
    for slot in slots:
        coded[slot] = -(slot + 1)
    coded.setflags(write=False)
    return coded


@njit(cache=True)
def below(stream, n):
    return _rng.below(stream[0], n)


@njit(cache=True)
def chance(stream, code):
    state, Q, tally = stream
    slot = -code - 1
    hit = _rng.below(state, PPM) < Q[slot]
    tally[slot if hit else MISSES + slot] += 1
    return hit


@njit(cache=True)
def weighted(stream, P, first, count):
    state, Q, tally = stream
    i = _rng.weighted(state, Q, first, count)
    tally[first + i] += 1
    tally[TABLE_DRAWS + first + count - 1] += 1
    return i
