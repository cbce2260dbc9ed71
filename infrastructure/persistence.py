"""PUMPKIN_DATABASE_URL -> the eventsourcing environment of the event store (and its recorder).

The URL is parsed by infrastructure.database_url. Tables are created on first start (eventsourcing's
CREATE_TABLE); for PostgreSQL the database itself is created too if it is missing.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg import sql

from infrastructure.database_url import is_postgres, postgres_address, sqlite_path
from infrastructure.es_compat import pool_connection_kwargs

PG_POOL_SIZE = 8  # pooled psycopg 3 connections kept open per application (readers + the leader)
PG_MAX_OVERFLOW = 12  # more, opened under load and closed after


def event_store_env(url: str) -> dict[str, str]:
    """The eventsourcing environment for a database URL."""
    if not is_postgres(url):
        path = sqlite_path(url)
        return {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": path,
            "SQLITE_LOCK_TIMEOUT": "30",
            "CREATE_TABLE": "y",
        }
    address = postgres_address(url)
    return {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": address.dbname,
        "POSTGRES_HOST": address.host,
        "POSTGRES_PORT": str(address.port),
        "POSTGRES_USER": address.user,
        "POSTGRES_PASSWORD": address.password,
        "POSTGRES_POOL_SIZE": str(PG_POOL_SIZE),
        "POSTGRES_MAX_OVERFLOW": str(PG_MAX_OVERFLOW),
        # Also how long a request waits for a pooled connection. The library retries each read
        # 10 times (GroupCommitRecorder's writes are not retried: a failed write answers 503
        # at once), so a long timeout left a read hanging ten times as long while the database
        # was away instead of answering 503; a short one answers 503 within seconds.
        "POSTGRES_CONNECT_TIMEOUT": "1",
        "POSTGRES_LOCK_TIMEOUT": "10",
        "CREATE_TABLE": "y",
        "APPLICATION_RECORDER_TOPIC": f"{__name__}:GroupCommitRecorder",
    }


def ensure_database(url: str) -> None:
    """Create the PostgreSQL database named by the URL if it does not exist (SQLite: nothing)."""
    if not is_postgres(url):
        return
    address = postgres_address(url)
    with psycopg.connect(address.conninfo("postgres"), autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (address.dbname,)
        ).fetchone()
        if exists is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(address.dbname)))


SCHEMA_LOCK = 0x70756D706B696E  # advisory lock key held while creating tables ("pumpkin")


@contextlib.contextmanager
def schema_lock(url: str) -> Iterator[None]:
    """Create tables one process at a time. Processes starting together on one PostgreSQL
    database (`serve --workers 2`, a runner beside the API) otherwise race in the catalog: the
    library's CREATE OR REPLACE FUNCTION fails with "tuple concurrently updated", and two
    CREATE TABLE IF NOT EXISTS with a duplicate pg_type key. SQLite serialises writers itself."""
    if not is_postgres(url):
        yield
        return
    with psycopg.connect(postgres_address(url).conninfo(), autocommit=True) as connection:
        connection.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
        try:
            yield
        finally:
            connection.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))


@dataclass
class _Write:
    events: Sequence[StoredEvent]
    ids: Sequence[int] | None = None
    error: BaseException | None = None
    leads: bool = False  # handed the leader's turn: commit the queue
    woken: threading.Event = field(default_factory=threading.Event)

    def finish(self) -> None:
        self.leads = False
        self.woken.set()


class GroupCommitRecorder(PostgresApplicationRecorder):
    """The library's PostgreSQL recorder, with concurrent saves sharing one transaction.

    The library takes `LOCK TABLE ... IN EXCLUSIVE MODE` in every insert transaction, so that
    notification ids are committed in order (projections never skip a gap that fills later).
    That serialises writers: one commit, one WAL flush, at a time (bench/RESULTS.md). We keep it
    and its guarantee, and amortise it: one thread at a time leads; while it commits, other saves
    queue; when it is done it hands the lead to the first queued save, which commits the whole
    queue in ONE transaction. Followers sleep on their own event, so none waits in line twice.

    A conflict (unique originator id and version) in a group fails the whole transaction; the
    group is then written save by save, so only the conflicting save gets its IntegrityError.

    Saves made in an event loop go through infrastructure/async_commit.py instead: the same
    transaction, on an asyncio connection, in the loop's own thread.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._queue: list[_Write] = []
        self._queue_lock = threading.Lock()
        self._leading = False
        # One transaction, one statement: a function (created with the tables) that takes the
        # library's table lock, notifies, and inserts the rows given as four parallel binary
        # arrays (the library sends one array of a composite type, which psycopg dumps as text
        # in Python, at several times the CPU per event). unnest keeps their order, so
        # notification ids follow the events' order. One statement is one network wait, where a
        # pipelined BEGIN / LOCK / NOTIFY / INSERT / COMMIT cost several.
        id_type = self.datastore.originator_id_type
        names = {
            "schema": sql.Identifier(self.datastore.schema),
            "table": sql.Identifier(self.events_table_name),
            "function": sql.Identifier(f"pumpkin_insert_events_{id_type}"),
            "id_type": sql.SQL(id_type),
            "channel": sql.Identifier(self.channel_name),
            "lock_timeout": sql.Literal(f"{self.datastore.lock_timeout}s"),
        }
        self.sql_create_statements.append(
            sql.SQL(
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
        )
        self.insert_statement = sql.SQL(
            "SELECT notification_id FROM {schema}.{function}"
            "(%b::{id_type}[], %b::bigint[], %b::text[], %b::bytea[]) AS inserted(notification_id)"
        ).format(**names)

    def connection_settings(self) -> dict[str, Any]:
        """How to open one more connection to this store, as the pool opens its own."""
        pooled = pool_connection_kwargs(self.datastore)
        settings = {k: v for k, v in pooled.items() if k != "row_factory"}
        return {**settings, "connect_timeout": 2}

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if any(value is not None for value in kwargs.values()):  # e.g. tracking: not grouped
            ids: Sequence[int] | None = super().insert_events(stored_events, **kwargs)
            return ids
        write = _Write(stored_events)
        with self._queue_lock:
            self._queue.append(write)
            write.leads = not self._leading
            self._leading = True
        if not write.leads:
            write.woken.wait()
        if write.leads:
            self._lead()
        if write.error is not None:
            raise write.error
        return write.ids

    def _lead(self) -> None:
        with self._queue_lock:
            group, self._queue = self._queue, []
        self._commit(group)
        with self._queue_lock:
            if not self._queue:
                self._leading = False
                return
            self._queue[0].leads = True
            self._queue[0].woken.set()

    def _commit(self, group: list[_Write]) -> None:
        try:
            if len(group) == 1:
                self._commit_one(group[0])
                return
            try:
                ids = self._insert([e for write in group for e in write.events])
            except IntegrityError:
                for write in group:
                    self._commit_one(write)
                return
            start = 0
            for write in group:
                count = len(write.events)
                write.ids = ids[start : start + count] if ids else None
                start += count
        except BaseException as error:  # the store failed: every save in the group fails
            for write in group:
                if write.ids is None and write.error is None:
                    write.error = error
        finally:
            for write in group:
                write.finish()

    def _commit_one(self, write: _Write) -> None:
        try:
            write.ids = self._insert(write.events)
        except IntegrityError as conflict:
            write.error = conflict

    def _insert(self, stored_events: Sequence[StoredEvent]) -> list[int]:
        """One transaction: table lock, notify, insert; the notification ids in order."""
        with self.datastore.get_connection() as conn, conn.cursor() as cursor:
            cursor.execute(self.insert_statement, insert_columns(stored_events), prepare=True)
            return [row["notification_id"] for row in cursor.fetchall()]


def insert_columns(stored_events: Sequence[StoredEvent]) -> tuple[list[Any], ...]:
    """The events as the insert function takes them: four parallel columns."""
    return (
        [e.originator_id for e in stored_events],
        [e.originator_version for e in stored_events],
        [e.topic for e in stored_events],
        [e.state for e in stored_events],
    )


LOCAL_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres connect_timeout=5"


@contextlib.contextmanager
def temporary_postgres_database(
    prefix: str = "pumpkin_tmp", admin: str = LOCAL_ADMIN
) -> Iterator[str]:
    """A new, empty, uniquely named PostgreSQL database (its URL), dropped on exit.

    For tests and benchmarks. Dropping retries for a while: the server may be restarting under a
    fault test, and the database's own connections are terminated first.
    """
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    address = psycopg.conninfo.conninfo_to_dict(admin)
    try:
        yield f"postgresql://{address['user']}@{address['host']}:{address['port']}/{name}"
    finally:
        for attempt in range(30):
            try:
                with psycopg.connect(admin, autocommit=True) as connection:
                    connection.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = %s AND pid <> pg_backend_pid()",
                        (name,),
                    )
                    connection.execute(
                        sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name))
                    )
                break
            except psycopg.OperationalError:
                if attempt == 29:
                    raise
                time.sleep(1)
