"""Builds model version 2 (domain/game/models/pumpkin-v2.json), tuned on the calculator.

Every state scales one set of reference probabilities by its factor k: the scatters (normal game
and Free Spins) and the features' own probabilities by k^(1/3), every other triggering
probability by k. k is found by the secant method on the computed RTP (domain.game.calculator)
until the state is at 96.00%; as unlocked features and higher multipliers add value, k falls with
the level and the multipliers, and so does every triggering probability
(tests/integration/mathtools/test_game_model_v2.py). A table rounded to whole ppm moves the RTP in
steps (a ppm of the Pumpkin activation alone is about 2e-4), so `--trim` then moves one fine
probability per state, its trim knob (the normal game's Clover Moon Swap from level 2, Wild Reels
at level 1, the scatter at level 0), until the computed RTP is within 0.005% of 96.00%.
(Version 2 was tuned when the calculator still sampled the Clover Moon Swap part; its RTP is
exact since, and every state stayed within 0.005% of 96.00%. `--screens` now only sets the
sample of the standard deviation, which the tuning does not use.)

    python -m infrastructure.mathtools.model_v2 [--screens 300000] [--only KEY,KEY]
    python -m infrastructure.mathtools.model_v2 --guess 1.015 --only KEY,KEY  # from v1's scales
    python -m infrastructure.mathtools.model_v2 --trim [--only KEY,KEY]  # onto 96.00%, finely
    python -m infrastructure.mathtools.model_v2 --publish  # every state tuned: publish the draft

The draft (domain/game/models/drafts/pumpkin-v2.json) records each state's k (scale_ppm) as it is
tuned; `--publish` moves it to domain/game/models/ once every state is, and the current model
name (domain.game.model.CURRENT_MODEL_NAME) then moves to it. Version 2 was published so; a
published version never changes (its rounds record its hash), so a change of the math is a new
version built the same way.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import structlog

from domain.game.calculator import state_math
from domain.game.calculator.state import DEFAULT_SCREENS
from domain.game.model import FEATURE_KEYS, all_states, model_for, state_key
from infrastructure.mathtools.tuning import scaled_table, with_state

TARGET_RTP = 0.96
TOLERANCE = 0.00005
MODELS = Path(__file__).resolve().parents[2] / "domain" / "game" / "models"
MODEL_FILE = MODELS / "drafts" / "pumpkin-v2.json"  # a draft is not published (not loaded)
PUBLISHED_FILE = MODELS / "pumpkin-v2.json"
BASED_ON = "pumpkin-v1-4af96d8ef079b16a"

REFERENCE = {  # at k = 1, parts per million
    "scatter_ppm": 170_000,
    "activation_ppm": 11_000,
    "wild_reels_ppm": 8_000,
    "clover_ppm": 30_000,
    "collector_ppm": 40_000,
    "booster_ppm": 40_000,
    "free_spins_scatter_ppm": 120_000,
    "free_spins_wild_reels_ppm": 30_000,
    "free_spins_clover_ppm": 100_000,
    "hold_and_win_activation_ppm": 30_000,
}
_CUBE_ROOT = frozenset({"scatter_ppm", *FEATURE_KEYS})

log = structlog.get_logger()


def state_table(level: int, k: float) -> dict[str, int]:
    return scaled_table(level, k, REFERENCE, _CUBE_ROOT)


def initial_definition() -> dict[str, Any]:
    d: dict[str, Any] = json.loads(json.dumps(model_for(BASED_ON).definition))
    d["name"] = "pumpkin-v2"
    d["engine"]["kernel"] = 2
    for name in FEATURE_KEYS:
        d.pop(name)
    d["states"] = {state_key(*s): state_table(s[0], 0.5) for s in all_states()}
    return d


LAST: dict[str, dict[str, Any]] = {}  # each state's last computed figures, by state key


def rtp_at(d: dict[str, Any], state: tuple[int, int, int], k: float, screens: int) -> float:
    return table_rtp(d, state, state_table(state[0], k), screens)


def tune(d: dict[str, Any], state: tuple[int, int, int], screens: int) -> tuple[float, float]:
    """(k, dRTP/dk) for the state at 96.00% (the computed RTP; `screens` only sets the sd's
    sample)."""
    k0, k1 = 0.8, 0.4
    r0, r1 = rtp_at(d, state, k0, screens), rtp_at(d, state, k1, screens)
    for _ in range(12):
        k2 = max(0.01, k1 + (TARGET_RTP - r1) * (k1 - k0) / (r1 - r0))
        k0, r0 = k1, r1
        k1, r1 = k2, rtp_at(d, state, k2, screens)
        log.info("step", state=state_key(*state), k=round(k1, 6), rtp=round(r1, 6))
        if abs(r1 - TARGET_RTP) < TOLERANCE:
            break
    return k1, (r1 - r0) / (k1 - k0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--screens", type=int, default=300_000)
    parser.add_argument("--final-screens", type=int, default=DEFAULT_SCREENS)
    parser.add_argument("--only", default="")
    parser.add_argument("--out", type=Path, default=MODEL_FILE)
    parser.add_argument(
        "--guess",
        type=float,
        default=0.0,
        help="start every state at (this x version 1's scale) on the final sample, skipping the "
        "search (the slope taken as 0.48 / k)",
    )
    parser.add_argument("--publish", action="store_true", help="publish the draft, tuned")
    parser.add_argument(
        "--trim", action="store_true", help="trim each tuned state onto 96.00%% by its trim knob"
    )
    args = parser.parse_args()
    if args.publish:
        PUBLISHED_FILE.write_text(MODEL_FILE.read_text())
        MODEL_FILE.unlink()  # one file per version: the published one
        return
    d = json.loads(MODEL_FILE.read_text()) if MODEL_FILE.exists() else initial_definition()
    only = set(filter(None, args.only.split(",")))
    for state in all_states():
        key = state_key(*state)
        if only and key not in only:
            continue
        if args.trim:
            d["states"][key] = trim(d, state)
            _save(args.out, d, key)
            continue
        if args.guess:
            k = args.guess * model_for(BASED_ON).state(*state)["scale_ppm"] / 1e6
            k = tune_from(d, state, k, 0.48 / k, args.final_screens)
        else:
            k, slope = tune(d, state, args.screens)
        if not args.guess and args.final_screens != args.screens:
            k = tune_from(d, state, k, slope, args.final_screens)
        d["states"][key] = state_table(state[0], k)
        _save(args.out, d, key)


def _save(out: Path, d: dict[str, Any], key: str) -> None:
    out.write_text(json.dumps(d, indent=1, sort_keys=True) + "\n")
    if LAST[key]["parameters"] == {
        n: v for n, v in d["states"][key].items() if n != "scale_ppm"
    }:  # the figures of the final table: par_report --computed can reuse them
        figures_file = out.with_suffix(".figures.json")
        saved = json.loads(figures_file.read_text()) if figures_file.exists() else {}
        saved[key] = LAST[key]
        figures_file.write_text(json.dumps(saved, indent=1, sort_keys=True) + "\n")


TRIM_KNOB = {0: "scatter_ppm", 1: "wild_reels_ppm"}  # from level 2 on: clover_ppm


def trim_knob(level: int) -> str:
    """The probability that trims a state onto 96.00% after k: one whose single ppm moves the RTP
    by a few 1e-6 (k moves every table at once, and a ppm of the Pumpkin activation alone moves
    it by about 2e-4)."""
    return TRIM_KNOB.get(level, "clover_ppm")


def table_rtp(
    d: dict[str, Any],
    state: tuple[int, int, int],
    table: dict[str, int],
    screens: int = DEFAULT_SCREENS,
) -> float:
    """The state's computed RTP with `table` (its figures kept in LAST)."""
    model = with_state(d, state_key(*state), table)
    figures = state_math(model, *state, screens=screens)
    LAST[state_key(*state)] = {
        **figures.as_dict(),
        "parameters": model.probabilities(*state),
        "screens": screens,
    }
    return figures.rtp


