"""The max-win estimator (infrastructure.mathtools.max_win) against the live engine: at a
threshold plain simulation reaches, its estimate and the simulation's agree within their combined
99% interval; its likelihood ratios average 1; the same state gives the same figures."""

from __future__ import annotations

import hashlib
import math
from functools import cache
from typing import Any

import numpy as np
from numba import njit

from domain.game.kernel import play
from domain.game.model import current_model
from domain.game.rng import STATE_WORDS
from domain.game.simulation import BUCKET_EDGES_X, rekey_round, run_key
from domain.game.state_vector import N_OUT, O_WIN
from domain.game.statistics import Z99
from infrastructure.mathtools import max_win as M
from infrastructure.mathtools.simulator import simulate, spec_for

STATE = (5, 6, 6)  # L5/HW3/FS3: the highest multipliers, the likeliest big wins
THRESHOLD_X = 500
SPINS = 1_000_000


@cache
def estimated() -> dict[str, Any]:
    return M.estimate_state(
        current_model(), STATE, rounds=60_000, pilot_rounds=4_000, target_x_stake=THRESHOLD_X
    )


def test_importance_sampling_agrees_with_plain_simulation_where_both_see_the_event() -> None:
    level, hw, fs = STATE
    spec = spec_for(
        current_model(),
        level=level,
        hw_halves=hw,
        fs_halves=fs,
        master_seed=hashlib.sha256(b"max-win-validation").digest(),
        spins=SPINS,
    )
    totals = simulate(spec, workers=1)
    hits = sum(totals.buckets[BUCKET_EDGES_X.index(THRESHOLD_X) + 1 :])
    assert hits >= 50  # the simulation sees the event often enough to judge
    plain = hits / SPINS
    plain_se = math.sqrt(plain * (1 - plain) / SPINS)
    figures = estimated()
    sampled = 10 ** figures["log10_probability"]
    sampled_se = sampled * figures["relative_standard_error"]
    assert figures["effective_hits"] >= 30
    assert abs(sampled - plain) <= Z99 * math.hypot(plain_se, sampled_se), (sampled, plain)


def test_the_likelihood_ratios_of_the_run_average_one() -> None:
    figures = estimated()
    assert abs(figures["weight_mean"] - 1) <= 4 * figures["weight_mean_standard_error"]


def test_the_same_state_gives_the_same_figures() -> None:
    again = M.estimate_state(
        current_model(), STATE, rounds=60_000, pilot_rounds=4_000, target_x_stake=THRESHOLD_X
    )
    first = {k: v for k, v in estimated().items() if k != "cpu_seconds"}
    assert {k: v for k, v in again.items() if k != "cpu_seconds"} == first


def test_published_figures_cover_every_state_with_seeds_from_the_model_version() -> None:
    from domain.game.max_win_odds import published
    from domain.game.model import all_states, registry, state_key

    for model in registry().values():
        figures = published(model.version)
        if not figures:
            continue
        keys = [state_key(*s) for s in all_states()]
        assert sorted(figures["states"]) == sorted(keys)
        for key in keys:
            state = figures["states"][key]
            assert state["seed"] == M.state_seed(model, key).hex()
            assert state["rounds"] >= 100_000
            if state["log10_probability"] is not None:
                assert state["log10_ci99"][1] >= state["log10_probability"]


@njit
def _wins(master_key, P, level, hw, fs, rounds, wins):  # type: ignore[no-untyped-def]
    rng = np.zeros(STATE_WORDS, dtype=np.uint32)
    key = run_key(master_key)
    out = np.zeros(N_OUT, dtype=np.int64)
    trace = np.zeros(1, dtype=np.int64)
    for n in range(rounds):
        rekey_round(rng, key, n)
        play(rng, P, level, hw, fs, trace, False, out)
        wins[n] = out[O_WIN]


def test_what_the_cap_keeps_back_agrees_with_plain_simulation_at_a_lower_cap() -> None:
    """E[(W - t)+] of the uncapped round win at t = 500 x: the estimator's figure against the
    mean of 10^6 plain rounds' own excess (the estimator plays with the cap lifted)."""
    level, hw, fs = STATE
    P = M.uncapped(current_model().params(*STATE))
    seed = hashlib.sha256(b"cap-excess-validation").digest()
    wins = np.zeros(SPINS, dtype=np.int64)
    _wins(np.frombuffer(seed, dtype="<u4").astype(np.int64), P, level, hw, fs, SPINS, wins)
    over = np.maximum(wins - THRESHOLD_X * 20, 0) / 20
    plain, plain_se = float(over.mean()), float(over.std(ddof=1) / math.sqrt(SPINS))
    assert (over > 0).sum() >= 50
    excess = estimated()["cap_excess"]
    assert excess["cap_x_stake"] == current_model().max_win_x_stake
    at = estimated()["tail"][str(THRESHOLD_X)]["excess"]
    sampled, sampled_se = at["x_stake"], at["standard_error"]
    assert abs(sampled - plain) <= Z99 * math.hypot(plain_se, sampled_se), (sampled, plain)


def test_a_capped_round_pays_the_cap_and_the_uncapped_one_the_whole_win() -> None:
    model = current_model()
    P = model.params(*STATE)
    seed = hashlib.sha256(b"cap-excess-validation").digest()
    key = np.frombuffer(seed, dtype="<u4").astype(np.int64)
    capped = np.zeros(200_000, dtype=np.int64)
    whole = np.zeros(200_000, dtype=np.int64)
    _wins(key, P, *STATE, 200_000, capped)
    _wins(key, M.uncapped(P), *STATE, 200_000, whole)
    cap = model.max_win_x_stake * 20
    assert (capped == np.minimum(whole, cap)).all()
