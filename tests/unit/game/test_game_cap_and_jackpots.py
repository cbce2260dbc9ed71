"""The max-win cap and the jackpots are the model's (pumpkin-v3 on): a round pays at most the
model's cap and records that it hit it; a no-jackpot model never lands a Jackpot Candy, never
pays a Grand, and plays levels 4 and 5 as level 3 as far as jackpots go."""

from __future__ import annotations

import hashlib

import numpy as np
from game_support import model_with, state_progress

from domain.game import state_vector as L
from domain.game.engine import resolve_round
from domain.game.max_win_odds import contract_odds
from domain.game.model import JACKPOTS_LEVEL, NO_JACKPOTS_LEVEL
from domain.game.simulation import (
    A_CANDY,
    A_GRAND,
    A_LARGEST,
    A_MAX_WIN_HITS,
    N_ACC,
    N_BUCKETS,
    run_rounds,
)


def _simulate(model, level: int, hw: int, fs: int, rounds: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    acc = np.zeros(N_ACC, dtype=np.int64)
    buckets = np.zeros(N_BUCKETS, dtype=np.int64)
    key = np.frombuffer(hashlib.sha256(b"cap-and-jackpots").digest(), dtype="<u4").astype(np.int64)
    curve = np.zeros(1, dtype=np.int64)
    run_rounds(key, 0, rounds, model.params(level, hw, fs), level, hw, fs, acc, buckets, curve, 0)
    return acc


def test_the_cap_is_the_models_and_a_round_stops_at_it() -> None:
    model = model_with("capped", max_win_x_stake=5)
    assert model.params(5, 6, 6)[L.P_CAP] == 5 * L.UNITS_PER_STAKE
    acc = _simulate(model, 5, 6, 6, 20_000)
    assert acc[A_MAX_WIN_HITS] > 0
    assert acc[A_LARGEST] == 5 * L.UNITS_PER_STAKE  # never more than the cap


def test_a_capped_round_records_that_it_hit_the_cap() -> None:
    model = model_with("capped", max_win_x_stake=5)
    for i in range(2_000):
        seed = hashlib.sha256(f"cap:{i}".encode()).digest()
        outcome = resolve_round(model, state_progress(5, 6, 6), 100, seed)
        assert outcome.total_win <= 500
        if outcome.max_win_hit:
            assert outcome.total_win == 500
            reached = [f for f in outcome.facts if f.name == "MaxWinReached"]
            assert len(reached) == 1 and reached[0].payload["cap"] == 500
            return
    raise AssertionError("no round reached a cap of 5 x stake in 2,000")


def test_versions_before_3_keep_the_cap_of_10000_and_jackpots_from_level_4() -> None:
    from domain.game.model import model_named

    for name in ("pumpkin-v1", "pumpkin-v2"):
        P = model_named(name).params(4, 2, 2)
        assert P[L.P_CAP] == 10_000 * L.UNITS_PER_STAKE
        assert P[L.P_JACKPOT_LEVEL] == JACKPOTS_LEVEL


def test_a_no_jackpot_model_lands_no_candy_pays_no_grand_and_plays_level_4_as_level_3() -> None:
    generous = {"activation_ppm": 200_000, "hold_and_win_activation_ppm": 300_000}
    model = model_with("no-jackpots", jackpots=False, states=generous)
    assert model.params(5, 3, 3)[L.P_JACKPOT_LEVEL] == NO_JACKPOTS_LEVEL
    acc = _simulate(model, 5, 6, 6, 20_000)
    assert acc[A_GRAND] == 0 and acc[A_CANDY : A_CANDY + 4].sum() == 0
    with_jackpots = _simulate(model_with("jackpots", states=generous), 5, 6, 6, 20_000)
    assert with_jackpots[A_GRAND] > 0  # the same probabilities with jackpots do pay Grands
    assert model.jackpot_level(4) == 3 and model.jackpot_level(5) == 3


def test_a_reliable_estimate_is_published_in_the_contracts_fields() -> None:
    figures = {
        "log10_probability": -7.0,
        "log10_ci99": [-7.2, -6.9],
        "relative_standard_error": 0.1,
        "effective_hits": 94.0,
    }
    odds = contract_odds(figures)
    assert odds["method"] == "importance_sampling"
    assert abs(odds["probability"] - 1e-7) < 1e-19 and abs(odds["one_in"] - 1e7) < 1e-3
    assert odds["effective_hits"] == 94.0 and odds["ci99"][0] < 1e-7 < odds["ci99"][1]
    assert contract_odds({**figures, "effective_hits": 29.0})["method"] == "bound"

