"""The share of rounds a player plays in each level-5 state: once the meter is full (after 260
normal-game spins) a player stays at level 5, and the two bonus multipliers move from round to
round (a Booster raises one, a feature that used it sets it back to 1.5). One long fixed-seed
run of consecutive rounds through the live kernel, each round in the state the one before left,
counts the rounds per state; the overall odds of the max win a player meets are the states'
odds weighted by those shares (the first 260 rounds, at levels 0-4, are left out).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
from numba import njit

from domain.game.kernel import play
from domain.game.model import MathModel, state_key
from domain.game.progress import X1_5, X3
from domain.game.rng import STATE_WORDS
from domain.game.simulation import rekey_round, run_key
from domain.game.state_vector import N_OUT, N_PARAMS, O_FS_HALVES, O_HW_HALVES


@njit(cache=True)
def _journey(master_key, params, rounds, counts):  # type: ignore[no-untyped-def]
    rng = np.zeros(STATE_WORDS, dtype=np.uint32)
    key = run_key(master_key)
    out = np.zeros(N_OUT, dtype=np.int64)
    trace = np.zeros(1, dtype=np.int64)
    hw, fs = 3, 3
    for n in range(rounds):
        rekey_round(rng, key, n)
        i = (hw - 3) * 4 + (fs - 3)
        counts[i] += 1
        play(rng, params[i], 5, hw, fs, trace, False, out)
        hw, fs = out[O_HW_HALVES], out[O_FS_HALVES]


def level5_states() -> list[tuple[int, int, int]]:
    return [(5, hw, fs) for hw in range(X1_5, X3 + 1) for fs in range(X1_5, X3 + 1)]


def journey_seed(model: MathModel) -> bytes:
    return hashlib.sha256(f"pumpkin-journey:{model.version}".encode()).digest()


def state_shares(model: MathModel, rounds: int = 1_000_000) -> dict[tuple[int, int, int], float]:
    """The share of a long-run player's level-5 rounds in each multiplier pair."""
    states = level5_states()
    params = np.zeros((len(states), N_PARAMS), dtype=np.int64)
    for i, state in enumerate(states):
        params[i] = model.params(*state)
    counts = np.zeros(len(states), dtype=np.int64)
    master = np.frombuffer(journey_seed(model), dtype="<u4").astype(np.int64)
    _journey(master, params, rounds, counts)
    return {state: int(c) / rounds for state, c in zip(states, counts, strict=True)}


def overall_odds(
    model: MathModel, probabilities: dict[str, float], rounds: int = 1_000_000
) -> dict[str, Any]:
    """The max win's odds a long-run player meets: the level-5 states' probabilities (by state
    key) weighted by the share of rounds played in each."""
    shares = state_shares(model, rounds)
    probability = sum(share * probabilities[state_key(*s)] for s, share in shares.items())
    return {
        "probability": probability,
        "one_in": 1 / probability if probability > 0 else None,
        "state_shares": {state_key(*s): share for s, share in shares.items()},
        "rounds": rounds,
        "seed": journey_seed(model).hex(),
        "method": "the level-5 states' max-win probabilities weighted by the share of rounds a "
        f"player plays in each ({rounds:,} consecutive rounds of the live kernel from "
        "x1.5/x1.5, each in the state the one before left, fixed seed); levels 0-4 (the first "
        "260 rounds) left out",
    }
