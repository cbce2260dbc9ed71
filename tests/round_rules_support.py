"""Invariants of every round (the screens each state allows, wins in line bets, Hold & Win's
respins, the meter), checked on a round played from a seed; and a model with every feature
made frequent, so that the rare paths are exercised too. Shared by the unit tier (the live model)
and the integration tier (the frequent-feature model, many more rounds)."""

from __future__ import annotations

from typing import Any

from game_support import model_with, state_progress

from domain.game.engine import RoundOutcome, resolve_round
from domain.game.model import MathModel, all_states
from domain.ledger.recall import round_view

HOT = model_with(
    hold_and_win_cell_weights=[150, 40, 810],
    free_spins_scatter_ppm=300_000,
    states={
        "scatter_ppm": 450_000,
        "activation_ppm": 150_000,
        "wild_reels_ppm": 100_000,
        "clover_ppm": 500_000,
        "collector_ppm": 300_000,
        "booster_ppm": 300_000,
    },
)
STATES = all_states()


def view(outcome: RoundOutcome) -> dict[str, Any]:
    start = {
        "round_id": "p.1",
        "player_id": "p",
        "session_id": "s",
        "stake": outcome.stake,
        "seed": outcome.seed.hex(),
        "model_version": outcome.model_version,
        "balance_before": 0,
        "level": outcome.progress_before.level,
    }
    settled = {
        "total_win": outcome.total_win,
        "balance_after": 0,
        "level": outcome.progress_after.level,
        "max_win_hit": outcome.max_win_hit,
    }
    events = [
        ("StakePlaced", start),
        *((f.name, f.payload) for f in outcome.facts),
        ("RoundSettled", settled),
    ]
    return round_view(events)


def check_screen_rules(level: int, hw: int, fs: int, step: dict[str, Any]) -> None:
    landed = step["landed_screen"]
    cells = [c for reel in landed for c in reel]
    if step["kind"] in ("base", "free_spin"):
        for r, reel in enumerate(landed):
            scatters = reel.count("SCATTER")
            assert scatters <= 1 and (scatters == 0 or r in (0, 2, 4))
        assert sum(c.startswith("COIN") for c in cells) <= 12
        boosters = [c for c in cells if c.startswith("BOOSTER")]
        assert len(boosters) <= 1
        if boosters:
            assert level == 5
            assert boosters[0] != "BOOSTER:HW" or hw < 6
            assert boosters[0] != "BOOSTER:FS" or fs < 6
        ngc = [
            (r, row) for r, reel in enumerate(landed) for row, c in enumerate(reel) if c == "NGC"
        ]
        assert not ngc or (level >= 3 and len(ngc) == 2 and ngc[0][0] == ngc[1][0])
    if step["kind"] == "free_spin":
        assert all(c in ("WILD", "SCATTER") or c.isalpha() and c.isupper() for c in cells)
        assert not any(c.startswith(("COIN", "NGC", "BOOSTER")) for c in cells)
    if step["kind"] == "hold_and_win":
        assert all(c.startswith(("COIN", "CANDY", "COLLECTOR", "EMPTY")) for c in cells)
        assert sum(c.startswith("CANDY") for c in cells) <= (4 if level >= 4 else 0)
    if "wild_reels" in step:
        assert level >= 1 and 1 <= len(step["wild_reels"]) <= 4
    if "clover_moon_swap" in step:
        assert level >= 2 and step["clover_moon_swap"]["positions"]
        assert step["line_wins"]  # the swapped screen wins


def check_round(model: MathModel, seed: bytes, state: tuple[int, int, int]) -> None:
    level, hw, fs = state
    outcome = resolve_round(model, state_progress(level, hw, fs), 100, seed)
    again = resolve_round(model, state_progress(level, hw, fs), 100, seed)
    assert again == outcome  # same seed, same round
    round_ = view(outcome)
    assert sum(s["win"] for s in round_["steps"]) == outcome.total_win <= 10_000 * 100
    assert outcome.max_win_hit == (outcome.total_win == 10_000 * 100)
    assert isinstance(outcome.total_win, int)
    respins = None
    collectors = 0
    for step in round_["steps"]:
        check_screen_rules(level, hw, fs, step)
        assert isinstance(step["win"], int) and step["win"] >= 0
        for w in step["line_wins"]:
            assert w["win"] % 10 == 0  # a line bet (stake / 10) times the paytable
        if step["kind"] == "hold_and_win":
            collectors = len(step["collectors"])
            assert collectors <= (5 if level >= 4 else 4)
            if respins is not None:
                landed = any(c.startswith(("COIN", "CANDY")) for r in step["screen"] for c in r)
                assert step["respins_left"] == (3 if landed else respins - 1)
            respins = step["respins_left"]
    names = [f.name for f in outcome.facts]
    if "HoldAndWinStarted" in names and "FreeSpinsStarted" in names:
        assert names.index("HoldAndWinStarted") < names.index("FreeSpinsStarted")
    after = outcome.progress_after
    if level == 5 and "HoldAndWinEnded" in names:
        assert after.hold_and_win_halves == 3
    if level == 5 and "FreeSpinsEnded" in names:
        assert after.free_spins_halves == 3
    if level < 5:
        assert (after.hold_and_win_halves, after.free_spins_halves) == (2, 2)