def trim(d: dict[str, Any], state: tuple[int, int, int]) -> dict[str, int]:
    """The state's table with its trim knob moved (secant method) until the computed RTP is
    within TOLERANCE of 96.00%; the table's other probabilities stay as k made them."""
    table = dict(d["states"][state_key(*state)])
    knob = trim_knob(state[0])
    x0, r0 = table[knob], table_rtp(d, state, table)
    log.info("trim", state=state_key(*state), knob=knob, ppm=x0, rtp=round(r0, 7))
    if abs(r0 - TARGET_RTP) < TOLERANCE:
        return table
    x1 = x0 + max(1, round(x0 * 0.02)) * (1 if r0 < TARGET_RTP else -1)
    r1 = table_rtp(d, state, {**table, knob: x1})
    for _ in range(4):
        if r1 == r0:
            break
        x2 = round(x1 + (TARGET_RTP - r1) * (x1 - x0) / (r1 - r0))
        if x2 == x1:
            break
        x0, r0 = x1, r1
        x1, r1 = x2, table_rtp(d, state, {**table, knob: x2})
        log.info("trim", state=state_key(*state), knob=knob, ppm=x1, rtp=round(r1, 7))
        if abs(r1 - TARGET_RTP) < TOLERANCE:
            break
    best = min(((x0, r0), (x1, r1)), key=lambda xr: abs(xr[1] - TARGET_RTP))
    if best[0] != x1:
        table_rtp(d, state, {**table, knob: best[0]})  # LAST holds the figures of the table kept
    return {**table, knob: best[0]}


def tune_from(
    d: dict[str, Any], state: tuple[int, int, int], k: float, slope: float, screens: int
) -> float:
    """Refine k on the larger sample the published figures use, along the search's slope."""
    for _ in range(4):
        rtp = rtp_at(d, state, k, screens)
        log.info("final", state=state_key(*state), k=round(k, 6), rtp=round(rtp, 6))
        if abs(rtp - TARGET_RTP) < TOLERANCE:
            break
        k += (TARGET_RTP - rtp) / slope
        if state_table(state[0], k) == state_table(state[0], k - (TARGET_RTP - rtp) / slope):
            break  # the step is below the tables' resolution (1 ppm)
    return k


if __name__ == "__main__":
    main()
