"""Reaching into a store directly, as an attacker with database access would."""

from __future__ import annotations

import sqlite3
from typing import Any

import psycopg

from infrastructure.store.database_url import postgres_address, sqlite_path


def run_sql(store_url: str, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run one statement straight on the event store; {TABLE} names its events table."""
    table = "stored_events" if store_url.startswith("sqlite:") else "pumpkin_events"
    statement = statement.replace("{TABLE}", table)
    if store_url.startswith("sqlite:"):
        with sqlite3.connect(sqlite_path(store_url)) as conn:
            return conn.execute(statement.replace("%s", "?"), params).fetchall()
    with psycopg.connect(postgres_address(store_url).conninfo(), autocommit=True) as conn:
        cursor = conn.execute(statement, params)
        return cursor.fetchall() if cursor.description else []
