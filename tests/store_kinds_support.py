"""The two kinds of store every store scenario runs on, SQLite and PostgreSQL, for the fixtures
of tests/conftest.py and for tests that open stores themselves. (A module of its own: a test
importing `conftest` by name gets whichever conftest.py was imported first, tests/e2e's included.)
"""

from __future__ import annotations

from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from infrastructure.store.persistence import temporary_postgres_database

PG_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres connect_timeout=5"
STORES = ("sqlite", "postgres")


def fresh_postgres_database() -> AbstractContextManager[str]:
    """A new empty PostgreSQL database (its URL), dropped on exit."""
    return temporary_postgres_database("pumpkin_test", PG_ADMIN)


def sqlite_url(directory: Path) -> str:
    return f"sqlite:///{directory / 'events.db'}"


def open_store(kind: str, directory: Path, stack: ExitStack) -> str:
    """A fresh empty event store of `kind` (one of STORES): a SQLite file in `directory`, or a
    new PostgreSQL database dropped when `stack` closes."""
    if kind == "sqlite":
        return sqlite_url(directory)
    return stack.enter_context(fresh_postgres_database())


def stored(aggregate: UUID, version: int) -> StoredEvent:
    """A bare stored event: the recorder's unit, with no aggregate behind it."""
    return StoredEvent(
        originator_id=aggregate, originator_version=version, topic="test:Event", state=b"{}"
    )
