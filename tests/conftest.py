"""Shared fixtures: every store scenario runs on SQLite AND PostgreSQL.

PostgreSQL is 127.0.0.1:5432, user postgres (trust). Each test gets a fresh, uniquely named
database, dropped afterwards. If PostgreSQL is unreachable the test errors: it never skips.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from store_kinds_support import STORES, fresh_postgres_database, open_store
from wallet_kinds_support import WALLETS, operators_wallet

from infrastructure.application import PumpkinApplication
from infrastructure.store.persistence import GroupCommitRecorder
from infrastructure.wallet.reference import ReferenceWallet

# Services the tests start (in-process or as `pumpkin serve`) keep their seed key here, not in a
# key file in the working directory (the default for a PostgreSQL store).
os.environ.setdefault("PUMPKIN_SEED_KEY", "5eed" * 16)


@pytest.fixture(autouse=True)
def environment_restored() -> Iterator[None]:
    """What a test (or `serve` run in-process, which names its public URL and keys in the
    environment for its workers) sets in os.environ ends with the test."""
    saved = dict(os.environ)
    yield
    if os.environ != saved:
        os.environ.clear()
        os.environ.update(saved)

@pytest.fixture(params=STORES)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh empty event store: a SQLite file or a new PostgreSQL database."""
    with ExitStack() as stack:
        yield open_store(request.param, tmp_path, stack)


@pytest.fixture(scope="module", params=STORES)
def module_store_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A fresh empty event store shared by a module's tests (one per store kind)."""
    with ExitStack() as stack:
        yield open_store(request.param, tmp_path_factory.mktemp("store"), stack)


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL database only (for tests about concurrent writers)."""
    with fresh_postgres_database() as url:
        yield url


@pytest.fixture
def group_commit_recorder(postgres_url: str) -> Iterator[GroupCommitRecorder]:
    """The recorder that groups concurrent saves, of an application on `postgres_url`."""
    with PumpkinApplication.from_url(postgres_url) as app:
        recorder = app.recorder
        assert isinstance(recorder, GroupCommitRecorder)
        yield recorder


@pytest.fixture
def api(service: PumpkinApplication) -> Iterator[TestClient]:
    """The HTTP API around `service`, as the composition root wires it (no read models)."""
    from http_support import client_for

    with client_for(service) as test_client:
        yield test_client


@pytest.fixture
def service(store_url: str) -> Iterator[PumpkinApplication]:
    """The event-sourced application (GameService) on the parametrized store."""
    app = PumpkinApplication.from_url(store_url)
    try:
        yield app
    finally:
        app.close()


@pytest.fixture(params=WALLETS)
def operator_wallet(request: pytest.FixtureRequest) -> Iterator[ReferenceWallet | None]:
    """The read models' tests run on both wallets: None (the built-in wallet), or the running
    reference wallet the service calls as the operator's seamless wallet (served_client's
    `wallet`)."""
    with operators_wallet(request.param) as running:
        yield running
