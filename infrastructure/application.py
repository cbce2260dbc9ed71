"""The game service: the write side composed (the Service of infrastructure/ports.py).

Its parts, each in its own module, composed here and nowhere else:
- the event store and its one save path (store/event_store.py), the players' repository
  (store/player_repository.py) and the wallet accounts' (wallet/accounts.py), both on one cache
  and load (store/cached_aggregates.py), snapshots sealed to the service (store/snapshot_seal.py);
- the command runner (store/command_runner.py): the player's turn, retries, request replay,
  decide in memory else on the newest state;
- the handlers by capability, each a small module around the runner: sessions
  (sessions/session_commands.py), spins (rounds/spins.py), money (the wallet: wallet/port.py),
  player protection (protection/commands.py), free rounds (promotions/free_round_commands.py),
  and rounds read back (rounds/round_reads.py).
Every command here is one line: which handler answers it.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator, Mapping
from datetime import datetime
from types import TracebackType
from typing import Any

from eventsourcing.application import Repository
from eventsourcing.persistence import ApplicationRecorder, EventStore, Mapper
from prometheus_client import CollectorRegistry

from domain.ledger.event_names import stored_name
from domain.ledger.hashchain import ChainedEvent, Problem, chained, check_chain
from domain.ledger.identifiers import check_player_id, player_aggregate_id
from domain.ledger.player import Player
from domain.ledger.protection import Profile
from infrastructure.ports import SessionRef
from infrastructure.promotions.free_round_commands import FreeRoundCommands
from infrastructure.protection.commands import ProtectionCommands
from infrastructure.rounds.round_reads import RoundReads
from infrastructure.rounds.spins import SpinCommands
from infrastructure.rules_in_force import RulesInForce, utc_now
from infrastructure.sessions.keys import SessionDirectory
from infrastructure.sessions.seed_vault import SeedVault
from infrastructure.sessions.session_commands import SessionCommands
from infrastructure.store.command_runner import CommandRunner
from infrastructure.store.event_store import PumpkinStore
from infrastructure.store.player_repository import PlayerRepository
from infrastructure.store.run_blocking import run_blocking
from infrastructure.store.snapshot_seal import SnapshotSeal
from infrastructure.wallet.accounts import WalletAccounts
from infrastructure.wallet.builtin import BuiltInWallet
from infrastructure.wallet.port import SpinOrder, Wallet

WalletFactory = Callable[[CommandRunner, RulesInForce], Wallet]


def built_in_wallet(runner: CommandRunner, rules: RulesInForce) -> Wallet:
    return BuiltInWallet(runner, rules)


class PumpkinApplication:
    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        seed_vault: SeedVault | None = None,
        clock: Callable[[], datetime] | None = None,
        seal: SnapshotSeal | None = None,
        wallet: WalletFactory = built_in_wallet,
        store: PumpkinStore | None = None,
    ) -> None:
        # The composition root passes the configured vault and seal; without them, seeds and
        # snapshots are sealed under keys that die with the process (tests, read-only tools).
        self.store = store or PumpkinStore(env, seal=seal)
        self.seed_vault = seed_vault or SeedVault.for_this_process()
        self.rules = RulesInForce(clock or utc_now)
        self.players = PlayerRepository(self.store)
        self.runner = CommandRunner(self.players, WalletAccounts(self.store))
        self.wallet = wallet(self.runner, self.rules)
        self.rounds = RoundReads(self.players)
        self.sessions = SessionCommands(
            self.runner, SessionDirectory(self.store), self.seed_vault, self.rules, self.rounds
        )
        self.runner.companions = self.sessions.keys_closed
        self.spins = SpinCommands(self.runner, self.sessions, self.wallet, self.rounds, self.rules)
        self.protection = ProtectionCommands(self.runner, self.sessions, self.rules)
        self.free_rounds = FreeRoundCommands(self.runner, self.rules)

    @classmethod
    def from_url(
        cls,
        database_url: str,
        *,
        seed_vault: SeedVault | None = None,
        clock: Callable[[], datetime] | None = None,
        seal: SnapshotSeal | None = None,
        wallet: WalletFactory = built_in_wallet,
    ) -> PumpkinApplication:
        store = PumpkinStore.from_url(database_url, seal=seal)
        return cls(seed_vault=seed_vault, clock=clock, wallet=wallet, store=store)

    # -- what every rule is judged by (tests move the clock) ----------------------------------

    @property
    def clock(self) -> Callable[[], datetime]:
        return self.rules.clock

    @clock.setter
    def clock(self, clock: Callable[[], datetime]) -> None:
        self.rules.clock = clock

    @property
    def profile(self) -> Profile:
        return self.rules.profile

    @profile.setter
    def profile(self, profile: Profile) -> None:
        self.rules.profile = profile

    @property
    def on_conflict_retry(self) -> Callable[[], object]:
        return self.runner.on_conflict_retry

    @on_conflict_retry.setter
    def on_conflict_retry(self, hook: Callable[[], object]) -> None:
        self.runner.on_conflict_retry = hook

    # -- players and money ---------------------------------------------------------------------

    def register_player(self, player_id: str, age_band: object = None) -> None:
        self.players.register(player_id, age_band)

    def deposit(self, player_id: str, amount: int, request_id: str) -> int:
        return self.wallet.deposit(player_id, amount, request_id)

    def withdraw(self, player_id: str, amount: int, request_id: str) -> int:
        return self.wallet.withdraw(player_id, amount, request_id)

    def player_state(self, player_id: str) -> dict[str, Any]:
        player = self.players.load(player_id)
        state = {**player.state(), **self.protection.exclusion(player)}
        return self.wallet.shown_state(player_id, state)

    def load_player(self, player_id: str, *, fresh: bool = True) -> Player:
        return self.players.load(player_id, fresh=fresh)

    # -- sessions ------------------------------------------------------------------------------

    def open_session(
        self, player_id: str, reality_check_minutes: object = None
    ) -> tuple[str, str]:
        return self.sessions.open(player_id, reality_check_minutes)

    def close_session(self, session_id: str, closed_by: str = "operator") -> dict[str, Any]:
        return self.sessions.close(session_id, closed_by)

    def close_if_idle(self, session_id: str, idle_seconds: float) -> bool:
        return self.sessions.close_if_idle(session_id, idle_seconds)

    def session(self, session_id: str) -> dict[str, Any]:
        return self.sessions.session(session_id)

    def session_for_token(self, token: str) -> SessionRef | None:
        return self.sessions.session_for_token(token)

    def known_session_for_token(self, token: str) -> SessionRef | None:
        return self.sessions.known_session_for_token(token)

    # -- rounds --------------------------------------------------------------------------------

    async def spin_async(
        self, session_id: str, stake: int | None, request_id: str, client_seed: str = "",
        free_round: str | None = None,
    ) -> dict[str, Any]:
        order = SpinOrder(session_id, stake, request_id, client_seed, free_round)
        return await self.spins.spin(order)

    def spin(
        self, session_id: str, stake: int | None, request_id: str, client_seed: str = "",
        free_round: str | None = None,
    ) -> dict[str, Any]:
        """The same spin for callers without an event loop (tools, tests): every step in this
        thread. The built-in wallet only: the operator's is called from the event loop."""
        order = SpinOrder(session_id, stake, request_id, client_seed, free_round)
        return run_blocking(self.spins.spin(order, blocking=True))

    def round(self, round_id: str) -> dict[str, Any]:
        return self.rounds.round(round_id)

    def round_ids(self, player_id: str) -> list[str]:
        return self.rounds.round_ids(player_id)

    def settlement(self, player_id: str, round_id: str) -> dict[str, Any]:
        return self.wallet.settlement(player_id, round_id)

    # -- free rounds ---------------------------------------------------------------------------

    def grant_free_rounds(
        self, player_id: str, campaign_id: str, rounds: int, stake: int,
        expires_at: str | None, request_id: str,
    ) -> dict[str, Any]:
        return self.free_rounds.grant(player_id, campaign_id, rounds, stake, expires_at,
                                      request_id)

    def live_free_rounds(self, player_id: str) -> list[dict[str, Any]]:
        return self.free_rounds.live(player_id)

    def cancel_free_rounds(self, player_id: str, campaign_id: str) -> dict[str, Any]:
        return self.free_rounds.cancel(player_id, campaign_id)

    # -- player protection ---------------------------------------------------------------------

    def limits(self, player_id: str) -> dict[str, Any]:
        return self.protection.limits(player_id)

    def set_limits(self, player_id: str, requested: Mapping[str, Any]) -> dict[str, Any]:
        return self.protection.set_limits(player_id, requested)

    def exclude(self, player_id: str, until: datetime | None, reason: str) -> dict[str, Any]:
        return self.protection.exclude(player_id, until, reason)

    def reality_check(self, session_id: str, proceed: bool) -> dict[str, Any]:
        return self.protection.reality_check(session_id, proceed)

    # -- the chain -----------------------------------------------------------------------------

    def player_events(self, player_id: str) -> Iterator[ChainedEvent]:
        """The player's stream as stored, for the hash-chain check (domain.ledger.hashchain)."""
        check_player_id(player_id)
        for event in self.store.events.get(player_aggregate_id(player_id)):
            yield chained(event, stored_name(type(event)))

    def check_player_chain(self, player_id: str) -> list[Problem]:
        anchors: dict[str, tuple[int, str]] = {}
        if self.store.snapshots is not None:
            aggregate_id = player_aggregate_id(player_id)
            for snapshot in self.store.snapshots.get(aggregate_id, desc=True, limit=1):
                head = getattr(snapshot, "state", {}).get("chain_head")
                if isinstance(head, str):
                    anchors[str(aggregate_id)] = (snapshot.originator_version, head)
        return check_chain(self.player_events(player_id), anchors)

    # -- the store, for the tools that read it (audit, projections' rebuild) ------------------

    @property
    def events(self) -> EventStore[Any]:
        return self.store.events

    @property
    def snapshots(self) -> EventStore[Any] | None:
        return self.store.snapshots

    @property
    def mapper(self) -> Mapper[Any]:
        return self.store.mapper

    @property
    def recorder(self) -> ApplicationRecorder:
        return self.store.recorder

    @property
    def repository(self) -> Repository[Any]:
        return self.store.repository

    # -- running it ----------------------------------------------------------------------------

    @property
    def wallet_owed(self) -> Callable[[], list[dict[str, Any]]] | None:
        return self.wallet.owed

    @property
    def background(self) -> tuple[Callable[[], Coroutine[Any, Any, None]], ...]:
        return (*self.wallet.background, *self.free_rounds.background)

    def bind_metrics(self, registry: CollectorRegistry) -> None:
        self.wallet.bind_metrics(registry)

    def close(self) -> None:
        self.wallet.close()
        self.store.close()

    def __enter__(self) -> PumpkinApplication:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
