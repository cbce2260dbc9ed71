"""Importance sampling of the live kernel (domain.game.importance): with no tilt it plays the
simulator's very rounds, and under any tilt its likelihood ratios average 1."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from domain.game import importance as I
from domain.game import simulation as S
from domain.game import tilts as T
from domain.game.max_win_odds import rejected_by_simulation, reliable
from domain.game.model import current_model
from domain.game.state_vector import P_ACTIVATION, P_PAY

STATES = [(0, 2, 2), (4, 2, 2), (5, 6, 6)]


def _key(label: str) -> np.ndarray:
    return np.frombuffer(hashlib.sha256(label.encode()).digest(), dtype="<u4").astype(np.int64)


def _run(P, state, key, tilts, counts):  # type: ignore[no-untyped-def]
    n = sum(counts)
    shares = np.log(np.array(counts, dtype=np.float64) / n)
    coefficients = np.stack([I.log_ratio_coefficients(P, Q) for Q in tilts])
    wins = np.zeros(n, dtype=np.int64)
    log_weights = np.zeros(n)
    I.run_tilted(
        key,
        np.arange(n, dtype=np.int64),
        np.repeat(np.arange(len(counts), dtype=np.int64), counts),
        I.coded(P),
        np.ascontiguousarray(np.stack(tilts)),
        coefficients,
        shares,
        *state,
        wins,
        log_weights,
        np.zeros((0, I.TALLY_WORDS), dtype=np.int64),
    )
    return wins, log_weights


@pytest.mark.parametrize("state", STATES)
def test_with_no_tilt_it_plays_the_simulators_rounds(state: tuple[int, int, int]) -> None:
    P = current_model().params(*state)
    key = _key(f"no-tilt{state}")
    wins, log_weights = _run(P, state, key, [P], [3000])
    assert not log_weights.any()
    for index in range(0, 3000, 7):
        acc = np.zeros(S.N_ACC, dtype=np.int64)
        buckets = np.zeros(S.N_BUCKETS, dtype=np.int64)
        S.run_rounds(key, index, 1, P, *state, acc, buckets, np.zeros(1, dtype=np.int64), 0)
        assert acc[S.A_WIN] == wins[index]


@pytest.mark.parametrize("state", STATES)
def test_likelihood_ratios_average_one_under_every_tilt(state: tuple[int, int, int]) -> None:
    P = current_model().params(*state)
    for route in T.ROUTES:
        Q = T.starting_tilt(P, route)
        _, log_weights = _run(P, state, _key(f"ratio{route}{state}"), [Q], [40_000])
        mean, error = I.weight_mean(log_weights)
        assert abs(mean - 1) <= 4 * error, (route, mean, error)
        assert error < 0.2


def test_the_mixture_weight_is_bounded_by_the_defensive_share() -> None:
    state = (5, 6, 6)
    P = current_model().params(*state)
    tilts = [P, T.starting_tilt(P, T.HOLD_AND_WIN), T.starting_tilt(P, T.FREE_SPINS)]
    _, log_weights = _run(P, state, _key("mixture"), tilts, [2000, 9000, 9000])
    assert log_weights.max() <= math.log(20_000 / 2000) + 1e-9
    mean, error = I.weight_mean(log_weights)
    assert abs(mean - 1) <= 4 * error


def test_a_tilt_changes_only_chances_and_tables_and_keeps_every_outcome() -> None:
    P = current_model().params(5, 6, 6)
    Q = P.copy()
    Q[P_PAY] += 1
    with pytest.raises(ValueError):
        I.check_tilt(P, Q)
    Q = P.copy()
    Q[P_ACTIVATION] = 0
    with pytest.raises(ValueError):
        I.check_tilt(P, Q)
    I.check_tilt(P, T.starting_tilt(P, T.FREE_SPINS))


def test_tempering_keeps_a_share_of_the_elite_effective() -> None:
    log_weights = np.linspace(0, -60, 200)
    tempered = T.tempered(log_weights)
    w = np.exp(tempered - tempered.max())
    assert w.sum() ** 2 / (w * w).sum() >= T.ELITE_KEEP * 200 - 1e-6
    flat = np.zeros(50)
    assert (T.tempered(flat) == flat).all()


def test_the_tail_estimate_of_plain_rounds_is_the_hit_share() -> None:
    wins = np.array([0, 5, 10, 10, 3], dtype=np.int64)
    estimate = I.tail_estimate(wins, np.zeros(5), 10)
    assert estimate.hits == 2
    assert estimate.log10_estimate == pytest.approx(math.log10(0.4))
    assert estimate.relative_error == pytest.approx(math.sqrt(0.4 * 0.6 / 5) / 0.4)
    none = I.tail_estimate(wins, np.zeros(5), 11)
    assert none.hits == 0 and none.log10_bound(2.0) == -math.inf


def test_publishing_rules() -> None:
    good = {"log10_probability": -12.0, "relative_standard_error": 0.1, "effective_hits": 100}
    assert reliable(good)
    assert not reliable({**good, "effective_hits": 3})
    assert not reliable({**good, "relative_standard_error": 0.9})
    assert not rejected_by_simulation(-12.0, 10**9, 0)
    assert rejected_by_simulation(-12.0, 10**9, 2)  # 2 seen where 0.001 were expected
    assert not rejected_by_simulation(-6.0, 10**6, 2)
