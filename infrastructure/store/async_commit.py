"""Group commit for an event loop: the async face of infrastructure/store/group_commit.py. Saves
made in the loop thread are committed in groups on one asyncio psycopg connection, in that same
thread.

Why not the recorder's threads: with the rounds decided in the loop thread and the commits
driven by another thread, the two handed the GIL back and forth on every network step of a
commit (CPython's convoy effect): a commit PostgreSQL finished quickly took the committing
thread many times as long every second or two, and every spin waited on it (bench/RESULTS.md).
One thread does both here, so nothing waits for the GIL.

The grouping, the split on a conflict, the answer to each save and the insert statement are the
group commit core's, as in the blocking recorder (GroupCommitRecorder): while a group commits,
new saves queue for the next, committed by the same task.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from eventsourcing.persistence import IntegrityError, StoredEvent

from infrastructure.store.group_commit import GroupQueue, Save, commit_group, insert_columns
from infrastructure.store.persistence import GroupCommitRecorder


@dataclass(eq=False)
class _Awaited(Save):
    done: asyncio.Future[Sequence[int]] | None = None

    def answer(self) -> None:
        assert self.done is not None
        if self.done.done():
            return
        if self.error is not None:
            self.done.set_exception(self.error)
        else:
            self.done.set_result(self.ids or [])


class AsyncGroupCommit:
    def __init__(self, recorder: GroupCommitRecorder) -> None:
        self._recorder = recorder
        self.loop = asyncio.get_running_loop()
        self._queue: GroupQueue[_Awaited] = GroupQueue()
        self._connection: psycopg.AsyncConnection[Any] | None = None
        self._task: asyncio.Task[None] | None = None  # held: the loop keeps only weak refs

    async def save(self, stored_events: Sequence[StoredEvent]) -> Sequence[int]:
        """Commit the events (with whichever others are queued); their notification ids."""
        save = _Awaited(stored_events, done=self.loop.create_future())
        if self._queue.join(save):
            self._task = self.loop.create_task(self._lead())
        assert save.done is not None
        return await save.done

    def close(self) -> None:
        """Drop the connection (from any thread: no await needed to close its socket)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.pgconn.finish()

    async def _lead(self) -> None:
        try:
            while True:
                await self._commit(self._queue.take())
                if self._queue.next_leader() is None:
                    return
        except BaseException:
            self._queue.resign()
            raise

    async def _commit(self, group: list[_Awaited]) -> None:
        try:
            failure = await commit_group(group, self._insert)
        finally:
            for save in group:
                save.answer()
        if failure is not None:
            self.close()  # a fresh connection next time
            if not isinstance(failure, Exception):
                raise failure

    async def _insert(self, stored_events: Sequence[StoredEvent]) -> list[int]:
        connection = await self._connect()
        statement = self._recorder.statements.insert
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
