"""Builds a model version at a target RTP on the calculator: an RTP variant, or its no-jackpot
model (`pumpkin math tune`, docs/MATH.md "RTP variants").

    pumpkin math tune --name pumpkin-v3-94 --rtp 0.94 --max-win 3750 [--no-jackpots] [--from V]

Every state scales version 2's reference probabilities by its factor k (the scatters and the
features' own probabilities by k^(1/3), the rest by k), k found by the secant method on the
computed RTP (the mean alone: the sd's sample is not needed); then one fine probability per
state (its trim knob, as version 2: the Clover Moon Swap from level 2, Wild Reels at level 1,
the scatter at level 0) moves until the computed RTP is within 0.005% of the target. A cap the
model reaches keeps back E[(W - cap)+] of the uncapped round win W: it is estimated by
importance sampling (infrastructure.mathtools.max_win) on the model tuned without it, the states
are tuned again with it, and the final model's own estimate is published beside it
(<name>.max_win.json) and counted in its computed RTP; a state that the final estimate leaves
outside 0.0075% of the target is trimmed again and its estimate re-run (the other states keep
theirs: their tables are unchanged). Levels 0-2 are not estimated (none comes near the caps:
their odds are stated as bounds, and what the cap keeps back there is taken as 0). A no-jackpot
model plays level 4 like level 3 (nothing new unlocks), so its level-4 table is level 3's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import structlog

from domain.game.calculator import state_math
from domain.game.journey import overall_odds
from domain.game.model import UNLOCK_LEVEL as UNLOCK
from domain.game.model import MathModel, all_states, model_for, registry, state_key
from infrastructure.mathtools.max_win import estimate_all
from infrastructure.mathtools.model_v2 import state_table, trim_knob
from infrastructure.mathtools.tuning import with_state

MODELS = Path(__file__).resolve().parents[2] / "domain" / "game" / "models"
TOLERANCE = 0.00005  # the tuning's aim: within 0.005% of the target
KEEP = 0.000075  # after the final estimate of what the cap keeps back: within 0.0075%
SCREENS = 1000  # the sd's sample, which the tuning does not read
FIRST_PILOT = 8_000  # the first estimate's pilot rounds (it only steers the tuning)
PILOT = 20_000  # the published estimate's pilot rounds per cross-entropy iteration and route
ITERATIONS = 12  # cross-entropy iterations (the levels reach the caps within 5 to 8)
# The states whose max win is estimated: levels 0-2 never came near a cap of 1,000 x (their
# largest wins in 10^8 rounds a state were below 1,000 x); theirs is stated as a bound.
REACHING = [state_key(*s) for s in all_states() if s[0] >= 3]
log = structlog.get_logger()

Excess = dict[str, float]  # E[(W - cap)+] x stake by state key


def rtp_of(
    d: dict[str, Any], state: tuple[int, int, int], table: dict[str, int], excess: float
) -> float:
    model = with_state(d, state_key(*state), table)
    return state_math(model, *state, screens=SCREENS, cap_excess=(excess, 0.0)).rtp


def tune_k(
    d: dict[str, Any], state: tuple[int, int, int], target: float, excess: float, k0: float
) -> float:
    """k with the state's computed RTP at `target` (secant; stops at the tables' resolution)."""
    level = state[0]
    k1 = k0 * 0.97
    r0 = rtp_of(d, state, state_table(level, k0), excess)
    r1 = rtp_of(d, state, state_table(level, k1), excess)
    best = min(((k0, r0), (k1, r1)), key=lambda kr: abs(kr[1] - target))
    for _ in range(12):
        if abs(r1 - target) < TOLERANCE or r1 == r0:
            break
        k2 = max(0.01, k1 + (target - r1) * (k1 - k0) / (r1 - r0))
        if state_table(level, k2) == state_table(level, k1):
            break
        k0, r0 = k1, r1
        k1, r1 = k2, rtp_of(d, state, state_table(level, k2), excess)
        best = min((best, (k1, r1)), key=lambda kr: abs(kr[1] - target))
    log.info("k", state=state_key(*state), k=round(best[0], 6), rtp=round(best[1], 7))
    return best[0]


def trim(
    d: dict[str, Any],
    state: tuple[int, int, int],
    table: dict[str, int],
    target: float,
    excess: float,
    tolerance: float = TOLERANCE,
) -> dict[str, int]:
    """The table with its trim knob moved (secant) until the computed RTP is within tolerance."""
    return trim_with(d, state, table, target, excess, trim_knob(state[0]), tolerance)


def trim_with(
    d: dict[str, Any],
    state: tuple[int, int, int],
    table: dict[str, int],
    target: float,
    excess: float,
    knob: str,
    tolerance: float = TOLERANCE,
) -> dict[str, int]:
    """The table with `knob` moved (secant) until the computed RTP is within tolerance."""
    x0, r0 = table[knob], rtp_of(d, state, table, excess)
    if abs(r0 - target) < tolerance:
        return table
    x1 = x0 + max(1, round(x0 * 0.02)) * (1 if r0 < target else -1)
    r1 = rtp_of(d, state, {**table, knob: x1}, excess)
    for _ in range(6):
        if r1 == r0 or abs(r1 - target) < tolerance:
            break
        x2 = round(x1 + (target - r1) * (x1 - x0) / (r1 - r0))
        if x2 == x1:
            break
        x0, r0 = x1, r1
        x1, r1 = x2, rtp_of(d, state, {**table, knob: x2}, excess)
    best = min(((x0, r0), (x1, r1)), key=lambda xr: abs(xr[1] - target))
    log.info("trim", state=state_key(*state), knob=knob, ppm=best[0], rtp=round(best[1], 7))
    return {**table, knob: best[0]}


def tune_states(
    d: dict[str, Any], target: float, excess: Excess, with_trim: bool, only: set[str] | None = None
) -> None:
    """Every state (or those in `only`) tuned onto the target, in place."""
    for state in all_states():
        key = state_key(*state)
        if only is not None and key not in only:
            continue
        if not d.get("jackpots", True) and state[0] == 4:
            d["states"][key] = dict(d["states"][state_key(3, 2, 2)])  # level 4 plays as level 3
            continue
        k = tune_k(d, state, target, excess.get(key, 0.0), d["states"][key]["scale_ppm"] / 1e6)
        table = state_table(state[0], k)
        if with_trim:
            table = trim(d, state, table, target, excess.get(key, 0.0))
        d["states"][key] = table


def lower_states(a: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    """The states of a lower level, or of the same level with no higher multipliers."""
    return [
        b
        for b in all_states()
        if b != a and (b[0] < a[0] or (b[0] == a[0] and b[1] <= a[1] and b[2] <= a[2]))
    ]


def monotone(d: dict[str, Any], target: float, excess: Excess) -> list[str]:
    """A trimmed knob that rose above a lower state's goes down to it, and the state's scatter
    (which has room: it scales by k^(1/3)) takes up the RTP; returns the states changed."""
    changed = []
    for a in all_states():
        key = state_key(*a)
        table = d["states"][key]
        knob = trim_knob(a[0])
        unlocked = [b for b in lower_states(a) if b[0] >= UNLOCK.get(knob, 0)]
        ceiling = min((d["states"][state_key(*b)][knob] for b in unlocked), default=table[knob])
        if table[knob] <= ceiling:
            continue
        table = {**table, knob: ceiling}
        d["states"][key] = trim_with(d, a, table, target, excess.get(key, 0.0), "scatter_ppm")
        changed.append(key)
    return changed


def initial(base: MathModel, name: str, rtp: float, max_win: int, jackpots: bool) -> dict[str, Any]:
    d: dict[str, Any] = json.loads(json.dumps(base.definition))
    d.update(name=name, target_rtp=rtp, max_win_x_stake=max_win, jackpots=jackpots)
    for key, table in d["states"].items():  # a first guess: the scales move with the RTP
        k = table["scale_ppm"] / 1e6 * (rtp / 0.96) ** 2 * (1.0 if jackpots else 1.15)
        d["states"][key] = state_table(int(key[1]), k)
    return d


def excess_of(figures: dict[str, Any]) -> Excess:
    return {k: float(s["cap_excess"]["x_stake"]) for k, s in figures["states"].items()}


def build(
    base: MathModel,
    name: str,
    rtp: float,
    max_win: int,
    jackpots: bool = True,
    rounds: int = 400_000,
    workers: int = 2,
    out_dir: Path = MODELS,
    first_excess: Excess | None = None,
) -> MathModel:
    """The tuned model, written with its max-win figures into `out_dir`. `first_excess`: what
    the cap keeps back by state, to tune on at first (e.g. a sibling variant's); without it a
    first, smaller estimate on the model tuned without the cap gives it."""
    d = initial(base, name, rtp, max_win, jackpots)
    if first_excess is None:
        tune_states(d, rtp, {}, with_trim=False)
        first = estimate_all(MathModel(d), rounds // 4, FIRST_PILOT, workers, REACHING, ITERATIONS)
        (out_dir / f"{name}.first_max_win.json").write_text(json.dumps(first, sort_keys=True))
        excess = excess_of(first)
    else:
        excess = first_excess
    log.info("excess", by_state={k: round(v, 7) for k, v in excess.items()})
    tune_states(d, rtp, excess, with_trim=True)
    monotone(d, rtp, excess)
    figures = estimate_all(MathModel(d), rounds, PILOT, workers, REACHING, ITERATIONS)
    for _ in range(3):
        final = {state_key(*s): 0.0 for s in all_states()} | excess_of(figures)
        off = {
            state_key(*s)
            for s in all_states()
            if abs(rtp_of(d, s, d["states"][state_key(*s)], final[state_key(*s)]) - rtp) > KEEP
        }
        if not off:
            break
        log.info("retrim", states=sorted(off))
        for state in all_states():
            key = state_key(*state)
            if key in off:
                d["states"][key] = trim(d, state, d["states"][key], rtp, final[key])
        off |= set(monotone(d, rtp, final))
        again = estimate_all(MathModel(d), rounds, PILOT, workers, sorted(off), ITERATIONS)
        figures = {**figures, "model_version": again["model_version"]}
        figures["states"] = {**figures["states"], **again["states"]}
    model = MathModel(d)
    figures["model_version"] = model.version
    figures["overall"] = overall_odds(model, level5_probabilities(figures))
    (out_dir / f"{name}.json").write_text(json.dumps(d, indent=1, sort_keys=True) + "\n")
    text = json.dumps(figures, indent=1, sort_keys=True) + "\n"
    (out_dir / f"{name}.max_win.json").write_text(text)
    return model


def level5_probabilities(figures: dict[str, Any]) -> dict[str, float]:
    """Each level-5 state's estimated P(W >= cap) (0 where nothing reached it)."""
    out = {}
    for key, s in figures["states"].items():
        if key.startswith("L5/"):
            log10 = s.get("log10_probability")
            out[key] = 0.0 if log10 is None else 10.0**log10
    return out


def base_model(name: str) -> MathModel:
    for model in registry().values():
        if model.name == name:
            return model
    return model_for(name)
