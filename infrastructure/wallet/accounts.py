"""The players' WalletAccounts (domain/ledger/wallet_account.py), the seamless wallet's outbox
per player: cached and loaded as every aggregate of the write side is (infrastructure/store/
cached_aggregates.py), saved through the command runner or the store's one save path."""

from __future__ import annotations

from domain.ledger.wallet_account import WalletAccount, wallet_account_id
from infrastructure.store.cached_aggregates import CachedAggregates
from infrastructure.store.event_store import PumpkinStore


class WalletAccounts:
    def __init__(self, store: PumpkinStore) -> None:
        self.store = store
        self.cache = CachedAggregates(store, WalletAccount)

    def cached(self, player_id: str) -> WalletAccount | None:
        """A private copy of the newest account this process knows, without reading the store
        (None: not in memory). It may be behind another process: a save from it conflicts."""
        return self.cache.cached(wallet_account_id(player_id))

    def get(self, player_id: str) -> WalletAccount | None:
        """A private copy of the player's account, caught up with the store (None: none yet)."""
        return self.cache.get(wallet_account_id(player_id))

    def get_or_open(self, player_id: str) -> WalletAccount:
        return self.get(player_id) or WalletAccount.open(player_id)

    def remember(self, account: WalletAccount) -> None:
        self.cache.remember(account)

    def saved(self, *accounts: WalletAccount) -> bool:
        """Record in one transaction (the store's one save path); False if a version was
        taken."""
        if not self.store.saved(*accounts):
            return False
        for account in accounts:
            self.remember(account)
        return True

    async def saved_in_loop(self, *accounts: WalletAccount) -> bool:
        """`saved` from the event loop (the loop's group commit on PostgreSQL)."""
        if not await self.store.saved_in_loop(*accounts):
            return False
        for account in accounts:
            self.remember(account)
        return True
