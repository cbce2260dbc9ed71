"""What a simulation run measured, merged exactly from integer sums (no float until the end)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from domain.game import simulation as S
from domain.game.state_vector import UNITS_PER_STAKE

Z99 = 2.5758293035489004  # two-sided 99% normal quantile


@dataclass
class RunTotals:
    """Integer sums of a run (or of a part of it): mergeable exactly, in any order."""

    acc: list[int] = field(default_factory=lambda: [0] * S.N_ACC)
    buckets: list[int] = field(default_factory=lambda: [0] * S.N_BUCKETS)
    curve: list[tuple[int, int]] = field(default_factory=list)  # (rounds, cumulative win)

    def merge(self, other: RunTotals) -> None:
        for i in range(S.N_ACC):
            if i == S.A_LARGEST:
                if other.acc[i] > self.acc[i]:
                    self.acc[S.A_LARGEST] = other.acc[S.A_LARGEST]
                    self.acc[S.A_LARGEST_INDEX] = other.acc[S.A_LARGEST_INDEX]
            elif i != S.A_LARGEST_INDEX:
                self.acc[i] += other.acc[i]
        for i in range(S.N_BUCKETS):
            self.buckets[i] += other.buckets[i]

    @property
    def rounds(self) -> int:
        return self.acc[S.A_ROUNDS]

    def summary(self) -> dict[str, Any]:
        n = self.rounds
        if n == 0:
            raise ValueError("no rounds played")
        stake = UNITS_PER_STAKE
        won = self.acc[S.A_WIN]
        squares = (self.acc[S.A_WIN_SQ_HI] << 32) + self.acc[S.A_WIN_SQ_LO]
        mean = won / (n * stake)
        variance = max(0.0, squares / (n * stake * stake) - mean * mean)
        sd = math.sqrt(variance)
        half = Z99 * sd / math.sqrt(n)
        return {
            "spins": n,
            "rtp": mean,
            "ci99_low": mean - half,
            "ci99_high": mean + half,
            "ci99_half_width": half,
            "std_dev": sd,
            "hit_frequency": self.acc[S.A_HITS] / n,
            "free_spins_frequency": self.acc[S.A_FS] / n,
            "hold_and_win_frequency": self.acc[S.A_HW] / n,
            "free_spins_one_in": _one_in(n, self.acc[S.A_FS]),
            "hold_and_win_one_in": _one_in(n, self.acc[S.A_HW]),
            "base_game_rtp": self.acc[S.A_BASE_WIN] / (n * stake),
            "free_spins_rtp": self.acc[S.A_FS_WIN] / (n * stake),
            "hold_and_win_rtp": self.acc[S.A_HW_WIN] / (n * stake),
            "wild_reels_frequency": self.acc[S.A_WILD_REELS] / n,
            "clover_moon_swap_frequency": self.acc[S.A_CLOVER] / n,
            "normal_game_collector_frequency": self.acc[S.A_COLLECTOR] / n,
            "booster_frequency": self.acc[S.A_BOOSTER] / n,
            "grand_jackpots": self.acc[S.A_GRAND],
            "jackpot_candies": sum(self.acc[S.A_CANDY : S.A_CANDY + 4]),
            "max_win_hits": self.acc[S.A_MAX_WIN_HITS],
            "largest_win_x_stake": self.acc[S.A_LARGEST] / stake,
            "largest_win_round_index": self.acc[S.A_LARGEST_INDEX],
            "average_free_spins": self.acc[S.A_FS_SPINS] / self.acc[S.A_FS]
            if self.acc[S.A_FS]
            else None,
        }


def _one_in(n: int, k: int) -> float | None:
    return n / k if k else None
