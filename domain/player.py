"""The Player aggregate: money, Spin Progress, sessions and whole rounds, rebuilt by replay.

Commands validate and compute; events only assign. Nothing here draws randomness, reads a clock
or does I/O: the application draws the round seed (and session ids, token hashes) first and
passes them in. Every event carries `prev_hash`, the digest of the event before it in this
stream (domain.hashchain), so the stream is tamper-evident.

Exactly once: at least the last RECENT_REQUESTS request ids are kept (up to RECENT_SLACK more),
each with a fingerprint of its body and a reference to its result (the balance after a deposit
or withdrawal, the version of a round's StakePlaced). A request id older than that window is
answered from its durable key (infrastructure/request_keys.py), which the application records
in the same transaction and hands back through `recall_request`.

State is held in JSON-native values (ints, strings, dicts of lists) so snapshots encode it as is.
Container entries are replaced, never mutated in place, so a copy only needs shallow dict copies.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any
from uuid import UUID, uuid5

import orjson
from eventsourcing.domain import Aggregate

from domain.board import MAX_WIN_X_STAKE
from domain.engine import RoundOutcome, check_stake, play_round
from domain.errors import (
    BalanceCap,
    InsufficientFunds,
    RequestIdReused,
    SessionClosed,
    SessionNotFound,
)
from domain.event_names import stored_name
from domain.facts import JSON, ROUND_FACTS
from domain.hashchain import GENESIS, STORED_DIGEST, digest_of
from domain.identifiers import check_amount, check_player_id, check_request_id, is_player_id
from domain.progress import NEW_PLAYER, Progress, recorded_progress
from domain.protection import (
    EMPTY_GUARD,
    Profile,
    check_access,
    check_round,
    with_round_settled,
    with_round_started,
)

NAMESPACE = UUID("6a0e7d3c-58f4-4b9c-9a51-2f1d6c0b7e11")  # fixed: ids must never change
RECENT_REQUESTS = 10_000
# The window is trimmed back to RECENT_REQUESTS once it holds this many more, in one rebuild.
# Deleting its oldest key one at a time leaves holes at the front of the dict, and both finding
# the oldest key and copying the dict (every command copies the player) then cost the whole
# capacity: a player with a full window spun measurably slower (bench/RESULTS.md).
RECENT_SLACK = 1_024
# No balance passes this (2^53 - 1 minor units): past it, JSON clients (doubles) lose precision.
# A deposit that would pass it is refused; so is a spin whose largest possible win would (the
# balance after the stake plus MAX_WIN_X_STAKE stakes), so a settlement never has to be.
BALANCE_CAP = 2**53 - 1


@functools.lru_cache(maxsize=65_536)
def player_aggregate_id(player_id: str) -> UUID:
    return uuid5(NAMESPACE, f"player:{player_id}")


def round_id_of(player_id: str, number: int) -> str:
    return f"{player_id}.{number}"


_ROUND_NUMBER = re.compile(r"[1-9][0-9]{0,17}")  # ASCII, no leading zero: one spelling per round


def parse_round_id(round_id: str) -> tuple[str, int] | None:
    player_id, _, number = round_id.rpartition(".")
    if not is_player_id(player_id) or not _ROUND_NUMBER.fullmatch(number):
        return None
    return player_id, int(number)


def _json_value(payload: Mapping[str, JSON]) -> dict[str, JSON]:
    """The payload exactly as it will read back from the store (tuples become lists)."""
    value: dict[str, JSON] = orjson.loads(orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS))
    return value


class ChainLink:
    """Mixed into every Player event: after applying, the aggregate's head is this event."""

    def mutate(self, aggregate: Any) -> Any:
        result = super().mutate(aggregate)  # type: ignore[misc]
        result.chain_head = digest_of(self, stored_name(type(self)))
        return result


