"""The event-sourced application: the GameService of infrastructure/ports.py on eventsourcing.

Each command loads the player (snapshot + tail, through the aggregate cache), lets the aggregate
validate and decide, and records every resulting event in ONE save: one transaction, so a round
is in the store whole or not at all. Randomness (round seeds, session ids, tokens) is drawn here,
before any event is triggered.

Two commands racing on one player never both commit: the store's unique (id, version) refuses
the second. The loser reloads, re-validates and tries again, a few
times; then it gets ConcurrentUpdate, a named error that changed nothing.

Provably fair seeds (domain.ledger.fairness, infrastructure.sessions.fair_sessions): opening a
session draws its
server seed here and stores it only sealed (infrastructure.sessions.seed_vault); each round's seed
is
derived here from it, the session id, the round's nonce and the client seed, and handed to the
aggregate. A spin that loses the race retries with the NEXT nonce; the attempt it lost is
recorded (Player.NonceBurned) in the retry's transaction unless a stored round took that nonce.
Closing reveals the seed (Player.SeedRevealed) and records the session's figures on its
SessionKey stream, where GET /sessions/{sid} reads a closed session.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from copy import deepcopy
from datetime import UTC, datetime
from typing import Any, TypeVar
from uuid import UUID, uuid4, uuid5

from eventsourcing.application import AggregateNotFoundError, Application, ProcessingEvent
from eventsourcing.domain import Aggregate, Snapshot
from eventsourcing.persistence import IntegrityError, Mapper, Recording, StoredEvent

import domain.ledger.wallet_account  # noqa: F401 - registers its stored topics for every reader
from domain.errors import (
    PlayerExists,
    PlayerNotFound,
    RoundNotFound,
    RuleViolation,
    SessionClosed,
    SessionNotFound,
)
from domain.ledger.event_names import stored_name
from domain.ledger.fairness import check_client_seed, commitment_of, round_seed
from domain.ledger.hashchain import ChainedEvent, Problem, chained, check_chain
from domain.ledger.identifiers import check_player_id
from domain.ledger.player import (
    NAMESPACE,
    ROUND_EVENT_NAMES,
    ChainLink,
    Player,
    parse_round_id,
    player_aggregate_id,
    round_event_payload,
)
from domain.ledger.protection import PROFILES, Profile
from domain.ledger.protection_events import check_may_open, protect_session
from domain.ledger.recall import round_view
from infrastructure.ports import SessionRef
from infrastructure.promotions.free_round_commands import FreeRoundCommands, spin_stake
from infrastructure.protection.commands import ProtectionCommands, exclusion_view
from infrastructure.sessions import fair_sessions
from infrastructure.sessions.seed_vault import SeedVault
from infrastructure.store import es_compat
from infrastructure.store.async_commit import AsyncGroupCommit
from infrastructure.store.json_mapper import JsonNativeMapper
from infrastructure.store.persistence import (
    GroupCommitRecorder,
    ensure_database,
    event_store_env,
    schema_lock,
)
from infrastructure.store.player_locks import PlayerLocks
from infrastructure.store.request_keys import RequestKey, issued_keys, recorded_key
from infrastructure.store.retry_policy import ATTEMPTS, pause_before
from infrastructure.store.run_blocking import at_once, in_this_thread, run_blocking

T = TypeVar("T")
_log = logging.getLogger(__name__)

SNAPSHOT_EVERY = 500  # events: loading a player replays at most this many after its snapshot
CACHED_PLAYERS = 10_000
CACHED_SESSIONS = 100_000
_READ_CHUNK = 64


class ConcurrentUpdate(RuleViolation):
    """Other requests for the same player kept winning the race; nothing was changed."""

    code = "concurrent_update"


class SessionKey(Aggregate):
    """session id -> its player. Its id is the session id, so a spin finds its player at once."""

    TOPIC = "infrastructure.application:SessionKey"  # permanent (domain.ledger.event_names)

    class Created(Aggregate.Created):
        TOPIC = "infrastructure.application:SessionKey.Created"  # the library's default, unused

    class Issued(ChainLink, Aggregate.Created):
        TOPIC = "infrastructure.application:SessionKey.Issued"
        prev_hash: str
        player_id: str

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.chain_head = ""  # set by ChainLink as each event applies
        self.closed: dict[str, Any] | None = None  # the closed session, as GET /sessions shows

    class Closed(ChainLink, Aggregate.Event):
        """The session closed: its figures and revealed seed, read by GET /sessions/{sid}."""

        TOPIC = "pumpkin:SessionKey.Closed"
        prev_hash: str
        session: dict[str, Any]

        def apply(self, key: SessionKey) -> None:
            key.closed = dict(self.session)


class TokenKey(Aggregate):
    """SHA-256 of a player token -> its session, so a token is looked up without scanning."""

    TOPIC = "infrastructure.application:TokenKey"  # permanent (domain.ledger.event_names)

    class Created(Aggregate.Created):
        TOPIC = "infrastructure.application:TokenKey.Created"  # the library's default, unused

    class Issued(ChainLink, Aggregate.Created):
        TOPIC = "infrastructure.application:TokenKey.Issued"
        prev_hash: str
        player_id: str
        session_id: str

    def __init__(self, player_id: str, session_id: str) -> None:
        self.player_id = player_id
        self.session_id = session_id


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_key_id(hashed: str) -> UUID:
    return uuid5(NAMESPACE, f"token:{hashed}")


class PumpkinApplication(ProtectionCommands, FreeRoundCommands, Application[UUID]):
    name = "Pumpkin"  # tables: pumpkin_events, pumpkin_snapshots
    snapshotting_intervals = {Player: SNAPSHOT_EVERY}  # noqa: RUF012 - eventsourcing's API

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        seed_vault: SeedVault | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        super().__init__(env)
        # The composition root passes the configured vault; without one, seeds are sealed
        # under a key that dies with the process (tests, tools that only read).
        self.seed_vault = seed_vault or SeedVault.for_this_process()
        self.clock: Callable[[], datetime] = clock or (lambda: datetime.now(UTC))
        self.player_cache = PlayerCache(CACHED_PLAYERS)
        # Immutable facts, so cached without expiry (bounded by clearing when full).
        self._session_players: dict[str, str] = {}
        self._token_sessions: dict[str, tuple[str, str]] = {}
        self._async_commit: AsyncGroupCommit | None = None
        # Player protection: the jurisdiction's profile (set by bootstrap from the settings) and
        # the clock every protection rule is judged by (tests move it; nothing sleeps).
        self.profile: Profile = PROFILES["none"]
        self._locks = PlayerLocks()  # commands on one player take turns in this process
        # Called once per retry after a lost write race (the HTTP app counts them).
        self.on_conflict_retry: Callable[[], object] = _ignore

    def construct_mapper(self) -> Mapper[UUID]:
        return self.factory.mapper(
            transcoder=self.construct_transcoder(), mapper_class=JsonNativeMapper
        )

    @classmethod
    def from_url(
        cls,
        database_url: str,
        *,
        seed_vault: SeedVault | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> PumpkinApplication:
        ensure_database(database_url)
        with schema_lock(database_url):
            return cls(env=event_store_env(database_url), seed_vault=seed_vault, clock=clock)

    # -- players and money -----------------------------------------------------------------------

    def register_player(self, player_id: str) -> None:
        player = Player.register(player_id)
        try:
            self.save(player)
        except IntegrityError:
            raise PlayerExists(f"player {player_id!r} exists") from None

    def deposit(self, player_id: str, amount: int, request_id: str) -> int:
        return self._command(
            player_id, lambda player: player.deposit(amount, request_id), request_id
        )

    def withdraw(self, player_id: str, amount: int, request_id: str) -> int:
        return self._command(
            player_id, lambda player: player.withdraw(amount, request_id), request_id
        )

    def player_state(self, player_id: str) -> dict[str, Any]:
        player = self.load_player(player_id)
        return {**player.state(), **exclusion_view(player, self.clock().timestamp())}

    # -- sessions --------------------------------------------------------------------------------

    def open_session(
        self, player_id: str, reality_check_minutes: object = None
    ) -> tuple[str, str]:
        for _ in self.attempts():
            player = self.load_player(player_id)
            now = self.clock()
            with self.refusals_recorded(player_id, "", None):
                check_may_open(player, now)
            session_id = uuid4().hex
            token = secrets.token_urlsafe(32)
            hashed = token_hash(token)
            server_seed = secrets.token_bytes(32)  # drawn before the event: replay never draws
            player.open_session(
                session_id, hashed, commitment_of(server_seed),
                self.seed_vault.seal(session_id, server_seed), self.clock(),
            )
            protect_session(player, session_id, reality_check_minutes, self.profile, now)
            session_key = es_compat.create(
                SessionKey, SessionKey.Issued, id=UUID(hex=session_id), player_id=player_id,
                prev_hash="",
            )
            token_key = es_compat.create(
                TokenKey, TokenKey.Issued, id=token_key_id(hashed), player_id=player_id,
                session_id=session_id, prev_hash="",
            )
            if self.save_together(player, session_key, token_key):
                _remember(self._session_players, session_id, player_id)
                return session_id, token
        raise ConcurrentUpdate(f"player {player_id!r} is busy, try again")

    def session_for_token(self, token: str) -> SessionRef | None:
        hashed = token_hash(token)
        known = self._token_sessions.get(hashed)
        if known is None:
            try:
                key: TokenKey = self.repository.get(token_key_id(hashed))
            except AggregateNotFoundError:
                return None
            known = (key.session_id, key.player_id)
            _remember(self._token_sessions, hashed, known)
        session_id, player_id = known
        player = self.load_player(player_id)
        return SessionRef(session_id, player_id, player.session_is_open(session_id))

    def known_session_for_token(self, token: str) -> SessionRef | None:
        """The session a token names from what this process already holds (the token's key and
        the player's newest known state), or None: then session_for_token reads the store. For
        a spin only, as the open-session cache is: its `open` may be behind a close made
        through another process, and the spin is judged on the newest state anyway."""
        known = self._token_sessions.get(token_hash(token))
        if known is None:
            return None
        session_id, player_id = known
        cached = self.player_cache.get(player_aggregate_id(player_id))
        if cached is None:
            return None
        return SessionRef(session_id, player_id, cached.session_is_open(session_id))

    def close_session(
        self,
        session_id: str,
        reason: str = "",
        only_if: Callable[[list[Any]], bool] | None = None,
    ) -> dict[str, Any]:
        """Close the session and reveal its seed: THE one close, whoever closes (the player,
        the operator, the idle timeout, a protection rule: `reason` says which). only_if: a
        condition on the open session's entry, judged on the newest state (the idle close).
        Closing a closed session answers it as it closed. The answer is the session object."""
        player_id = self._player_of_session(session_id)
        for _ in self.attempts():
            player = self.load_player(player_id)
            entry = player.session_entry(session_id)
            if entry is None or (only_if is not None and not only_if(entry)):
                return self.session(session_id)
            server_seed = (
                self.seed_vault.open(session_id, str(entry[6])).hex() if entry[5] else None
            )
            now = self.clock()
            player.close_session(session_id, server_seed, reason, now)
            key: SessionKey = self.repository.get(UUID(hex=session_id))
            closed = fair_sessions.closed_view(
                session_id, player_id, entry, now, server_seed, reason
            )
            key.trigger_event(SessionKey.Closed, prev_hash=key.chain_head, session=closed)
            if self.save_together(player, key):
                self.seed_vault.forget(session_id)
                return closed
        raise ConcurrentUpdate(f"player {player_id!r} is busy, try again")

    def reveals(self, player: Player) -> dict[str, str]:
        """The server seeds (hex) of the player's open committed sessions, for a command that
        closes them all at once (Player.close_open_sessions)."""
        revealed: dict[str, str] = {}
        for session_id in list(player.sessions):
            entry = player.session_entry(session_id)
            if entry is not None and entry[5]:
                revealed[session_id] = self.seed_vault.open(session_id, str(entry[6])).hex()
        return revealed

    def session(self, session_id: str) -> dict[str, Any]:
        """The session object of CONTRACT.md: from the player while open, then from the
        SessionKey stream (or, for sessions closed before that, the player's own stream)."""
        player_id = self._player_of_session(session_id)
        entry = self.load_player(player_id).session_entry(session_id)
        if entry is not None:
            return fair_sessions.open_view(session_id, player_id, entry, self.clock())
        key: SessionKey = self.repository.get(UUID(hex=session_id))
        if key.closed is not None:
            return dict(key.closed)
        return fair_sessions.legacy_closed_view(
            session_id, player_id, self.events.get(player_aggregate_id(player_id))
        )

    def close_if_idle(self, session_id: str, idle_seconds: float) -> bool:
        """Close the session if nothing was played in it for `idle_seconds` (its seed
        revealed); True if this call closed it."""
        def idle(entry: list[Any]) -> bool:
            return fair_sessions.idle_for(entry, self.clock()) >= idle_seconds

        player_id = self._player_of_session(session_id)
        entry = self.load_player(player_id, fresh=False).session_entry(session_id)
        if entry is None or not idle(entry):
            return False
        return self.close_session(session_id, "idle", only_if=idle)["open"] is False

    # -- rounds ----------------------------------------------------------------------------------

    def spin(
        self, session_id: str, stake: int | None, request_id: str, client_seed: str = "",
        free_round: str | None = None,
    ) -> dict[str, Any]:
        """stake None: a free round's (infrastructure/promotions/free_round_commands.py)."""
        return self._spin(session_id, stake, request_id, SpinAttempt(client_seed, free_round))

    def _spin(
        self, session_id: str, stake: int | None, request_id: str, attempt: SpinAttempt
    ) -> dict[str, Any]:
        player_id = self._player_of_session(session_id)
        result = self._guarded(
            player_id,
            session_id,
            stake,
            lambda player: self.decide_spin(player, session_id, stake, request_id, attempt),
            request_id,
        )
        if isinstance(result, int):
            played = self._round_from(player_aggregate_id(player_id), result)
        else:
            played = round_view(round_event_payload(event) for event in result)
        return played

    def decide_spin(
        self, player: Player, session_id: str, stake: int | None, request_id: str,
        attempt: SpinAttempt,
    ) -> int | list[Any]:
        """Decide a spin on `player`: the StakePlaced version of the round a request id already
        played, or the new round's events (pending on the player). A free round plays its
        campaign's stake (stake None: that stake)."""
        attempt.begin(player)
        free_round = attempt.free_round
        stake = spin_stake(player, stake, free_round)
        recorded = player.spin_replayed(session_id, stake, request_id, attempt.client_seed)
        if recorded is not None:
            return recorded
        now = self.clock()
        player.check_protection(session_id, stake, self.profile, now)
        player.check_spin(session_id, stake, free=free_round is not None)
        entry = player.session_entry(session_id)
        if entry is None:
            raise SessionClosed(f"session {session_id!r} is closed")
        if entry[5]:  # a committed session: the seed derives from its server seed
            player.burn_nonces(session_id, tuple(attempt.lost))
            nonce: int | None = player.next_nonce(session_id)
            assert nonce is not None
            server_seed = self.seed_vault.open(session_id, str(entry[6]))
            seed = round_seed(server_seed, session_id, nonce, attempt.client_seed)
            attempt.computed(nonce, seed)
        else:  # opened before commitments: drawn before any event exists, as it always was
            nonce, seed = None, secrets.token_bytes(32)
        player.spin(
            session_id, stake, request_id, seed, nonce, attempt.client_seed, now,
            free_round=free_round,
        )
        return [event for event in player.pending_events if _in_round(event)]

    async def spin_async(
        self, session_id: str, stake: int | None, request_id: str, client_seed: str = "",
        free_round: str | None = None,
    ) -> dict[str, Any]:
        """The same spin, for an event loop, without a thread per spin.

        When the session and the player are in memory, the round is decided in the loop's
        thread (CPU only: no store access) and committed by the loop's own group commit
        (infrastructure/store/async_commit.py), awaited, not blocked on. Anything else (a player not
        cached, a request id seen before, a refusal to be re-judged on the newest state, a lost
        race) goes to `spin` in a worker thread, which owns every rule and retry. Both ways
        record the same events in one transaction.
        """
        attempt = SpinAttempt(check_client_seed(client_seed), free_round)
        player_id = self._session_players.get(session_id)
        if player_id is None:
            player_id = await asyncio.to_thread(self._player_of_session, session_id)
        await self._locks.take_turn(player_id)
        try:
            return await self._spin_async(session_id, stake, request_id, attempt)
        finally:
            self._locks.end_turn(player_id)

    async def _spin_async(
        self, session_id: str, stake: int | None, request_id: str, attempt: SpinAttempt
    ) -> dict[str, Any]:
        grouped = isinstance(self.recorder, GroupCommitRecorder)
        player = (
            self._spin_decided_in_memory(session_id, stake, request_id, attempt)
            if grouped else None
        )
        if player is not None:
            played = [event for event in player.pending_events if _in_round(event)]
            try:
                await self.save_in_loop(player, *issued_keys(player, request_id))
            except IntegrityError:  # another writer took the version: `spin` retries on the
                self.on_conflict_retry()  # newest state
            else:
                self.player_cache.put(player)
                return round_view(round_event_payload(event) for event in played)
        return await asyncio.to_thread(self._spin, session_id, stake, request_id, attempt)

    def _async_group_commit(self) -> AsyncGroupCommit:
        """The group commit of the running event loop (a server has one loop; a new loop, as
        in tests, gets its own and the previous one is dropped)."""
        assert isinstance(self.recorder, GroupCommitRecorder)
        current = self._async_commit
        if current is None or current.loop is not asyncio.get_running_loop():
            if current is not None:
                current.close()
            current = self._async_commit = AsyncGroupCommit(self.recorder)
        return current

    def _spin_decided_in_memory(
        self, session_id: str, stake: int | None, request_id: str, attempt: SpinAttempt
    ) -> Player | None:
        """The player with the round decided (pending), if nothing had to be read to decide."""
        player_id = self._session_players.get(session_id)
        cached = self.player_cache.get(player_aggregate_id(player_id)) if player_id else None
        if cached is None:
            return None
        player: Player = deepcopy(cached)
        try:
            decided = self.decide_spin(player, session_id, stake, request_id, attempt)
        except RuleViolation:
            return None  # a refusal is only final when judged on the newest state
        return None if isinstance(decided, int) else player

    def round(self, round_id: str) -> dict[str, Any]:
        """A round read back from the write side (the player's stream), as the spin answered."""
        parsed = parse_round_id(round_id)
        if parsed is None:
            raise RoundNotFound(f"no round {round_id!r}")
        player_id, number = parsed
        try:
            player = self.load_player(player_id)
        except PlayerNotFound:
            raise RoundNotFound(f"no round {round_id!r}") from None
        if number > player.rounds:
            raise RoundNotFound(f"no round {round_id!r}")
        start = self._find_round_start(player.id, number, player.version)
        return self._round_from(player.id, start)

    def round_ids(self, player_id: str) -> list[str]:
        """The player's round ids, newest first (rounds are numbered 1, 2, ... per player)."""
        player = self.load_player(player_id)
        return [f"{player_id}.{n}" for n in range(player.rounds, 0, -1)]

    # -- the chain -------------------------------------------------------------------------------

    def player_events(self, player_id: str) -> Iterator[ChainedEvent]:
        """The player's stream as stored, for the hash-chain check (domain.ledger.hashchain)."""
        check_player_id(player_id)
        for event in self.events.get(player_aggregate_id(player_id)):
            yield chained(event, stored_name(type(event)))

    def check_player_chain(self, player_id: str) -> list[Problem]:
        anchors: dict[str, tuple[int, str]] = {}
        if self.snapshots is not None:
            aggregate_id = player_aggregate_id(player_id)
            for snapshot in self.snapshots.get(aggregate_id, desc=True, limit=1):
                head = getattr(snapshot, "state", {}).get("chain_head")
                if isinstance(head, str):
                    anchors[str(aggregate_id)] = (snapshot.originator_version, head)
        return check_chain(self.player_events(player_id), anchors)

    # -- helpers ---------------------------------------------------------------------------------

    def load_player(self, player_id: str, *, fresh: bool = True) -> Player:
        """A private copy of the player to decide on.

        fresh: caught up with the store (what queries and second attempts need). Otherwise the
        newest state this process knows, which may be behind another process's writes: a save
        from it then conflicts and is retried fresh, and a refusal is re-judged fresh.
        """
        check_player_id(player_id)
        aggregate_id = player_aggregate_id(player_id)
        cached = self.player_cache.get(aggregate_id)
        if cached is None:
            player = self._load_player(player_id, aggregate_id)
        else:
            newer = list(self.events.get(aggregate_id, gt=cached.version)) if fresh else []
            if not newer:
                return deepcopy(cached)
            player = _project(deepcopy(cached), newer)
        self.player_cache.put(player)
        return deepcopy(player)

    def _load_player(self, player_id: str, aggregate_id: UUID) -> Player:
        """From its snapshot and the events after it; from the events alone if the snapshot
        cannot be read (a snapshot only speeds loading: the stream is the truth)."""
        try:
            player: Player = self.repository.get(aggregate_id, projector_func=_project)
            return player
        except AggregateNotFoundError:
            raise PlayerNotFound(f"no player {player_id!r}") from None
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            _log.error("snapshot_unreadable_replaying_events", extra={
                "player_id": player_id, "error": type(error).__name__})
        replayed: Player | None = _project(None, self.events.get(aggregate_id))
        if replayed is None:
            raise PlayerNotFound(f"no player {player_id!r}")
        return replayed

    def _player_of_session(self, session_id: str) -> str:
        known = self._session_players.get(session_id)
        if known is not None:
            return known
        try:
            key: SessionKey = self.repository.get(UUID(hex=session_id))
        except (AggregateNotFoundError, ValueError, TypeError, AttributeError):
            raise SessionNotFound(f"no session {session_id!r}") from None
        if not isinstance(key, SessionKey):
            raise SessionNotFound(f"no session {session_id!r}")
        _remember(self._session_players, session_id, key.player_id)
        return key.player_id

    def _command(
        self, player_id: str, decide: Callable[[Player], T], request_id: str | None = None
    ) -> T:
        """Decide on the player and record what it decided, retrying when a race is lost.

        request_id: the request's durable key (infrastructure/store/request_keys.py) is recorded
        with
        its events, and read only when the save conflicts or the newest state refuses it.
        """
        with self._locks.held(player_id):
            return self._command_in_turn(player_id, decide, request_id)

    def _command_in_turn(
        self, player_id: str, decide: Callable[[Player], T], request_id: str | None
    ) -> T:
        fresh = False
        conflicts = 0
        while conflicts < ATTEMPTS:
            player = self.load_player(player_id, fresh=fresh)
            try:
                result = decide(player)
            except RuleViolation:
                if not fresh:
                    fresh = True  # a refusal is only final when judged on the newest state
                    continue
                recalled = self._recalled(player_id, request_id, decide)
                if recalled is None:
                    raise
                return recalled[0]
            if not player.pending_events:
                return result
            if self.save_together(player, *issued_keys(player, request_id)):
                return result
            recalled = self._recalled(player_id, request_id, decide)
            if recalled is not None:
                return recalled[0]
            conflicts += 1
            fresh = True
            self._retrying(conflicts)
        raise ConcurrentUpdate(f"player {player_id!r} is busy, try again")

    def _recalled(
        self, player_id: str, request_id: str | None, decide: Callable[[Player], T]
    ) -> tuple[T] | None:
        """The answer again, if the request's durable key says it was applied (beyond the
        player's window); RequestIdReused if it was applied with another body."""
        key = recorded_key(self.repository, player_id, request_id)
        if key is None:
            return None
        player = self.load_player(player_id)
        player.recall_request(key.request_id, key.fingerprint, key.answer)
        return (decide(player),)

    def save_together(self, *aggregates: Aggregate | RequestKey.Issued) -> bool:
        """Record in one transaction; False if another writer took one of the versions."""
        try:
            self.save(*aggregates)
        except IntegrityError:
            return False
        for aggregate in aggregates:
            if isinstance(aggregate, Player):
                self.player_cache.put(aggregate)  # the newest state: the next command starts here
        return True

    def save(self, *objs: Any, **kwargs: Any) -> Any:
        """The library's save (record, snapshot, notify: `_saving`), blocking."""
        insert = at_once(self.recorder.insert_events)
        return run_blocking(self._saving(objs, kwargs, insert, in_this_thread, answer=True))

    async def save_in_loop(self, *objs: Any) -> list[Recording[UUID]]:
        """The same save in the event loop: committed by the loop's group commit (awaited, not
        blocked on), snapshots written in a worker thread. Answers no recordings unless the hook
        after recording takes them: building them is a visible share of a spin's CPU."""
        return await self._saving(objs, {}, self._insert_in_loop, asyncio.to_thread, answer=False)

    async def _insert_in_loop(
        self, stored_events: list[StoredEvent], **kwargs: Any
    ) -> Sequence[int]:
        assert not any(kwargs.values())  # tracking etc. are saved blocking, not from the loop
        return await self._async_group_commit().save(stored_events)

    async def _saving(
        self,
        objs: Iterable[Any],
        kwargs: Mapping[str, Any],
        insert: Callable[..., Awaitable[Sequence[int] | None]],
        in_worker: Callable[..., Awaitable[None]],
        *,
        answer: bool,
    ) -> list[Recording[UUID]]:
        """The one save path, blocking or async (infrastructure/store/run_blocking.py): collect the
        events, record them in one transaction with `insert`, snapshot players from memory
        (`in_worker(self._write_snapshots, due)`), run the library's hooks after recording."""
        processing_event: ProcessingEvent[UUID] = ProcessingEvent()
        self._collect(processing_event, *objs)
        processing_event.saved_kwargs.update(kwargs)
        answer = answer or es_compat.hooked_after_recording(self)
        recordings = await es_compat.record(self, processing_event, insert, answer=answer)
        due = self._due_a_snapshot(processing_event)
        if due:
            await in_worker(self._write_snapshots, due)
        es_compat.notify_recorded(self, recordings)
        self.notify(processing_event.events)  # the library's deprecated hook, kept in step
        return recordings

    @staticmethod
    def _collect(processing_event: ProcessingEvent[UUID], *objs: Any) -> None:
        """The library's collect_events, with a class check for our aggregates: its runtime
        Protocol checks (isinstance against two Protocols per aggregate) cost a visible share of
        a spin's CPU. Anything else is collected as the library does."""
        for obj in objs:
            if isinstance(obj, Aggregate):
                processing_event.events.extend(obj.collect_events())
                processing_event.aggregates[obj.id] = obj
            elif isinstance(obj, RequestKey.Issued):  # a bare event: its key has no other
                processing_event.events.append(obj)
            else:
                processing_event.collect_events(obj)

    def _due_a_snapshot(self, processing_event: ProcessingEvent[UUID]) -> list[Player]:
        """The players to snapshot from memory: each time a player's version crosses a
        SNAPSHOT_EVERY mark. (The library's default rebuilds the aggregate from the store.)"""
        if self.snapshots is None:
            return []
        # A version that is a multiple of the interval lies in this save's versions exactly
        # when the player crossed a mark (the library's own rule, on the events in hand).
        marked = {
            event.originator_id
            for event in processing_event.events
            if event.originator_version % SNAPSHOT_EVERY == 0
        }
        return [
            aggregate
            for aggregate_id, aggregate in processing_event.aggregates.items()
            if aggregate_id in marked and isinstance(aggregate, Player)
        ]

    def _write_snapshots(self, players: list[Player]) -> None:
        """A snapshot only speeds loading: failing to write one must not fail a command."""
        for player in players:
            try:
                assert self.snapshots is not None
                self.snapshots.put([Snapshot.take(player)])
            except Exception:  # noqa: BLE001 - logged; the next mark tries again
                _log.warning("snapshot failed", exc_info=True)

    def close(self) -> None:
        if self._async_commit is not None:
            self._async_commit.close()
        super().close()

    def attempts(self) -> Iterator[int]:
        for attempt in range(ATTEMPTS):
            if attempt:
                self._retrying(attempt)
            yield attempt

    def _retrying(self, retry: int) -> None:
        """Count a retry after a lost race (infrastructure.store.retry_policy) and pause before
        it."""
        self.on_conflict_retry()
        pause_before(retry)

    def _round_from(self, aggregate_id: UUID, start_version: int) -> dict[str, Any]:
        """round_view of the round whose StakePlaced is at `start_version`, read from the store."""
        parts: list[tuple[str, dict[str, Any]]] = []
        after = start_version - 1
        while True:
            chunk = list(self.events.get(aggregate_id, gt=after, limit=_READ_CHUNK))
            if not chunk:
                raise RoundNotFound("the round's events are incomplete")
            for event in chunk:
                if _in_round(event):
                    parts.append(round_event_payload(event))
                if isinstance(event, Player.RoundSettled):
                    return round_view(parts)
            after = chunk[-1].originator_version

    def _find_round_start(self, aggregate_id: UUID, number: int, last_version: int) -> int:
        """Binary search of the stream for round `number`'s StakePlaced (no index needed)."""
        low, high = 1, last_version
        while low < high:
            middle = (low + high) // 2
            if self._round_number_at(aggregate_id, middle) >= number:
                high = middle
            else:
                low = middle + 1
        return low

    def _round_number_at(self, aggregate_id: UUID, version: int) -> int:
        """The number of the latest round begun at or before `version` (0 if none)."""
        upper: int | None = version
        while upper is not None and upper > 0:
            chunk = list(self.events.get(aggregate_id, lte=upper, desc=True, limit=_READ_CHUNK))
            for event in chunk:
                round_id = getattr(event, "round_id", None)
                if isinstance(round_id, str):
                    parsed = parse_round_id(round_id)
                    return parsed[1] if parsed else 0
            upper = chunk[-1].originator_version - 1 if chunk else None
        return 0


class PlayerCache:
    """The newest known state of recently used players, least recently used evicted.

    Entries are never mutated (commands decide on copies) and only a newer version replaces
    one, so a reader can copy an entry without holding any lock.
    """

    def __init__(self, size: int) -> None:
        self._players: OrderedDict[UUID, Player] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, aggregate_id: UUID) -> Player | None:
        with self._lock:
            player = self._players.get(aggregate_id)
            if player is not None:
                self._players.move_to_end(aggregate_id)
            return player

    def put(self, player: Player) -> None:
        with self._lock:
            known = self._players.get(player.id)
            if known is None or known.version < player.version:
                self._players[player.id] = player
                self._players.move_to_end(player.id)
            while len(self._players) > self._size:
                self._players.popitem(last=False)


def _ignore() -> None:
    return None


def _remember(cache: dict[str, T], key: str, value: T) -> None:
    if len(cache) >= CACHED_SESSIONS:
        cache.clear()
    cache[key] = value


def _project(aggregate: Any, events: Iterable[Any]) -> Any:
    """Apply events in order (the library's default also runs a slow runtime Protocol check)."""
    for event in events:
        aggregate = event.mutate(aggregate)
    return aggregate


class SpinAttempt:
    """One spin request across its attempts: the player each attempt decided on, and the
    rounds computed by attempts that were not recorded (a new attempt means the one before
    was lost), so the retry takes the next nonce and records them (Player.NonceBurned).
    free_round: the campaign whose free round this spin plays (None: a paid spin)."""

    def __init__(self, client_seed: str, free_round: str | None = None) -> None:
        self.client_seed = client_seed
        self.free_round = free_round
        self.player: Player | None = None
        self.lost: list[tuple[int, str, str]] = []  # (nonce, client seed, seed hex)
        self._pending: tuple[int, str, str] | None = None

    def begin(self, player: Player) -> None:
        if self._pending is not None:
            self.lost.append(self._pending)
            self._pending = None
        self.player = player

    def computed(self, nonce: int, seed: bytes) -> None:
        self._pending = (nonce, self.client_seed, seed.hex())


def _in_round(event: object) -> bool:
    return type(event).__name__ in ROUND_EVENT_NAMES and isinstance(event, Player.Event)
