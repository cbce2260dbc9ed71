"""Free rounds (operator promotions), with the built-in wallet and with the operator's wallet,
on SQLite and PostgreSQL. Expiry moves the application's clock; nothing sleeps."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, served_client, settings_for, unique
from wallet_kinds_support import SECRET
from wallet_support import MovableClock, WalletPlayer, applied, wallet_service

from infrastructure.bootstrap import build_runtime
from infrastructure.promotions.free_round_expiry import FreeRoundExpiry
from infrastructure.wallet.reference import ReferenceWallet


@pytest.fixture
def served(store_url: str) -> Iterator[tuple[TestClient, Any, MovableClock]]:
    """The API as `serve` runs it (read models projected in-process), with a movable clock."""
    runtime = build_runtime(settings_for(store_url), with_projections=True)
    clock = MovableClock()
    runtime.application.clock = clock
    try:
        with TestClient(runtime.http_app, raise_server_exceptions=False) as client:
            yield client, runtime.application, clock
    finally:
        runtime.close()


def grant(client: TestClient, player_id: str, campaign_id: str, rounds: int = 3,
          stake: int = 100, expires_at: str | None = None,
          request_id: str | None = None) -> Any:
    body: dict[str, Any] = {"campaign_id": campaign_id, "rounds": rounds, "stake": stake,
                            "request_id": request_id or unique("grant")}
    if expires_at is not None:
        body["expires_at"] = expires_at
    return client.post(f"/players/{player_id}/free-rounds", json=body, headers=bearer(OPERATOR))


def free_spin(j: Journey, campaign_id: str, stake: int | None = None,
              request_id: str | None = None) -> Any:
    body: dict[str, Any] = {"request_id": request_id or unique("spin"), "free_round": campaign_id}
    if stake is not None:
        body["stake"] = stake
    return j.client.post(f"/sessions/{j.session_id}/spins", json=body, headers=bearer(j.token))


def live(client: TestClient, player_id: str) -> list[dict[str, Any]]:
    answer = client.get(f"/players/{player_id}/free-rounds", headers=bearer(OPERATOR))
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()["free_rounds"]
    return found


def code(answer: Any) -> str:
    return str(answer.json()["error"]["code"])


def test_a_granted_free_round_plays_the_campaign_stake_without_paying_it(served: Any) -> None:
    client, _app, _clock = served
    j = Journey(client, balance=1_000)
    granted = grant(client, j.player_id, "halloween", rounds=2, stake=200, request_id="g-1")
    assert granted.status_code == 201, granted.text
    assert granted.json() == {"campaign_id": "halloween", "rounds_left": 2, "stake": 200,
                              "expires_at": None}
    assert grant(client, j.player_id, "halloween", 2, 200, request_id="g-1").json() == \
        granted.json()  # the same request id changes nothing
    meter_before = client.get(f"/players/{j.player_id}", headers=bearer(OPERATOR)).json()
    played = free_spin(j, "halloween")
    assert played.status_code == 200, played.text
    round_ = played.json()
    assert round_["free_round"] == "halloween" and round_["stake"] == 200
    assert round_["balance_before"] == 1_000
    assert round_["balance_after"] == 1_000 + round_["total_win"]  # nothing staked, win paid
    state = client.get(f"/players/{j.player_id}", headers=bearer(OPERATOR)).json()
    assert state["spins_to_next_level"] == meter_before["spins_to_next_level"] - 1
    assert live(client, j.player_id) == [{"campaign_id": "halloween", "rounds_left": 1,
                                          "stake": 200, "expires_at": None}]
    again = client.get(f"/rounds/{round_['round_id']}", headers=bearer(OPERATOR)).json()
    assert again["free_round"] == "halloween"
    assert free_spin(j, "halloween").status_code == 200
    assert live(client, j.player_id) == []
    used_up = free_spin(j, "halloween")
    assert used_up.status_code == 409 and code(used_up) == "no_free_rounds"
    verified = client.get(f"/audit/players/{j.player_id}/verify", headers=bearer(AUDITOR))
    assert verified.json()["ok"] is True, verified.json()


def test_a_free_round_with_another_stake_is_invalid_stake(served: Any) -> None:
    client, _app, _clock = served
    j = Journey(client, balance=0)  # a free round needs no balance
    grant(client, j.player_id, "c1", stake=100)
    refused = free_spin(j, "c1", stake=200)
    assert refused.status_code == 422 and code(refused) == "invalid_stake"
    assert free_spin(j, "c1", stake=100).status_code == 200


def test_unknown_cancelled_and_expired_campaigns_have_no_free_rounds(served: Any) -> None:
    client, app, clock = served
    j = Journey(client)
    assert code(free_spin(j, "nothing")) == "no_free_rounds"
    grant(client, j.player_id, "gone")
    cancelled = client.delete(f"/players/{j.player_id}/free-rounds/gone",
                              headers=bearer(OPERATOR))
    assert cancelled.status_code == 200
    assert cancelled.json() == {"campaign_id": "gone", "rounds_left": 0, "cancelled": True}
    assert code(free_spin(j, "gone")) == "no_free_rounds"
    soon = (clock.now + timedelta(hours=1)).isoformat()
    assert grant(client, j.player_id, "soon", expires_at=soon).status_code == 201
    assert [c["campaign_id"] for c in live(client, j.player_id)] == ["soon"]
    clock.advance(3_601)
    assert live(client, j.player_id) == []
    assert code(free_spin(j, "soon")) == "no_free_rounds"
    assert FreeRoundExpiry(app.free_rounds).pass_once() == [j.player_id]  # recorded as an event
    names = [e["event"] if "event" in e else e.get("name") for e in _trail(client, j.player_id)]
    assert "FreeRoundsExpired" in names and "FreeRoundsCancelled" in names


def test_a_grant_is_checked(served: Any) -> None:
    client, _app, clock = served
    j = Journey(client)
    past = (clock.now - timedelta(seconds=1)).isoformat()
    for body in ({"rounds": 0}, {"rounds": 1_001}, {"stake": 7}, {"expires_at": past},
                 {"expires_at": "2030-01-01T00:00:00"}):
        answer = grant(client, j.player_id, unique("c"), **body)
        assert answer.status_code == 422, (body, answer.text)
    grant(client, j.player_id, "once")
    assert code(grant(client, j.player_id, "once")) == "campaign_exists"
    for role in (AUDITOR, j.token):
        answer = client.post(f"/players/{j.player_id}/free-rounds", headers=bearer(role),
                             json={"campaign_id": "x", "rounds": 1, "stake": 100,
                                   "request_id": "r"})
        assert answer.status_code in (401, 403)


def test_statistics_count_free_rounds_apart_from_paid_rounds(
    store_url: str, operator_wallet: ReferenceWallet | None
) -> None:
    """On the built-in wallet and on the operator's."""
    with served_client(store_url, operator_wallet) as client:
        statistics_count_free_rounds_apart(client)


