"""The tilted parameter vectors that make a rare round win common, read from the model's own P.

Two starting tilts, one per route to the max win: Hold & Win (Pumpkin activations, coins on the
screen and in the feature, high coin values, Jackpot Candies and the Maxi, Boosters) and Free
Spins (the trigger, retriggers, Wild Reels of many reels, Wilds and Witches). Each is then
refined by the cross-entropy method (Rubinstein): rounds are drawn from the tilt, the best of
them (the elite: win at or above a level that rises towards the target) are weighted by their
likelihood ratios, and every chance and weight table is set to its elite's weighted frequency,
smoothed with the previous tilt. No probability of the tilt falls below a fifth of the model's
(so no single draw's ratio p/q exceeds 5), and every outcome the model can draw stays drawable.
"""

from __future__ import annotations

import numpy as np

from domain.game import state_vector as L
from domain.game.draws import MISSES, PPM, TALLY_WORDS
from domain.game.importance import CHANCE_SLOTS
from domain.game.model import WEIGHT_TABLES

TABLE_SCALE = 1_000_000  # tilted tables are integer weights summing to about this
FLOOR = 0.2  # a tilted probability is at least this share of the model's
SMOOTHING = 0.7  # share of the cross-entropy update in the next tilt
ELITE_KEEP = 0.2  # the elite's likelihood ratios are tempered to keep a fifth of it effective
MAX_FS_SCATTER = 0.3  # retriggers beyond this make Free Spins sessions too long to play

HOLD_AND_WIN = "hold_and_win"
FREE_SPINS = "free_spins"
ROUTES = (HOLD_AND_WIN, FREE_SPINS)


def _tables(P: np.ndarray) -> dict[int, np.ndarray]:
    """Each weight table as probabilities, by its first slot."""
    out = {}
    for _, first, size in WEIGHT_TABLES:
        w = P[first : first + size].astype(np.float64)
        out[first] = w / w.sum()
    return out


def _chances(P: np.ndarray) -> dict[int, float]:
    return {slot: float(P[slot]) / PPM for slot in CHANCE_SLOTS}


def _raise(chances: dict[int, float], slot: int, target: float) -> None:
    if 0 < chances[slot] < target:
        chances[slot] = target


def _towards(table: np.ndarray, target: np.ndarray, strength: float) -> np.ndarray:
    t = np.where(table > 0, target, 0.0)
    if t.sum() <= 0:
        return table
    mixed: np.ndarray = (1 - strength) * table + strength * t / t.sum()
    return mixed


def _with_share(table: np.ndarray, index: int, share: float) -> np.ndarray:
    """The table with outcome `index` at `share` (if it can land), the others scaled."""
    if table[index] <= 0 or table[index] >= share:
        return table
    rest = 1 - table[index]
    out: np.ndarray = table * (1 - share) / rest
    out[index] = share
    return out


def starting_tilt(P: np.ndarray, route: str) -> np.ndarray:
    """A generous tilt towards one route to the max win (before the cross-entropy refinement)."""
    chances = _chances(P)
    tables = _tables(P)
    _raise(chances, L.P_BOOSTER, 0.05)
    if route == HOLD_AND_WIN:
        _raise(chances, L.P_ACTIVATION, 0.05)
        _raise(chances, L.P_HW_ACTIVATION, 0.06)
        coin = L.P_BASE_W
        tables[coin] = _with_share(tables[coin], 10, 0.12)  # COIN, the last normal-game cell
        top_value = np.zeros(6)
        top_value[-1] = 1.0
        tables[L.P_COIN_W] = _towards(tables[L.P_COIN_W], top_value, 0.2)
        tables[L.P_HW_COIN_W] = _towards(tables[L.P_HW_COIN_W], top_value, 0.2)
        cells = tables[L.P_HW_CELL_W]
        cells = _with_share(cells, 1, 0.005)  # CANDY
        tables[L.P_HW_CELL_W] = _with_share(cells, 0, 0.12)  # COIN
        maxi = np.array([0.0, 0.0, 0.0, 1.0])
        tables[L.P_JACKPOT_W] = _towards(tables[L.P_JACKPOT_W], maxi, 0.2)
    elif route == FREE_SPINS:
        _raise(chances, L.P_SCATTER, 0.3)
        _raise(chances, L.P_FS_SCATTER, 0.15)
        _raise(chances, L.P_FS_WILD_REELS, 0.08)
        four = np.array([0.0, 0.0, 0.0, 1.0])
        tables[L.P_WR_COUNT_W] = _towards(tables[L.P_WR_COUNT_W], four, 0.2)
        wild_witch = np.zeros(10)
        wild_witch[0] = wild_witch[9] = 0.5  # WITCH, WILD
        tables[L.P_FS_W] = _towards(tables[L.P_FS_W], wild_witch, 0.15)
    else:
        raise ValueError(f"unknown route {route!r}")
    return tilt_vector(P, chances, tables)


