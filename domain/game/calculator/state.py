"""One state's figures, assembled from the exact enumerations (skeletons, and whole screens for
Clover Moon Swap and the zero win), the Hold & Win chain, Wald's identity for Free Spins, the
second moments by the same enumerations (second.py, pairs.py), and a screen sample for Clover
Moon Swap's second moment alone."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from domain.game import state_vector as L
from domain.game.board import CLOVER_LEVEL, MAX_WIN_X_STAKE
from domain.game.calculator import sampler as S
from domain.game.calculator.hold_and_win import coin_units, reel_start_stats, respins
from domain.game.calculator.lines import OTHER_CLASS, cell_distribution, pattern_expectations
from domain.game.calculator.pairs import pair_tables
from domain.game.calculator.second import line_cross_terms, reel_stats_with_coin
from domain.game.calculator.skeleton import (
    S_BOOSTER,
    S_COLLECTED,
    S_COLLECTOR,
    S_FEATURE_SQUARE,
    S_FS,
    S_FS_MEAN,
    S_FS_SECOND,
    S_HW,
    S_HW_MEAN,
    S_WILD_REELS,
    SCREEN_BOOSTED,
    SCREEN_FREE_SPINS,
    SCREEN_KINDS,
    SCREEN_PLAIN,
    base_skeletons,
    free_spin_skeletons,
)
from domain.game.calculator.swap import whole_screens
from domain.game.max_win_odds import stated_odds
from domain.game.model import MathModel, state_key
from domain.game.rng import new_generator
from domain.game.state_vector import LINE_BET_UNITS, UNITS_PER_STAKE
from domain.game.symbols import PAYING

VOLATILITY_Z = 1.645
DEFAULT_SCREENS = 50_000  # the sample of Clover Moon Swap's second moment (its se: 1e-4 of the sd)


class Inputs(NamedTuple):
    """What the compiled enumeration and sampler read (a numba-friendly record)."""

    p_scatter: float
    p_wild: float
    wild_counts: np.ndarray
    p_collector: float
    p_booster: float
    p_activation: float
    p_clover: float
    kernel: int  # the model's kernel version: its rules that changed
    coin_mean: float  # E[coin value of a free cell], units
    reel_stats: np.ndarray  # by free cells on a reel: see hold_and_win.reel_start_stats
    coin_stats: np.ndarray  # the same with one more cell known to be a coin
    respin_mean: np.ndarray
    respin_second: np.ndarray
    fs_mean: float  # E[Free Spins pays] of an award of 10 at multiplier 1, units
    fs_second: float
    fs_zero: float  # P(an award of 10 pays nothing)


@dataclass(frozen=True)
class StateMath:
    key: str
    rtp: float
    rtp_standard_error: float
    rtp_parts: dict[str, float]
    hit_frequency: float
    hit_frequency_standard_error: float
    free_spins_frequency: float
    hold_and_win_frequency: float
    feature_frequencies: dict[str, float]
    average_free_spins: float
    sd: float
    sd_standard_error: float
    base_lines_sd: float  # the normal game's line pays alone (all the normal game pays at level 0)
    volatility_index: float
    max_win_odds: dict[str, Any]
    method: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "state": self.key,
            "rtp": self.rtp,
            "rtp_standard_error": self.rtp_standard_error,
            "rtp_parts": self.rtp_parts,
            "hit_frequency": self.hit_frequency,
            "hit_frequency_standard_error": self.hit_frequency_standard_error,
            "free_spins_frequency": self.free_spins_frequency,
            "free_spins_one_in": 1 / self.free_spins_frequency,
            "hold_and_win_frequency": self.hold_and_win_frequency,
            "hold_and_win_one_in": 1 / self.hold_and_win_frequency,
            "feature_frequencies": self.feature_frequencies,
            "average_free_spins": self.average_free_spins,
            "sd": self.sd,
            "sd_standard_error": self.sd_standard_error,
            "base_lines_sd": self.base_lines_sd,
            "volatility_index": self.volatility_index,
            "max_win_odds": self.max_win_odds,
            "method": self.method,
        }


def _mean_and_error(sums: np.ndarray, index: int, width: int, n: int) -> tuple[float, float]:
    mean = float(sums[index]) / n
    variance = max(0.0, float(sums[width + index]) / n - mean * mean)
    return mean, math.sqrt(variance / n)


def _seed(label: str) -> bytes:
    return hashlib.sha256(f"pumpkin-math:{label}".encode()).digest()


def state_math(
    model: MathModel, level: int, hw_halves: int, fs_halves: int, screens: int = DEFAULT_SCREENS
) -> StateMath:
    d = model.definition
    key = state_key(level, hw_halves, fs_halves)
    table = model.state(level, hw_halves, fs_halves)
    params = model.params(level, hw_halves, fs_halves)
    paytable = np.array([d["paytable"][s] for s in PAYING], dtype=np.float64)
    wr = np.array(d["wild_reels_count_weights"], dtype=np.float64)
    wild_counts = wr / wr.sum()
    clover_weights = np.array(d["clover_symbol_weights"], dtype=np.float64)
    unit = float(UNITS_PER_STAKE)

    # Free Spins: one spin exactly by its skeletons, then Wald's identity over the retriggers.
    by_scatters, fs_screens, fs_pairs = free_spin_skeletons(
        level, params[L.P_FS_SCATTER] / 1e6, params[L.P_FS_WILD_REELS] / 1e6, wild_counts
    )
    fs_cells = cell_distribution(d["free_spin_weights"])
    fs_pays = pattern_expectations(paytable, fs_cells)
    line_by_c = [float((by_scatters[c] * fs_pays).sum()) * LINE_BET_UNITS for c in range(4)]
    p2 = float(by_scatters[2, 0].sum())
    p3 = float(by_scatters[3, 0].sum())
    # Clover Moon Swap and the zero-pay probabilities of a spin, exactly (swap.py): a swap only
    # on a spin with no line win and no retrigger (0 or 1 scatter)
    p_fs_swap = float(params[L.P_FS_CLOVER]) / 1e6 if level >= CLOVER_LEVEL else 0.0
    q0, fs_clover = whole_screens(
        fs_screens[:, :, 0] + fs_screens[:, :, 1],
        fs_cells,
        False,
        paytable,
        clover_weights,
        p_fs_swap,
    )
    q5, q10 = (
        whole_screens(fs_screens[:, :, c], fs_cells, False, paytable, clover_weights, 0.0)[0]
        for c in (2, 3)
    )
    fs_lines_second = pair_tables(fs_cells, paytable).lines_second(
        by_scatters.sum(axis=(0, 1)), fs_pairs
    )
    fs_n = max(1, screens // 4) if p_fs_swap > 0.0 else 0
    fs_swap, fs_swap_se = 0.0, 0.0
    if fs_n:
        fs_sums = S.free_spin_sums(new_generator(_seed(key + ":free-spins")), params, level, fs_n)
        fs_swap, fs_swap_se = _mean_and_error(fs_sums, S.SWAP_SQUARE, S.N_SUMS, fs_n)
    x1 = sum(line_by_c) + fs_clover
    x2 = fs_lines_second * LINE_BET_UNITS**2 + fs_swap
    xc = 5 * line_by_c[2] + 10 * line_by_c[3]
    children = 5 * p2 + 10 * p3
    t1 = x1 / (1 - children)
    t2 = (x2 + 2 * xc * t1 + (20 * p2 + 90 * p3) * t1 * t1) / (1 - children)
    g_zero = 0.0
    for _ in range(200):
        g_zero = q0 + q5 * g_zero**5 + q10 * g_zero**10

    coin = d["base_weights"][-1] / sum(d["base_weights"])
    mu, var = coin_units(d["coin_value_weights"])
    activation = table["activation_ppm"] / 1e6
    chain = respins(d, level, int(params[L.P_HW_ACTIVATION]))
    inputs = Inputs(
        p_scatter=table["scatter_ppm"] / 1e6,
        p_wild=table["wild_reels_ppm"] / 1e6,
        wild_counts=wild_counts,
        p_collector=table["collector_ppm"] / 1e6,
        p_booster=table["booster_ppm"] / 1e6,
        p_activation=activation,
        p_clover=table["clover_ppm"] / 1e6,
        kernel=int(d["engine"]["kernel"]),
        coin_mean=coin * mu,
        reel_stats=np.array([reel_start_stats(n, coin, activation, mu, var) for n in range(4)]),
        coin_stats=np.array([reel_stats_with_coin(n, coin, activation, mu, var) for n in range(4)]),
        respin_mean=chain.mean,
        respin_second=chain.second,
        fs_mean=10 * t1,
        fs_second=10 * t2 + 90 * t1 * t1,
        fs_zero=g_zero**10,
    )

    # The normal game: every skeleton exactly, the second moment with it; then the swap sample.
    acc, patterns, base_screens, sec = base_skeletons(level, hw_halves, fs_halves, inputs)
    _, pair_acc, by_pattern, h_acc = sec
    base_cells = cell_distribution(d["base_weights"])
    base_pays = pattern_expectations(paytable, base_cells)
    lines = float((patterns * base_pays).sum()) * LINE_BET_UNITS
    zero, clover = _base_whole_screens(
        base_screens, base_cells, activation, inputs, level, paytable, clover_weights
    )
    tables = pair_tables(base_cells, paytable)
    lines_second = tables.lines_second(patterns.sum(axis=0), pair_acc) * LINE_BET_UNITS**2
    cross = LINE_BET_UNITS * line_cross_terms(
        by_pattern,
        h_acc,
        tables.coin_split,
        inputs.reel_stats,
        inputs.coin_stats,
        level,
        chain.mean,
        chain.second,
        mu,
        inputs.coin_mean,
    )
    swap, swap_se = 0.0, 0.0
    if level >= CLOVER_LEVEL and inputs.p_clover > 0.0:
        sums = S.base_sums(
            new_generator(_seed(key + ":normal-game")),
            params,
            level,
            hw_halves,
            fs_halves,
            screens,
            activation,
            inputs.p_clover,
        )
        swap, swap_se = _mean_and_error(sums, S.SWAP_SQUARE, S.N_SUMS, screens)
    # the free spins' swap sample enters E[F^2] linearly, through x2 (d fs_second / d x2)
    fs_swap_weight = 0.0
    if inputs.fs_second:
        fs_swap_weight = float(acc[S_FS_SECOND]) / inputs.fs_second * 10 / (1 - children)
    square = float(acc[S_FEATURE_SQUARE]) + lines_second + 2.0 * cross + swap
    square_se = math.hypot(swap_se, fs_swap_weight * fs_swap_se)

    parts = {
        "base_lines": lines / unit,
        "normal_game_collector": float(acc[S_COLLECTED]) / unit,
        "clover_moon_swap": clover / unit,
        "hold_and_win": float(acc[S_HW_MEAN]) / unit,
        "free_spins": float(acc[S_FS_MEAN]) / unit,
    }
    rtp = sum(parts.values())
    second = square / unit**2
    sd = math.sqrt(max(0.0, second - rtp * rtp))
    swap_screens = screens if level >= CLOVER_LEVEL else 0
    sd_se = square_se / unit**2 / (2 * sd) if sd else 0.0
    return StateMath(
        key=key,
        rtp=rtp,
        rtp_standard_error=0.0,
        rtp_parts=parts,
        hit_frequency=1.0 - zero,
        hit_frequency_standard_error=0.0,
        free_spins_frequency=float(acc[S_FS]),
        hold_and_win_frequency=float(acc[S_HW]),
        feature_frequencies={
            "wild_reels": float(acc[S_WILD_REELS]),
            "normal_game_collector": float(acc[S_COLLECTOR]),
            "booster": float(acc[S_BOOSTER]),
        },
        average_free_spins=10 / (1 - children),
        sd=sd,
        sd_standard_error=sd_se,
        base_lines_sd=math.sqrt(max(0.0, lines_second / unit**2 - (lines / unit) ** 2)),
        volatility_index=VOLATILITY_Z * sd,
        max_win_odds=stated_odds(model.version, key, _cantelli(rtp, sd)),
        method={
            "base_lines": "exact: every skeleton enumerated, lines in closed form",
            "normal_game_collector": "exact: expectation over skeletons",
            "hold_and_win": "exact: Markov chain over (collectors, respins left)",
            "free_spins": "exact: one spin over its skeletons (lines, Clover Moon Swap, "
            "zero pay), retriggers by Wald's identity",
            "clover_moon_swap": "exact: reels 1-2 enumerated, reel 3 row by row, the choice of "
            "line by quadrature, reels 4-5 per line",
            "hit_frequency": "exact: P(no line win, no Collector coin, no activation, no swap) by "
            "the same enumeration; Free Spins' zero pay by its branching recursion",
            "sd": "exact: E[W^2] by the same enumeration (line pays by pairs of lines, the "
            "features' second moments, the cross terms of a screen's line pays and its features) "
            + (
                f"but Clover Moon Swap's second moment: {swap_screens:,} sampled screens "
                f"({fs_n:,} free-spin screens), each swap averaged exactly"
                if swap_screens
                else "(no Clover Moon Swap in this state)"
            ),
        },
    )


def _base_whole_screens(
    screens: np.ndarray,
    cells: np.ndarray,
    activation: float,
    inputs: Inputs,
    level: int,
    paytable: np.ndarray,
    clover_weights: np.ndarray,
) -> tuple[float, float]:
    """(P(round win = 0), E[Clover Moon Swap pays] in units) of the normal game, exactly.

    A coin must fail to activate its Pumpkin (weight 1 - p_act each); with a Collector on the
    screen any coin is a win (weight 0). A swap may follow only on a plain skeleton (no Booster,
    no 3 scatters); with 3 scatters the round pays nothing only if Free Spins pay nothing."""
    zero = 0.0
    clover = 0.0
    for collector in (False, True):
        dist = cells.copy()
        dist[OTHER_CLASS] *= 0.0 if collector else 1.0 - activation
        for kind in (SCREEN_PLAIN, SCREEN_BOOSTED, SCREEN_FREE_SPINS):
            swap = kind == SCREEN_PLAIN and level >= CLOVER_LEVEL
            z, pays = whole_screens(
                screens[:, :, kind + (SCREEN_KINDS if collector else 0)],
                dist,
                True,
                paytable,
                clover_weights,
                inputs.p_clover if swap else 0.0,
            )
            zero += z * (inputs.fs_zero if kind == SCREEN_FREE_SPINS else 1.0)
            clover += pays
    return zero, clover


def _cantelli(mean: float, sd: float) -> dict[str, Any]:
    """An upper bound that holds for any distribution with this mean and deviation (Cantelli's
    one-sided inequality): P(W >= cap) <= sd^2 / (sd^2 + (cap - mean)^2)."""
    t = MAX_WIN_X_STAKE - mean
    bound = sd * sd / (sd * sd + t * t)
    return {
        "x_stake": MAX_WIN_X_STAKE,
        "probability_at_most": bound,
        "one_in_at_least": 1 / bound,
        "method": "Cantelli's one-sided inequality from the computed mean and standard deviation "
        "(a bound that holds for any distribution; the true odds are longer)",
    }
