# mypy: disable-error-code="no-untyped-def"
"""The kernel's random draws, by the parameter slot they read, on either of two streams.

Live play and the simulator pass the round's generator (an array, domain.game.rng): each draw is
the plain one, from the model's own parameters P. The importance sampler
(domain.game.importance) passes a tilted stream, the tuple (generator, Q, tally): each draw then
reads the same slot of Q (a parameter vector of the same layout, more generous) and counts what
it drew in `tally`, from which the round's exact likelihood ratio follows (see
domain.game.importance). numba compiles the kernel once per kind of stream, so the live build is
the plain draws alone.

Tally layout (int64, 4 x N_PARAMS):
    [slot]                      outcomes drawn at a slot: a chance that came true, a weighted
                                draw's outcome (first + i), either side of a pair
    [N_PARAMS + slot]           chances that did not come true
    [2 N_PARAMS + first+count-1] weighted draws over the table slots first .. first+count-1
    [3 N_PARAMS + first]        pair draws between slots first and PAIRS[first]
"""

from __future__ import annotations

from typing import Any

from numba import types
from numba.extending import overload

from domain.game import rng as _rng
from domain.game.state_vector import N_PARAMS, P_HW_CELL_W

PPM = 1_000_000
TALLY_WORDS = 4 * N_PARAMS
MISSES = N_PARAMS
TABLE_DRAWS = 2 * N_PARAMS
PAIR_DRAWS = 3 * N_PARAMS
# The pairs the kernel draws between (first slot -> other slot): Hold & Win's COIN or EMPTY
# before jackpots unlock.
PAIRS = {P_HW_CELL_W: P_HW_CELL_W + 2}


def below(rng: Any, n: int) -> int:  # pragma: no cover - compiled only
    """A uniform integer in [0, n) (never tilted)."""
    raise NotImplementedError


def chance(rng: Any, P: Any, slot: int) -> bool:  # pragma: no cover - compiled only
    """True with probability P[slot] / 1,000,000."""
    raise NotImplementedError


def weighted(rng: Any, P: Any, first: int, count: int) -> int:  # pragma: no cover - compiled only
    """An index in [0, count) with probability P[first + i] / their sum."""
    raise NotImplementedError


def either(rng: Any, P: Any, first: int, other: int) -> bool:  # pragma: no cover - compiled only
    """True (the `first` side) with probability P[first] / (P[first] + P[other])."""
    raise NotImplementedError


def _tilted(rng: Any) -> bool:
    return isinstance(rng, types.BaseTuple)


@overload(below)
def _below(rng, n):
    if _tilted(rng):

        def tilted(rng, n):
            return _rng.below(rng[0], n)

        return tilted

    def plain(rng, n):
        return _rng.below(rng, n)

    return plain


@overload(chance)
def _chance(rng, P, slot):
    if _tilted(rng):

        def tilted(rng, P, slot):
            state, Q, tally = rng
            hit = _rng.below(state, PPM) < Q[slot]
            tally[slot if hit else MISSES + slot] += 1
            return hit

        return tilted

    def plain(rng, P, slot):
        return _rng.below(rng, PPM) < P[slot]

    return plain


@overload(weighted)
def _weighted(rng, P, first, count):
    if _tilted(rng):

        def tilted(rng, P, first, count):
            state, Q, tally = rng
            i = _rng.weighted(state, Q, first, count)
            tally[first + i] += 1
            tally[TABLE_DRAWS + first + count - 1] += 1
            return i

        return tilted

    def plain(rng, P, first, count):
        return _rng.weighted(rng, P, first, count)

    return plain


@overload(either)
def _either(rng, P, first, other):
    if _tilted(rng):

        def tilted(rng, P, first, other):
            state, Q, tally = rng
            hit = _rng.below(state, Q[first] + Q[other]) < Q[first]
            tally[first if hit else other] += 1
            tally[PAIR_DRAWS + first] += 1
            return hit

        return tilted

    def plain(rng, P, first, other):
        return _rng.below(rng, P[first] + P[other]) < P[first]

    return plain
