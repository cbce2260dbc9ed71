"""Hold & Win as a Markov chain over (collectors, respins left), with per-reel binomials.

A respin lands 3 independent cells on each uncovered reel (COIN, CANDY or EMPTY by the model's
weights); a reel whose coins throw an activation gets a Collector after the respin's collection.
The chain gives the first two moments of everything the respins collect from a start with k
Collectors, in money units (stake / 20), before the multiplier. The Grand (all 5 Pumpkins, level 4
on) ends the feature at once. Approximation: the at-most-4-candies-per-respin rule is left out (a
fifth candy in one respin has probability below 1e-9).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np

from domain.game.board import JACKPOTS_LEVEL, JACKPOTS_X_STAKE
from domain.game.state_vector import UNITS_PER_STAKE
from domain.game.symbols import COIN_VALUES, JACKPOT_TIERS

GRAND_UNITS = JACKPOTS_X_STAKE["GRAND"] * UNITS_PER_STAKE
_MAX_COLLECTORS_BEFORE_JACKPOTS = 4


def value_moments(weights: list[int], values: list[int]) -> tuple[float, float]:
    """(mean, variance) of a value drawn by weight."""
    total = float(sum(weights))
    mean = sum(w * v for w, v in zip(weights, values, strict=True)) / total
    square = sum(w * v * v for w, v in zip(weights, values, strict=True)) / total
    return mean, square - mean * mean


def coin_units(weights: list[int]) -> tuple[float, float]:
    return value_moments(weights, [v * UNITS_PER_STAKE for v in COIN_VALUES])


@dataclass(frozen=True)
class Respins:
    """E[collected] and E[collected^2] of the respins from k Collectors and 3 respins (k = 1..5),
    and P(the respins collect nothing)."""

    mean: np.ndarray  # index k
    second: np.ndarray


def _reel_outcomes(
    coin: float, candy: float, activation: float
) -> dict[tuple[int, int, int], float]:
    """One uncovered reel's respin: P(coins c, candies j, activated a)."""
    empty = 1.0 - coin - candy
    out: dict[tuple[int, int, int], float] = {}
    for c in range(4):
        for j in range(4 - c):
            p = comb(3, c) * comb(3 - c, j) * coin**c * candy**j * empty ** (3 - c - j)
            if p == 0.0:
                continue
            fire = 1.0 - (1.0 - activation) ** c
            for a, q in ((1, fire), (0, 1.0 - fire)):
                if q > 0.0:
                    key = (c, j, a)
                    out[key] = out.get(key, 0.0) + p * q
    return out


def _convolve(
    a: dict[tuple[int, int, int], float], b: dict[tuple[int, int, int], float]
) -> dict[tuple[int, int, int], float]:
    out: dict[tuple[int, int, int], float] = {}
    for (c1, j1, a1), p1 in a.items():
        for (c2, j2, a2), p2 in b.items():
            key = (c1 + c2, j1 + j2, a1 + a2)
            out[key] = out.get(key, 0.0) + p1 * p2
    return out


def respins(definition: dict[str, Any], level: int, activation_ppm: int) -> Respins:
    coin_w, candy_w, empty_w = definition["hold_and_win_cell_weights"]
    if level < JACKPOTS_LEVEL:
        candy_w = 0
    total = float(coin_w + candy_w + empty_w)
    activation = activation_ppm / 1e6
    mu, var = coin_units(definition["hold_and_win_coin_value_weights"])
    jackpots = [JACKPOTS_X_STAKE[t] * UNITS_PER_STAKE for t in JACKPOT_TIERS[:4]]
    mu_j, var_j = value_moments(definition["jackpot_weights"], jackpots)
    reel = _reel_outcomes(coin_w / total, candy_w / total, activation)
    cap = _MAX_COLLECTORS_BEFORE_JACKPOTS if level < JACKPOTS_LEVEL else 5
    mean = np.zeros(6)
    second = np.zeros(6)
    if level >= JACKPOTS_LEVEL:
        mean[5], second[5] = GRAND_UNITS, float(GRAND_UNITS) ** 2  # the Grand ends it at once
    for k in range(min(cap, 4), 0, -1):
        outcomes: dict[tuple[int, int, int], float] = {(0, 0, 0): 1.0}
        for _ in range(5 - k):
            outcomes = _convolve(outcomes, reel)
        # Unknowns: V(k, r) for r = 3, 2, 1 (index 0, 1, 2), first moments then second.
        a1 = np.eye(3)
        b1 = np.zeros(3)
        rows = []  # (r index, p, E[R], E[R^2], next k or None for the Grand, landed)
        for (c, j, act), p in outcomes.items():
            r_mean = k * c * mu + j * mu_j
            r_second = k * k * (c * var + c * c * mu * mu) + j * var_j + j * j * mu_j * mu_j
            r_second += 2 * k * c * mu * j * mu_j
            nk = min(k + act, cap)
            grand = level >= JACKPOTS_LEVEL and nk == 5
            rows.append((p, r_mean, r_second, nk, grand, c + j > 0))
        for i in range(3):  # respins left 3, 2, 1
            for p, r_mean, _, nk, grand, landed in rows:
                b1[i] += p * r_mean
                if grand:
                    b1[i] += p * GRAND_UNITS
                elif landed and nk == k:
                    a1[i, 0] -= p
                elif landed:
                    b1[i] += p * mean[nk]
                elif i < 2:
                    a1[i, i + 1] -= p
        v1 = np.linalg.solve(a1, b1)
        b2 = np.zeros(3)
        for i in range(3):
            for p, r_mean, r_second, nk, grand, landed in rows:
                if grand:
                    b2[i] += p * (r_second + 2 * r_mean * GRAND_UNITS + GRAND_UNITS**2)
                    continue
                nxt = 0 if landed else i + 1
                v_next = (
                    (mean[nk] if nk != k else v1[0]) if landed else (v1[nxt] if nxt < 3 else 0.0)
                )
                b2[i] += p * (r_second + 2 * r_mean * v_next)
                if landed and nk != k:
                    b2[i] += p * second[nk]
        v2 = np.linalg.solve(a1, b2)
        mean[k], second[k] = v1[0], v2[0]
    return Respins(mean, second)


def reel_start_stats(
    n_free: int, coin: float, activation: float, mu: float, var: float
) -> np.ndarray:
    """A normal-game reel with n freely landing cells (each a coin with chance `coin`):
    [P(activated), E[V; activated], E[V^2; activated], P(not), E[V; not], E[V^2; not]],
    V the reel's coin value in units."""
    out = np.zeros(6)
    for c in range(n_free + 1):
        p = comb(n_free, c) * coin**c * (1 - coin) ** (n_free - c)
        fire = 1.0 - (1.0 - activation) ** c
        v1, v2 = c * mu, c * var + (c * mu) ** 2
        for base, q in ((0, fire), (3, 1.0 - fire)):
            out[base] += p * q
            out[base + 1] += p * q * v1
            out[base + 2] += p * q * v2
    return out
