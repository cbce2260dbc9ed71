"""The event store of the write side: eventsourcing's Application reduced to what it keeps for
us (recorder, mapper, notification log, snapshots, the library's repository for the small key
aggregates) and THE one save path.

A save records every event of its aggregates in ONE transaction (a round is in the store whole
or not at all), then snapshots from memory each aggregate whose version crossed a multiple of
SNAPSHOT_EVERY (one rule, one interval, for every aggregate kind that is snapshotted), then runs
the library's hook after recording. It has two faces, one body (infrastructure/store/
run_blocking.py): `save` blocks, `save_in_loop` is awaited in the server's event loop and
committed by the loop's own group commit (infrastructure/store/async_commit.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import (
    IntegrityError,
    JSONTranscoder,
    Mapper,
    Recording,
    StoredEvent,
)

from domain.ledger.player import Player
from domain.ledger.wallet_account import WalletAccount
from infrastructure.store import es_compat
from infrastructure.store.async_commit import AsyncGroupCommit
from infrastructure.store.json_mapper import JsonNativeMapper
from infrastructure.store.persistence import (
    GroupCommitRecorder,
    ensure_database,
    event_store_env,
    schema_lock,
)
from infrastructure.store.request_keys import RequestKey
from infrastructure.store.run_blocking import at_once, in_this_thread, run_blocking
from infrastructure.store.snapshot_seal import SnapshotSeal
from infrastructure.store.state_transcodings import register_state_transcodings

SNAPSHOT_EVERY = 500  # events: loading an aggregate replays at most this many after its snapshot
_log = logging.getLogger(__name__)

Saved = Aggregate | RequestKey.Issued  # what a save takes: aggregates, and bare key events


class PumpkinStore(Application[UUID]):
    name = "Pumpkin"  # tables: pumpkin_events, pumpkin_snapshots
    snapshotting_intervals = {  # noqa: RUF012 - eventsourcing's API
        Player: SNAPSHOT_EVERY, WalletAccount: SNAPSHOT_EVERY,
    }

    def __init__(
        self, env: Mapping[str, str] | None = None, *, seal: SnapshotSeal | None = None
    ) -> None:
        super().__init__(env)
        # Snapshots are bound to their stream under the service's key (snapshot_seal.py);
        # without one, under a key that dies with the process (tests, tools that only read).
        self.seal = seal or SnapshotSeal.for_this_process()
        self._async_commit: AsyncGroupCommit | None = None

    @classmethod
    def from_url(cls, database_url: str, *, seal: SnapshotSeal | None = None) -> PumpkinStore:
        ensure_database(database_url)
        with schema_lock(database_url):
            return cls(env=event_store_env(database_url), seal=seal)

    def construct_mapper(self) -> Mapper[UUID]:
        return self.factory.mapper(
            transcoder=self.construct_transcoder(), mapper_class=JsonNativeMapper
        )

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        super().register_transcodings(transcoder)
        register_state_transcodings(transcoder)

    # -- the one save path ---------------------------------------------------------------------

    def saved(self, *objs: Saved) -> bool:
        """Record in one transaction; False if another writer took one of the versions."""
        try:
            self.save(*objs)
        except IntegrityError:
            return False
        return True

    async def saved_in_loop(self, *objs: Saved) -> bool:
        """`saved` from the event loop: through the loop's group commit on PostgreSQL, else in
        a worker thread."""
        if not self.groups_commits:
            return await asyncio.to_thread(self.saved, *objs)
        try:
            await self.save_in_loop(*objs)
        except IntegrityError:
            return False
        return True

    @property
    def groups_commits(self) -> bool:
        """Whether saves from the event loop can join the loop's group commit (PostgreSQL)."""
        return isinstance(self.recorder, GroupCommitRecorder)

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
        if any(kwargs.values()):
            raise ValueError("tracking and the like are saved blocking, not from the loop")
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
        """The one save path, blocking or async: collect the events, record them in one
        transaction with `insert`, snapshot from memory (`in_worker(self.write_snapshots,
        due)`), run the library's hooks after recording."""
        processing_event: ProcessingEvent[UUID] = ProcessingEvent()
        self._collect(processing_event, *objs)
        processing_event.saved_kwargs.update(kwargs)
        answer = answer or es_compat.hooked_after_recording(self)
        recordings = await es_compat.record(self, processing_event, insert, answer=answer)
        due = self._due_a_snapshot(processing_event)
        if due:
            await in_worker(self.write_snapshots, due)
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

    def _due_a_snapshot(self, processing_event: ProcessingEvent[UUID]) -> list[Aggregate]:
        """The aggregates to snapshot from memory: each time one's version crosses a
        SNAPSHOT_EVERY mark (the library's default rebuilds the aggregate from the store)."""
        if self.snapshots is None:
            return []
        # A version that is a multiple of the interval lies in this save's versions exactly
        # when the aggregate crossed a mark (the library's own rule, on the events in hand).
        marked = {
            event.originator_id
            for event in processing_event.events
            if event.originator_version % SNAPSHOT_EVERY == 0
        }
        return [
            aggregate
            for aggregate_id, aggregate in processing_event.aggregates.items()
            if aggregate_id in marked and isinstance(aggregate, Aggregate)
            and type(aggregate) in self.snapshotting_intervals
        ]

    def write_snapshots(self, aggregates: list[Aggregate]) -> None:
        """A snapshot only speeds loading: failing to write one must not fail a command."""
        for aggregate in aggregates:
            try:
                if self.snapshots is not None:
                    sealed = self.seal.sealed_snapshot(aggregate, self.mapper.transcoder)
                    self.snapshots.put([sealed])
            except Exception:  # noqa: BLE001 - logged; the next mark tries again
                _log.warning("snapshot failed", exc_info=True)

    def _async_group_commit(self) -> AsyncGroupCommit:
        """The group commit of the running event loop (a server has one loop; a new loop, as
        in tests, gets its own and the previous one is dropped)."""
        if not isinstance(self.recorder, GroupCommitRecorder):
            raise TypeError("the loop's group commit needs PostgreSQL's GroupCommitRecorder")
        current = self._async_commit
        if current is None or current.loop is not asyncio.get_running_loop():
            if current is not None:
                current.close()
            current = self._async_commit = AsyncGroupCommit(self.recorder)
        return current

    def close(self) -> None:
        if self._async_commit is not None:
            self._async_commit.close()
        super().close()
