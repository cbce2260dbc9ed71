"""The Player aggregate: money, Spin Progress, sessions, whole rounds and player protection,
rebuilt by replay. Its events are domain.ledger.player_events' and, a round's,
domain.ledger.round_events'. The commands of free rounds and player protection's (limits,
exclusions, reality checks, and the protection rules judged before a spin) are in their own
modules (domain.ledger.free_round_commands, domain.ledger.protection_commands).

Commands validate and compute; events only assign. Nothing here draws randomness, reads a clock
or does I/O: the application draws seeds and ids first, and opens a session's sealed server seed
for the commands that need it (a round's seed derives from it; a close reveals it). A protection
rule that refuses is recorded by the aggregate (ProtectionRefused, and the close of a session
past its time limit) before the refusal is raised: the command's one save records both.

Exactly once: at least the last RECENT_REQUESTS request ids are kept (up to RECENT_SLACK more),
each with a fingerprint of its body and a reference to its result (the balance after a deposit
or withdrawal, the version of a round's StakePlaced); an older one is answered from its durable
key (infrastructure/store/request_keys.py), handed back through `recall_request`.

State is immutable values (domain.ledger.player_state) in dicts that are replaced, never changed
in place, so a copy of a player needs only shallow copies of its dicts.
"""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

from eventsourcing.domain import Aggregate

from domain.errors import (
    BalanceCap,
    InsufficientFunds,
    RequestIdReused,
    SessionClosed,
)
from domain.game.board import MAX_WIN_X_STAKE
from domain.game.engine import RoundOutcome, check_stake, play_round
from domain.game.facts import ROUND_FACTS
from domain.game.progress import NEW_PLAYER, Progress
from domain.ledger import player_events as events
from domain.ledger import round_events as rounds
from domain.ledger.chain_link import ChainLink
from domain.ledger.event_names import register_aggregate
from domain.ledger.fairness import check_client_seed
from domain.ledger.free_rounds import Campaign, check_free_round
from domain.ledger.guard import EMPTY_GUARD
from domain.ledger.hashchain import GENESIS
from domain.ledger.identifiers import (
    NAMESPACE,
    check_amount,
    check_player_id,
    check_request_id,
    parse_round_id,
    player_aggregate_id,
    round_id_of,
)
from domain.ledger.player_events import spin_fingerprint
from domain.ledger.player_state import upcast_state_v1_v2
from domain.ledger.protection import (
    Profile,
    check_age_band,
    check_opening,
    check_reality_check_minutes,
    reality_check_due,
)
from domain.ledger.refusals import record_refusals, refuse_if_excluded
from domain.ledger.round_events import ROUND_EVENTS, json_value
from domain.ledger.sessions import SessionEntry, idle_seconds, open_view, seconds_since

__all__ = [  # what the rest of the product imports from here
    "BALANCE_CAP", "NAMESPACE", "RECENT_REQUESTS", "RECENT_SLACK", "ChainLink", "Player",
    "parse_round_id", "player_aggregate_id", "round_id_of",
]

# The window is a cache in front of the durable request keys (a retry comes soon after its
# request): small, as the player is copied for every command and kept in every snapshot. It is
# trimmed back to RECENT_REQUESTS once it holds RECENT_SLACK more, in one rebuild (deleting the
# oldest key one at a time leaves holes that make finding it and copying the dict slow).
RECENT_REQUESTS = 256
RECENT_SLACK = 64
# No balance passes this (2^53 - 1 minor units): past it, JSON clients (doubles) lose precision.
# A deposit that would pass it is refused; so is a spin whose largest possible win would.
BALANCE_CAP = 2**53 - 1
_NO_CAMPAIGNS: dict[str, Campaign] = {}
_UNKNOWN_BAND: str | None = None


