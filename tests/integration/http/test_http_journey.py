"""A player's whole journey through the HTTP API, and the answers' shapes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, client_for, unique


@pytest.fixture
def client(service: Any) -> Iterator[TestClient]:
    with client_for(service) as test_client:
        yield test_client


def test_health_and_rules_are_open_to_anyone(client: TestClient) -> None:
    assert client.get("/health").json() == {"status": "ok"}
    rules = client.get("/rules")
    assert rules.status_code == 200
    assert {"model_version", "stakes", "paylines", "paytable", "max_win"} <= rules.json().keys()


def test_a_player_journey_creates_funds_plays_reads_and_closes(client: TestClient) -> None:
    j = Journey(client, balance=0)
    assert j.deposit(10_000).json() == {"balance": 10_000}
    spun = j.spin(100)
    assert spun.status_code == 200, spun.text
    played = spun.json()
    assert played["balance_before"] == 10_000
    assert played["balance_after"] == 10_000 - 100 + played["total_win"]
    assert played["player_id"] == j.player_id and played["session_id"] == j.session_id

    state = client.get(f"/players/{j.player_id}", headers=bearer(j.token)).json()
    assert state["balance"] == played["balance_after"]
    assert set(state) == {
        "player_id",
        "balance",
        "level",
        "spins_to_next_level",
        "hold_and_win_multiplier",
        "free_spins_multiplier",
        "excluded",
        "excluded_until",
    }
    assert state["excluded"] is False and state["excluded_until"] is None

    recalled = client.get(f"/rounds/{played['round_id']}", headers=bearer(j.token))
    assert recalled.status_code == 200 and recalled.json() == played
    assert played["session"]["spins"] == 1 and played["session"]["staked"] == 100

    history = client.get(f"/players/{j.player_id}/rounds", headers=bearer(AUDITOR)).json()
    assert [r["round_id"] for r in history["rounds"]] == [played["round_id"]]

    closed = client.post(f"/sessions/{j.session_id}/close", json={}, headers=bearer(j.token))
    assert closed.status_code == 200
    assert closed.json() | {
        "session_id": j.session_id,
        "spins": 1,
        "staked": 100,
        "won": played["total_win"],
        "net": played["total_win"] - 100,
        "open": False,
    } == closed.json()
    assert closed.json()["server_seed"] is not None


def test_a_withdrawal_lowers_the_balance_and_cannot_overdraw(client: TestClient) -> None:
    j = Journey(client, balance=500)
    url = f"/players/{j.player_id}/withdrawals"
    ok = client.post(url, json={"amount": 200, "request_id": "w1"}, headers=bearer(OPERATOR))
    assert (ok.status_code, ok.json()) == (201, {"balance": 300})
    too_much = client.post(url, json={"amount": 301, "request_id": "w2"}, headers=bearer(OPERATOR))
    assert too_much.status_code == 409
    assert too_much.json()["error"]["code"] == "insufficient_funds"


def test_history_is_newest_first_and_pages_with_before(client: TestClient) -> None:
    j = Journey(client)
    ids = [j.spin().json()["round_id"] for _ in range(5)]
    url = f"/players/{j.player_id}/rounds"
    first = client.get(url, params={"limit": 2}, headers=bearer(j.token)).json()["rounds"]
    assert [r["round_id"] for r in first] == ids[::-1][:2]
    rest = client.get(
        url, params={"limit": 10, "before": first[-1]["round_id"]}, headers=bearer(j.token)
    ).json()["rounds"]
    assert [r["round_id"] for r in rest] == ids[::-1][2:]


def test_operator_closes_a_session_and_its_token_stops_working(client: TestClient) -> None:
    j = Journey(client)
    j.spin()
    closed = client.post(f"/sessions/{j.session_id}/close", json={}, headers=bearer(OPERATOR))
    assert closed.status_code == 200 and closed.json()["spins"] == 1
    again = client.post(f"/sessions/{j.session_id}/close", json={}, headers=bearer(OPERATOR))
    assert again.json() == closed.json()
    spun = j.spin()
    assert (spun.status_code, spun.json()["error"]["code"]) == (409, "session_closed")
    state = client.get(f"/players/{j.player_id}", headers=bearer(j.token))
    assert state.status_code == 401


def test_every_answer_carries_a_request_id(client: TestClient) -> None:
    assert client.get("/health").headers["x-request-id"]
    # The server's own id, whatever the caller sends (tests/test_hardening_logs.py).
    assert client.get("/health", headers={"X-Request-ID": "abc"}).headers["x-request-id"] != "abc"


def test_metrics_count_spins_and_requests(client: TestClient) -> None:
    j = Journey(client)
    j.spin()
    text = client.get("/metrics", headers=bearer(OPERATOR)).text
    assert "pumpkin_spins_total 1.0" in text
    assert "pumpkin_http_request_duration_seconds_bucket{" in text
    assert 'route="/sessions/{session_id}/spins"' in text


def test_the_openapi_document_describes_every_contract_path(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {
        "/health",
        "/rules",
        "/players",
        "/players/{player_id}/deposits",
        "/players/{player_id}/withdrawals",
        "/players/{player_id}/sessions",
        "/sessions/{session_id}/spins",
        "/sessions/{session_id}/close",
        "/players/{player_id}",
        "/players/{player_id}/rounds",
        "/rounds/{round_id}",
        "/audit/players/{player_id}/verify",
        "/metrics",
    } <= paths.keys()
    assert unique("x")
