"""Each state's actual RTP beside its computed RTP and 99% band, from the statistics view.

One round's return is far from normal (most rounds pay nothing, a few pay hundreds of times the
stake), so the normal approximation (rtp +/- 2.576 sd/sqrt(n)) flagged healthy states on a few
dozen rounds. The band here is exact whatever the distribution: Chebyshev's inequality gives
P(|actual - rtp| >= k sd/sqrt(n)) <= 1/k^2, so k = 10 bounds the chance of a healthy state
falling outside at 1% (sd: the state's standard deviation of one round's return per unit stake,
from the PAR sheet published beside the rules document). It is wider than the normal band, never
narrower than the truth. Below MIN_ROUNDS rounds a state is "too few rounds", never flagged."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.game.rules_document import par_results

K99 = 10.0  # Chebyshev: 1 / K99^2 = 1%
MIN_ROUNDS = 1_000  # below it a state's RTP is shown, never judged
ALL_STATES = "all states"


@dataclass
class StateRtp:
    state: str
    model_version: str
    level: int
    rounds: int = 0
    staked: int = 0
    won: int = 0
    computed_rtp: float | None = None
    std_dev: float | None = None
    # (rounds so far, actual RTP so far), one point per day
    growth: list[tuple[int, float]] = field(default_factory=list)

    @property
    def actual_rtp(self) -> float | None:
        return self.won / self.staked if self.staked else None

    def band(self, rounds: float | None = None) -> tuple[float, float] | None:
        n = self.rounds if rounds is None else rounds
        if self.computed_rtp is None or self.std_dev is None or n <= 0:
            return None
        half = K99 * self.std_dev / math.sqrt(n)
        return max(self.computed_rtp - half, 0.0), self.computed_rtp + half  # RTP is never < 0

    @property
    def too_few_rounds(self) -> bool:
        return self.rounds < MIN_ROUNDS

    @property
    def outside_band(self) -> bool:
        band, actual = self.band(), self.actual_rtp
        if self.too_few_rounds or band is None or actual is None:
            return False
        return not band[0] <= actual <= band[1]


def all_states(states: list[StateRtp]) -> StateRtp | None:
    """Every state together: the sums, the computed RTP weighted by stake, and the band of
    the whole (each state's variance weighted by its mean stake); None for fewer than two
    states (the one state is the whole)."""
    if len(states) < 2:
        return None
    whole = StateRtp(ALL_STATES, "", -1)
    for s in states:
        whole.rounds += s.rounds
        whole.staked += s.staked
        whole.won += s.won
    judged = [s for s in states if s.computed_rtp is not None and s.std_dev is not None]
    if whole.staked and whole.rounds and len(judged) == len(states):
        whole.computed_rtp = sum(s.staked * (s.computed_rtp or 0.0) for s in states) / whole.staked
        variance = sum((s.staked / s.rounds) ** 2 * s.rounds * (s.std_dev or 0.0) ** 2
                       for s in states if s.rounds)
        whole.std_dev = math.sqrt(whole.rounds * variance) / whole.staked
    return whole


def state_rtps(
    buckets: Iterable[Mapping[str, Any]],
    growth: Mapping[tuple[str, str], list[tuple[int, float]]] | None = None,
) -> list[StateRtp]:
    """One StateRtp per (state, model version); its growth as the read model kept it, or else
    day by day from the buckets (they come by day)."""
    found: dict[tuple[str, str], StateRtp] = {}
    for bucket in buckets:
        key = (str(bucket["state"]), str(bucket["model_version"]))
        rtp = found.get(key)
        if rtp is None:
            rtp = found[key] = StateRtp(
                key[0],
                key[1],
                int(bucket["level"]),
                computed_rtp=_number(bucket.get("theoretical_rtp")),
                std_dev=_std_dev(*key),
            )
        rtp.rounds += int(bucket["rounds"])
        rtp.staked += int(bucket["staked"])
        rtp.won += int(bucket["won"])
        if rtp.staked:
            rtp.growth.append((rtp.rounds, rtp.won / rtp.staked))
    for key, rtp in found.items():
        if growth and growth.get(key):
            rtp.growth = list(growth[key])
    return sorted(found.values(), key=lambda s: (s.model_version, s.level, s.state))


def _std_dev(state: str, model_version: str) -> float | None:
    figures = par_results(model_version).get("states", {}).get(state, {})
    return _number(figures.get("std_dev"))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
