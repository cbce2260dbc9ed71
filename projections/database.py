"""Where the read models live: the same store as the events, named by PUMPKIN_DATABASE_URL.

SQLite by default, PostgreSQL in production. The views use the library's own datastores
(connection pools, WAL mode on SQLite), so a view's rows and its tracking position share one
transaction exactly as the library's tracking recorders expect.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from eventsourcing.postgres import PostgresDatastore
from eventsourcing.sqlite import SQLiteDatastore

from infrastructure.store.database_url import is_postgres, postgres_address, sqlite_path

_NAMED_PARAM = re.compile(r"(?<![:\w]):([a-z_][a-z0-9_]*)")


class HasDatabaseUrl(Protocol):
    @property
    def database_url(self) -> str: ...


def database_url_of(settings: HasDatabaseUrl | str) -> str:
    """Accept the service's Settings or a plain URL."""
    return settings if isinstance(settings, str) else settings.database_url


@dataclass(frozen=True)
class Dialect:
    """The few places where SQLite and PostgreSQL SQL differ."""

    name: str
    timestamp: str
    boolean: str
    real: str

    def sql(self, statement: str) -> str:
        """Statements are written with `:name` parameters; psycopg wants `%(name)s`."""
        return statement if self.name == "sqlite" else _pyformat(statement)

    def ddl(self, statement: str) -> str:
        for token, kind in (
            ("{timestamp}", self.timestamp),
            ("{boolean}", self.boolean),
            ("{real}", self.real),
        ):
            statement = statement.replace(token, kind)
        return statement

    def time(self, moment: datetime) -> datetime | str:
        """SQLite keeps times as ISO text (UTC, fixed width, so text order is time order)."""
        moment = moment.astimezone(UTC)
        return moment if self.name == "postgres" else moment.isoformat(timespec="microseconds")


def iso_time(value: datetime | str) -> str:
    if isinstance(value, str):
        return value
    return value.astimezone(UTC).isoformat(timespec="microseconds")


SQLITE = Dialect("sqlite", timestamp="TEXT", boolean="INTEGER", real="REAL")
POSTGRES = Dialect("postgres", timestamp="TIMESTAMPTZ", boolean="BOOLEAN", real="DOUBLE PRECISION")


@functools.lru_cache(maxsize=256)
def _pyformat(statement: str) -> str:
    return _NAMED_PARAM.sub(r"%(\1)s", statement.replace("%", "%%"))


Datastore = SQLiteDatastore | PostgresDatastore


SQLITE_LOCK_TIMEOUT = 30  # seconds: the views share the file with the event store's writers


def open_datastore(url: str, pool_size: int = 2, max_overflow: int = 2) -> Datastore:
    """A pool of connections to the views' database (the same one as the event store)."""
    if is_postgres(url):
        address = postgres_address(url)
        return PostgresDatastore(
            dbname=address.dbname,
            host=address.host,
            port=address.port,
            user=address.user,
            password=address.password,
            pool_size=pool_size,
            max_overflow=max_overflow,
        )
    return SQLiteDatastore(
        db_name=sqlite_path(url),
        pool_size=pool_size,
        max_overflow=max_overflow,
        lock_timeout=SQLITE_LOCK_TIMEOUT,
    )


def dialect_of(datastore: Any) -> Dialect:
    return POSTGRES if isinstance(datastore, PostgresDatastore) else SQLITE
