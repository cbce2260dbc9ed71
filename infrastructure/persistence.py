"""PUMPKIN_DATABASE_URL -> the eventsourcing environment of the event store.

`sqlite:///PATH` (a file; `sqlite:///:memory:` for a throwaway store) or
`postgresql://USER[:PASS]@HOST[:PORT]/DB`. Tables are created on first start (eventsourcing's
CREATE_TABLE); for PostgreSQL the database itself is created too if it is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import psycopg
from psycopg import sql

PG_POOL_SIZE = 20  # one pooled psycopg 3 connection per concurrent writer, and a few spare
PG_MAX_OVERFLOW = 10


class UnsupportedDatabaseUrl(ValueError):
    pass


@dataclass(frozen=True)
class PostgresAddress:
    user: str
    password: str
    host: str
    port: int
    dbname: str

    def conninfo(self, dbname: str | None = None) -> str:
        return psycopg.conninfo.make_conninfo(
            host=self.host,
            port=self.port,
            user=self.user,
            password=self.password or None,
            dbname=dbname or self.dbname,
        )


def postgres_address(url: str) -> PostgresAddress:
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres") or not parts.hostname:
        raise UnsupportedDatabaseUrl("expected postgresql://USER[:PASS]@HOST[:PORT]/DB")
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname or not parts.username:
        raise UnsupportedDatabaseUrl("a PostgreSQL URL names its user and database")
    return PostgresAddress(
        user=unquote(parts.username),
        password=unquote(parts.password or ""),
        host=parts.hostname,
        port=parts.port or 5432,
        dbname=dbname,
    )


def sqlite_path(url: str) -> str:
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        raise UnsupportedDatabaseUrl("expected sqlite:///PATH")
    path = url[len(prefix) :]
    return path if path == ":memory:" else unquote(path)


def event_store_env(url: str) -> dict[str, str]:
    """The eventsourcing environment for a database URL."""
    if url.startswith("sqlite:"):
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
        "POSTGRES_CONNECT_TIMEOUT": "10",
        "POSTGRES_LOCK_TIMEOUT": "10",
        "CREATE_TABLE": "y",
    }


def ensure_database(url: str) -> None:
    """Create the PostgreSQL database named by the URL if it does not exist (SQLite: nothing)."""
    if url.startswith("sqlite:"):
        return
    address = postgres_address(url)
    with psycopg.connect(address.conninfo("postgres"), autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (address.dbname,)
        ).fetchone()
        if exists is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(address.dbname)))
