"""PUMPKIN_DATABASE_URL -> the eventsourcing environment of the event store (and its recorder).

The URL is parsed by infrastructure.store.database_url. Tables are created on first start
(eventsourcing's
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
from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg import sql

from infrastructure.store.database_url import is_postgres, postgres_address, sqlite_path
from infrastructure.store.es_compat import pool_connection_kwargs
from infrastructure.store.group_commit import (
    GroupQueue,
    InsertSql,
    Save,
    commit_group,
    insert_columns,
)
from infrastructure.store.run_blocking import at_once, run_blocking

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


@dataclass(eq=False)
class _Write(Save):
    leads: bool = False  # handed the leader's turn: commit the queue
    woken: threading.Event = field(default_factory=threading.Event)

    def finish(self) -> None:
        self.leads = False
        self.woken.set()


class GroupCommitRecorder(PostgresApplicationRecorder):
    """The library's PostgreSQL recorder, with concurrent saves sharing one transaction: the
    blocking face of the group commit (infrastructure/store/group_commit.py).

    A save joins the queue; if no one leads, its thread leads: it commits the queue as one group
    and hands the lead to the first save queued meanwhile, whose thread commits the next group.
    Followers sleep on their own event, so none waits in line twice.

    Saves made in an event loop go through infrastructure/store/async_commit.py instead: the same
    group commit, on an asyncio connection, in the loop's own thread.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._queue: GroupQueue[_Write] = GroupQueue()
        self.statements = InsertSql(self)
        self.sql_create_statements.append(self.statements.create_function)

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
        if self._queue.join(write):
            write.leads = True
        else:  # the leader may hand this save the lead (leads = True) from the moment it joined
            write.woken.wait()
        if write.leads:
            self._lead()
        if write.error is not None:
            raise write.error
        return write.ids

    def _lead(self) -> None:
        self._commit(self._queue.take())
        following = self._queue.next_leader()
        if following is not None:
            following.leads = True
            following.woken.set()

    def _commit(self, group: list[_Write]) -> None:
        """Commit the group and wake its saves (a failed store is each save's error)."""
        try:
            run_blocking(commit_group(group, at_once(self._insert)))
        finally:
            for write in group:
                write.finish()

    def _insert(self, stored_events: Sequence[StoredEvent]) -> list[int]:
        """One transaction: table lock, notify, insert; the notification ids in order."""
        with self.datastore.get_connection() as conn, conn.cursor() as cursor:
            cursor.execute(self.statements.insert, insert_columns(stored_events), prepare=True)
            return [row["notification_id"] for row in cursor.fetchall()]


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
