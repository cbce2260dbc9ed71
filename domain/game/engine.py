"""The round engine: (player progress, stake, seed, model version) -> the round's facts.

Pure and deterministic: the same inputs give the same facts, byte for byte, on any machine.
The compiled kernel (domain.game.kernel) plays the round from the seed's ChaCha20 stream and writes
a trace; this module turns the trace into the named facts of domain.game.facts, in money (minor
units).
The Spin Progress meter (steps 2 and 11 of a normal spin) is applied here, around the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from domain.errors import InvalidStake
from domain.game import state_vector as L
from domain.game.board import JACKPOTS_X_STAKE, REELS, ROWS, STAKES
from domain.game.facts import Fact
from domain.game.kernel import play
from domain.game.model import MathModel, current_model, model_for
from domain.game.progress import NEW_PLAYER, Progress, count_spin, unlock_if_due
from domain.game.rng import SEED_BYTES, new_generator
from domain.game.symbols import (
    BONUSES,
    CANDY,
    COIN,
    COLLECTOR,
    EMPTY,
    JACKPOT_TIERS,
    KINDS,
    PAYING,
    WILD,
    cell_name,
)

_cell_name = cache(cell_name)  # a screen's names, each made once per process

_TRACE_WORDS = 1 << 10  # the trace buffer a round starts with (int64 words)
_TRACE_GROWTH = 4  # a round that overflows it is played again with this many times the room
CELLS = REELS * ROWS  # a screen, reel by reel (cell = reel * ROWS + row)
BASE_KIND = KINDS.index("base")  # the kind code of a base-game screen


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


def check_stake(stake: object) -> int:
    if isinstance(stake, bool) or not isinstance(stake, int) or stake not in STAKES:
        raise InvalidStake(f"stake must be one of {', '.join(map(str, STAKES))} (minor units)")
    return stake


def play_round(
    progress: Progress, stake: int, seed: bytes, model_version: str | None = None
) -> RoundOutcome:
    """Resolve one whole round on a published model: every step, every feature, settled."""
    model = model_for(model_version) if model_version else current_model()
    return resolve_round(model, progress, stake, seed)


def resolve_round(model: MathModel, progress: Progress, stake: int, seed: bytes) -> RoundOutcome:
    """Resolve one whole round on the given model (published or not: tests use their own)."""
    check_stake(stake)
    if len(seed) != SEED_BYTES:
        raise ValueError("a round seed is 32 bytes (256 bits)")
    state, unlocked = unlock_if_due(progress)
    trace, out = _run_kernel(model, state, seed)
    facts: list[Fact] = []
    if unlocked is not None:
        facts.append(
            Fact(
                "LevelUnlocked",
                {"level": unlocked, "spins_to_next_level": state.spins_to_next_level},
            )
        )
    facts.extend(_Decoder(stake // L.UNITS_PER_STAKE).decode(trace))
    after = count_spin(state)
    after = Progress(
        after.level,
        after.spins_to_next_level,
        int(out[L.O_HW_HALVES]),
        int(out[L.O_FS_HALVES]),
    )
    return RoundOutcome(
        stake=stake,
        seed=seed,
        model_version=model.version,
        progress_before=progress,
        progress_after=after,
        facts=tuple(facts),
        total_win=int(out[L.O_WIN]) * (stake // L.UNITS_PER_STAKE),
        max_win_hit=bool(out[L.O_MAX_WIN]),
    )


def warm_up() -> None:
    """Compile the kernel (or load it from numba's cache) now, not on a player's first spin:
    a first compile is slow. Plays one throwaway round on a fixed seed."""
    resolve_round(current_model(), NEW_PLAYER, STAKES[0], bytes(SEED_BYTES))


def _run_kernel(model: MathModel, state: Progress, seed: bytes) -> tuple[np.ndarray, np.ndarray]:
    params = model.params(state.level, state.hold_and_win_halves, state.free_spins_halves)
    size = _TRACE_WORDS
    while True:
        trace = np.zeros(size, dtype=np.int64)
        out = np.zeros(L.N_OUT, dtype=np.int64)
        play(
            new_generator(seed),
            params,
            state.level,
            state.hold_and_win_halves,
            state.free_spins_halves,
            trace,
            True,
            out,
        )
        if trace[0] >= 0:
            return trace, out
        size *= _TRACE_GROWTH  # a very long round: play it again, identically, with room


def _reels(mask: int) -> list[int]:
    return [reel + 1 for reel in range(REELS) if mask & (1 << reel)]


class _Decoder:
    """Turns the kernel's trace into facts; keeps the screen each step shows."""

    def __init__(self, unit: int) -> None:
        self.unit = unit  # minor units per kernel unit (stake / UNITS_PER_STAKE)
        self.stake = unit * L.UNITS_PER_STAKE
        self.cells = np.zeros(CELLS, dtype=np.int64)
        self.vals = np.zeros(CELLS, dtype=np.int64)
        self.base_cells = self.cells
        self.base_vals = self.vals
        self.line_wins: list[dict[str, Any]] = []

    def screen(self) -> list[list[str]]:
        cells, vals = self.cells.tolist(), self.vals.tolist()
        return [
            [_cell_name(cells[r * ROWS + row], vals[r * ROWS + row]) for row in range(ROWS)]
            for r in range(REELS)
        ]

    def coins(self, cells: np.ndarray, vals: np.ndarray, times: int = 1) -> list[dict[str, int]]:
        found = []
        for i in range(CELLS):
            if cells[i] == COIN:
                value = int(vals[i]) * self.stake  # a coin's value is x stake
                coin = {"reel": i // ROWS + 1, "row": i % ROWS, "value": value}
                if times > 1:
                    coin["times"] = times
                found.append(coin)
        return found

    def decode(self, trace: np.ndarray) -> list[Fact]:
        facts: list[Fact] = []
        p, end = 1, int(trace[0])
        while p < end:
            rec = trace[p : p + L.REC].tolist()
            p += L.REC
            if rec[0] == L.R_LANDED:
                self.cells = trace[p : p + CELLS].copy()
                self.vals = trace[p + CELLS : p + 2 * CELLS].copy()
                p += 2 * CELLS  # the record is followed by the screen's cells, then its values
                if rec[2] == BASE_KIND:
                    self.base_cells, self.base_vals = self.cells, self.vals
                self.line_wins = []
                payload = {"step": rec[1], "kind": KINDS[rec[2]], "screen": self.screen()}
                facts.append(Fact("SymbolsLanded", payload))
            else:
                fact = self._fact(rec)
                if fact is not None:
                    facts.append(fact)
        return facts

    def _fact(self, rec: list[int]) -> Fact | None:  # noqa: C901 - one branch per record type
        kind, step, a, b, c, d, e = rec[0], rec[1], rec[2], rec[3], rec[4], rec[5], rec[6]
        money = self.unit
        if kind == L.R_LINE:
            self.line_wins.append(
                {"line": a + 1, "symbol": PAYING[b], "count": c, "win": d * money}
            )
            return None
        if kind == L.R_WILD_REELS:
            for reel in _reels(a):
                for row in range(ROWS):
                    self.cells[(reel - 1) * ROWS + row] = WILD
                    self.vals[(reel - 1) * ROWS + row] = 0
            return Fact(
                "WildReelsTriggered", {"step": step, "reels": _reels(a), "screen": self.screen()}
            )
        if kind == L.R_CLOVER:
            positions = [[i // ROWS + 1, i % ROWS] for i in range(CELLS) if b & (1 << i)]
            for i in range(CELLS):
                if b & (1 << i):
                    self.cells[i] = a
            self.line_wins = []
            payload = {
                "step": step,
                "symbol": PAYING[a],
                "positions": positions,
                "screen": self.screen(),
            }
            return Fact("CloverMoonSwapped", payload)
        if kind == L.R_COLLECTOR:
            coins = self.coins(self.cells, self.vals)
            return Fact(
                "NormalGameCollectorCollected", {"step": step, "coins": coins, "win": a * money}
            )
        if kind == L.R_BOOSTER:
            payload = {"step": step, "bonus": BONUSES[a], "multiplier_halves": b}
            return Fact("BoosterLanded", payload)
        if kind == L.R_ACTIVATED:
            phase = "base" if b == 0 else "hold_and_win"
            return Fact("PumpkinActivated", {"step": step, "reel": a + 1, "phase": phase})
        if kind == L.R_FS_AWARDED:
            payload = {"step": step, "count": a, "scatters": b, "spins_left": c}
            return Fact("FreeSpinsAwarded", payload)
        if kind == L.R_SPIN_DONE:
            payload = {
                "step": step,
                "kind": KINDS[a],
                "screen": self.screen(),
                "line_wins": self.line_wins,
                "multiplier_halves": b,
                "win": c * money,
            }
            return Fact("SpinCompleted", payload)
        if kind == L.R_HW_STARTED:
            return self._hold_and_win_started(step, a, b, c, d)
        if kind == L.R_PRIZES:
            n = bin(b).count("1")
            jackpots = [
                {
                    "reel": i // ROWS + 1,
                    "row": i % ROWS,
                    "tier": JACKPOT_TIERS[int(self.vals[i])],
                    "value": JACKPOTS_X_STAKE[JACKPOT_TIERS[int(self.vals[i])]] * self.stake,
                }
                for i in range(CELLS)
                if self.cells[i] == CANDY
            ]
            payload = {
                "step": step,
                "coins": self.coins(self.cells, self.vals, n),
                "jackpots": jackpots,
                "collectors": _reels(b),
                "respins_left": a,
                "collected": c * money,
                "multiplier_halves": e,
                "win": d * money,
            }
            return Fact("PrizesCollected", payload)
        if kind == L.R_JACKPOT:
            return Fact("JackpotWon", {"step": step, "tier": JACKPOT_TIERS[a], "amount": b * money})
        if kind == L.R_HW_ENDED:
            payload = {"collected": a * money, "multiplier_halves": b, "win": c * money}
            return Fact("HoldAndWinEnded", payload)
        if kind == L.R_FS_STARTED:
            return Fact("FreeSpinsStarted", {"spins": a, "multiplier_halves": b})
        if kind == L.R_FS_ENDED:
            payload = {"spins_played": a, "multiplier_halves": b, "win": c * money}
            return Fact("FreeSpinsEnded", payload)
        if kind == L.R_MAX_WIN:
            return Fact("MaxWinReached", {"step": step, "cap": a * money})
        raise ValueError(f"unknown trace record {kind}")

    def _hold_and_win_started(
        self, step: int, mask: int, halves: int, collected: int, win: int
    ) -> Fact:
        n = bin(mask).count("1")
        coins = self.coins(self.base_cells, self.base_vals, n)
        cells = np.where(self.base_cells == COIN, COIN, EMPTY)
        vals = np.where(self.base_cells == COIN, self.base_vals, 0)
        for reel in _reels(mask):
            cells[(reel - 1) * ROWS : reel * ROWS] = COLLECTOR
            vals[(reel - 1) * ROWS : reel * ROWS] = 0
        self.cells, self.vals = cells, vals
        payload = {
            "step": step,
            "collectors": _reels(mask),
            "screen": self.screen(),
            "coins": coins,
            "multiplier_halves": halves,
            "collected": collected * self.unit,
            "win": win * self.unit,
        }
        return Fact("HoldAndWinStarted", payload)