def statistics_count_free_rounds_apart(client: TestClient) -> None:
    j = Journey(client)
    grant(client, j.player_id, "promo", rounds=3, stake=100)
    assert j.spin(100).status_code == 200
    assert free_spin(j, "promo").status_code == 200

    def stats() -> dict[str, Any]:
        found: dict[str, Any] = client.get("/audit/stats", headers=bearer(AUDITOR)).json()
        return found

    def projected() -> bool:
        found = stats()
        played = sum(row["played"] for row in found.get("free_rounds", []))
        return played == 1 and sum(b["rounds"] for b in found["buckets"]) == 1

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not projected():
        time.sleep(0.05)  # the read models follow the store on their own
    found = stats()
    assert sum(b["rounds"] for b in found["buckets"]) == 1  # the paid round only
    [promo] = found["free_rounds"]
    assert promo["campaign_id"] == "promo"
    assert (promo["granted"], promo["played"], promo["staked"]) == (3, 1, 100)


def test_a_free_round_on_the_operators_wallet_sends_no_debit_and_a_free_round_credit(
    store_url: str,
) -> None:
    with ReferenceWallet(SECRET) as wallet, wallet_service(store_url, wallet) as (
        client, _service, _clock
    ):
        player = WalletPlayer(client, wallet, balance=500)
        grant(client, player.player_id, "vip", rounds=1, stake=100)
        played = player.spin(None, free_round="vip")
        assert played.status_code == 200, played.text
        assert played.json()["settlement"] == "settled"
        assert applied(wallet, "debit", player.player_id) == []
        [credit] = applied(wallet, "credit", player.player_id)
        assert credit["free_round"] == "vip" and credit["debit_transaction_id"] is None
        assert credit["amount"] == played.json()["total_win"]
        assert wallet.ledger.balances[player.player_id] == 500 + played.json()["total_win"]


def _trail(client: TestClient, player_id: str) -> list[dict[str, Any]]:
    import json

    deadline = time.monotonic() + 10
    rows: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        answer = client.get(f"/audit/events?player_id={player_id}&format=jsonl",
                            headers=bearer(AUDITOR))
        rows = [json.loads(line) for line in answer.text.splitlines() if line]
        if any("FreeRoundsExpired" in json.dumps(r) for r in rows):
            break
        time.sleep(0.05)
    return rows


