"""Player protection over HTTP: every error code, the limits and exclusion answers, the
reality-check endpoint and the rules document's jurisdiction (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, settings_for
from protection_support import FakeClock, protected

from domain.ledger.protection import PROFILES
from infrastructure.application import PumpkinApplication
from infrastructure.bootstrap import build_http_app


@pytest.fixture
def clock(service: PumpkinApplication) -> FakeClock:
    return protected(service, "uk")


@pytest.fixture
def client(service: PumpkinApplication, clock: FakeClock) -> Iterator[TestClient]:
    settings = settings_for().model_copy(update={"jurisdiction": "uk"})
    with TestClient(build_http_app(settings, service), raise_server_exceptions=False) as client:
        yield client


def _error(response: object, status: int, code: str) -> dict[str, object]:
    assert response.status_code == status, response.text  # type: ignore[attr-defined]
    body: dict[str, object] = response.json()  # type: ignore[attr-defined]
    assert body["error"]["code"] == code  # type: ignore[index]
    return body


def _limits(client: TestClient, journey: Journey, **limits: int | None) -> object:
    return client.put(
        f"/players/{journey.player_id}/limits", json=limits, headers=bearer(OPERATOR)
    )


def test_the_rules_document_holds_the_jurisdiction(client: TestClient) -> None:
    assert client.get("/rules").json()["jurisdiction"] == {
        "name": "uk", "min_round_seconds": 2.5, "max_stake": 500,
        "reality_check_minutes": 60, "autoplay": False, "turbo": False, "jackpots": True,
        "max_stake_by_age_band": {"18-24": 200, "25+": 500},
    }


def test_a_spin_too_soon_is_429_round_too_soon_with_retry_after(
    client: TestClient, clock: FakeClock
) -> None:
    journey = Journey(client)
    assert journey.spin().status_code == 200
    clock.move(seconds=0.4)
    refused = journey.spin()
    _error(refused, 429, "round_too_soon")
    assert refused.headers["Retry-After"] == "3"


def test_a_stake_above_the_max_stake_is_409_stake_limit(client: TestClient) -> None:
    _error(Journey(client).spin(stake=600), 409, "stake_limit")


def test_a_due_reality_check_is_409_with_the_session_until_answered(
    client: TestClient, clock: FakeClock
) -> None:
    journey = Journey(client)
    clock.move(minutes=60)
    refused = _error(journey.spin(), 409, "reality_check_due")
    assert refused["session"]["session_id"] == journey.session_id  # type: ignore[index]
    path = f"/sessions/{journey.session_id}/reality-check"
    assert client.post(path, json={"continue": True}, headers=bearer(OPERATOR)).status_code == 403
    _error(client.post(path, json={"continue": "yes"}, headers=bearer(journey.token)), 422,
           "invalid_request")
    answered = client.post(path, json={"continue": True}, headers=bearer(journey.token))
    assert answered.status_code == 200, answered.text
    assert answered.json()["open"] is True and answered.json()["reality_check_due"] is False
    assert journey.spin().status_code == 200
    closed = client.post(path, json={"continue": False}, headers=bearer(journey.token))
    assert closed.json()["open"] is False


def test_a_reality_check_interval_outside_15_30_60_is_422(client: TestClient) -> None:
    journey = Journey(client)
    opened = client.post(f"/players/{journey.player_id}/sessions",
                         json={"reality_check_minutes": 45}, headers=bearer(OPERATOR))
    _error(opened, 422, "invalid_reality_check")
    opened = client.post(f"/players/{journey.player_id}/sessions",
                         json={"reality_check_minutes": 15}, headers=bearer(OPERATOR))
    assert opened.status_code == 201


def test_a_spin_past_a_loss_limit_is_409_loss_limit(client: TestClient) -> None:
    journey = Journey(client)
    assert _limits(client, journey, loss_per_day=100).status_code == 200
    _error(journey.spin(stake=200), 409, "loss_limit")


def test_a_session_past_its_time_limit_is_409_session_time_limit(
    client: TestClient, clock: FakeClock
) -> None:
    journey = Journey(client)
    _limits(client, journey, session_minutes=10)
    clock.move(minutes=10)
    _error(journey.spin(), 409, "session_time_limit")
    _error(journey.spin(), 409, "session_time_limit")


def test_limits_answer_in_force_pending_and_exclusion(
    client: TestClient, clock: FakeClock
) -> None:
    journey = Journey(client)
    _limits(client, journey, max_stake=100)
    answer = _limits(client, journey, max_stake=None, loss_per_week=5000)
    assert answer.status_code == 200  # type: ignore[attr-defined]
    assert answer.json() == {  # type: ignore[attr-defined]
        "limits": {"loss_per_day": None, "loss_per_week": 5000, "loss_per_month": None,
                   "session_minutes": None, "max_stake": 100},
        "pending": [{"limit": "max_stake", "value": None,
                     "effective_at": "2026-03-02T12:00:00+00:00"}],
        "excluded": False,
        "excluded_until": None,
    }
    path = f"/players/{journey.player_id}/limits"
    for secret in (journey.token, AUDITOR, OPERATOR):
        assert client.get(path, headers=bearer(secret)).json() == answer.json()  # type: ignore[attr-defined]
    _error(client.put(path, json={"max_stake": 5}, headers=bearer(journey.token)), 403,
           "forbidden")
    _error(client.put(path, json={"max_stake": -5}, headers=bearer(OPERATOR)), 422,
           "invalid_limits")
    _error(client.put(path, json={"max_stake": "5"}, headers=bearer(OPERATOR)), 422,
           "invalid_request")
    _error(client.put(path, json={}, headers=bearer(OPERATOR)), 422, "invalid_limits")


def test_an_excluded_player_is_403_player_excluded_for_spins_and_sessions(
    client: TestClient,
) -> None:
    journey = Journey(client)
    excluded = client.post(f"/players/{journey.player_id}/exclusions",
                           json={"until": "2026-09-01T00:00:00Z", "reason": "break"},
                           headers=bearer(OPERATOR))
    assert excluded.status_code == 201, excluded.text
    assert excluded.json() == {"excluded": True, "excluded_until": "2026-09-01T00:00:00+00:00"}
    _error(journey.spin(), 403, "player_excluded")
    _error(client.post(f"/players/{journey.player_id}/sessions", json={},
                       headers=bearer(OPERATOR)), 403, "player_excluded")
    state = client.get(f"/players/{journey.player_id}", headers=bearer(OPERATOR)).json()
    assert state["excluded"] is True
    assert state["excluded_until"] == "2026-09-01T00:00:00+00:00"


def test_an_exclusion_needs_an_aware_time_in_the_future_or_null(client: TestClient) -> None:
    journey = Journey(client)
    path = f"/players/{journey.player_id}/exclusions"
    for until in ("2026-09-01T00:00:00", "tomorrow", [1]):
        _error(client.post(path, json={"until": until}, headers=bearer(OPERATOR)), 422,
               "invalid_request")
    _error(client.post(path, json={"until": "2020-01-01T00:00:00Z"}, headers=bearer(OPERATOR)),
           422, "invalid_exclusion")
    _error(client.post(path, json={"reason": "x"}, headers=bearer(OPERATOR)), 422,
           "invalid_request")
    permanent = client.post(path, json={"until": None, "reason": "x"}, headers=bearer(OPERATOR))
    assert permanent.json() == {"excluded": True, "excluded_until": None}


def test_an_excluded_player_cannot_be_funded_or_granted_free_rounds_but_is_paid_out(
    client: TestClient,
) -> None:
    journey = Journey(client, balance=5_000)
    player = f"/players/{journey.player_id}"
    excluded = client.post(f"{player}/exclusions", json={"until": None, "reason": "asked"},
                           headers=bearer(OPERATOR))
    assert excluded.status_code == 201, excluded.text
    _error(journey.deposit(700), 403, "player_excluded")
    grant = {"campaign_id": "promo", "rounds": 10, "stake": 20, "request_id": "g1"}
    _error(client.post(f"{player}/free-rounds", json=grant, headers=bearer(OPERATOR)), 403,
           "player_excluded")
    assert client.get(f"{player}/free-rounds", headers=bearer(OPERATOR)).json() == {
        "free_rounds": []
    }
    assert client.get(player, headers=bearer(OPERATOR)).json()["balance"] == 5_000
    paid_out = client.post(f"{player}/withdrawals", json={"amount": 5_000, "request_id": "w1"},
                           headers=bearer(OPERATOR))
    assert paid_out.status_code == 201, paid_out.text
    assert paid_out.json() == {"balance": 0}


def test_a_timed_exclusion_refuses_deposits_until_it_ends(
    client: TestClient, clock: FakeClock
) -> None:
    journey = Journey(client, balance=5_000)
    player = f"/players/{journey.player_id}"
    until = (clock.now + timedelta(days=2)).isoformat()
    client.post(f"{player}/exclusions", json={"until": until, "reason": "break"},
                headers=bearer(OPERATOR))
    _error(journey.deposit(700), 403, "player_excluded")
    clock.move(days=2)
    funded = journey.deposit(700)
    assert funded.status_code == 201, funded.text
    assert funded.json() == {"balance": 5_700}


def test_a_new_players_age_band_sets_the_uk_stake_limit(client: TestClient) -> None:
    for band, allowed, refused in (("25+", 400, 600), ("18-24", 200, 400)):
        player_id = f"band-{band.replace('+', 'plus')}"
        made = client.post("/players", json={"player_id": player_id, "age_band": band},
                           headers=bearer(OPERATOR))
        assert made.status_code == 201, made.text
        client.post(f"/players/{player_id}/deposits", json={"amount": 10_000, "request_id": "d"},
                    headers=bearer(OPERATOR))
        opened = client.post(f"/players/{player_id}/sessions", json={}, headers=bearer(OPERATOR))
        spin = f"/sessions/{opened.json()['session_id']}/spins"
        token = bearer(opened.json()["token"])
        _error(client.post(spin, json={"stake": refused, "request_id": "r1"}, headers=token),
               409, "stake_limit")
        played = client.post(spin, json={"stake": allowed, "request_id": "r1"}, headers=token)
        assert played.status_code == 200, played.text


def test_an_age_band_other_than_the_two_is_422_invalid_age_band(client: TestClient) -> None:
    for band in ("18-25", None, 25, ["25+"]):
        answer = client.post("/players", json={"player_id": "odd", "age_band": band},
                             headers=bearer(OPERATOR))
        _error(answer, 422, "invalid_age_band")
    assert client.get("/players/odd", headers=bearer(OPERATOR)).status_code == 404


def test_de_allows_one_open_session_a_second_is_409_session_limit(
    service: PumpkinApplication, clock: FakeClock
) -> None:
    service.profile = PROFILES["de"]
    settings = settings_for().model_copy(update={"jurisdiction": "de"})
    with TestClient(build_http_app(settings, service), raise_server_exceptions=False) as client:
        assert client.get("/rules").json()["jurisdiction"]["jackpots"] is False
        journey = Journey(client)
        _error(client.post(f"/players/{journey.player_id}/sessions", json={},
                           headers=bearer(OPERATOR)), 409, "session_limit")
        _error(journey.spin(stake=200), 409, "stake_limit")
