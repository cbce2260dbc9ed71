"""Who may do what: every endpoint against every kind of caller."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, client_for, unique
from store_kinds_support import STORES, open_store

from infrastructure.application import PumpkinApplication

CALLERS = ("nobody", "unknown", "operator", "auditor", "own", "other", "closed")

# endpoint -> expected status per caller, in CALLERS order. Another player's data answers 404,
# exactly as if it did not exist (tests/test_security_existence.py).
MATRIX: dict[str, tuple[int, ...]] = {
    "register": (401, 401, 201, 403, 403, 403, 401),
    "deposit": (401, 401, 201, 403, 403, 403, 401),
    "withdraw": (401, 401, 201, 403, 403, 403, 401),
    "open_session": (401, 401, 201, 403, 403, 403, 401),
    "spin": (401, 401, 403, 403, 200, 404, 401),
    "close": (401, 401, 200, 403, 200, 404, 401),
    "player": (401, 401, 200, 200, 200, 404, 401),
    "rounds": (401, 401, 200, 200, 200, 404, 401),
    "round": (401, 401, 200, 200, 200, 404, 401),
    "verify": (401, 401, 403, 200, 403, 403, 401),
    "health": (200,) * 7,
    "rules": (200,) * 7,
    "metrics": (401, 401, 200, 200, 403, 403, 401),
}


class World:
    def __init__(self, client: TestClient) -> None:
        self.own = Journey(client)
        self.round_id = self.own.spin().json()["round_id"]
        self.other = Journey(client)
        self.closed = Journey(client)
        client.post(f"/sessions/{self.closed.session_id}/close", headers=bearer(OPERATOR))

    def headers(self, caller: str) -> dict[str, str]:
        secret = {
            "unknown": "not-a-key",
            "operator": OPERATOR,
            "auditor": AUDITOR,
            "own": self.own.token,
            "other": self.other.token,
            "closed": self.closed.token,
        }.get(caller)
        return bearer(secret) if secret else {}

    def request(self, endpoint: str) -> tuple[str, str, Any]:
        p, s = self.own.player_id, self.own.session_id
        money = {"amount": 10, "request_id": unique("r")}
        return {
            "register": ("POST", "/players", {"player_id": unique("new")}),
            "deposit": ("POST", f"/players/{p}/deposits", money),
            "withdraw": ("POST", f"/players/{p}/withdrawals", money),
            "open_session": ("POST", f"/players/{p}/sessions", {}),
            "spin": ("POST", f"/sessions/{s}/spins", {"stake": 100, "request_id": unique("s")}),
            "close": ("POST", f"/sessions/{s}/close", {}),
            "player": ("GET", f"/players/{p}", None),
            "rounds": ("GET", f"/players/{p}/rounds", None),
            "round": ("GET", f"/rounds/{self.round_id}", None),
            "verify": ("GET", f"/audit/players/{p}/verify", None),
            "health": ("GET", "/health", None),
            "rules": ("GET", "/rules", None),
            "metrics": ("GET", "/metrics", None),
        }[endpoint]


@pytest.fixture(scope="module", params=STORES)
def client(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    """One app per store for the whole matrix (a fresh database per cell would be slow)."""
    with ExitStack() as stack:
        url = open_store(request.param, tmp_path_factory.mktemp("roles"), stack)
        application = PumpkinApplication.from_url(url)
        stack.callback(application.close)
        yield stack.enter_context(client_for(application))


@pytest.mark.parametrize(
    ("endpoint", "caller", "status"),
    [(e, c, s) for e, row in MATRIX.items() for c, s in zip(CALLERS, row, strict=True)],
)
def test_each_role_reaches_only_what_it_may(
    client: TestClient, endpoint: str, caller: str, status: int
) -> None:
    world = World(client)
    method, path, body = world.request(endpoint)
    answer = client.request(method, path, json=body, headers=world.headers(caller))
    assert answer.status_code == status, answer.text
    if status >= 400:
        assert set(answer.json()) == {"error"}
        code = answer.json()["error"]["code"]
        assert code == {401: "unauthorized", 403: "forbidden"}.get(status, code)
        assert status != 404 or code.endswith("_not_found")


def test_a_refused_request_changes_nothing(client: TestClient) -> None:
    world = World(client)
    p = world.own.player_id
    before = client.get(f"/players/{p}", headers=bearer(OPERATOR)).json()
    for caller in ("auditor", "own", "other", "closed"):
        client.post(
            f"/players/{p}/deposits",
            json={"amount": 5, "request_id": unique("x")},
            headers=world.headers(caller),
        )
    assert client.get(f"/players/{p}", headers=bearer(OPERATOR)).json() == before


def test_a_closed_sessions_token_is_told_the_session_is_closed_when_it_spins(
    client: TestClient,
) -> None:
    world = World(client)
    answer = world.closed.spin()
    assert (answer.status_code, answer.json()["error"]["code"]) == (409, "session_closed")