def tilt_vector(
    P: np.ndarray, chances: dict[int, float], tables: dict[int, np.ndarray]
) -> np.ndarray:
    """The integer parameter vector of a tilt, with the floors applied."""
    Q = P.copy()
    Q.setflags(write=True)
    model_chances = _chances(P)
    for slot, q in chances.items():
        p = model_chances[slot]
        if p <= 0 or p >= 1:
            continue
        if slot == L.P_FS_SCATTER:
            q = min(q, max(p, MAX_FS_SCATTER))
        q = min(max(q, FLOOR * p), 1 - FLOOR * (1 - p))
        Q[slot] = min(PPM - 1, max(1, round(q * PPM)))
    model_tables = _tables(P)
    for first, q_table in tables.items():
        p_table = model_tables[first]
        q_table = np.maximum(q_table, FLOOR * p_table)
        q_table = q_table / q_table.sum()
        w = np.where(p_table > 0, np.maximum(1, np.rint(q_table * TABLE_SCALE)), 0)
        Q[first : first + p_table.size] = w.astype(np.int64)
    return Q


def tempered(log_weights: np.ndarray, keep: float = ELITE_KEEP) -> np.ndarray:
    """The log weights times the largest power in [0, 1] that keeps their effective number at
    least `keep` of the elite: the update then never rests on a handful of rounds."""
    if log_weights.size == 0:
        return log_weights

    def effective(power: float) -> float:
        x = power * (log_weights - log_weights.max())
        w = np.exp(x)
        return float(w.sum() ** 2 / (w * w).sum())

    need = keep * log_weights.size
    if effective(1.0) >= need:
        return log_weights
    low, high = 0.0, 1.0
    for _ in range(30):
        mid = (low + high) / 2
        if effective(mid) >= need:
            low = mid
        else:
            high = mid
    return low * log_weights


def cross_entropy_update(
    P: np.ndarray, Q: np.ndarray, tallies: np.ndarray, log_weights: np.ndarray
) -> np.ndarray:
    """The next tilt from the elite rounds' tallies (rows) and their log likelihood ratios."""
    if tallies.shape[0] == 0:
        return Q
    if tallies.shape[1] != TALLY_WORDS:
        raise ValueError("one tally row per elite round")
    w = np.exp(log_weights - log_weights.max())
    # numpy's own pairwise sum, not a BLAS product: the same figures on every machine
    counts = (tallies.astype(np.float64) * w[:, None]).sum(axis=0)
    chances = _chances(Q)
    for slot in CHANCE_SLOTS:
        drawn = counts[slot] + counts[MISSES + slot]
        if drawn > 0:
            chances[slot] = SMOOTHING * counts[slot] / drawn + (1 - SMOOTHING) * chances[slot]
    tables = _tables(Q)
    for _, first, size in WEIGHT_TABLES:
        seen = counts[first : first + size]
        if seen.sum() > 0:
            tables[first] = SMOOTHING * seen / seen.sum() + (1 - SMOOTHING) * tables[first]
    return tilt_vector(P, chances, tables)
