"""The rules document (PAR sheet): the game as published, for players, operators and labs.

Built from the current math model; the measured figures of each state (RTP with its 99%
confidence interval, hit and feature frequencies) come from the model's PAR results, produced by
`python -m infrastructure.mathtools.par_report` with the live engine and published beside the model.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from domain.game.board import (
    BOOSTER_LEVEL,
    CLOVER_LEVEL,
    COLLECTOR_LEVEL,
    JACKPOTS_LEVEL,
    JACKPOTS_X_STAKE,
    LEVEL_SPINS,
    MAX_WIN_X_STAKE,
    PAYLINES,
    STAKES,
    WILD_REELS_LEVEL,
)
from domain.game.line_expectation import base_line_rtp, free_spin_line_rtp
from domain.game.max_win_odds import cantelli_of, stated_odds
from domain.game.model import MathModel, all_states, current_model, state_key
from domain.game.progress import X1, multiplier_of
from domain.game.symbols import COIN_VALUES, HIGH, LOW

DISCLOSURES = [
    "The probabilities of triggering the bonuses (Free Spins, Hold & Win) and the unlocked "
    "features (Wild Reels, Clover Moon Swap, Normal Game Collector, Bonus Booster) fall as the "
    "Spin Progress level rises and as the boosted bonus multipliers rise, so that the expected "
    "return stays at 96.0% in every state. The 'states' table lists each probability.",
    "No probability depends on past results: only on the level, the two bonus multipliers and "
    "the current step of the round.",
    "The graphical presentation of gold and rainbow elements on the Pumpkins is purely for "
    "visual entertainment and has no influence on the triggering of the feature.",
    f"The maximum win is {MAX_WIN_X_STAKE:,} x the stake per round; reaching it ends the round "
    "and forfeits the rest of its features.",
    "Every round is drawn from a fresh 256-bit seed (operating system CSPRNG) through ChaCha20 "
    "with unbiased integer scaling; the seed and the math model version are recorded with the "
    "round so that it can be re-derived exactly.",
    "Malfunction voids all pays and plays.",
]
# From kernel 2 (model version 2) on: what the model does where version 1 was silent.
DISCLOSURES_KERNEL_2 = [
    "Every triggering probability, inside the features too (scatters in Free Spins, Wild Reels "
    "and Clover Moon Swap in Free Spins, Pumpkin activations in Hold & Win), is set state by "
    "state and is no higher in a state than in any state of a lower level or of the same level "
    "with no higher multipliers; the 'states' table lists every one.",
    "The Normal Game Collector lands only on a reel with no Scatter on it (it never covers a "
    "Scatter).",
    "Clover Moon Swap is only ever triggered on a screen where a swap can make a win (a line "
    "whose first 3 or more symbols are paying symbols or Wilds); its chance in the table is the "
    "chance on such a screen, and when triggered it always makes a win.",
    "RTP, hit frequency and feature frequencies of each state are computed exactly from the "
    "model (enumeration of every screen's skeleton and of the symbols that decide line wins and "
    "Clover Moon Swap, a Markov chain for Hold & Win, Wald's identity for Free Spins); the "
    "standard deviation uses in addition a fixed sample of screens with every later step "
    "averaged exactly, and its standard error is published. All are cross-checked by "
    "simulation.",
    "The odds of the maximum win are published per state: by importance sampling of the game's "
    "own engine (rounds drawn from more generous probabilities, each weighted by its exact "
    "likelihood ratio), with the 99% confidence interval, where that estimate is reliable and "
    "not contradicted by the simulations; otherwise as bounds that hold: the exact binomial "
    "(Clopper-Pearson) 99% upper bound from the count of maximum wins in the certification "
    "simulation of the live engine, and Cantelli's inequality from the computed mean and "
    "standard deviation (which holds for any distribution), the true odds being longer than the "
    "figure shown.",
]


def disclosures(model: MathModel) -> list[str]:
    if int(model.definition["engine"]["kernel"]) >= 2:
        return DISCLOSURES + DISCLOSURES_KERNEL_2
    return list(DISCLOSURES)


@cache
def par_results(model_version: str) -> dict[str, Any]:
    """The published PAR run of a model version ({} if none was published)."""
    for entry in resources.files("domain.game.models").iterdir():
        if entry.name.endswith(".par.json"):
            results: dict[str, Any] = json.loads(entry.read_text())
            if results.get("model_version") == model_version:
                return results
    return {}


@cache
def computed_figures(model_version: str) -> dict[str, Any]:
    """The model's computed figures (`pumpkin math`, published beside the model by
    `python -m infrastructure.mathtools.par_report`), {} if none were published."""
    for entry in resources.files("domain.game.models").iterdir():
        if entry.name.endswith(".math.json"):
            figures: dict[str, Any] = json.loads(entry.read_text())
            if figures.get("model_version") == model_version:
                return figures
    return {}


@cache
def current_rules_document() -> dict[str, Any]:
    """The current model's document, built once per process: it takes a few hundred ms (exact
    enumerations) and cannot change while the process runs. Callers must not modify it."""
    return rules_document()


def rules_document(model: MathModel | None = None) -> dict[str, Any]:
    model = model or current_model()
    d = model.definition
    par = par_results(model.version)
    measured = par.get("states", {})
    computed = computed_figures(model.version).get("states", {})
    level0 = model.probabilities(0, X1, X1)
    states = []
    for level, hw, fs in all_states():
        key = state_key(level, hw, fs)
        table = d["states"][key]
        figures = computed.get(key)
        simulated = measured.get(key, {})
        probabilities = model.probabilities(level, hw, fs)
        states.append(
            {
                "state": key,
                "level": level,
                "hold_and_win_multiplier": multiplier_of(hw),
                "free_spins_multiplier": multiplier_of(fs),
                "rtp": figures["rtp"] if figures else simulated.get("rtp"),
                "rtp_method": "computed" if figures else "simulated",
                "computed": figures,
                "rtp_ci99": [simulated.get("ci99_low"), simulated.get("ci99_high")]
                if simulated
                else None,
                "simulated_spins": simulated.get("spins"),
                "hit_frequency": figures["hit_frequency"]
                if figures
                else simulated.get("hit_frequency"),
                "free_spins_one_in": figures["free_spins_one_in"]
                if figures
                else simulated.get("free_spins_one_in"),
                "hold_and_win_one_in": figures["hold_and_win_one_in"]
                if figures
                else simulated.get("hold_and_win_one_in"),
                "sd": figures["sd"] if figures else None,
                "volatility_index": figures["volatility_index"] if figures else None,
                "max_win_odds": _state_odds(model, key, figures, simulated),
                "feature_scale": table.get("scale_ppm", 1_000_000) / 1e6,
                "scatter_chance_per_reel": table["scatter_ppm"] / 1e6,
                "pumpkin_activation_chance_per_coin": table["activation_ppm"] / 1e6,
                "wild_reels_chance": table["wild_reels_ppm"] / 1e6,
                "clover_moon_swap_chance": table["clover_ppm"] / 1e6,
                "normal_game_collector_chance": table["collector_ppm"] / 1e6,
                "booster_chance": table["booster_ppm"] / 1e6,
                "free_spins_scatter_chance_per_reel": probabilities["free_spins_scatter_ppm"] / 1e6,
                "free_spins_wild_reels_chance": probabilities["free_spins_wild_reels_ppm"] / 1e6,
                "free_spins_clover_moon_swap_chance": probabilities["free_spins_clover_ppm"] / 1e6,
                "hold_and_win_activation_chance_per_coin": probabilities[
                    "hold_and_win_activation_ppm"
                ]
                / 1e6,
                "base_game_line_rtp_exact": round(base_line_rtp(model, table["scatter_ppm"])[0], 6)
                if level == 0
                else None,
            }
        )
    return {
        "game": "Pumpkin",
        "model_version": model.version,
        "stakes": list(STAKES),
        "line_bet": "stake / 10",
        "paylines": [list(line) for line in PAYLINES],
        "paytable": {
            symbol: {str(n): pays for n, pays in zip((3, 4, 5), row, strict=True)}
            for symbol, row in model.paytable.items()
        },
        "symbols": _symbols(),
        "coin_values_x_stake": list(COIN_VALUES),
        "jackpots_x_stake": dict(JACKPOTS_X_STAKE),
        "spin_progress": {
            "spins_per_level": list(LEVEL_SPINS),
            "unlocks": {
                str(WILD_REELS_LEVEL): "Wild Reels",
                str(CLOVER_LEVEL): "Clover Moon Swap",
                str(COLLECTOR_LEVEL): "Normal Game Collector",
                str(JACKPOTS_LEVEL): "Jackpots",
                str(BOOSTER_LEVEL): "Bonus Booster",
            },
        },
        "free_spins": {
            "award": {"3 scatters": 10},
            "retrigger": {"2 scatters": 5, "3 scatters": 10},
            "chances": "per state: states[].free_spins_* (they fall with the level and the "
            "multipliers)",
            "line_rtp_per_spin_exact_level_0": round(
                free_spin_line_rtp(model, level0["free_spins_scatter_ppm"])[0], 6
            ),
        },
        "hold_and_win": {
            "respins": 3,
            "cell_weights": dict(
                zip(("COIN", "CANDY", "EMPTY"), d["hold_and_win_cell_weights"], strict=True)
            ),
            "pumpkin_activation_chance_per_coin": "per state: "
            "states[].hold_and_win_activation_chance_per_coin",
            "jackpot_tier_weights": dict(
                zip(("MINI", "MINOR", "MAJOR", "MAXI"), d["jackpot_weights"], strict=True)
            ),
        },
        "target_rtp": 0.96,
        "states": states,
        "max_win": {
            "x_stake": MAX_WIN_X_STAKE,
            "odds": _max_win_odds(states, par),
        },
        "par_run": {k: par[k] for k in ("master_seed", "generated", "total_spins") if k in par},
        "disclosures": disclosures(model),
    }


def _state_odds(
    model: MathModel, key: str, figures: dict[str, Any] | None, simulated: dict[str, Any]
) -> dict[str, Any] | None:
    """The state's max-win odds as published (domain.game.max_win_odds): importance sampling
    where reliable and not rejected by the PAR run's count of max wins, Cantelli's bound
    always."""
    if not figures:
        return None
    seen = (int(simulated["spins"]), int(simulated.get("max_win_hits", 0))) if simulated else None
    return stated_odds(model.version, key, cantelli_of(figures["max_win_odds"]), seen)


def _max_win_odds(states: list[dict[str, Any]], par: dict[str, Any]) -> dict[str, Any] | None:
    """The odds in the state where the max win is likeliest (the largest bound on its
    probability), with every state's statement; without computed figures, the PAR run's own."""
    stated = [(s["state"], s["max_win_odds"]) for s in states if s["max_win_odds"]]
    if not stated:
        odds: dict[str, Any] | None = par.get("max_win_odds")
        return odds
    key, odds = max(stated, key=lambda item: item[1]["probability_at_most"])
    return {
        "one_in_at_least": round(odds["one_in_at_least"]),
        "most_likely_state": key,
        "statement": odds["statement"],
        "method": odds["method"],
        "by_state": {k: o["statement"] for k, o in stated},
        "observed_in_simulation": par.get("max_win_odds", {}).get("observed_max_wins"),
    }


def _symbols() -> list[dict[str, str]]:
    paying = [{"name": s, "kind": "high", "pays": "left to right, 3-5 in a row"} for s in HIGH]
    paying += [{"name": s, "kind": "low", "pays": "left to right, 3-5 in a row"} for s in LOW]
    return paying + [
        {
            "name": "WILD",
            "kind": "wild",
            "pays": "substitutes for every paying symbol; 5 WILD pay the highest five of a kind",
        },
        {"name": "SCATTER", "kind": "scatter", "pays": "reels 1, 3, 5; 3 award 10 Free Spins"},
        {"name": "COIN:<x stake>", "kind": "cash", "pays": "1, 2, 3, 5, 7 or 10 x stake"},
        {"name": "NGC", "kind": "collector", "pays": "Normal Game Collector (1x2), level 3+"},
        {"name": "BOOSTER:HW|FS", "kind": "booster", "pays": "+0.5 to a bonus multiplier, level 5"},
        {"name": "COLLECTOR", "kind": "hold_and_win", "pays": "collects every coin, every respin"},
        {"name": "CANDY:MINI|MINOR|MAJOR|MAXI", "kind": "hold_and_win", "pays": "a jackpot"},
        {"name": "EMPTY", "kind": "hold_and_win", "pays": "nothing"},
    ]
