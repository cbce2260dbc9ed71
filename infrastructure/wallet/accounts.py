"""Loading and saving the players' WalletAccounts (domain/ledger/wallet_account.py) on the
application's store: the newest known state cached per player, caught up with the store on
every load (another process may have written), and a snapshot every SNAPSHOT_EVERY events so
a cold load replays little."""

from __future__ import annotations

import asyncio
import logging
import threading
from copy import deepcopy
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Snapshot
from eventsourcing.persistence import IntegrityError

from domain.ledger.player import Player
from domain.ledger.wallet_account import WalletAccount, wallet_account_id
from infrastructure.store.persistence import GroupCommitRecorder

SNAPSHOT_EVERY = 300
CACHED = 10_000
_log = logging.getLogger(__name__)


class Accounts:
    def __init__(self, application: Any) -> None:
        self.app = application
        self._cache: dict[UUID, WalletAccount] = {}
        self._lock = threading.Lock()

    def cached(self, player_id: str) -> WalletAccount | None:
        """A private copy of the newest account this process knows, without reading the store
        (None: not in memory). It may be behind another process: a save from it conflicts."""
        with self._lock:
            cached = self._cache.get(wallet_account_id(player_id))
        return None if cached is None else deepcopy(cached)

    def get(self, player_id: str) -> WalletAccount | None:
        """A private copy of the player's account, caught up with the store (None: none yet)."""
        aggregate_id = wallet_account_id(player_id)
        with self._lock:
            cached = self._cache.get(aggregate_id)
        if cached is None:
            try:
                account: WalletAccount = self.app.repository.get(aggregate_id)
            except AggregateNotFoundError:
                return None
        else:
            newer = list(self.app.events.get(aggregate_id, gt=cached.version))
            if not newer:
                return deepcopy(cached)
            account = deepcopy(cached)
            for event in newer:
                account = event.mutate(account)
        self._remember(account)
        return deepcopy(account)

    def get_or_open(self, player_id: str) -> WalletAccount:
        return self.get(player_id) or WalletAccount.open(player_id)

    async def saved_async(self, *aggregates: Any) -> bool:
        """`saved` from an event loop: on PostgreSQL through the loop's own group commit (as
        the built-in spin saves, infrastructure/store/async_commit.py), else in a worker thread."""
        app = self.app
        if not isinstance(app.recorder, GroupCommitRecorder):
            return await asyncio.to_thread(self.saved, *aggregates)
        accounts = [a for a in aggregates if isinstance(a, WalletAccount)]
        marks = [(a, a.version - len(a.pending_events)) for a in accounts]
        try:
            await app.save_in_loop(*aggregates)  # the application's one save path
        except IntegrityError:
            return False
        for aggregate in aggregates:
            if isinstance(aggregate, Player):
                app.player_cache.put(aggregate)
        for account, before in marks:
            self._remember(account)
            if account.version // SNAPSHOT_EVERY > before // SNAPSHOT_EVERY:
                await asyncio.to_thread(self._snapshot, account)
        return True

    def saved(self, *aggregates: Any) -> bool:
        """Record in one transaction (the application's save); False if a version was taken."""
        accounts = [a for a in aggregates if isinstance(a, WalletAccount)]
        marks = [(a, a.version - len(a.pending_events)) for a in accounts]
        if not self.app.save_together(*aggregates):
            return False
        for account, before in marks:
            self._remember(account)
            if account.version // SNAPSHOT_EVERY > before // SNAPSHOT_EVERY:
                self._snapshot(account)
        return True

    def _remember(self, account: WalletAccount) -> None:
        with self._lock:
            known = self._cache.get(account.id)
            if known is None or known.version < account.version:
                if len(self._cache) >= CACHED:
                    self._cache.clear()
                self._cache[account.id] = account

    def _snapshot(self, account: WalletAccount) -> None:
        if self.app.snapshots is None:
            return
        try:
            self.app.snapshots.put([Snapshot.take(account)])
        except Exception:  # noqa: BLE001 - a snapshot only speeds loading
            _log.warning("wallet account snapshot failed", exc_info=True)