class Player(Aggregate):
    # Permanent stored names (domain.ledger.event_names): frozen to what the first release wrote.
    TOPIC = "domain.player:Player"
    class_version = 2

    # Class defaults: a player restored from a snapshot taken before protection or free rounds
    # existed has none in its state (both are only ever replaced, never changed in place).
    guard = EMPTY_GUARD  # unannotated: not a dataclass field
    free_rounds = _NO_CAMPAIGNS
    age_band = _UNKNOWN_BAND  # the operator's verified band (AgeBandRecorded); None: unknown

    # Its events (domain.ledger.player_events, a round's in domain.ledger.round_events), named
    # on the class as the library expects.
    Event, Created, Registered = events.PlayerEvent, events.Created, events.Registered
    AgeBandRecorded = events.AgeBandRecorded
    Deposited, Withdrawn = events.Deposited, events.Withdrawn
    WalletBalanceReported = events.WalletBalanceReported
    SessionOpened, SessionClosed = events.SessionOpened, events.SessionClosed
    SeedRevealed, NonceBurned = events.SeedRevealed, events.NonceBurned
    StakePlaced, RoundFact, RoundSettled = rounds.StakePlaced, rounds.RoundFact, rounds.RoundSettled
    LevelUnlocked, SymbolsLanded = rounds.LevelUnlocked, rounds.SymbolsLanded
    WildReelsTriggered, CloverMoonSwapped = rounds.WildReelsTriggered, rounds.CloverMoonSwapped
    NormalGameCollectorCollected = rounds.NormalGameCollectorCollected
    BoosterLanded, PumpkinActivated = rounds.BoosterLanded, rounds.PumpkinActivated
    FreeSpinsAwarded, SpinCompleted = rounds.FreeSpinsAwarded, rounds.SpinCompleted
    HoldAndWinStarted, PrizesCollected = rounds.HoldAndWinStarted, rounds.PrizesCollected
    JackpotWon, HoldAndWinEnded = rounds.JackpotWon, rounds.HoldAndWinEnded
    FreeSpinsStarted, FreeSpinsEnded = rounds.FreeSpinsStarted, rounds.FreeSpinsEnded
    MaxWinReached = rounds.MaxWinReached
    FreeRoundsGranted = events.FreeRoundsGranted
    FreeRoundsCancelled, FreeRoundsExpired = events.FreeRoundsCancelled, events.FreeRoundsExpired
    LimitsChanged, Excluded = events.LimitsChanged, events.Excluded
    SessionProtected = events.SessionProtected
    RealityCheckAnswered = events.RealityCheckAnswered
    ProtectionRefused = events.ProtectionRefused

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.balance = 0
        self.level = NEW_PLAYER.level
        self.spins_to_next_level = NEW_PLAYER.spins_to_next_level
        self.hold_and_win_halves = NEW_PLAYER.hold_and_win_halves
        self.free_spins_halves = NEW_PLAYER.free_spins_halves
        self.rounds = 0
        self.recent: dict[str, list[Any]] = {}  # request_id -> [fingerprint, result ref]
        self.sessions: dict[str, SessionEntry] = {}  # OPEN session_id -> its entry
        self.round_session = ""  # the session of the round being recorded
        self.free_rounds = {}
        self.chain_head = GENESIS
        self.guard = EMPTY_GUARD

    upcast_v1_v2 = staticmethod(upcast_state_v1_v2)

    @classmethod
    def register(cls, player_id: str, age_band: object = None) -> Player:
        """A new player; age_band: the operator's verified one (None: unknown)."""
        check_player_id(player_id)
        band = check_age_band(age_band)
        player = cls._create(
            cls.Registered,
            id=player_aggregate_id(player_id),
            player_id=player_id,
            prev_hash=GENESIS,
        )
        if band is not None:
            player.trigger_event(cls.AgeBandRecorded, age_band=band)
        return player

    def trigger_event(self, event_class: Any, **kwargs: Any) -> None:
        super().trigger_event(event_class, prev_hash=self.chain_head, **kwargs)

    def __deepcopy__(self, memo: dict[int, Any]) -> Player:
        # Values are immutable and every dict but `recent` is replaced, never changed in place,
        # so a copy shares them; only the window of request ids grows in place.
        copy = object.__new__(type(self))
        state = dict(self.__dict__)
        state["recent"] = dict(self.recent)
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

    def session(self, session_id: str) -> SessionEntry | None:
        """The open session's entry (None if the session is not open)."""
        return self.sessions.get(session_id)

    def session_is_open(self, session_id: str) -> bool:
        """False for a session this player had and closed (the caller knows it was theirs)."""
        return session_id in self.sessions

    def open_session_ids(self) -> list[str]:
        return list(self.sessions)

    def sealed_seed(self, session_id: str) -> str | None:
        """The open session's sealed server seed (None: not open, or opened before seeds were
        committed)."""
        entry = self.sessions.get(session_id)
        return entry.sealed_seed if entry is not None and entry.committed else None

    def session_view(self, session_id: str, now: datetime) -> dict[str, Any]:
        """The open session as CONTRACT.md shows it, with its reality check."""
        entry = self._open(session_id)
        return {
            **open_view(session_id, self.player_id, entry, now),
            **self.reality_check(session_id, now),
        }

    def reality_check(self, session_id: str, now: datetime) -> dict[str, Any]:
        """What protection adds to a session: its reality-check interval and whether one is
        due (never, once it is closed)."""
        guarded = self.guard.sessions.get(session_id)
        seconds = None if guarded is None else guarded.check_seconds
        due = self.session_is_open(session_id) and reality_check_due(
            self.guard, session_id, now.timestamp()
        )
        return {
            "reality_check_minutes": None if seconds is None else seconds // 60,
            "reality_check_due": due,
        }

    def _open(self, session_id: str) -> SessionEntry:
        entry = self.sessions.get(session_id)
        if entry is None:
            raise SessionClosed(f"session {session_id!r} is closed")
        return entry

    # -- money ---------------------------------------------------------------------------------

    def deposit(self, amount: int, request_id: str, at: datetime) -> int:
        """Fund the player (judged at `at`): an excluded player cannot be funded (the refusal
        recorded), in every profile; a withdrawal still pays them out."""
        previous = self.replayed(request_id, f"deposit:{amount}")
        if previous is not None:
            return int(previous)
        check_amount(amount)
        refuse_if_excluded(self, at, f"a deposit of {amount}")
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

    def report_wallet_balance(self, balance: int) -> None:
        """The operator's wallet keeps the money: its balance before the round's debit (its
        answer plus the stake), recorded so the round shows the wallet's figures."""
        if balance != self.balance:
            self.trigger_event(self.WalletBalanceReported, balance=balance)

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
        seed_commitment: str,
        sealed_seed: str,
        at: datetime,
        profile: Profile,
        reality_check_minutes: object = None,
    ) -> None:
        """Open and protect a session: SessionOpened, then SessionProtected (its start and
        reality-check interval). An excluded player is refused (and the refusal recorded).
        sealed_seed: the server seed sealed by the application (never the seed itself)."""
        if session_id in self.sessions:
            raise ValueError("session ids are unique")
        opening = (self.guard, profile, len(self.sessions), at.timestamp())
        record_refusals(self, lambda: check_opening(*opening), "", None, at)
        interval = check_reality_check_minutes(reality_check_minutes, profile)
        self.trigger_event(
            self.SessionOpened, session_id=session_id, token_hash=token_hash,
            seed_commitment=seed_commitment, sealed_seed=sealed_seed,
            rounds_before=self.rounds, timestamp=at,
        )
        self.trigger_event(
            self.SessionProtected, timestamp=at, session_id=session_id,
            reality_check_minutes=interval,
        )

    def close_session(
        self, session_id: str, server_seed: str | None = None, reason: str = "",
        at: datetime | None = None,
    ) -> bool:
        """Close an open session: SessionClosed, then SeedRevealed when it has a commitment
        (server_seed: the revealed seed, hex). reason: who closed it (player, operator, idle,
        exclusion, reality_check, session_time_limit). False if it was not open."""
        entry = self.sessions.get(session_id)
        if entry is None:
            return False
        if entry.committed and server_seed is None:
            raise ValueError("a committed session closes with its seed revealed")
        self.trigger_event(
            self.SessionClosed, session_id=session_id, spins=entry.spins, staked=entry.staked,
            won=entry.won, reason=reason, timestamp=at,
        )
        if entry.committed:
            self.trigger_event(
                self.SeedRevealed, session_id=session_id, server_seed=server_seed,
                seed_commitment=entry.seed_commitment, timestamp=at,
            )
        return True

    def close_if_idle(
        self, session_id: str, idle_limit: float, server_seed: str | None, at: datetime
    ) -> bool:
        """Close the session if nothing was played in it for `idle_limit` seconds."""
        entry = self.sessions.get(session_id)
        if entry is None or idle_seconds(entry, at) < idle_limit:
            return False
        return self.close_session(session_id, server_seed, "idle", at)

    # -- rounds --------------------------------------------------------------------------------

    def spin_replayed(
        self, session_id: str, stake: int, request_id: str, client_seed: str = "",
        free_round: str | None = None,
    ) -> int | None:
        """The version of the StakePlaced of a spin already recorded with this request id."""
        fingerprint = spin_fingerprint(session_id, stake, client_seed, free_round)
        previous = self.replayed(request_id, fingerprint)
        return None if previous is None else int(previous)

    def next_nonce(self, session_id: str) -> int:
        """The nonce of the open session's next round."""
        return self._open(session_id).next_nonce

    def burn_nonces(self, session_id: str, lost: tuple[tuple[int, str, str], ...]) -> None:
        """Record the attempts (nonce, client seed, seed hex) a conflict lost whose nonce no
        stored round took: the gap they leave is explained in the stream."""
        for nonce, client_seed, seed in lost:
            if nonce >= self._open(session_id).next_nonce:
                self.trigger_event(
                    self.NonceBurned, session_id=session_id, nonce=nonce,
                    client_seed=client_seed, seed=seed,
                )

    def check_spin(
        self, session_id: str, stake: int, free: bool = False, funds: int | None = None
    ) -> None:
        """Every rule a spin must pass before its seed is drawn (free: a free round, unpaid;
        funds: the balance to judge it on, when a wallet elsewhere holds the money)."""
        check_stake(stake)
        self._open(session_id)
        balance = self.balance if funds is None else funds
        if stake > balance and not free:
            raise InsufficientFunds(f"balance {balance} is less than the stake {stake}")
        if balance - (0 if free else stake) + stake * MAX_WIN_X_STAKE > BALANCE_CAP:
            raise BalanceCap(f"this stake's largest win could take the balance past {BALANCE_CAP}")

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
        entry = self._open(session_id)
        commitment = entry.seed_commitment or None
        if (nonce is None) != (commitment is None):
            raise ValueError("a committed session's round has a nonce, and only such a round")
        outcome = play_round(self.progress, stake, seed)
        round_id = round_id_of(self.player_id, self.rounds + 1)
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
            **outcome.progress_before.recorded(),
            nonce=nonce,
            client_seed=client_seed,
            seed_commitment=commitment,
            session_before=[
                entry.spins, entry.staked, entry.won, seconds_since(entry.opened_at, at)
            ],
            timestamp=at,
            **({"free_round": free_round} if free_round else {}),
        )
        for fact in outcome.facts:
            if fact.name not in ROUND_FACTS:
                raise ValueError(f"the engine produced an unknown fact {fact.name!r}")
            self.trigger_event(
                ROUND_EVENTS[fact.name], round_id=round_id, payload=json_value(fact.payload)
            )
        self.trigger_event(
            self.RoundSettled,
            round_id=round_id,
            total_win=outcome.total_win,
            balance_after=self.balance + outcome.total_win,
            **outcome.progress_after.recorded(),
            max_win_hit=outcome.max_win_hit,
        )
        return outcome


register_aggregate(Player)  # its stored names readable (domain.ledger.event_names)
