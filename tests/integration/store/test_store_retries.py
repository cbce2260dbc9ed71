"""A command that loses a write race is retried under the one retry policy, and every retry is
counted: the application reports it and /metrics shows `pumpkin_store_retries`."""

from __future__ import annotations

import asyncio

from http_support import OPERATOR, bearer, client_for

from infrastructure.application import PumpkinApplication
from infrastructure.store import retry_policy


def test_a_retry_after_a_lost_race_is_reported_and_counted_in_metrics(store_url: str) -> None:
    with PumpkinApplication.from_url(store_url) as first, \
            PumpkinApplication.from_url(store_url) as second:
        client = client_for(first)  # wires first.on_conflict_retry to the app's metrics
        first.register_player("kim")
        first.deposit("kim", 100, "d1")  # `first` now holds kim in its cache
        second.deposit("kim", 100, "d2")  # ... which `second` makes stale
        assert first.deposit("kim", 100, "d3") == 300  # decided on the stale copy: lost, retried
        metrics = client.get("/metrics", headers=bearer(OPERATOR)).text
    assert "pumpkin_store_retries_total 1.0" in metrics


def test_no_race_no_retry(store_url: str) -> None:
    retries: list[int] = []
    with PumpkinApplication.from_url(store_url) as app:
        app.on_conflict_retry = lambda: retries.append(1)
        app.register_player("lee")
        app.deposit("lee", 100, "d1")
        app.open_session("lee")
    assert retries == []


def test_the_pause_before_a_retry_is_jittered_and_doubles() -> None:
    for retry in range(1, retry_policy.ATTEMPTS):
        ceiling = retry_policy.FIRST_PAUSE_SECONDS * 2 ** (retry - 1)  # doubles with each retry
        pauses = [retry_policy.pause_seconds(retry) for _ in range(400)]
        assert all(0 <= pause <= ceiling for pause in pauses)
        assert len(set(pauses)) > 390  # jittered: no two racers wait alike
        assert min(pauses) < ceiling / 4 and max(pauses) > ceiling * 3 / 4  # the whole range


def test_a_spin_decided_in_the_event_loop_that_loses_its_race_counts_as_a_retry(
    postgres_url: str,
) -> None:
    retries: list[int] = []
    with PumpkinApplication.from_url(postgres_url) as first, \
            PumpkinApplication.from_url(postgres_url) as second:
        first.on_conflict_retry = lambda: retries.append(1)
        first.register_player("max")
        first.deposit("max", 1_000, "d1")
        session_id, _token = first.open_session("max")  # first holds max and the session
        second.deposit("max", 1_000, "d2")  # ... now stale
        answer = asyncio.run(first.spin_async(session_id, 20, "s1"))
    assert answer["balance_before"] == 2_000
    assert len(retries) >= 1
