"""The Player aggregate: money, Spin Progress, sessions and whole rounds, rebuilt by replay.

Commands validate and compute; events only assign. Nothing here draws randomness, reads a clock
or does I/O: the application draws the round seed (and session ids, token hashes) first and
passes them in. Every event carries `prev_hash`, the digest of the event before it in this
stream (domain.ledger.hashchain), so the stream is tamper-evident.

Exactly once: at least the last RECENT_REQUESTS request ids are kept (up to RECENT_SLACK more),
each with a fingerprint of its body and a reference to its result (the balance after a deposit
or withdrawal, the version of a round's StakePlaced). A request id older than that window is
answered from its durable key (infrastructure/store/request_keys.py), which the application records
in the same transaction and hands back through `recall_request`. (Requests recorded before
durable keys existed have none: only the window remembers them. The first release kept 10,000;
a state rebuilt from its snapshots or events keeps the last RECENT_REQUESTS of them.)

Sessions (domain.ledger.fairness): `sessions` holds OPEN sessions only, so the state stays small
however
many sessions a player has had; a closed session's figures and revealed seed live in its events
(and the SessionKey stream, infrastructure.application). An entry is the list
[open, spins, staked, won, next_nonce, seed_commitment, sealed_seed, opened_at, last_active_at]
(times as ISO 8601 from the events' timestamps). Entries written before provably fair seeds hold
the first four only (`_padded`), and their session has no commitment: its rounds keep drawing a
seed from the OS, as they always did. Old snapshots may still hold closed entries: they read as
closed and the next SessionOpened drops them.

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

from domain.errors import (
    BalanceCap,
    CampaignExists,
    InsufficientFunds,
    NoFreeRounds,
    RequestIdReused,
    SessionClosed,
)
from domain.game.board import MAX_WIN_X_STAKE
from domain.game.engine import RoundOutcome, check_stake, play_round
from domain.game.facts import JSON, ROUND_FACTS
from domain.game.progress import NEW_PLAYER, Progress
from domain.ledger.event_names import stored_name
from domain.ledger.fairness import check_client_seed
from domain.ledger.free_rounds import campaign_view, check_free_round, check_grant, is_past_expiry
from domain.ledger.hashchain import GENESIS, STORED_DIGEST, digest_of
from domain.ledger.identifiers import check_amount, check_player_id, check_request_id, is_player_id
from domain.ledger.protection import (
    EMPTY_GUARD,
    Profile,
    check_access,
    check_round,
    with_round_settled,
    with_round_started,
    without_session,
)
from domain.ledger.recorded_progress import (
    upcast_multipliers_to_halves,
    upcast_step_multiplier_to_halves,
)

NAMESPACE = UUID("6a0e7d3c-58f4-4b9c-9a51-2f1d6c0b7e11")  # fixed: ids must never change
# The window is a cache in front of the durable request keys: a retry comes soon after its
# request, and one beyond the window is answered from its key (one read). Small, because the
# player is copied for every command and kept in every snapshot.
RECENT_REQUESTS = 256
# The window is trimmed back to RECENT_REQUESTS once it holds this many more, in one rebuild.
# Deleting its oldest key one at a time leaves holes at the front of the dict, and both finding
# the oldest key and copying the dict (every command copies the player) then cost the whole
# capacity.
RECENT_SLACK = 64
# No balance passes this (2^53 - 1 minor units): past it, JSON clients (doubles) lose precision.
# A deposit that would pass it is refused; so is a spin whose largest possible win would (the
# balance after the stake plus MAX_WIN_X_STAKE stakes), so a settlement never has to be.
BALANCE_CAP = 2**53 - 1
_NO_CAMPAIGNS: dict[str, list[Any]] = {}


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


class StepMultiplierInHalves:
    """Mixed into the round facts that carry a multiplier: version 2 stores it in halves
    (`multiplier_halves`); version 1 stored the number (domain.ledger.recorded_progress)."""

    class_version = 2
    upcast_v1_v2 = staticmethod(upcast_step_multiplier_to_halves)


class Player(Aggregate):
    # Permanent stored names (domain.ledger.event_names): frozen to what the first release wrote.
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

    # campaign_id -> domain.ledger.free_rounds' campaign. A class default: players (and snapshots)
    # from before free rounds have none; always replaced, never changed in place.
    free_rounds = _NO_CAMPAIGNS  # unannotated: not a dataclass field

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.balance = 0
        self.level = NEW_PLAYER.level
        self.spins_to_next_level = NEW_PLAYER.spins_to_next_level
        self.hold_and_win_halves = NEW_PLAYER.hold_and_win_halves
        self.free_spins_halves = NEW_PLAYER.free_spins_halves
        self.rounds = 0
        self.recent: dict[str, list[Any]] = {}  # request_id -> [fingerprint, result ref]
        self.sessions: dict[str, list[Any]] = {}  # OPEN session_id -> entry (see above)
        self.round_session = ""  # the session of the round being recorded
        self.free_rounds = {}
        self.chain_head = GENESIS
        self.guard = EMPTY_GUARD  # player protection (domain.ledger.protection), copy-on-write

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
        state["free_rounds"] = dict(self.free_rounds)
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
        return {"player_id": self.player_id, "balance": self.balance, **self.progress.shown()}

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
        """The running figures of an open session."""
        _, spins, staked, won, *_ = self._session(session_id)
        return {
            "session_id": session_id,
            "spins": spins,
            "staked": staked,
            "won": won,
            "net": won - staked,
        }

    def session_is_open(self, session_id: str) -> bool:
        """False for a session this player had and closed (the caller knows it was theirs)."""
        entry = self.sessions.get(session_id)
        return entry is not None and bool(entry[0])

    def session_entry(self, session_id: str) -> list[Any] | None:
        """The open session's entry, all nine fields (None if the session is not open)."""
        entry = self.sessions.get(session_id)
        return _padded(entry) if entry is not None and entry[0] else None

    def _session(self, session_id: str) -> list[Any]:
        entry = self.session_entry(session_id)
        if entry is None:
            raise SessionClosed(f"session {session_id!r} is closed")
        return entry

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

    def open_session(
        self,
        session_id: str,
        token_hash: str,
        seed_commitment: str = "",
        sealed_seed: str = "",
        at: datetime | None = None,
    ) -> None:
        """sealed_seed: the server seed encrypted by the application (never the seed itself).
        at: the application's clock (the event's timestamp; None: the library's clock)."""
        if session_id in self.sessions:
            raise ValueError("session ids are unique")
        self.trigger_event(
            self.SessionOpened, session_id=session_id, token_hash=token_hash,
            seed_commitment=seed_commitment, sealed_seed=sealed_seed, timestamp=at,
        )

    def close_session(
        self,
        session_id: str,
        server_seed: str | None = None,
        reason: str = "",
        at: datetime | None = None,
    ) -> dict[str, Any] | None:
        """Close an open session: SessionClosed, then SeedRevealed when it has a commitment
        (server_seed: the revealed seed, hex). The summary, or None if it was not open."""
        entry = self.session_entry(session_id)
        if entry is None:
            return None
        summary = self.session_summary(session_id)
        commitment = str(entry[5])
        if commitment and server_seed is None:
            raise ValueError("a committed session closes with its seed revealed")
        self.trigger_event(
            self.SessionClosed, session_id=session_id, spins=entry[1], staked=entry[2],
            won=entry[3], reason=reason, timestamp=at,
        )
        if commitment:
            self.trigger_event(
                self.SeedRevealed, session_id=session_id, server_seed=server_seed,
                seed_commitment=commitment, timestamp=at,
            )
        return summary

    def close_open_sessions(
        self, reveals: Mapping[str, str], reason: str, at: datetime | None = None
    ) -> list[str]:
        """Close every open session at once (e.g. an exclusion), each committed one with its
        revealed seed from `reveals` (session id -> seed hex, from the application's
        `reveals`); the ids closed."""
        closed = [sid for sid, entry in self.sessions.items() if entry[0]]
        for session_id in closed:
            self.close_session(session_id, reveals.get(session_id), reason, at)
        return closed

    class SessionOpened(Event):
        TOPIC = "domain.player:Player.SessionOpened"
        session_id: str
        token_hash: str
        seed_commitment: str = ""  # "" for sessions opened before provably fair seeds
        sealed_seed: str = ""

        def apply(self, player: Player) -> None:
            sessions = player.sessions
            if not all(entry[0] for entry in sessions.values()):  # closed ones, from old state
                sessions = {sid: entry for sid, entry in sessions.items() if entry[0]}
            at = self.timestamp.isoformat()
            sessions[self.session_id] = [
                True, 0, 0, 0, 1, self.seed_commitment, self.sealed_seed, at, at
            ]
            player.sessions = sessions

    class SessionClosed(Event):
        TOPIC = "domain.player:Player.SessionClosed"
        session_id: str
        spins: int
        staked: int
        won: int
        reason: str = ""  # player, operator, idle, ... ("" before reasons were recorded)

        def apply(self, player: Player) -> None:
            player.sessions = {k: v for k, v in player.sessions.items() if k != self.session_id}
            player.guard = without_session(player.guard, self.session_id, self.reason)

    class SeedRevealed(Event):
        """The closed session's server seed, revealed: SHA-256 of it is the commitment."""

        TOPIC = "pumpkin:Player.SeedRevealed"
        session_id: str
        server_seed: str
        seed_commitment: str

        def apply(self, player: Player) -> None:
            pass

    class NonceBurned(Event):
        """A round computed with this nonce was lost to a store conflict (another writer
        recorded first); the retry plays with the next nonce. Kept so the record shows it."""

        TOPIC = "pumpkin:Player.NonceBurned"
        session_id: str
        nonce: int
        client_seed: str
        seed: str

        def apply(self, player: Player) -> None:
            entry = list(_padded(player.sessions[self.session_id]))
            entry[4] = max(int(entry[4]), self.nonce + 1)
            player.sessions[self.session_id] = entry

    # -- rounds --------------------------------------------------------------------------------

    def spin_replayed(
        self, session_id: str, stake: int, request_id: str, client_seed: str = ""
    ) -> int | None:
        """The version of the StakePlaced of a spin already recorded with this request id."""
        previous = self.replayed(request_id, spin_fingerprint(session_id, stake, client_seed))
        return None if previous is None else int(previous)

    def next_nonce(self, session_id: str, lost: tuple[int, ...] = ()) -> int:
        """The nonce of the session's next round; `lost`: nonces of attempts lost to a
        conflict in this request, never used again."""
        return max((int(self._session(session_id)[4]), *(n + 1 for n in lost)))

    def burn_nonces(self, session_id: str, lost: tuple[tuple[int, str, str], ...]) -> None:
        """Record the attempts (nonce, client seed, seed hex) a conflict lost whose nonce no
        stored round took: the gap they leave is explained in the stream."""
        for nonce, client_seed, seed in lost:
            if nonce >= int(self._session(session_id)[4]):
                self.trigger_event(
                    self.NonceBurned, session_id=session_id, nonce=nonce,
                    client_seed=client_seed, seed=seed,
                )

    def check_spin(self, session_id: str, stake: int, free: bool = False) -> None:
        """Every rule a spin must pass before its seed is drawn (free: a free round, unpaid)."""
        check_stake(stake)
        if not self._session(session_id)[0]:
            raise SessionClosed(f"session {session_id!r} is closed")
        if stake > self.balance and not free:
            raise InsufficientFunds(f"balance {self.balance} is less than the stake {stake}")
        if self.balance - (0 if free else stake) + stake * MAX_WIN_X_STAKE > BALANCE_CAP:
            raise BalanceCap(f"this stake's largest win could take the balance past {BALANCE_CAP}")

    def check_protection(
        self, session_id: str, stake: int, profile: Profile, now: datetime
    ) -> None:
        """Player protection's rules for a spin (ProtectionRefusal), before check_spin's."""
        at = now.timestamp()
        check_access(self.guard, session_id, at)
        if self.session_is_open(session_id):
            check_round(self.guard, session_id, stake, profile, at)

    def spin(
        self,
        session_id: str,
        stake: int,
        request_id: str,
        seed: bytes,
        nonce: int | None = None,
        client_seed: str = "",
        at: datetime | None = None,
        free_round: str | None = None,
    ) -> RoundOutcome:
        """Play and record one whole round: StakePlaced, the engine's facts, RoundSettled.
        nonce: the round's place in a committed session (None: a session from before);
        free_round: a campaign's free round (judged at `at`): nothing is staked from the balance."""
        check_request_id(request_id)
        check_client_seed(client_seed)
        if free_round is not None:
            if at is None:
                raise ValueError("a free round is judged at a time")
            check_free_round(self.free_rounds, free_round, at)
        self.check_spin(session_id, stake, free=free_round is not None)
        entry = self._session(session_id)
        commitment = str(entry[5]) or None
        if (nonce is None) != (commitment is None):
            raise ValueError("a committed session's round has a nonce, and only such a round")
        outcome = play_round(self.progress, stake, seed)
        number = self.rounds + 1
        round_id = round_id_of(self.player_id, number)
        before = outcome.progress_before
        self.trigger_event(
            self.StakePlaced,
            round_id=round_id,
            player_id=self.player_id,
            session_id=session_id,
            request_id=request_id,
            stake=stake,
            seed=seed.hex(),
            model_version=outcome.model_version,
            balance_before=self.balance,
            balance_after=self.balance - (0 if free_round else stake),
            **before.recorded(),
            nonce=nonce,
            client_seed=client_seed,
            seed_commitment=commitment,
            session_before=[entry[1], entry[2], entry[3], seconds_since(str(entry[7]), at)],
            timestamp=at,
            **({"free_round": free_round} if free_round else {}),
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
            **after.recorded(),
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
            player.guard = with_round_started(
                player.guard,
                self.session_id,
                0 if self.free_round else self.stake,
                self.timestamp.timestamp(),
            )
            entry = _padded(player.sessions[self.session_id])
            entry[1] += 1
            if self.free_round:
                rounds_left, stake, expires_at, ended = player.free_rounds[self.free_round]
                player.free_rounds = {
                    **player.free_rounds,
                    self.free_round: [rounds_left - 1, stake, expires_at, ended],
                }
            else:
                entry[2] += self.stake
            if self.nonce is not None:
                entry[4] = self.nonce + 1
            entry[8] = self.timestamp.isoformat()
            player.sessions[self.session_id] = entry
            player.remember(
                self.request_id,
                spin_fingerprint(self.session_id, self.stake, self.client_seed),
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

    class RoundSettled(Event):
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
            entry = _padded(player.sessions[player.round_session])
            entry[3] += self.total_win
            player.sessions[player.round_session] = entry
            player.round_session = ""
            player.guard = with_round_settled(player.guard, self.total_win)

    # -- the seamless wallet and free rounds -----------------------------------------------------

    def report_wallet_balance(self, balance: int) -> None:
        """The operator's wallet keeps the money: its balance before the round's debit (its
        answer plus the stake), recorded so the round shows the wallet's figures."""
        if balance != self.balance:
            self.trigger_event(self.WalletBalanceReported, balance=balance)

    def grant_free_rounds(
        self, campaign_id: str, rounds: int, stake: int, expires_at: str | None,
        request_id: str, now: datetime,
    ) -> dict[str, Any]:
        fingerprint = f"free-rounds:{campaign_id}:{rounds}:{stake}:{expires_at}"
        granted = [rounds, stake, expires_at, ""]
        if self.replayed(request_id, fingerprint) is not None:
            return campaign_view(campaign_id, granted)
        check_grant(campaign_id, rounds, stake, expires_at, now)
        if campaign_id in self.free_rounds:
            raise CampaignExists(f"campaign {campaign_id!r} was already granted to this player")
        self.trigger_event(
            self.FreeRoundsGranted, campaign_id=campaign_id, rounds=rounds, stake=stake,
            expires_at=expires_at, request_id=request_id, fingerprint=fingerprint,
        )
        return campaign_view(campaign_id, granted)

    def cancel_free_rounds(self, campaign_id: str) -> dict[str, Any]:
        campaign = self.free_rounds.get(campaign_id)
        if campaign is None:
            raise NoFreeRounds(f"no campaign {campaign_id!r} for this player")
        if not campaign[3] and campaign[0] > 0:
            self.trigger_event(
                self.FreeRoundsCancelled, campaign_id=campaign_id, rounds_left=campaign[0]
            )
        return {"campaign_id": campaign_id, "rounds_left": 0, "cancelled": True}

    def expire_free_rounds(self, now: datetime) -> list[str]:
        """Record the end of every campaign whose expiry has passed with rounds left."""
        expired = [cid for cid, c in self.free_rounds.items() if is_past_expiry(c, now)]
        for campaign_id in expired:
            self.trigger_event(
                self.FreeRoundsExpired, campaign_id=campaign_id,
                rounds_left=self.free_rounds[campaign_id][0],
            )
        return expired

    class WalletBalanceReported(Event):
        TOPIC = "pumpkin:Player.WalletBalanceReported"
        balance: int

        def apply(self, player: Player) -> None:
            player.balance = self.balance

    class FreeRoundsGranted(Event):
        TOPIC = "pumpkin:Player.FreeRoundsGranted"
        campaign_id: str
        rounds: int
        stake: int
        expires_at: str | None
        request_id: str
        fingerprint: str

        def apply(self, player: Player) -> None:
            player.free_rounds = {
                **player.free_rounds,
                self.campaign_id: [self.rounds, self.stake, self.expires_at, ""],
            }
            player.remember(self.request_id, self.fingerprint, self.campaign_id)

    class FreeRoundsCancelled(Event):
        TOPIC = "pumpkin:Player.FreeRoundsCancelled"
        campaign_id: str
        rounds_left: int

        def apply(self, player: Player) -> None:
            _end_campaign(player, self.campaign_id, "cancelled")

    class FreeRoundsExpired(Event):
        TOPIC = "pumpkin:Player.FreeRoundsExpired"
        campaign_id: str
        rounds_left: int

        def apply(self, player: Player) -> None:
            _end_campaign(player, self.campaign_id, "expired")


def _end_campaign(player: Player, campaign_id: str, how: str) -> None:
    _left, stake, expires_at, _ended = player.free_rounds[campaign_id]
    player.free_rounds = {**player.free_rounds, campaign_id: [0, stake, expires_at, how]}


def _padded(entry: list[Any]) -> list[Any]:
    """A new list of the nine fields of a session entry (old entries hold four)."""
    if len(entry) == 9:
        return list(entry)
    return [*entry[:4], 0, "", "", "", ""]


def seconds_since(start: str, at: datetime | None) -> int:
    """Whole seconds from an ISO 8601 time to `at` (0 if either is unknown)."""
    if not start or at is None:
        return 0
    return max(0, int((at - datetime.fromisoformat(start)).total_seconds()))


def spin_fingerprint(session_id: str, stake: int, client_seed: str) -> str:
    """What a spin's request id stands for ("" client seed: the spelling before seeds)."""
    base = f"spin:{session_id}:{stake}"
    return f"{base}:{client_seed}" if client_seed else base


ROUND_EVENTS: dict[str, type[Player.RoundFact]] = {
    name: getattr(Player, name) for name in ROUND_FACTS
}
ROUND_EVENT_NAMES = frozenset(("StakePlaced", "RoundSettled", *ROUND_FACTS))
_ENVELOPE = frozenset(
    ("originator_id", "originator_version", "timestamp", "prev_hash", STORED_DIGEST)
)


def round_event_payload(event: object) -> tuple[str, dict[str, Any]]:
    """(name, payload) of a stored round event, as domain.ledger.recall.round_view reads it."""
    name = type(event).__name__
    if isinstance(event, Player.RoundFact):
        return name, dict(event.payload)
    return name, {k: v for k, v in vars(event).items() if k not in _ENVELOPE}


# Player protection's events live in their own module; importing it here registers their
# stored topics wherever players are read.
from domain.ledger import protection_events as _protection_events  # noqa: E402, F401
