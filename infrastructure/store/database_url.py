"""PUMPKIN_DATABASE_URL, parsed in this one place (settings, event store, read models, tools).

`sqlite:///PATH` (a file; `sqlite:///:memory:` for a throwaway store), or
`postgresql://USER[:PASS]@HOST[:PORT]/DB` (`postgres://` is the same).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import psycopg

SQLITE_PREFIX = "sqlite:///"
POSTGRES_SCHEMES = ("postgresql", "postgres")
DEFAULT_POSTGRES_PORT = 5432


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


def is_postgres(url: str) -> bool:
    return urlsplit(url).scheme in POSTGRES_SCHEMES


def is_sqlite(url: str) -> bool:
    return url.startswith(SQLITE_PREFIX)


def postgres_address(url: str) -> PostgresAddress:
    parts = urlsplit(url)
    if parts.scheme not in POSTGRES_SCHEMES or not parts.hostname:
        raise UnsupportedDatabaseUrl("expected postgresql://USER[:PASS]@HOST[:PORT]/DB")
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname or not parts.username:
        raise UnsupportedDatabaseUrl("a PostgreSQL URL names its user and database")
    return PostgresAddress(
        user=unquote(parts.username),
        password=unquote(parts.password or ""),
        host=parts.hostname,
        port=parts.port or DEFAULT_POSTGRES_PORT,
        dbname=dbname,
    )


def sqlite_path(url: str) -> str:
    if not is_sqlite(url) or len(url) == len(SQLITE_PREFIX):
        raise UnsupportedDatabaseUrl("expected sqlite:///PATH")
    path = url[len(SQLITE_PREFIX) :]
    return path if path == ":memory:" else unquote(path)


def check_database_url(url: str) -> str:
    """The URL, if it names a store this service opens; UnsupportedDatabaseUrl otherwise."""
    if is_postgres(url):
        postgres_address(url)
    else:
        sqlite_path(url)
    return url
