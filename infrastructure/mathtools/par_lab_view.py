"""What a certification lab reads beside the PAR table (issue 26 item 5), per state of a model:

- the volatility index at 90% and 95% (z x sd of one round's win, in x stake: the band a
  single round's return falls in about that often, in the normal approximation labs use);
- the RTP bands a player meets after 10^3 ... 10^7 rounds (RTP +- z95 x sd / sqrt(n));
- the win distribution by band of the round's total win in x stake (0, (0, 1), [1, 2), ...,
  the max win), every band of the simulator's histogram with none left out, as frequency and
  "1 in".

Every figure comes from the model's published files: `sd` and `rtp` from the calculator
(<model>.math.json), the bands from the PAR simulation (<model>.par.json).
"""

from __future__ import annotations

import math
from typing import Any

from domain.game.model import all_states, state_key
from domain.game.simulation import BUCKET_EDGES_X

Z90 = 1.6448536269514722  # two-sided 90% normal quantile
Z95 = 1.959963984540054  # two-sided 95% normal quantile
PLAYER_ROUNDS = (10**3, 10**4, 10**5, 10**6, 10**7)


def band_names() -> list[str]:
    """The histogram's bands in order, as the simulator names them (domain.game.simulation)."""
    edges = BUCKET_EDGES_X
    names = ["0", f"(0, {edges[1]})"]
    names += [f"[{low}, {high})" for low, high in zip(edges[1:], edges[2:], strict=False)]
    return [*names, f">= {edges[-1]}"]


def volatility(sd: float) -> dict[str, float]:
    return {"vi90": Z90 * sd, "vi95": Z95 * sd}


def rtp_bands(rtp: float, sd: float) -> list[tuple[int, float, float]]:
    """(rounds, low, high): the 95% band of the RTP a player meets after that many rounds."""
    return [
        (n, rtp - Z95 * sd / math.sqrt(n), rtp + Z95 * sd / math.sqrt(n)) for n in PLAYER_ROUNDS
    ]


def ordered_keys(states: dict[str, Any]) -> list[str]:
    """The states in the game's order (levels 0-4, then level 5 by multipliers)."""
    keys = [state_key(*state) for state in all_states()]
    return [key for key in keys if key in states] + sorted(set(states) - set(keys))


def lab_view_section(computed: dict[str, Any], simulated: dict[str, Any]) -> list[str]:
    keys = ordered_keys(computed)
    lines = [
        "## A lab's view",
        "",
        "Volatility index (z x the sd of one round's win, in x stake) at 90% and 95%, and the "
        "95% band of the RTP a player meets after 10^3 ... 10^7 rounds (computed RTP +- z95 x "
        "sd / sqrt(rounds)), from the computed figures.",
        "",
        "| state | sd | VI 90% | VI 95% | "
        + " | ".join(f"RTP after 10^{round(math.log10(n))}" for n in PLAYER_ROUNDS)
        + " |",
        "|---|---:|---:|---:|" + "---|" * len(PLAYER_ROUNDS),
    ]
    for key in keys:
        c = computed[key]
        vi = volatility(c["sd"])
        bands = " | ".join(
            f"{low:.2%} .. {high:.2%}" for _, low, high in rtp_bands(c["rtp"], c["sd"])
        )
        lines.append(f"| {key} | {c['sd']:.2f} | {vi['vi90']:.2f} | {vi['vi95']:.2f} | {bands} |")
    names = band_names()
    lines += [
        "",
        "Win distribution by band of the round's total win (x stake), from the simulation: the "
        "share of rounds in each band (below 1%: 1 in how many rounds), every band shown.",
        "",
        "| state | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for key in keys:
        counts = simulated.get(key, {}).get("win_distribution")
        if not counts:
            continue
        total = sum(counts.get(name, 0) for name in names)
        lines.append(
            f"| {key} | " + " | ".join(_share(counts.get(name, 0), total) for name in names) + " |"
        )
    return [*lines, ""]


def _share(count: int, total: int) -> str:
    if count == 0 or total == 0:
        return "0"
    share = count / total
    return f"1 in {total / count:,.0f}" if share < 0.01 else f"{share:.2%}"
