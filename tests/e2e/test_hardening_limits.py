"""Request limits an attacker cannot sidestep (issue 17, finding 5): failed authentication is
limited by client address (a fresh bogus token gets no fresh allowance), a bogus token costs at
most one store lookup, requests without credentials are limited too, and the limits are one for
every `serve --workers N` process, not one each."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient
from http_support import OPERATOR, bearer, settings_for

from bench.fault_tools import Server  # noqa: E402
from infrastructure.bootstrap import build_http_app
from infrastructure.http.ratelimit import RateLimiter
from infrastructure.http.shared_buckets import SharedBuckets, shared_table_file


class CountingLookups:
    """The real service, counting how often a token is looked up in the store."""

    def __init__(self, service: Any) -> None:
        self._service = service
        self.lookups = 0

    def session_for_token(self, token: str) -> Any:
        self.lookups += 1
        return self._service.session_for_token(token)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._service, name)


def _client(service: Any, **limits: Any) -> TestClient:
    settings = settings_for()
    for name, value in limits.items():
        setattr(settings, name, value)
    return TestClient(build_http_app(settings, service), raise_server_exceptions=False)


def test_a_bogus_token_sent_again_costs_no_store_lookup(service: Any) -> None:
    counted = CountingLookups(service)
    client = _client(counted, unknown_token_cache_seconds=10.0)
    answers = [client.get("/players/x", headers=bearer("bogus-token-1")) for _ in range(50)]
    assert {a.status_code for a in answers} == {401}
    assert counted.lookups == 1


def test_failed_authentication_is_limited_by_address_whatever_the_token(service: Any) -> None:
    counted = CountingLookups(service)
    client = _client(counted, auth_failures_per_minute=10)
    answers = [client.get("/players/x", headers=bearer(f"guess-{n}")) for n in range(40)]
    statuses = [a.status_code for a in answers]
    assert statuses[:10] == [401] * 10
    assert set(statuses[10:]) == {429}  # refused before any lookup
    assert answers[-1].headers["retry-after"]
    assert counted.lookups == 10
    # past the budget the right key is refused too (issue 27 item 3): a lucky guess made now
    # is worth nothing
    right = client.post("/players", json={"player_id": "ann"}, headers=bearer(OPERATOR))
    assert right.status_code == 429 and int(right.headers["retry-after"]) >= 6  # 10 a minute


def test_requests_without_credentials_are_limited_by_address(service: Any) -> None:
    client = _client(service, anonymous_per_second=5)
    started = time.monotonic()
    statuses = [client.get("/health").status_code for _ in range(20)]
    refills = math.ceil((time.monotonic() - started) * 5)  # 5 a second while the run goes on
    assert statuses[:5] == [200] * 5
    assert statuses.count(200) <= 5 + refills and statuses.count(429) >= 15 - refills
    # (the bucket may have refilled while the run went on: the next requests drain it again)
    refused = next(a for a in (client.get("/players/x") for _ in range(20)) if a.status_code != 401)
    assert (refused.status_code, refused.json()["error"]["code"]) == (429, "rate_limited")
    assert client.get("/health", headers=bearer(OPERATOR)).status_code == 200  # not anonymous


def test_a_credential_that_does_not_verify_is_anonymous_for_the_limit(service: Any) -> None:
    """Issue 27 item 2: `Authorization: x` or a wrong bearer never skips the anonymous limit."""
    for header in ("x", "Bearer wrong-secret-for-sure", "Basic b3BlcmF0b3I=", "Bearer "):
        client = _client(service, anonymous_per_second=5)
        started = time.monotonic()
        statuses = [
            client.get("/health", headers={"Authorization": header}).status_code
            for _ in range(20)
        ]
        refills = math.ceil((time.monotonic() - started) * 5)
        assert statuses.count(429) >= 15 - refills, (header, statuses)
        assert statuses.count(200) <= 5 + refills, (header, statuses)
    client = _client(service, anonymous_per_second=5)
    keyed = [client.get("/health", headers=bearer(OPERATOR)).status_code for _ in range(20)]
    assert keyed == [200] * 20


def test_every_process_of_a_server_draws_on_one_allowance() -> None:
    with shared_table_file() as path:
        first, second = SharedBuckets(path), SharedBuckets(path)
        try:
            workers = [RateLimiter(0, failures_per_minute=6, buckets=b) for b in (first, second)]
            for n in range(6):
                workers[n % 2].failed("203.0.113.9")
            assert not workers[0].may_try_credentials("203.0.113.9")
            assert not workers[1].may_try_credentials("203.0.113.9")
            assert workers[1].may_try_credentials("203.0.113.10")  # another address
        finally:
            first.close()
            second.close()


def test_serve_with_two_workers_limits_failed_authentication_once(tmp_path: Path) -> None:
    server = Server(
        f"sqlite:///{tmp_path / 'events.db'}",
        tmp_path / "serve.log",
        projections=False,
        PUMPKIN_WORKERS="2",
        PUMPKIN_AUTH_FAILURES_PER_MINUTE="10",
    ).start()
    try:
        started = time.monotonic()
        statuses = [  # a new connection each: the kernel spreads them over both workers
            httpx.get(
                f"{server.base_url}/players/x", headers=bearer(f"guess-{n}"), timeout=10
            ).status_code
            for n in range(40)
        ]
        took = time.monotonic() - started
    finally:
        server.stop()
    refills = math.ceil(took * 10 / 60)  # the bucket refills 10 a minute while the run goes on
    assert 10 <= statuses.count(401) <= 10 + refills  # shared: not 10 per worker
    assert statuses.count(429) >= 30 - refills
