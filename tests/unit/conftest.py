"""The unit tier: pure rules, judged on the in-memory store (eventsourcing's POPO recorders), so
they run in seconds; the store's own scenarios run on SQLite and PostgreSQL in the integration
tier."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from infrastructure.application import PumpkinApplication

IN_MEMORY = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


@pytest.fixture
def service() -> Iterator[PumpkinApplication]:
    """The game service on an in-memory store."""
    app = PumpkinApplication(env=IN_MEMORY)
    try:
        yield app
    finally:
        app.close()
