"""The exact Clover Moon Swap and zero-win figures (domain.game.calculator.swap) against a
brute-force enumeration of every screen of a reduced alphabet, each read by the kernel's own
functions (evaluate_lines, swap_runs, apply_swap through the sampler's swap_moments)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from domain.game.calculator import swap as X
from domain.game.calculator.sampler import swap_moments
from domain.game.kernel import evaluate_lines, swap_runs
from domain.game.model import current_model
from domain.game.state_vector import LINE_BET_UNITS, P_CLOVER_W
from domain.game.symbols import N_PAYING, PAYING, SCATTER, WILD


@njit(cache=True)
def _brute_force(P, options, weights, counts):  # type: ignore[no-untyped-def]
    """Every screen of per-cell options: (P(no win, no candidate), P(no win, a candidate),
    E[mean swap pay; no win])."""
    cells = np.zeros(15, dtype=np.int64)
    pick = np.zeros(15, dtype=np.int64)
    runs = np.zeros(10, dtype=np.int64)
    tr = np.zeros(1, dtype=np.int64)
    none = 0.0
    some = 0.0
    pay = 0.0
    while True:
        w = 1.0
        for i in range(15):
            cells[i] = options[i, pick[i]]
            w *= weights[i, pick[i]]
        if w > 0.0 and evaluate_lines(P, cells, tr, False, 0) == 0:
            if swap_runs(cells, runs) == 0:
                none += w
            else:
                some += w
                pay += w * swap_moments(P, cells)[1]
        i = 14
        while i >= 0:
            pick[i] += 1
            if pick[i] < counts[i]:
                break
            pick[i] = 0
            i -= 1
        if i < 0:
            break
    return none, some, pay


def _cell_code(cls: int) -> int:
    return {X.WILD_CLASS: WILD, X.OTHER_CLASS: SCATTER}.get(cls, cls)


def _reduced(statuses: list[int], dist: np.ndarray) -> tuple[np.ndarray, ...]:
    options = np.zeros((15, X.N_CLASSES), dtype=np.int64)
    weights = np.zeros((15, X.N_CLASSES))
    counts = np.zeros(15, dtype=np.int64)
    for cell in range(15):
        status = X.cell_status(statuses[cell // 3], cell % 3)
        if status == 1:
            pairs = [(WILD, 1.0)]
        elif status == 2:
            pairs = [(SCATTER, 1.0)]
        else:
            pairs = [(_cell_code(c), float(dist[c])) for c in range(X.N_CLASSES) if dist[c] > 0]
        counts[cell] = len(pairs)
        for k, (code, w) in enumerate(pairs):
            options[cell, k], weights[cell, k] = code, w
    return options, weights, counts


def _exact(statuses: list[int], dist: np.ndarray, P: np.ndarray) -> tuple[float, float, float]:
    d = current_model().definition
    paytable = np.array([d["paytable"][s] for s in PAYING], dtype=np.float64)
    code13 = statuses[0] + 9 * statuses[1] + 81 * statuses[2]
    code45 = statuses[3] + 9 * statuses[4]
    none, some, k = X.reels_1_to_3_at(code13, dist, bool(dist[X.OTHER_CLASS] > 0), True)
    tau = X.reels_4_and_5(code45, dist, paytable)
    clover = np.array(P[P_CLOVER_W : P_CLOVER_W + N_PAYING], dtype=np.float64)
    clover /= clover.sum()
    mass = dist.sum() ** X.free_cells(code45, 2)
    return none * mass, some * mass, float((k * tau * clover).sum()) * LINE_BET_UNITS


# (reel statuses 1-5, classes used): 0 free, 1 wild, 1 + m fixed OTHER cells on the rows of m
CASES = [
    ([0, 0, 0, 0, 8], (0, 4, X.WILD_CLASS)),  # reel 5 all OTHER: the lengths stop at 4
    ([0, 0, 0, 1, 0], (0, 4, X.WILD_CLASS)),  # reel 4 wild: every run reaches reel 5
    ([0, 0, 0, 1, 1], (1, 5, X.WILD_CLASS, X.OTHER_CLASS)),  # coins (OTHER) in reels 1-3
    ([3, 0, 5, 2, 0], (0, 4, X.WILD_CLASS)),  # scatters and a Collector-like pair
]


@pytest.mark.parametrize(("statuses", "used"), CASES)
def test_the_exact_swap_and_zero_win_equal_a_brute_force_enumeration(
    statuses: list[int], used: tuple[int, ...]
) -> None:
    P = np.array(current_model().params(2, 2, 2), dtype=np.int64)
    rng = np.random.default_rng(sum(statuses))
    dist = np.zeros(X.N_CLASSES)
    dist[list(used)] = rng.uniform(0.2, 1.0, len(used))
    dist /= dist.sum() * 1.05  # sub-stochastic, as the coins' failures make it
    none, some, pay = _brute_force(P, *_reduced(statuses, dist))
    exact = _exact(statuses, dist, P)
    assert some > 0 and pay > 0
    assert exact == pytest.approx((none, some, pay), rel=1e-12)


def test_with_a_collector_on_the_screen_the_coins_weigh_nothing() -> None:
    """The polynomial in the coin's weight, at 0, is the enumeration with no coin at all."""
    dist = np.zeros(X.N_CLASSES)
    dist[[0, 4, X.WILD_CLASS]] = (0.3, 0.5, 0.1)
    with_coins = X.reels_1_to_3(0, dist, True, True)
    without = X.reels_1_to_3(0, dist, False, True)
    assert with_coins[0][0] == pytest.approx(without[0][0], rel=1e-12)
    assert with_coins[1][0] == pytest.approx(without[1][0], rel=1e-12)
    assert np.allclose(with_coins[2][..., 0], without[2][..., 0], rtol=1e-12, atol=0.0)
    assert not without[2][..., 1:].any() and with_coins[2][..., 1:].any()
