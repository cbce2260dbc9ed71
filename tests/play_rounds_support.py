"""Rounds with a given feature for the play page's browser tests, found by seed with the live
engine and shown exactly as the API answers a round (domain.ledger.recall.round_view), so the page
fixture replays real rounds without playing hundreds of spins to reach a feature."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from domain.game.engine import RoundOutcome, play_round
from domain.game.progress import Progress
from domain.ledger.recall import round_view

# Which event names a round must hold to show a feature.
FEATURES = {
    "free_spins": "FreeSpinsStarted",
    "hold_and_win": "HoldAndWinStarted",
    "swap": "CloverMoonSwapped",
    "wild_reels": "WildReelsTriggered",
    "collector": "NormalGameCollectorCollected",
    "jackpot": "JackpotWon",
}
# The first seed (sha256 of "<level>:<i>") with each feature on the current model; if the model
# changes, `feature_round` searches on from them.
KNOWN = {"free_spins": (2, 463), "hold_and_win": (2, 32), "swap": (2, 79),
         "wild_reels": (2, 374), "collector": (4, 236), "jackpot": (4, 164)}
STAKE = 100


def seed_of(level: int, index: int) -> bytes:
    return hashlib.sha256(f"{level}:{index}".encode()).digest()


def _outcomes(level: int, start: int) -> Iterator[tuple[int, RoundOutcome]]:
    progress = Progress(level=level, spins_to_next_level=30 if level < 5 else None)
    for index in range(start, start + 20_000):
        yield index, play_round(progress, STAKE, seed_of(level, index))


def recorded(outcome: RoundOutcome, round_id: str, session_id: str, nonce: int,
             balance_before: int = 100_000) -> dict[str, Any]:
    """The outcome as the API answers it (no provably fair fields but nonce and seeds)."""
    before, after = outcome.progress_before.recorded(), outcome.progress_after.recorded()
    start = {"round_id": round_id, "player_id": round_id.split(".")[0], "session_id": session_id,
             "stake": outcome.stake, "seed": outcome.seed.hex(),
             "model_version": outcome.model_version, "balance_before": balance_before,
             "balance_after": balance_before - outcome.stake, "nonce": nonce,
             "client_seed": "", "seed_commitment": "0" * 64, **before,
             "session_before": [nonce - 1, (nonce - 1) * STAKE, 0, 60]}
    settled = {"round_id": round_id, "total_win": outcome.total_win,
               "balance_after": balance_before - outcome.stake + outcome.total_win,
               "max_win_hit": outcome.max_win_hit, **after}
    events = [("StakePlaced", start), *((f.name, f.payload) for f in outcome.facts),
              ("RoundSettled", settled)]
    return round_view(events)


def feature_round(feature: str) -> RoundOutcome:
    """The first round from the known seed on that shows `feature`."""
    level, start = KNOWN[feature]
    for _, outcome in _outcomes(level, start):
        if any(f.name == FEATURES[feature] for f in outcome.facts):
            return outcome
    raise AssertionError(f"no {feature} round in 20,000 seeds")

