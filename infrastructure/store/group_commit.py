"""Group commit, written once: concurrent saves share one transaction on PostgreSQL.

The library takes `LOCK TABLE ... IN EXCLUSIVE MODE` in every insert transaction, so that
notification ids are committed in order (projections never skip a gap that fills later). That
serialises writers: one commit, one WAL flush, at a time. We keep it and its guarantee, and
amortise it: one save at a time leads; while it commits, other saves queue; then the queue is
committed as the next group, in ONE transaction (GroupQueue). A conflict (unique originator id
and version) fails a group's transaction; the group is then written save by save, so only the
conflicting save gets its IntegrityError (commit_group). Every save gets its own answer: its
notification ids, or its error.

The core here has no thread and no event loop of its own. It has two faces:
- persistence.GroupCommitRecorder: blocking saves from many threads (the library's recorder);
- async_commit.AsyncGroupCommit: saves made in an event loop, committed in the loop's thread.
Both commit a group with `commit_group` and insert with the statement made by `InsertSql`.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from eventsourcing.persistence import IntegrityError, StoredEvent
from psycopg import sql


@dataclass(eq=False)
class Save:
    """One save's events and, once its group is committed, its answer."""

    events: Sequence[StoredEvent]
    ids: Sequence[int] | None = None  # the notification ids, in the events' order
    error: BaseException | None = None


S = TypeVar("S", bound=Save)
Insert = Callable[[Sequence[StoredEvent]], Awaitable[list[int]]]


class GroupQueue(Generic[S]):
    """Who commits what: saves join the queue; one at a time leads and takes the queue as a
    group; after each group the first save still queued leads, until none is."""

    def __init__(self) -> None:
        self._saves: list[S] = []
        self._leading = False
        self._lock = threading.Lock()

    def join(self, save: S) -> bool:
        """Queue `save`; True if no one leads, so its caller leads now (takes the group)."""
        with self._lock:
            self._saves.append(save)
            leads = not self._leading
            self._leading = True
            return leads

    def take(self) -> list[S]:
        """The group to commit: every save queued."""
        with self._lock:
            group, self._saves = self._saves, []
            return group

    def next_leader(self) -> S | None:
        """After a group: the save whose caller leads next, or None (the queue is empty and
        the next save to join leads)."""
        with self._lock:
            if self._saves:
                return self._saves[0]
            self._leading = False
            return None

    def resign(self) -> None:
        """The leader stops without handing on (the saves queued wait for the next to join)."""
        with self._lock:
            self._leading = False


async def commit_group(group: Sequence[Save], insert: Insert) -> BaseException | None:
    """Commit the group's saves, answering each: one insert for all; on a conflict, one insert
    per save, so only the conflicting save gets IntegrityError. If the store fails, every save
    not answered gets its error, which is returned (None: the store answered)."""
    try:
        if len(group) > 1:
            try:
                ids = await insert([event for save in group for event in save.events])
            except IntegrityError:
                pass  # written save by save below
            else:
                start = 0
                for save in group:
                    save.ids = ids[start : start + len(save.events)]
                    start += len(save.events)
                return None
        for save in group:
            try:
                save.ids = await insert(save.events)
            except IntegrityError as conflict:
                save.error = conflict
    except BaseException as error:  # noqa: BLE001 - the store failed: answered to each save
        for save in group:
            if save.ids is None and save.error is None:
                save.error = error
        return error
    return None


class InsertSql:
    """The one insert transaction of a group, as one statement: a function (created with the
    tables) that takes the library's table lock, notifies, and inserts the rows given as four
    parallel binary arrays (the library sends one array of a composite type, which psycopg dumps
    as text in Python, at several times the CPU per event). unnest keeps their order, so
    notification ids follow the events' order. One statement is one network wait, where a
    pipelined BEGIN / LOCK / NOTIFY / INSERT / COMMIT cost several."""

    def __init__(self, recorder: Any) -> None:
        """For a PostgresApplicationRecorder (its datastore, table and channel names)."""
        datastore = recorder.datastore
        id_type = datastore.originator_id_type
        names = {
            "schema": sql.Identifier(datastore.schema),
            "table": sql.Identifier(recorder.events_table_name),
            "function": sql.Identifier(f"pumpkin_insert_events_{id_type}"),
            "id_type": sql.SQL(id_type),
            "channel": sql.Identifier(recorder.channel_name),
            "lock_timeout": sql.Literal(f"{datastore.lock_timeout}s"),
        }
        self.create_function = sql.SQL(
            "CREATE OR REPLACE FUNCTION {schema}.{function}("
            "ids {id_type}[], versions bigint[], topics text[], states bytea[]) "
            "RETURNS SETOF bigint LANGUAGE plpgsql AS $body$ BEGIN "
            "PERFORM set_config('lock_timeout', {lock_timeout}, true); "
            "LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
            "NOTIFY {channel}; "
            "RETURN QUERY INSERT INTO {schema}.{table} "
            "(originator_id, originator_version, topic, state) "
            "SELECT * FROM unnest(ids, versions, topics, states) RETURNING notification_id; "
            "END $body$"
        ).format(**names)
        self.insert = sql.SQL(
            "SELECT notification_id FROM {schema}.{function}"
            "(%b::{id_type}[], %b::bigint[], %b::text[], %b::bytea[]) AS inserted(notification_id)"
        ).format(**names)


def insert_columns(stored_events: Sequence[StoredEvent]) -> tuple[list[Any], ...]:
    """The events as the insert function takes them: four parallel columns."""
    return (
        [e.originator_id for e in stored_events],
        [e.originator_version for e in stored_events],
        [e.topic for e in stored_events],
        [e.state for e in stored_events],
    )
