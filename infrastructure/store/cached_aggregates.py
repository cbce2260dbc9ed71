"""The newest known state of recently used aggregates of one kind, loaded from the store when not
known: THE cache and load of the write side (infrastructure/store/player_repository.py for
players, infrastructure/wallet/accounts.py for the seamless wallet's accounts).

Entries are never changed (commands decide on copies, and only a newer version replaces an
entry), so a reader may copy one without a lock. A load starts from the newest snapshot the
service can trust (infrastructure/store/snapshot_seal.py) and applies the events after it;
without one, from the events alone, and then writes a sealed snapshot of what it replayed, so
the next load is short again.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable
from copy import deepcopy
from typing import Any, Generic, TypeVar
from uuid import UUID

from eventsourcing.domain import Aggregate

from domain.ledger.event_names import stored_name
from domain.ledger.hashchain import digest_of
from infrastructure.store.event_store import SNAPSHOT_EVERY, PumpkinStore
from infrastructure.store.snapshot_seal import SealedSnapshot

A = TypeVar("A", bound=Aggregate)
CACHED = 10_000
_SNAPSHOTS_LOOKED_AT = 3  # the newest few: a bogus one at a high version never hides ours
_log = logging.getLogger(__name__)


class CachedAggregates(Generic[A]):
    def __init__(self, store: PumpkinStore, kind: type[A], size: int = CACHED) -> None:
        self.store = store
        self.kind = kind
        self._entries: OrderedDict[UUID, A] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def newest_known(self, aggregate_id: UUID) -> A | None:
        """The newest state this process holds, without reading the store: for reading only
        (it may be behind another process's writes)."""
        with self._lock:
            entry = self._entries.get(aggregate_id)
            if entry is not None:
                self._entries.move_to_end(aggregate_id)
            return entry

    def cached(self, aggregate_id: UUID) -> A | None:
        """A private copy of the newest state this process holds (None: none in memory)."""
        entry = self.newest_known(aggregate_id)
        return None if entry is None else deepcopy(entry)

    def get(self, aggregate_id: UUID, *, fresh: bool = True) -> A | None:
        """A private copy to decide on (None: no such aggregate in the store).

        fresh: caught up with the store. Otherwise the newest state this process knows, which
        may be behind another process's writes: a save from it then conflicts and is retried
        fresh, and a refusal is judged again fresh."""
        known = self.newest_known(aggregate_id)
        if known is None:
            loaded = self._load(aggregate_id)
            if loaded is None:
                return None
        else:
            newer = list(self.store.events.get(aggregate_id, gt=known.version)) if fresh else []
            if not newer:
                return deepcopy(known)
            loaded = _project(deepcopy(known), newer)
        self.remember(loaded)
        return deepcopy(loaded)

    def remember(self, aggregate: A) -> None:
        """Keep `aggregate` as the newest known state, unless a newer one is known."""
        with self._lock:
            known = self._entries.get(aggregate.id)
            if known is None or known.version < aggregate.version:
                self._entries[aggregate.id] = aggregate
                self._entries.move_to_end(aggregate.id)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    # -- loading -------------------------------------------------------------------------------

    def _load(self, aggregate_id: UUID) -> A | None:
        snapshot = self._trusted_snapshot(aggregate_id)
        if snapshot is not None:
            try:
                after = self.store.events.get(aggregate_id, gt=snapshot.originator_version)
                loaded: A | None = _project(snapshot.mutate(None), after)
                return loaded
            except (KeyError, TypeError, ValueError, AttributeError) as error:
                _log.error("snapshot_unreadable_replaying_events", extra={
                    "stream": str(aggregate_id), "error": type(error).__name__})
        replayed: A | None = _project(None, self.store.events.get(aggregate_id))
        if replayed is not None and replayed.version >= SNAPSHOT_EVERY:
            self.store.write_snapshots([replayed])  # so the next cold load is short again
        return replayed

    def _trusted_snapshot(self, aggregate_id: UUID) -> SealedSnapshot | None:
        """The newest snapshot this service sealed that stands at its stream's stored event;
        None if there is none (every other is logged and ignored)."""
        snapshots = self.store.snapshots
        if snapshots is None:
            return None
        transcoder = self.store.mapper.transcoder
        try:
            for snapshot in snapshots.get(aggregate_id, desc=True, limit=_SNAPSHOTS_LOOKED_AT):
                head = self._digest_at(aggregate_id, snapshot.originator_version)
                if head is not None and self.store.seal.verifies(snapshot, transcoder, head):
                    assert isinstance(snapshot, SealedSnapshot)  # verifies() checked it
                    return snapshot
                _reject(aggregate_id, snapshot)
        except Exception as error:  # noqa: BLE001 - a snapshot only speeds loading
            _log.error("snapshot_unreadable_replaying_events", extra={
                "stream": str(aggregate_id), "error": type(error).__name__})
        return None

    def _digest_at(self, aggregate_id: UUID, version: int) -> str | None:
        """The digest of the stored event at `version` (None: the stream has none there)."""
        for event in self.store.events.get(aggregate_id, gt=version - 1, lte=version):
            return digest_of(event, stored_name(type(event)))
        return None


def _reject(aggregate_id: UUID, snapshot: object) -> None:
    if isinstance(snapshot, SealedSnapshot):
        _log.error("snapshot_rejected_replaying_events", extra={
            "stream": str(aggregate_id), "version": snapshot.originator_version})
    else:  # written before snapshots were sealed: replaced by a sealed one once replayed
        _log.info("unsealed_snapshot_ignored", extra={"stream": str(aggregate_id)})


def _project(aggregate: Any, events: Iterable[Any]) -> Any:
    """Apply events in order (the library's default also runs a slow runtime Protocol check)."""
    for event in events:
        aggregate = event.mutate(aggregate)
    return aggregate
