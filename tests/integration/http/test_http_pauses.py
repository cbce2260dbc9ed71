"""/metrics shows what holds up the event loop: its lag, and the garbage collector's pauses."""

from __future__ import annotations

import gc
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from http_support import OPERATOR, bearer, client_for
from store_kinds_support import sqlite_url

from infrastructure.application import PumpkinApplication


@pytest.fixture
def served(tmp_path: Path) -> Iterator[TestClient]:
    """The app with its lifespan running, as uvicorn runs it."""
    service = PumpkinApplication.from_url(sqlite_url(tmp_path))
    try:
        with client_for(service) as client:
            yield client
    finally:
        service.close()


def _sample(text: str, name: str) -> float:
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert found, f"{name} not in /metrics"
    return float(found.group(1))


def test_a_loop_held_half_a_second_shows_as_lag_over_250_ms(served: TestClient) -> None:
    # the probe sleeps 0.1 s at a time, so a 0.5 s hold makes it wake at least 0.4 s late
    assert served.portal is not None
    served.portal.call(time.sleep, 0.5)  # holds the app's event loop, as a long pause would
    time.sleep(0.2)  # the probe wakes and records
    text = served.get("/metrics", headers=bearer(OPERATOR)).text
    lagged = _sample(text, "pumpkin_event_loop_lag_seconds_count")
    within = _sample(text, 'pumpkin_event_loop_lag_seconds_bucket{le="0.25"}')
    assert lagged - within >= 1


def test_a_full_collection_shows_as_a_generation_2_pause(served: TestClient) -> None:
    gc.collect()
    text = served.get("/metrics", headers=bearer(OPERATOR)).text
    assert _sample(text, 'pumpkin_gc_pause_seconds_count{generation="2"}') >= 1


def test_the_collector_is_no_longer_watched_once_the_app_stops(tmp_path: Path) -> None:
    before = list(gc.callbacks)
    service = PumpkinApplication.from_url(sqlite_url(tmp_path))
    try:
        with client_for(service) as client:
            assert len(gc.callbacks) == len(before) + 1
            client.get("/health")
    finally:
        service.close()
    assert gc.callbacks == before
