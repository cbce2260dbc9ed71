# mypy: disable-error-code="no-untyped-def"
"""Importance sampling of rare round wins: the live kernel's rounds drawn from tilted parameters,
each weighted by its exact likelihood ratio.

A tilt Q is a parameter vector of the kernel's layout (domain.game.state_vector) whose triggering
chances and weight tables differ from the model's P; everything else (pays, the kernel version,
the uniform draws of rows, reels and positions) is P's. The live kernel's own source, compiled a
second time on the tilted stream (domain.game.tilted_kernel, domain.game.draws), plays the round:
every chance or weighted draw reads Q and is counted in the round's tally. A round x drawn under
Q has probability q(x) = p(x) * exp(tally . c), where c holds, per counted outcome, log(q/p) of
one draw (see `log_ratio_coefficients`): the likelihood ratio is exact, in integers counted by
the kernel itself.

Several tilts are used at once (multiple importance sampling, balance heuristic): with n_j of the
N rounds drawn from Q_j (Q_0 = P, the defensive component), a round's weight is
p(x) / sum_j (n_j / N) q_j(x) <= N / n_0, and the mean of 1{win >= t} x weight over all N rounds
estimates P(win >= t) without bias. Weights are kept as logarithms: the probabilities estimated
can be far below the smallest float.

Round i of a run keyed by a master seed is the live round keyed by the master seed with its last
8 bytes replaced by i, as in domain.game.simulation: with Q = P a run plays exactly the rounds a
simulation with the same seed plays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from domain.game.draws import MISSES, PPM, TABLE_DRAWS, TALLY_WORDS, encode_chances
from domain.game.model import WEIGHT_TABLES
from domain.game.rng import STATE_WORDS
from domain.game.simulation import rekey_round, run_key
from domain.game.state_vector import (
    N_OUT,
    N_PARAMS,
    O_WIN,
    P_ACTIVATION,
    P_BOOSTER,
    P_CLOVER,
    P_COLLECTOR,
    P_FS_CLOVER,
    P_FS_SCATTER,
    P_FS_WILD_REELS,
    P_HW_ACTIVATION,
    P_SCATTER,
    P_WILD_REELS,
)
from domain.game.tilted_kernel import play

CHANCE_SLOTS = (
    P_SCATTER,
    P_ACTIVATION,
    P_WILD_REELS,
    P_CLOVER,
    P_COLLECTOR,
    P_BOOSTER,
    P_FS_SCATTER,
    P_FS_WILD_REELS,
    P_FS_CLOVER,
    P_HW_ACTIVATION,
)
TILTED_SLOTS = tuple(
    sorted({*CHANCE_SLOTS, *(f + i for _, f, n in WEIGHT_TABLES for i in range(n))})
)


def check_tilt(P: np.ndarray, Q: np.ndarray) -> None:
    """A tilt must draw every outcome P can draw (q > 0 where p > 0), only those, and change
    nothing but the triggering chances and the weight tables."""
    if Q.shape != P.shape or Q.dtype != np.int64:
        raise ValueError("a tilt is an int64 parameter vector of the model's layout")
    fixed = np.ones(N_PARAMS, dtype=bool)
    fixed[list(TILTED_SLOTS)] = False
    if (Q[fixed] != P[fixed]).any():
        raise ValueError("a tilt changes only chances and weight tables")
    for slot in CHANCE_SLOTS:
        p, q = int(P[slot]), int(Q[slot])
        if (p == 0) != (q == 0) or (p == PPM) != (q == PPM) or not 0 <= q <= PPM:
            raise ValueError(f"slot {slot}: chance {q} ppm cannot stand for {p} ppm")
    for name, first, size in WEIGHT_TABLES:
        p_t, q_t = P[first : first + size], Q[first : first + size]
        if ((p_t == 0) != (q_t == 0)).any() or (q_t < 0).any() or q_t.sum() >= 2**32:
            raise ValueError(f"{name}: tilted weights must be positive exactly where P's are")


def log_ratio_coefficients(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """c such that log q(x) - log p(x) = tally(x) . c for every round x."""
    check_tilt(P, Q)
    p = P.astype(np.float64)
    q = Q.astype(np.float64)
    c = np.zeros(TALLY_WORDS)
    both = (p > 0) & (q > 0)
    c[:N_PARAMS][both] = np.log(q[both] / p[both])
    for slot in CHANCE_SLOTS:
        if 0 < P[slot] < PPM:
            c[MISSES + slot] = math.log((PPM - q[slot]) / (PPM - p[slot]))
    for _, first, size in WEIGHT_TABLES:
        for count in range(1, size + 1):
            p_sum = p[first : first + count].sum()
            q_sum = q[first : first + count].sum()
            if p_sum > 0 and q_sum > 0:
                c[TABLE_DRAWS + first + count - 1] = math.log(p_sum / q_sum)
    return c


def coded(P: np.ndarray) -> np.ndarray:
    """The parameters the tilted kernel is given (domain.game.draws.encode_chances)."""
    return encode_chances(P, CHANCE_SLOTS)


@njit(cache=True)
def _log_weight(tally, coefficients, log_shares):
    """log of p(x) / sum_j share_j q_j(x), by log-sum-exp."""
    m = coefficients.shape[0]
    terms = np.empty(m)
    top = -np.inf
    for j in range(m):
        d = 0.0
        for k in range(tally.shape[0]):
            if tally[k] != 0:
                d += tally[k] * coefficients[j, k]
        terms[j] = log_shares[j] + d
        if terms[j] > top:
            top = terms[j]
    total = 0.0
    for j in range(m):
        total += np.exp(terms[j] - top)
    return -(top + np.log(total))


@njit(cache=True)
def run_tilted(
    master_key,
    indices,
    components,
    P,
    tilts,
    coefficients,
    log_shares,
    level,
    hw_h,
    fs_h,
    wins,
    log_weights,
    tallies,
):
    """Play the rounds `indices` of a run, round indices[n] from tilts[components[n]] (P: the
    model's parameters `coded`); write each round's win (units) and log weight. `tallies`
    (rows, TALLY_WORDS) receives the rounds' tallies when it has a row per round (the
    cross-entropy update reads them)."""
    state = np.zeros(STATE_WORDS, dtype=np.uint32)
    key = run_key(master_key)
    out = np.zeros(N_OUT, dtype=np.int64)
    trace = np.zeros(1, dtype=np.int64)
    tally = np.zeros(TALLY_WORDS, dtype=np.int64)
    keep = tallies.shape[0] == indices.shape[0]
    for n in range(indices.shape[0]):
        rekey_round(state, key, indices[n])
        tally[:] = 0
        stream = (state, tilts[components[n]], tally)
        play(stream, P, level, hw_h, fs_h, trace, False, out)
        wins[n] = out[O_WIN]
        log_weights[n] = _log_weight(tally, coefficients, log_shares)
        if keep:
            tallies[n, :] = tally


@dataclass(frozen=True)
class TailEstimate:
    """P(win >= threshold) estimated from N weighted rounds (logarithms base 10: the figure can
    be far below the smallest float)."""

    threshold_units: int
    rounds: int
    hits: int  # tilted rounds that reached the threshold
    log10_estimate: float  # -inf when no round reached it
    relative_error: float  # standard error / estimate
    effective_hits: float  # (sum of hit weights)^2 / sum of squared hit weights
    largest_share: float  # the largest single hit weight / their sum

    def log10_bound(self, z: float) -> float:
        """log10 of estimate + z standard errors (the upper end of an interval)."""
        if self.hits == 0:
            return -math.inf
        return self.log10_estimate + math.log10(1 + z * self.relative_error)

    def log10_lower(self, z: float) -> float:
        """log10 of estimate - z standard errors (-inf when that is not above 0)."""
        if self.hits == 0 or z * self.relative_error >= 1:
            return -math.inf
        return self.log10_estimate + math.log10(1 - z * self.relative_error)


def tail_estimate(wins: np.ndarray, log_weights: np.ndarray, threshold_units: int) -> TailEstimate:
    """The estimate of P(win >= threshold) and its standard error from weighted rounds."""
    n = int(wins.shape[0])
    hit = log_weights[wins >= threshold_units]
    if hit.size == 0:
        return TailEstimate(threshold_units, n, 0, -math.inf, math.inf, 0.0, 0.0)
    top = float(hit.max())
    scaled = np.exp(hit - top)
    s1 = float(scaled.sum())
    s2 = float((scaled * scaled).sum())
    mean = s1 / n
    variance = max(0.0, s2 / n - mean * mean)
    return TailEstimate(
        threshold_units=threshold_units,
        rounds=n,
        hits=int(hit.size),
        log10_estimate=(top + math.log(mean)) / math.log(10),
        relative_error=math.sqrt(variance / n) / mean,
        effective_hits=s1 * s1 / s2,
        largest_share=1.0 / s1,
    )


def weight_mean(log_weights: np.ndarray) -> tuple[float, float]:
    """The mean likelihood ratio and its standard error (its expectation is exactly 1)."""
    w = np.exp(log_weights)
    return float(w.mean()), float(w.std(ddof=1) / math.sqrt(w.size))
