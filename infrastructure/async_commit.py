"""Group commit for an event loop: saves made in the loop thread are committed in groups on one
asyncio psycopg connection, in that same thread.

Why not the recorder's committer thread: with the rounds decided in the loop thread and the
commits driven by another thread, the two handed the GIL back and forth on every network step
of a commit (CPython's convoy effect): a commit PostgreSQL finished quickly took the committing
thread many times as long every second or two, and every spin waited on it (bench/RESULTS.md).
One thread does both here, so nothing waits for the GIL.

The transaction is the recorder's (GroupCommitRecorder): one statement, its insert function
(the library's table lock and notify, the events as four binary arrays). While a group
commits, new saves queue for the next; a conflict (another writer took an originator version)
fails the group, which is then written save by save so only the conflicting save gets
IntegrityError, as the recorder does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import psycopg
from eventsourcing.persistence import IntegrityError, StoredEvent

from infrastructure.persistence import GroupCommitRecorder, insert_columns

_Save = tuple[Sequence[StoredEvent], "asyncio.Future[list[int]]"]


class AsyncGroupCommit:
    def __init__(self, recorder: GroupCommitRecorder) -> None:
        self._recorder = recorder
        self.loop = asyncio.get_running_loop()
        self._queue: list[_Save] = []
        self._committing = False
        self._connection: psycopg.AsyncConnection[Any] | None = None
        self._task: asyncio.Task[None] | None = None  # held: the loop keeps only weak refs

    async def save(self, stored_events: Sequence[StoredEvent]) -> list[int]:
        """Commit the events (with whichever others are queued); their notification ids."""
        done: asyncio.Future[list[int]] = self.loop.create_future()
        self._queue.append((stored_events, done))
        if not self._committing:
            self._committing = True
            self._task = self.loop.create_task(self._commit_queued())
        return await done

    def close(self) -> None:
        """Drop the connection (from any thread: no await needed to close its socket)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.pgconn.finish()

    async def _commit_queued(self) -> None:
        try:
            while self._queue:
                group, self._queue = self._queue, []
                await self._commit(group)
        finally:
            self._committing = False

    async def _commit(self, group: list[_Save]) -> None:
        try:
            if len(group) > 1:
                try:
                    ids = await self._insert([e for events, _ in group for e in events])
                except IntegrityError:
                    for save in group:
                        await self._commit([save])
                    return
                start = 0
                for events, done in group:
                    done.set_result(ids[start : start + len(events)])
                    start += len(events)
                return
            events, done = group[0]
            try:
                done.set_result(await self._insert(events))
            except IntegrityError as conflict:
                done.set_exception(conflict)
        except BaseException as error:  # the store failed: every save not answered fails
            self.close()  # a fresh connection next time
            for _, done in group:
                if not done.done():
                    done.set_exception(error)
            if not isinstance(error, Exception):
                raise

    async def _insert(self, stored_events: Sequence[StoredEvent]) -> list[int]:
        connection = await self._connect()
        statement = self._recorder.insert_statement
        try:
            async with connection.cursor() as cursor:
                await cursor.execute(statement, insert_columns(stored_events), prepare=True)
                rows = await cursor.fetchall()
        except psycopg.IntegrityError as conflict:
            raise IntegrityError(conflict) from conflict
        return [int(row[0]) for row in rows]

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        if self._connection is None or self._connection.closed:
            settings = self._recorder.connection_settings()
            self._connection = await psycopg.AsyncConnection.connect(**settings, autocommit=True)
        return self._connection