class Player(Aggregate):
    # Permanent stored names (domain.event_names): frozen to what the first release wrote.
    TOPIC = "domain.player:Player"

    # Also the class default: a player restored from a snapshot taken before protection
    # existed has none in its state (its guard is only ever replaced, never changed in place).
    guard = EMPTY_GUARD

    class Event(ChainLink, Aggregate.Event):
        # No TOPIC: never stored, so a subclass that forgets its own fails at import.
        JSON_NATIVE_STATE = True  # every field a JSON value but the timestamp (fast to encode)
        prev_hash: str

    class Created(Event, Aggregate.Created):
        TOPIC = "domain.player:Player.Created"  # the library's default; Registered is used

    class Registered(ChainLink, Aggregate.Created):
        TOPIC = "domain.player:Player.Registered"
        JSON_NATIVE_STATE = True
        prev_hash: str
        player_id: str

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.balance = 0
        self.level = NEW_PLAYER.level
        self.spins_to_next_level = NEW_PLAYER.spins_to_next_level
        self.hold_and_win_halves = NEW_PLAYER.hold_and_win_halves
        self.free_spins_halves = NEW_PLAYER.free_spins_halves
        self.rounds = 0
        self.recent: dict[str, list[Any]] = {}  # request_id -> [fingerprint, result ref]
        self.sessions: dict[str, list[Any]] = {}  # session_id -> [open, spins, staked, won]
        self.round_session = ""  # the session of the round being recorded
        self.chain_head = GENESIS
        self.guard = EMPTY_GUARD  # player protection (domain.protection), copy-on-write

    @classmethod
    def register(cls, player_id: str) -> Player:
        check_player_id(player_id)
        return cls._create(
            cls.Registered,
            id=player_aggregate_id(player_id),
            player_id=player_id,
            prev_hash=GENESIS,
        )

    def trigger_event(self, event_class: Any, **kwargs: Any) -> None:
        super().trigger_event(event_class, prev_hash=self.chain_head, **kwargs)

    def __deepcopy__(self, memo: dict[int, Any]) -> Player:
        # Entries are never mutated in place, so shallow copies of the containers are enough.
        copy = object.__new__(type(self))
        state = dict(self.__dict__)
        state["recent"] = dict(self.recent)
        state["sessions"] = dict(self.sessions)
        state["_pending_events"] = []
        copy.__dict__.update(state)
        return copy

    # -- queries -------------------------------------------------------------------------------

    @property
    def progress(self) -> Progress:
        return Progress(
            self.level, self.spins_to_next_level, self.hold_and_win_halves, self.free_spins_halves
        )

    def state(self) -> dict[str, Any]:
        """The player state of docs/CONTRACT.md."""
        progress = self.progress
        return {
            "player_id": self.player_id,
            "balance": self.balance,
            "level": progress.level,
            "spins_to_next_level": progress.spins_to_next_level,
            "hold_and_win_multiplier": progress.hold_and_win_multiplier,
            "free_spins_multiplier": progress.free_spins_multiplier,
        }

    def replayed(self, request_id: str, fingerprint: str) -> Any | None:
        """The result reference of a request already applied, or None if it is new."""
        check_request_id(request_id)
        seen = self.recent.get(request_id)
        if seen is None:
            return None
        if seen[0] != fingerprint:
            raise RequestIdReused(f"request_id {request_id!r} was used with another request")
        return seen[1]

    def recall_request(self, request_id: str, fingerprint: str, answer: int) -> None:
        """A request applied before the window, as its durable key recorded it. Known to this
        copy only (it is no state of record, so no event), so the command replays it."""
        self.recent = {**self.recent, request_id: [fingerprint, answer]}

    def session_summary(self, session_id: str) -> dict[str, Any]:
        is_open, spins, staked, won = self._session(session_id)
        return {
            "session_id": session_id,
            "spins": spins,
            "staked": staked,
            "won": won,
            "net": won - staked,
        }

    def session_is_open(self, session_id: str) -> bool:
        return bool(self._session(session_id)[0])

    def _session(self, session_id: str) -> list[Any]:
        try:
            return self.sessions[session_id]
        except KeyError:
            raise SessionNotFound(f"no session {session_id!r}") from None

    # -- money ---------------------------------------------------------------------------------

    def deposit(self, amount: int, request_id: str) -> int:
        previous = self.replayed(request_id, f"deposit:{amount}")
        if previous is not None:
            return int(previous)
        check_amount(amount)
        balance = self.balance + amount
        if balance > BALANCE_CAP:
            raise BalanceCap(f"a balance never passes {BALANCE_CAP}; {amount} would")
        self.trigger_event(
            self.Deposited, amount=amount, request_id=request_id, balance_after=balance
        )
        return balance

    def withdraw(self, amount: int, request_id: str) -> int:
        previous = self.replayed(request_id, f"withdraw:{amount}")
        if previous is not None:
            return int(previous)
        check_amount(amount)
        if amount > self.balance:
            raise InsufficientFunds(f"balance {self.balance} is less than {amount}")
        balance = self.balance - amount
        self.trigger_event(
            self.Withdrawn, amount=amount, request_id=request_id, balance_after=balance
        )
        return balance

    class Deposited(Event):
        TOPIC = "domain.player:Player.Deposited"
        amount: int
        request_id: str
        balance_after: int

        def apply(self, player: Player) -> None:
            player.balance = self.balance_after
            player.remember(self.request_id, f"deposit:{self.amount}", self.balance_after)

    class Withdrawn(Event):
        TOPIC = "domain.player:Player.Withdrawn"
        amount: int
        request_id: str
        balance_after: int

        def apply(self, player: Player) -> None:
            player.balance = self.balance_after
            player.remember(self.request_id, f"withdraw:{self.amount}", self.balance_after)

    def remember(self, request_id: str, fingerprint: str, ref: Any) -> None:
        """Called by events only: the bounded window of applied request ids."""
        self.recent[request_id] = [fingerprint, ref]
        excess = len(self.recent) - RECENT_REQUESTS
        if excess > RECENT_SLACK:
            self.recent = dict(itertools.islice(self.recent.items(), excess, None))

    # -- sessions ------------------------------------------------------------------------------

    def open_session(self, session_id: str, token_hash: str) -> None:
        if session_id in self.sessions:
            raise ValueError("session ids are unique")
        self.trigger_event(self.SessionOpened, session_id=session_id, token_hash=token_hash)

    def close_session(self, session_id: str) -> dict[str, Any]:
        is_open, spins, staked, won = self._session(session_id)
        if is_open:
            self.trigger_event(
                self.SessionClosed, session_id=session_id, spins=spins, staked=staked, won=won
            )
        return self.session_summary(session_id)

    class SessionOpened(Event):
        TOPIC = "domain.player:Player.SessionOpened"
        session_id: str
        token_hash: str

        def apply(self, player: Player) -> None:
            player.sessions[self.session_id] = [True, 0, 0, 0]

    class SessionClosed(Event):
        TOPIC = "domain.player:Player.SessionClosed"
        session_id: str
        spins: int
        staked: int
        won: int

        def apply(self, player: Player) -> None:
            player.sessions[self.session_id] = [False, self.spins, self.staked, self.won]

    # -- rounds --------------------------------------------------------------------------------

    def spin_replayed(self, session_id: str, stake: int, request_id: str) -> int | None:
        """The version of the StakePlaced of a spin already recorded with this request id."""
        previous = self.replayed(request_id, f"spin:{session_id}:{stake}")
        return None if previous is None else int(previous)

    def check_spin(self, session_id: str, stake: int) -> None:
        """Every rule a spin must pass before its seed is drawn."""
        check_stake(stake)
        if not self._session(session_id)[0]:
            raise SessionClosed(f"session {session_id!r} is closed")
        if stake > self.balance:
            raise InsufficientFunds(f"balance {self.balance} is less than the stake {stake}")
        if self.balance - stake + stake * MAX_WIN_X_STAKE > BALANCE_CAP:
            raise BalanceCap(f"this stake's largest win could take the balance past {BALANCE_CAP}")

    def check_protection(
        self, session_id: str, stake: int, profile: Profile, now: datetime
    ) -> None:
        """Player protection's rules for a spin (ProtectionRefusal), before check_spin's."""
        at = now.timestamp()
        check_access(self.guard, session_id, at)
        if self._session(session_id)[0]:
            check_round(self.guard, session_id, stake, profile, at)

    def spin(
        self,
        session_id: str,
        stake: int,
        request_id: str,
        seed: bytes,
        now: datetime | None = None,
    ) -> RoundOutcome:
        """Play and record one whole round: StakePlaced, the engine's facts, RoundSettled.
        `now` (the application's clock) is when the round starts: the protection rules' time."""
        check_request_id(request_id)
        self.check_spin(session_id, stake)
        outcome = play_round(self.progress, stake, seed)
        number = self.rounds + 1
        round_id = round_id_of(self.player_id, number)
        before = outcome.progress_before
        self.trigger_event(
            self.StakePlaced,
            timestamp=now,
            round_id=round_id,
            player_id=self.player_id,
            session_id=session_id,
            request_id=request_id,
            stake=stake,
            seed=seed.hex(),
            model_version=outcome.model_version,
            balance_before=self.balance,
            balance_after=self.balance - stake,
            level=before.level,
            spins_to_next_level=before.spins_to_next_level,
            hold_and_win_multiplier=before.hold_and_win_multiplier,
            free_spins_multiplier=before.free_spins_multiplier,
        )
        for fact in outcome.facts:
            if fact.name not in ROUND_FACTS:
                raise ValueError(f"the engine produced an unknown fact {fact.name!r}")
            self.trigger_event(
                ROUND_EVENTS[fact.name], round_id=round_id, payload=_json_value(fact.payload)
            )
        after = outcome.progress_after
        self.trigger_event(
            self.RoundSettled,
            round_id=round_id,
            total_win=outcome.total_win,
            balance_after=self.balance + outcome.total_win,
            level=after.level,
            spins_to_next_level=after.spins_to_next_level,
            hold_and_win_multiplier=after.hold_and_win_multiplier,
            free_spins_multiplier=after.free_spins_multiplier,
            max_win_hit=outcome.max_win_hit,
        )
        return outcome

    class StakePlaced(Event):
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
        hold_and_win_multiplier: float
        free_spins_multiplier: float

        def apply(self, player: Player) -> None:
            player.balance = self.balance_after
            player.rounds += 1
            player.round_session = self.session_id
            player.guard = with_round_started(
                player.guard, self.session_id, self.stake, self.timestamp.timestamp()
            )
            is_open, spins, staked, won = player.sessions[self.session_id]
            player.sessions[self.session_id] = [is_open, spins + 1, staked + self.stake, won]
            player.remember(
                self.request_id,
                f"spin:{self.session_id}:{self.stake}",
                self.originator_version,
            )

    class RoundFact(Event):
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

    class BoosterLanded(RoundFact):
        TOPIC = "domain.player:Player.BoosterLanded"

    class PumpkinActivated(RoundFact):
        TOPIC = "domain.player:Player.PumpkinActivated"

    class FreeSpinsAwarded(RoundFact):
        TOPIC = "domain.player:Player.FreeSpinsAwarded"

    class SpinCompleted(RoundFact):
        TOPIC = "domain.player:Player.SpinCompleted"

    class HoldAndWinStarted(RoundFact):
        TOPIC = "domain.player:Player.HoldAndWinStarted"

    class PrizesCollected(RoundFact):
        TOPIC = "domain.player:Player.PrizesCollected"

    class JackpotWon(RoundFact):
        TOPIC = "domain.player:Player.JackpotWon"

    class HoldAndWinEnded(RoundFact):
        TOPIC = "domain.player:Player.HoldAndWinEnded"

    class FreeSpinsStarted(RoundFact):
        TOPIC = "domain.player:Player.FreeSpinsStarted"

    class FreeSpinsEnded(RoundFact):
        TOPIC = "domain.player:Player.FreeSpinsEnded"

    class MaxWinReached(RoundFact):
        TOPIC = "domain.player:Player.MaxWinReached"

    class RoundSettled(Event):
        TOPIC = "domain.player:Player.RoundSettled"
        round_id: str
        total_win: int
        balance_after: int
        level: int
        spins_to_next_level: int | None
        hold_and_win_multiplier: float
        free_spins_multiplier: float
        max_win_hit: bool

        def apply(self, player: Player) -> None:
            player.balance = self.balance_after
            after = recorded_progress(
                self.level, self.spins_to_next_level,
                self.hold_and_win_multiplier, self.free_spins_multiplier,
            )
            player.level = after.level
            player.spins_to_next_level = after.spins_to_next_level
            player.hold_and_win_halves = after.hold_and_win_halves
            player.free_spins_halves = after.free_spins_halves
            is_open, spins, staked, won = player.sessions[player.round_session]
            player.sessions[player.round_session] = [is_open, spins, staked, won + self.total_win]
            player.round_session = ""
            player.guard = with_round_settled(player.guard, self.total_win)


ROUND_EVENTS: dict[str, type[Player.RoundFact]] = {
    name: getattr(Player, name) for name in ROUND_FACTS
}
ROUND_EVENT_NAMES = frozenset(("StakePlaced", "RoundSettled", *ROUND_FACTS))
_ENVELOPE = frozenset(
    ("originator_id", "originator_version", "timestamp", "prev_hash", STORED_DIGEST)
)


def round_event_payload(event: object) -> tuple[str, dict[str, Any]]:
    """(name, payload) of a stored round event, as domain.recall.round_view reads it."""
    name = type(event).__name__
    if isinstance(event, Player.RoundFact):
        return name, dict(event.payload)
    return name, {k: v for k, v in vars(event).items() if k not in _ENVELOPE}


# Player protection's events live in their own module; importing it here registers their
# stored topics wherever players are read.
from domain import protection_events as _protection_events  # noqa: E402, F401
