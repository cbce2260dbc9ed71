"""The players of the write side: loaded fresh, cached, saved (infrastructure/store/
cached_aggregates.py does the caching and loading for every aggregate kind)."""

from __future__ import annotations

from domain.errors import PlayerExists, PlayerNotFound
from domain.ledger.identifiers import check_player_id, player_aggregate_id
from domain.ledger.player import Player
from infrastructure.store.cached_aggregates import CachedAggregates
from infrastructure.store.event_store import PumpkinStore


class PlayerRepository:
    def __init__(self, store: PumpkinStore) -> None:
        self.store = store
        self.cache = CachedAggregates(store, Player)

    def load(self, player_id: str, *, fresh: bool = True) -> Player:
        """A private copy of the player to decide on (fresh: caught up with the store; else
        the newest state this process knows)."""
        check_player_id(player_id)
        player = self.cache.get(player_aggregate_id(player_id), fresh=fresh)
        if player is None:
            raise PlayerNotFound(f"no player {player_id!r}")
        return player

    def cached(self, player_id: str) -> Player | None:
        """A private copy of the newest state this process holds (None: not in memory)."""
        return self.cache.cached(player_aggregate_id(player_id))

    def newest_known(self, player_id: str) -> Player | None:
        """The newest state this process holds, for reading only (None: not in memory)."""
        return self.cache.newest_known(player_aggregate_id(player_id))

    def register(self, player_id: str, age_band: object = None) -> None:
        player = Player.register(player_id, age_band)
        if not self.store.saved(player):
            raise PlayerExists(f"player {player_id!r} exists")
        self.cache.remember(player)
