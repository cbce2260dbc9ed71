"""The round engine's public face: (player progress, stake, seed, model) -> the round's facts.

TEMPORARY STUB (to be replaced by the real engine with the same signature): a base spin only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from domain.board import STAKES
from domain.errors import InvalidStake
from domain.facts import Fact
from domain.progress import Progress, count_spin, unlock_if_due

MODEL_VERSION = "stub-0"


@dataclass(frozen=True)
class RoundOutcome:
    stake: int
    seed: bytes
    model_version: str
    progress_before: Progress
    progress_after: Progress
    facts: tuple[Fact, ...]
    total_win: int
    max_win_hit: bool


def check_stake(stake: int) -> None:
    if isinstance(stake, bool) or not isinstance(stake, int) or stake not in STAKES:
        raise InvalidStake(f"stake must be one of {', '.join(map(str, STAKES))} (minor units)")


def current_model_version() -> str:
    return MODEL_VERSION


def play_round(
    progress: Progress, stake: int, seed: bytes, model_version: str | None = None
) -> RoundOutcome:
    check_stake(stake)
    if len(seed) != 32:
        raise ValueError("a round seed is 32 bytes")
    facts: list[Fact] = []
    state, unlocked = unlock_if_due(progress)
    if unlocked is not None:
        facts.append(
            Fact("LevelUnlocked", {"level": unlocked, "spins_to_next_level": state.spins_to_next_level})
        )
    digest = hashlib.sha256(seed).digest()
    symbols = ["WITCH", "GHOST", "BAT", "CAT", "A", "K", "Q", "J", "TEN"]
    screen = [[symbols[digest[r * 3 + c] % 9] for c in range(3)] for r in range(5)]
    win = stake * 2 if digest[20] % 4 == 0 else 0
    facts.append(Fact("SymbolsLanded", {"step": 0, "kind": "base", "screen": screen}))
    facts.append(
        Fact(
            "SpinCompleted",
            {"step": 0, "kind": "base", "screen": screen, "line_wins": [], "multiplier": 1.0,
             "win": win},
        )
    )
    return RoundOutcome(
        stake=stake,
        seed=seed,
        model_version=model_version or MODEL_VERSION,
        progress_before=progress,
        progress_after=count_spin(state),
        facts=tuple(facts),
        total_win=win,
        max_win_hit=False,
    )
