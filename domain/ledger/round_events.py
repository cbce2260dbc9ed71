"""A round's events on the Player's stream: its stake (StakePlaced), one event per fact of the
engine's play (RoundFact's kinds), its settlement (RoundSettled); which events make a round, and
the payload domain.ledger.recall.round_view reads from each. The Player's other events are
domain.ledger.player_events'; like them, each only assigns what its command decided, and its
stored name (TOPIC) is permanent (domain.ledger.event_names)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from domain.game.facts import JSON, ROUND_FACTS
from domain.ledger.guard import with_round_settled, with_round_started
from domain.ledger.hashchain import STORED_DIGEST
from domain.ledger.player_events import PlayerEvent, spin_fingerprint
from domain.ledger.protection import LEDGER_SECONDS
from domain.ledger.recorded_progress import (
    upcast_multipliers_to_halves,
    upcast_step_multiplier_to_halves,
)

if TYPE_CHECKING:
    from domain.ledger.player import Player


class StepMultiplierInHalves:
    """Mixed into the round facts that carry a multiplier: version 2 stores it in halves
    (`multiplier_halves`); version 1 stored the number (domain.ledger.recorded_progress)."""

    class_version = 2
    upcast_v1_v2 = staticmethod(upcast_step_multiplier_to_halves)


class StakePlaced(PlayerEvent):
    TOPIC = "domain.player:Player.StakePlaced"
    round_id: str
    player_id: str
    session_id: str
    request_id: str
    stake: int
    seed: str
    model_version: str
    balance_before: int
    balance_after: int
    level: int
    spins_to_next_level: int | None
    # Version 3: the multipliers in halves (versions 1 and 2 stored hold_and_win_multiplier
    # and free_spins_multiplier, numbers such as 1.5; domain.ledger.recorded_progress).
    hold_and_win_halves: int
    free_spins_halves: int
    # Provably fair rounds (absent from rounds recorded before; None in old sessions).
    nonce: int | None = None
    client_seed: str = ""
    seed_commitment: str | None = None
    # The session's spins, staked, won and seconds open before this round (domain.ledger.recall
    # shows the figures after it in the round's "session").
    session_before: list[int] | None = None
    # Version 2 added free_round: the campaign of a free round (None: a paid round).
    free_round: str | None = None
    class_version = 3

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        state["free_round"] = None

    @staticmethod
    def upcast_v2_v3(state: dict[str, Any]) -> None:
        upcast_multipliers_to_halves(state)

    def apply(self, player: Player) -> None:
        player.balance = self.balance_after
        player.rounds += 1
        player.round_session = self.session_id
        at = self.timestamp
        staked = 0 if self.free_round else self.stake
        player.guard = with_round_started(
            player.guard, self.session_id, staked, at.timestamp(), LEDGER_SECONDS
        )
        entry = player.sessions[self.session_id].with_round(
            player.rounds, staked, self.nonce, at.isoformat()
        )
        player.sessions = {**player.sessions, self.session_id: entry}
        if self.free_round:
            played = player.free_rounds[self.free_round].played_one()
            player.free_rounds = {**player.free_rounds, self.free_round: played}
        player.remember(
            self.request_id,
            spin_fingerprint(self.session_id, self.stake, self.client_seed, self.free_round),
            self.originator_version,
        )


class RoundFact(PlayerEvent):
    """One fact of the engine's play, in order; `payload` is the fact's payload."""

    TOPIC = "domain.player:Player.RoundFact"
    round_id: str
    payload: dict[str, Any]


class LevelUnlocked(RoundFact):
    TOPIC = "domain.player:Player.LevelUnlocked"


class SymbolsLanded(RoundFact):
    TOPIC = "domain.player:Player.SymbolsLanded"


class WildReelsTriggered(RoundFact):
    TOPIC = "domain.player:Player.WildReelsTriggered"


class CloverMoonSwapped(RoundFact):
    TOPIC = "domain.player:Player.CloverMoonSwapped"


class NormalGameCollectorCollected(RoundFact):
    TOPIC = "domain.player:Player.NormalGameCollectorCollected"


class BoosterLanded(StepMultiplierInHalves, RoundFact):
    TOPIC = "domain.player:Player.BoosterLanded"


class PumpkinActivated(RoundFact):
    TOPIC = "domain.player:Player.PumpkinActivated"


class FreeSpinsAwarded(RoundFact):
    TOPIC = "domain.player:Player.FreeSpinsAwarded"


class SpinCompleted(StepMultiplierInHalves, RoundFact):
    TOPIC = "domain.player:Player.SpinCompleted"


class HoldAndWinStarted(StepMultiplierInHalves, RoundFact):
    TOPIC = "domain.player:Player.HoldAndWinStarted"


class PrizesCollected(StepMultiplierInHalves, RoundFact):
    TOPIC = "domain.player:Player.PrizesCollected"


class JackpotWon(RoundFact):
    TOPIC = "domain.player:Player.JackpotWon"


class HoldAndWinEnded(StepMultiplierInHalves, RoundFact):
    TOPIC = "domain.player:Player.HoldAndWinEnded"


class FreeSpinsStarted(StepMultiplierInHalves, RoundFact):
    TOPIC = "domain.player:Player.FreeSpinsStarted"


class FreeSpinsEnded(StepMultiplierInHalves, RoundFact):
    TOPIC = "domain.player:Player.FreeSpinsEnded"


class MaxWinReached(RoundFact):
    TOPIC = "domain.player:Player.MaxWinReached"


class RoundSettled(PlayerEvent):
    TOPIC = "domain.player:Player.RoundSettled"
    round_id: str
    total_win: int
    balance_after: int
    level: int
    spins_to_next_level: int | None
    # Version 2: the multipliers in halves (version 1 stored hold_and_win_multiplier and
    # free_spins_multiplier, numbers such as 1.5; domain.ledger.recorded_progress).
    hold_and_win_halves: int
    free_spins_halves: int
    max_win_hit: bool
    class_version = 2

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        upcast_multipliers_to_halves(state)

    def apply(self, player: Player) -> None:
        player.balance = self.balance_after
        player.level = self.level
        player.spins_to_next_level = self.spins_to_next_level
        player.hold_and_win_halves = self.hold_and_win_halves
        player.free_spins_halves = self.free_spins_halves
        session_id = player.round_session
        entry = player.sessions[session_id].with_win(self.total_win)
        player.sessions = {**player.sessions, session_id: entry}
        player.round_session = ""
        player.guard = with_round_settled(player.guard, self.total_win)


def json_value(payload: Mapping[str, JSON]) -> dict[str, JSON]:
    """A payload exactly as it will read back from the store (tuples become lists)."""
    value: dict[str, JSON] = orjson.loads(orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS))
    return value


ROUND_EVENTS: dict[str, type[RoundFact]] = {
    name: globals()[name] for name in ROUND_FACTS
}
ROUND_EVENT_NAMES = frozenset(("StakePlaced", "RoundSettled", *ROUND_FACTS))
_ENVELOPE = frozenset(
    ("originator_id", "originator_version", "timestamp", "prev_hash", STORED_DIGEST)
)


def round_event_payload(event: object) -> tuple[str, dict[str, Any]]:
    """(name, payload) of a stored round event, as domain.ledger.recall.round_view reads it."""
    name = type(event).__name__
    if isinstance(event, RoundFact):
        return name, dict(event.payload)
    return name, {k: v for k, v in vars(event).items() if k not in _ENVELOPE}


def in_round(event: object) -> bool:
    """Whether a stored event is part of a round (its stake, a fact of its play, its
    settlement), by what it is."""
    return type(event).__name__ in ROUND_EVENT_NAMES and isinstance(event, PlayerEvent)
