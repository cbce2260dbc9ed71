"""Every refusal answers 4xx in one shape, `{"error": {"code", "message"}}`, and changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_support import OPERATOR, Journey, ServiceDouble, bearer, client_for, error_keys, unique


@pytest.fixture
def client(service: Any) -> Iterator[TestClient]:
    with client_for(service) as test_client:
        yield test_client


def refused(answer: Any, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"error"} and set(body["error"]) == error_keys(body["error"])
    assert body["error"]["code"] == code


def test_a_player_id_is_registered_once(client: TestClient) -> None:
    j = Journey(client)
    again = client.post("/players", json={"player_id": j.player_id}, headers=bearer(OPERATOR))
    refused(again, 409, "player_exists")


@pytest.mark.parametrize("bad_id", ["", "has space", "x" * 65, "é", "a/b", "a.b"])
def test_a_player_id_is_1_to_64_of_letters_digits_dash_underscore(
    client: TestClient, bad_id: str
) -> None:
    refused(
        client.post("/players", json={"player_id": bad_id}, headers=bearer(OPERATOR)),
        422,
        "invalid_player_id",
    )


def test_unknown_players_sessions_and_rounds_are_404(client: TestClient) -> None:
    op = bearer(OPERATOR)
    money = {"amount": 5, "request_id": "r"}
    refused(client.get("/players/nobody", headers=op), 404, "player_not_found")
    refused(client.get("/players/nobody/rounds", headers=op), 404, "player_not_found")
    refused(
        client.post("/players/nobody/deposits", json=money, headers=op), 404, "player_not_found"
    )
    refused(client.post("/players/nobody/sessions", json={}, headers=op), 404, "player_not_found")
    refused(client.post("/sessions/nosuch/close", json={}, headers=op), 404, "session_not_found")
    refused(client.get("/rounds/nosuch", headers=op), 404, "round_not_found")


@pytest.mark.parametrize("amount", [0, -1, 10**12 + 1])
def test_an_amount_is_a_positive_bounded_integer(client: TestClient, amount: int) -> None:
    j = Journey(client)
    for kind in ("deposits", "withdrawals"):
        answer = client.post(
            f"/players/{j.player_id}/{kind}",
            json={"amount": amount, "request_id": unique("r")},
            headers=bearer(OPERATOR),
        )
        refused(answer, 422, "invalid_amount")


@pytest.mark.parametrize("amount", [10.5, 10.0, "10", True, None, [10], {"v": 10}])
def test_money_is_a_strict_integer(client: TestClient, amount: Any) -> None:
    j = Journey(client)
    answer = client.post(
        f"/players/{j.player_id}/deposits",
        json={"amount": amount, "request_id": unique("r")},
        headers=bearer(OPERATOR),
    )
    refused(answer, 422, "invalid_request")
    spun = client.post(
        f"/sessions/{j.session_id}/spins",
        json={"stake": amount, "request_id": unique("s")},
        headers=bearer(j.token),
    )
    refused(spun, 422, "invalid_request")


@pytest.mark.parametrize(
    "request_id", ["", "x" * 129, "tab\there", "new\nline", "a space", "caf\u00e9"]
)
def test_a_request_id_is_1_to_128_printable_ascii_characters_without_spaces(
    client: TestClient, request_id: str
) -> None:
    j = Journey(client)
    refused(
        client.post(
            f"/players/{j.player_id}/deposits",
            json={"amount": 5, "request_id": request_id},
            headers=bearer(OPERATOR),
        ),
        422,
        "invalid_request_id",
    )
    refused(
        j.spin(100, request_id=request_id)
        if request_id
        else client.post(
            f"/sessions/{j.session_id}/spins",
            json={"stake": 100, "request_id": ""},
            headers=bearer(j.token),
        ),
        422,
        "invalid_request_id",
    )


@pytest.mark.parametrize("stake", [0, 1, 99, 30000, -100])
def test_a_stake_is_one_of_the_offered_stakes(client: TestClient, stake: int) -> None:
    refused(Journey(client).spin(stake), 422, "invalid_stake")


def test_a_spin_beyond_the_balance_is_refused_and_changes_nothing(client: TestClient) -> None:
    j = Journey(client, balance=50)
    refused(j.spin(100), 409, "insufficient_funds")
    state = client.get(f"/players/{j.player_id}", headers=bearer(j.token)).json()
    assert state["balance"] == 50


def test_malformed_or_incomplete_bodies_are_invalid_requests(client: TestClient) -> None:
    j = Journey(client)
    url = f"/players/{j.player_id}/deposits"
    for raw in (b"{", b"[]", b'"x"', b"null", b'{"amount": 5}', b'{"request_id": "x"}'):
        answer = client.post(
            url, content=raw, headers={**bearer(OPERATOR), "Content-Type": "application/json"}
        )
        refused(answer, 422, "invalid_request")
    refused(
        client.get(f"/players/{j.player_id}/rounds", params={"limit": 0}, headers=bearer(OPERATOR)),
        422,
        "invalid_query",
    )
    refused(
        client.get(
            f"/players/{j.player_id}/rounds", params={"limit": "x"}, headers=bearer(OPERATOR)
        ),
        422,
        "invalid_query",
    )


def test_the_same_request_id_answers_the_first_result_again(client: TestClient) -> None:
    j = Journey(client, balance=1000)
    url = f"/players/{j.player_id}/deposits"
    first = client.post(url, json={"amount": 7, "request_id": "dep-1"}, headers=bearer(OPERATOR))
    again = client.post(url, json={"amount": 7, "request_id": "dep-1"}, headers=bearer(OPERATOR))
    assert first.json() == again.json() == {"balance": 1007}
    spin = j.spin(100, request_id="spin-1")
    assert j.spin(100, request_id="spin-1").json() == spin.json()
    state = client.get(f"/players/{j.player_id}", headers=bearer(OPERATOR)).json()
    assert state["balance"] == spin.json()["balance_after"]


def test_the_same_request_id_with_another_body_is_refused(client: TestClient) -> None:
    j = Journey(client, balance=1000)
    url = f"/players/{j.player_id}/withdrawals"
    client.post(url, json={"amount": 7, "request_id": "w-1"}, headers=bearer(OPERATOR))
    refused(
        client.post(url, json={"amount": 8, "request_id": "w-1"}, headers=bearer(OPERATOR)),
        409,
        "request_id_reused",
    )
    j.spin(100, request_id="s-1")
    refused(j.spin(200, request_id="s-1"), 409, "request_id_reused")


def test_a_body_over_64_kib_is_refused_before_it_is_read(client: TestClient) -> None:
    big = b'{"player_id": "' + b"x" * 70_000 + b'"}'
    answer = client.post(
        "/players", content=big, headers={**bearer(OPERATOR), "Content-Type": "application/json"}
    )
    refused(answer, 413, "payload_too_large")


def test_unknown_paths_and_methods_answer_in_the_error_shape(client: TestClient) -> None:
    refused(client.get("/nowhere"), 404, "not_found")
    refused(client.delete("/health"), 405, "method_not_allowed")


def test_a_credential_over_its_rate_is_told_to_slow_down(service: Any) -> None:
    with client_for(service, rate_limit=5) as limited:
        answers = [limited.get("/players/x", headers=bearer(OPERATOR)) for _ in range(8)]
    refused(answers[-1], 429, "rate_limited")
    assert answers[-1].headers["Retry-After"]


class _StoreDown(ServiceDouble):
    """A service whose store has gone away."""

    def player_state(self, player_id: str) -> dict[str, Any]:
        import psycopg

        raise psycopg.OperationalError("connection refused")


def test_a_store_outage_is_503_with_retry_after() -> None:
    with client_for(_StoreDown()) as down:
        answer = down.get("/players/x", headers=bearer(OPERATOR))
    refused(answer, 503, "store_unavailable")
    assert answer.headers["Retry-After"] == "1"
