"""The spin hot path (infrastructure/http/spin_lane.py) answers every spin request exactly as the
framework's own route would: same status, same error body, same headers that matter, and a
refused request changes nothing. Both apps share one service, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, client_for, unique

from infrastructure.application import PumpkinApplication
from infrastructure.http.app import create_app

Request = tuple[str, dict[str, str], bytes]  # path, headers, body


@pytest.fixture
def clients(service: PumpkinApplication) -> Iterator[tuple[TestClient, TestClient]]:
    with client_for(service) as lane:
        framework_app = create_app(lane.app.state.deps, spin_lane=False)  # type: ignore[attr-defined]
        with TestClient(framework_app, raise_server_exceptions=False) as framework:
            yield lane, framework


def refused_requests(j: Journey, other: Journey, closed: Journey, poor: Journey) -> list[Request]:
    path = f"/sessions/{j.session_id}/spins"
    token = {**bearer(j.token), "Content-Type": "application/json"}
    play = b'{"stake": 100, "request_id": "a"}'

    def body(raw: str) -> Request:
        return path, token, raw.encode()

    return [
        (path, {}, b'{"stake": 100, "request_id": "a"}'),
        (path, {"Authorization": f"Basic {j.token}"}, b'{"stake": 100, "request_id": "a"}'),
        (path, {"Authorization": "Bearer "}, b'{"stake": 100, "request_id": "a"}'),
        (path, bearer("forged-token"), b'{"stake": 100, "request_id": "a"}'),
        (path, bearer(OPERATOR), b'{"stake": 100, "request_id": "a"}'),
        (path, bearer(AUDITOR), b'{"stake": 100, "request_id": "a"}'),
        (path, bearer(other.token), b'{"stake": 100, "request_id": "a"}'),
        (f"/sessions/{closed.session_id}/spins", bearer(closed.token), play),
        (f"/sessions/{poor.session_id}/spins", bearer(poor.token), play),
        ("/sessions/no-such-session/spins", bearer(j.token), b'{"stake": 100, "request_id": "a"}'),
        (path, bearer("forged-token"), b"{not json"),
        body(""),
        body("{not json"),
        body('{"stake": 100, "request_id": "a"'),
        body("[1, 2]"),
        body('"text"'),
        body("null"),
        body("{}"),
        body('{"stake": 100}'),
        body('{"request_id": "a"}'),
        body('{"stake": 1.5, "request_id": "a"}'),
        body('{"stake": 100.0, "request_id": "a"}'),
        body('{"stake": "100", "request_id": "a"}'),
        body('{"stake": true, "request_id": "a"}'),
        body('{"stake": -100, "request_id": "a"}'),
        body('{"stake": 0, "request_id": "a"}'),
        body('{"stake": 101, "request_id": "a"}'),
        body('{"stake": 1e300, "request_id": "a"}'),
        body('{"stake": NaN, "request_id": "a"}'),
        body('{"stake": ' + "9" * 400 + ', "request_id": "a"}'),
        body('{"stake": 100, "request_id": 7}'),
        body('{"stake": 100, "request_id": ""}'),
        body('{"stake": 100, "request_id": "' + "x" * 129 + '"}'),
        body('{"stake": 100, "request_id": "tab\\there"}'),
        body('{"stake": 100, "request_id": "already-played"}'),  # played with stake 200 first
        body('{"stake": 100, "clientSeed": "my lucky seed"}'),
        body('{"stake": 100, "request_id": "a", "clientSeed": "x"}'),
        body('{"stake": "x", "request_id": "a", "clientSeed": "x"}'),
        (path + "?dry_run=1", token, play),
        (path + "?dry_run=1", bearer("forged-token"), play),
        (path, token, b'{"stake": 100, "request_id": "\xff\xfe"}'),
        (path, token, b"[" * 20_000 + b"]" * 20_000),
        (path, {**token, "Content-Type": "text/plain"}, b'{"stake": 1.5, "request_id": "a"}'),
        (path, token, b"x" * 200_000),
    ]


def answer(client: TestClient, request: Request) -> tuple[int, Any, str | None, str | None]:
    path, headers, content = request
    got = client.post(path, headers=headers, content=content)
    return (
        got.status_code,
        got.json(),
        got.headers.get("www-authenticate"),
        got.headers.get("retry-after"),
    )


def test_every_refused_spin_is_answered_as_the_framework_answers_it(
    clients: tuple[TestClient, TestClient], service: PumpkinApplication
) -> None:
    lane, framework = clients
    j, other, closed = Journey(lane), Journey(lane), Journey(lane)
    poor = Journey(lane, balance=50)
    assert j.spin(200, request_id="already-played").status_code == 200
    lane.post(f"/sessions/{closed.session_id}/close", headers=bearer(OPERATOR))
    players = [p.player_id for p in (j, other, closed, poor)]
    before = [service.player_state(p) for p in players]
    rounds = service.round_ids(j.player_id)
    for request in refused_requests(j, other, closed, poor):
        expected = answer(framework, request)
        assert expected[0] >= 400, request
        assert answer(lane, request) == expected, request
    assert [service.player_state(p) for p in players] == before
    assert service.round_ids(j.player_id) == rounds


def test_a_spin_and_its_retry_are_answered_alike_on_both_paths(
    clients: tuple[TestClient, TestClient], service: PumpkinApplication
) -> None:
    lane, framework = clients
    j = Journey(lane)
    request_id = unique("spin")
    played = lane.post(
        f"/sessions/{j.session_id}/spins",
        json={"stake": 100, "request_id": request_id},
        headers=bearer(j.token),
    )
    assert played.status_code == 200
    assert played.headers["content-type"] == "application/json"
    assert played.headers["x-request-id"]
    retried = framework.post(
        f"/sessions/{j.session_id}/spins",
        json={"stake": 100, "request_id": request_id},
        headers=bearer(j.token),
    )
    assert retried.status_code == 200
    assert retried.json() == played.json()
    assert service.round_ids(j.player_id) == [played.json()["round_id"]]
    metrics = lane.get("/metrics", headers=bearer(OPERATOR)).text
    assert 'route="/sessions/{session_id}/spins",status="200"' in metrics
