"""The max-win estimator (infrastructure.mathtools.max_win) against the live engine: at a
threshold plain simulation reaches, its estimate and the simulation's agree within their combined
99% interval; its likelihood ratios average 1; the same state gives the same figures."""

from __future__ import annotations

import hashlib
import math
from functools import cache
from typing import Any

from domain.game.model import current_model
from domain.game.simulation import BUCKET_EDGES_X
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
