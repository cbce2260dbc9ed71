"""A closed session's token stays valid read-only for 30 days after the close, whoever closed it
(CONTRACT.md "Sessions and provably fair seeds"): its session (with the revealed seed and its
rounds in order) and that session's rounds answer; a spin is 409 session_closed; everything else
is 401. The session object says who closed it (`closed_by`)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from fair_support import commitment
from fastapi.testclient import TestClient
from http_support import OPERATOR, bearer, client_for
from protection_support import FakeClock

from domain.ledger.protection import PROFILES
from infrastructure.application import PumpkinApplication


@pytest.fixture
def clocked(service: PumpkinApplication) -> Iterator[tuple[TestClient, FakeClock]]:
    clock = FakeClock()
    service.clock = clock
    with client_for(service) as client:
        yield client, clock


class Player:
    """A funded player with an open session, played `spins` rounds (through the API)."""

    def __init__(self, client: TestClient, player_id: str, spins: int = 3) -> None:
        self.client = client
        self.player_id = player_id
        assert client.post("/players", json={"player_id": player_id},
                           headers=bearer(OPERATOR)).status_code == 201
        client.post(f"/players/{player_id}/deposits", json={"amount": 10_000, "request_id": "d"},
                    headers=bearer(OPERATOR))
        self.session_id, self.token = self.open()
        self.round_ids = [self.spin(f"r{n}")["round_id"] for n in range(spins)]

    def open(self) -> tuple[str, str]:
        opened = self.client.post(f"/players/{self.player_id}/sessions", json={},
                                  headers=bearer(OPERATOR)).json()
        return str(opened["session_id"]), str(opened["token"])

    def spin(self, request_id: str, token: str | None = None) -> dict[str, object]:
        answer = self.client.post(
            f"/sessions/{self.session_id}/spins", json={"stake": 20, "request_id": request_id},
            headers=bearer(token or self.token),
        )
        assert answer.status_code == 200, answer.text
        body: dict[str, object] = answer.json()
        return body

    def get(self, path: str) -> int:
        return self.client.get(path, headers=bearer(self.token)).status_code


def test_an_open_sessions_object_lists_its_rounds_in_order_and_no_closer(
    clocked: tuple[TestClient, FakeClock],
) -> None:
    client, _ = clocked
    ann = Player(client, "ann")
    current = client.get("/sessions/current", headers=bearer(ann.token)).json()
    assert current["round_ids"] == ann.round_ids == ["ann.1", "ann.2", "ann.3"]
    assert current["closed_by"] is None and current["server_seed"] is None


def test_a_closed_sessions_token_reads_its_session_and_its_rounds_for_30_days(
    clocked: tuple[TestClient, FakeClock],
) -> None:
    client, clock = clocked
    ann = Player(client, "ann")
    closed = client.post(f"/sessions/{ann.session_id}/close", json={},
                         headers=bearer(ann.token)).json()
    assert closed["closed_by"] == "player" and closed["round_ids"] == ann.round_ids
    for path in ("/sessions/current", f"/sessions/{ann.session_id}"):
        session = client.get(path, headers=bearer(ann.token)).json()
        assert session["open"] is False and session["round_ids"] == ann.round_ids
        assert commitment(session["server_seed"]) == session["seed_commitment"]
    for round_id in ann.round_ids:
        assert ann.get(f"/rounds/{round_id}") == 200
        link = client.post(f"/rounds/{round_id}/replay-links", json={},
                           headers=bearer(ann.token))
        assert link.status_code == 201, link.text
    clock.move(days=29, hours=23)
    assert ann.get("/sessions/current") == 200
    clock.move(hours=1)  # 30 days after the close: the token names nothing any more
    assert ann.get("/sessions/current") == 401
    assert ann.get(f"/rounds/{ann.round_ids[0]}") == 401


def test_a_closed_sessions_token_reads_nothing_else_and_cannot_play(
    clocked: tuple[TestClient, FakeClock],
) -> None:
    client, _ = clocked
    ann = Player(client, "ann")
    other_session, other_token = ann.open()
    other_round = client.post(
        f"/sessions/{other_session}/spins", json={"stake": 20, "request_id": "o1"},
        headers=bearer(other_token),
    ).json()["round_id"]
    client.post(f"/sessions/{ann.session_id}/close", json={}, headers=bearer(OPERATOR))
    spin = client.post(f"/sessions/{ann.session_id}/spins",
                       json={"stake": 20, "request_id": "after"}, headers=bearer(ann.token))
    assert spin.status_code == 409 and spin.json()["error"]["code"] == "session_closed"
    assert ann.get(f"/players/{ann.player_id}") == 401  # the player state is not the session's
    assert ann.get(f"/players/{ann.player_id}/rounds") == 401
    assert ann.get(f"/players/{ann.player_id}/limits") == 401
    assert ann.get(f"/sessions/{other_session}") == 401  # the player's other session
    assert ann.get(f"/rounds/{other_round}") == 401  # and its rounds
    assert ann.get("/rounds/ann.999") == 401
    close_again = client.post(f"/sessions/{ann.session_id}/close", json={},
                              headers=bearer(ann.token))
    assert close_again.status_code == 401
    assert client.get("/sessions/current", headers=bearer(other_token)).status_code == 200


def test_closed_by_says_who_closed_the_session(
    service: PumpkinApplication, clocked: tuple[TestClient, FakeClock],
) -> None:
    client, clock = clocked
    by_operator = Player(client, "op", spins=1)
    client.post(f"/sessions/{by_operator.session_id}/close", json={}, headers=bearer(OPERATOR))
    idle = Player(client, "idler", spins=1)
    clock.move(hours=1)
    assert service.close_if_idle(idle.session_id, 1800)
    excluded = Player(client, "ex", spins=1)
    client.post(f"/players/{excluded.player_id}/exclusions", json={"until": None, "reason": "r"},
                headers=bearer(OPERATOR))
    service.profile = PROFILES["uk"]
    limited = Player(client, "lim", spins=1)
    service.set_limits(limited.player_id, {"session_minutes": 10})
    clock.move(minutes=11)
    refused = client.post(f"/sessions/{limited.session_id}/spins",
                          json={"stake": 20, "request_id": "late"}, headers=bearer(limited.token))
    assert refused.json()["error"]["code"] == "session_time_limit"
    checked = Player(client, "rc", spins=1)
    clock.move(minutes=61)
    answered = client.post(f"/sessions/{checked.session_id}/reality-check",
                           json={"continue": False}, headers=bearer(checked.token))
    assert answered.status_code == 200, answered.text
    by_player = Player(client, "self", spins=1)
    client.post(f"/sessions/{by_player.session_id}/close", json={}, headers=bearer(by_player.token))
    for player, closer in ((by_operator, "operator"), (idle, "idle"), (excluded, "exclusion"),
                           (limited, "session_time_limit"), (checked, "reality_check"),
                           (by_player, "player")):
        assert client.get(f"/sessions/{player.session_id}",
                          headers=bearer(OPERATOR)).json()["closed_by"] == closer
        session = client.get("/sessions/current", headers=bearer(player.token)).json()
        assert (session["open"], session["closed_by"]) == (False, closer), player.player_id
        assert session["round_ids"] == player.round_ids
        assert commitment(session["server_seed"]) == session["seed_commitment"]


def test_a_session_closed_through_the_service_with_no_closer_named_is_the_operators(
    service: PumpkinApplication,
) -> None:
    service.register_player("ned")
    session_id, _token = service.open_session("ned")
    assert service.close_session(session_id)["closed_by"] == "operator"
    assert service.session(session_id)["closed_by"] == "operator"


def test_a_sessions_rounds_are_its_own_when_another_session_plays_between(
    service: PumpkinApplication,
) -> None:
    service.register_player("bea")
    service.deposit("bea", 10_000, "d")
    first, _ = service.open_session("bea")
    second, _ = service.open_session("bea")
    for n, session_id in enumerate((first, second, first, first, second)):
        service.spin(session_id, 20, f"r{n}")
    assert service.session(first)["round_ids"] == ["bea.1", "bea.3", "bea.4"]
    service.close_session(first, "player")
    assert service.session(first)["round_ids"] == ["bea.1", "bea.3", "bea.4"]
    assert service.session(second)["round_ids"] == ["bea.2", "bea.5"]


def test_the_read_only_window_is_judged_on_the_services_clock(
    service: PumpkinApplication,
) -> None:
    clock = FakeClock()
    service.clock = clock
    service.register_player("cal")
    session_id, token = service.open_session("cal")
    service.close_session(session_id, "player")
    ref = service.session_for_token(token)
    assert ref is not None and not ref.open
    clock.move(days=30)
    assert service.session_for_token(token) is None
    clock.now -= timedelta(seconds=1)
    assert service.session_for_token(token) is not None
