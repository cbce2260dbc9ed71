"""Game recall: the round as docs/CONTRACT.md shows it, built from its recorded events alone.

The spin answer, the rounds read model and the regulator's dispute report all call `round_view`,
so a round always reads back exactly as it was answered.

The aggregate's own two payloads around the engine's facts (see domain.game.facts):
- StakePlaced {round_id, player_id, session_id, request_id, stake, seed, model_version,
               balance_before, balance_after, level, spins_to_next_level,
               hold_and_win_halves, free_spins_halves, ...}
- RoundSettled {round_id, total_win, balance_after, level, spins_to_next_level,
                hold_and_win_halves, free_spins_halves, max_win_hit}
(the multipliers in halves; domain.ledger.recorded_progress reads the first release's numbers)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from domain.game.facts import JSON
from domain.ledger.recorded_progress import shown_step_multiplier

_STEP_EXTRAS: dict[str, Callable[[Mapping[str, JSON]], dict[str, Any]]] = {
    "WildReelsTriggered": lambda p: {"wild_reels": p["reels"]},
    "CloverMoonSwapped": lambda p: {
        "clover_moon_swap": {"symbol": p["symbol"], "positions": p["positions"]}
    },
    "NormalGameCollectorCollected": lambda p: {
        "normal_game_collector": {"coins": p["coins"], "win": p["win"]}
    },
    "BoosterLanded": lambda p: {
        "booster": {"bonus": p["bonus"], "multiplier": shown_step_multiplier(p)}
    },
    "FreeSpinsAwarded": lambda p: {
        "free_spins_awarded": p["count"],
        "free_spins_left": p["spins_left"],
    },
}


# Recorded by provably fair rounds (domain.ledger.fairness); rounds recorded before have none of
# them.
_FAIR_FIELDS = ("nonce", "client_seed", "seed_commitment")


def round_view(events: Iterable[tuple[str, Mapping[str, JSON]]]) -> dict[str, Any]:
    """The round of docs/CONTRACT.md from its events, in stored order."""
    names: list[str] = []
    steps: dict[int, dict[str, Any]] = {}
    start: Mapping[str, JSON] = {}
    settled: Mapping[str, JSON] = {}
    for name, payload in events:
        names.append(name)
        if name == "StakePlaced":
            start = payload
        elif name == "RoundSettled":
            settled = payload
        elif "step" in payload:
            _apply_to_step(steps.setdefault(int(payload["step"]), {}), name, payload)
    if not start or not settled:
        raise ValueError("a round needs its StakePlaced and RoundSettled events")
    return {
        "round_id": start["round_id"],
        "player_id": start["player_id"],
        "session_id": start["session_id"],
        "stake": start["stake"],
        "total_win": settled["total_win"],
        "balance_before": start["balance_before"],
        "balance_after": settled["balance_after"],
        "level_before": start["level"],
        "level_after": settled["level"],
        "seed": start["seed"],
        "model_version": start["model_version"],
        "max_win_hit": settled["max_win_hit"],
        "steps": [steps[i] for i in sorted(steps)],
        "events": names,
        **{key: start[key] for key in _FAIR_FIELDS if key in start},
        **_session_after(start, settled),
        **({"free_round": start["free_round"]} if start.get("free_round") else {}),
    }


def _session_after(start: Mapping[str, JSON], settled: Mapping[str, JSON]) -> dict[str, Any]:
    """The session's running figures after the round (rounds recorded before: none)."""
    before = start.get("session_before")
    if not isinstance(before, list):
        return {}
    spins, staked, won, elapsed = (int(v) for v in before)
    staked += int(start["stake"])
    won += int(settled["total_win"])
    return {"session": {"spins": spins + 1, "staked": staked, "won": won, "net": won - staked,
                        "elapsed_seconds": elapsed}}


def _apply_to_step(step: dict[str, Any], name: str, p: Mapping[str, JSON]) -> None:
    if name == "SymbolsLanded":
        step.update(kind=p["kind"], landed_screen=p["screen"], screen=p["screen"])
        step.setdefault("line_wins", [])
        step.setdefault("multiplier", 1.0)
        step.setdefault("win", 0)
    elif name in ("WildReelsTriggered", "CloverMoonSwapped"):
        step["screen"] = p["screen"]
        step.update(_STEP_EXTRAS[name](p))
    elif name == "SpinCompleted":
        step.update(
            kind=p["kind"],
            screen=p["screen"],
            line_wins=p["line_wins"],
            multiplier=shown_step_multiplier(p),
            win=p["win"],
        )
    elif name == "PumpkinActivated":
        step.setdefault("pumpkins_activated", []).append(p["reel"])
    elif name == "HoldAndWinStarted":
        step.update(
            kind="hold_and_win",
            screen=p["screen"],
            landed_screen=p["screen"],
            line_wins=[],
            collectors=p["collectors"],
            collections=p["coins"],
            jackpots=[],
            collected=p["collected"],
            respins_left=3,
            multiplier=shown_step_multiplier(p),
            win=p["win"],
        )
    elif name == "PrizesCollected":
        step.update(
            collections=p["coins"],
            jackpots=p["jackpots"],
            collectors=p["collectors"],
            respins_left=p["respins_left"],
            collected=p["collected"],
            multiplier=shown_step_multiplier(p),
            win=p["win"],
        )
    elif name == "JackpotWon":
        step.setdefault("jackpots_won", []).append({"tier": p["tier"], "amount": p["amount"]})
    elif name == "MaxWinReached":
        step["max_win_reached"] = True
    elif name in _STEP_EXTRAS:
        step.update(_STEP_EXTRAS[name](p))
