"""PUMPKIN_DATABASE_URL: what it names, and a first start that needs no manual step."""

from __future__ import annotations

from uuid import uuid4

import psycopg
import pytest
from psycopg import sql

from infrastructure.application import PumpkinApplication
from infrastructure.settings import Settings
from infrastructure.store.database_url import UnsupportedDatabaseUrl, postgres_address, sqlite_path
from infrastructure.store.persistence import SCHEMA_LOCK, event_store_env, schema_lock

PG_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres connect_timeout=5"


def test_a_sqlite_url_names_a_file() -> None:
    assert sqlite_path("sqlite:////var/lib/pumpkin.db") == "/var/lib/pumpkin.db"
    assert sqlite_path("sqlite:///./pumpkin.db") == "./pumpkin.db"
    assert event_store_env("sqlite:///x.db")["PERSISTENCE_MODULE"] == "eventsourcing.sqlite"


def test_a_postgres_url_names_user_password_host_port_and_database() -> None:
    address = postgres_address("postgresql://rgs:s%40cret@db.local:6543/pumpkin")
    assert (address.user, address.password, address.host, address.port, address.dbname) == (
        "rgs", "s@cret", "db.local", 6543, "pumpkin",
    )
    assert postgres_address("postgresql://postgres@127.0.0.1/p").port == 5432
    env = event_store_env("postgresql://postgres@127.0.0.1/p")
    assert env["PERSISTENCE_MODULE"] == "eventsourcing.postgres"
    assert env["POSTGRES_PASSWORD"] == ""


@pytest.mark.parametrize(
    "url", ["mysql://x@y/z", "sqlite://relative.db", "postgresql://127.0.0.1/db", "postgresql://u@h/"]
)
def test_other_urls_are_refused(url: str) -> None:
    with pytest.raises(UnsupportedDatabaseUrl):
        event_store_env(url)
    with pytest.raises(ValueError, match="PUMPKIN_DATABASE_URL"):
        Settings(database_url=url)  # the service refuses at start what the store cannot open


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_both_spellings_of_a_postgres_url_take_the_schema_lock(
    scheme: str, postgres_url: str
) -> None:
    url = postgres_url.replace("postgresql://", f"{scheme}://", 1)
    assert event_store_env(url)["PERSISTENCE_MODULE"] == "eventsourcing.postgres"
    with schema_lock(url), psycopg.connect(PG_ADMIN, autocommit=True) as watcher:
        held = watcher.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND (classid::bigint << 32) + objid::bigint = %s "
            "AND database = (SELECT oid FROM pg_database WHERE datname = %s)",
            (SCHEMA_LOCK, postgres_address(url).dbname),
        ).fetchone()
    assert held == (1,)


def test_the_first_start_creates_the_database_and_its_tables() -> None:
    name = f"pumpkin_test_first_start_{uuid4().hex[:12]}"  # does not exist yet
    try:
        with PumpkinApplication.from_url(f"postgresql://postgres@127.0.0.1:5432/{name}") as app:
            app.register_player("first")
            assert app.player_state("first")["balance"] == 0
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
