"""Each state's actual RTP beside its computed RTP and 99% band, from the statistics view.

The band after n rounds is rtp +/- 2.576 x sd / sqrt(n), with the state's standard deviation of
one round's return (per unit stake) from the PAR sheet published beside the rules document. A
state outside its band is flagged: at 99% that happens by chance once in a hundred states."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.game.rules_document import par_results

Z99 = 2.5758293035489


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
        half = Z99 * self.std_dev / math.sqrt(n)
        return max(self.computed_rtp - half, 0.0), self.computed_rtp + half  # RTP is never < 0

    @property
    def outside_band(self) -> bool:
        band, actual = self.band(), self.actual_rtp
        return band is not None and actual is not None and not band[0] <= actual <= band[1]


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
