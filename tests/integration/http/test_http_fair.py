"""The provably fair surface of the API: the commitment at the open, client seeds, the session
object, the reveal at the close, and the service closing idle sessions by itself."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from fair_support import commitment, derived_seed, played_on_a_clock
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, client_for

from infrastructure.application import PumpkinApplication
from infrastructure.sessions.session_sweeper import Sweeper


@pytest.fixture
def client(service: PumpkinApplication) -> Iterator[TestClient]:
    with client_for(service) as test_client:
        yield test_client


def spin(client: TestClient, j: Journey, body: dict[str, object]) -> object:
    return client.post(f"/sessions/{j.session_id}/spins", headers=bearer(j.token),
                       json={"stake": 100, "request_id": f"r-{time.monotonic_ns()}", **body})


def test_a_session_answers_its_commitment_and_reveals_the_seed_at_the_close(
    client: TestClient,
) -> None:
    j = Journey(client)
    session = client.get(f"/sessions/{j.session_id}", headers=bearer(j.token)).json()
    assert session["open"] is True and session["server_seed"] is None
    assert len(session["seed_commitment"]) == 64
    played = spin(client, j, {"client_seed": "my lucky seed"}).json()  # type: ignore[attr-defined]
    assert (played["nonce"], played["client_seed"]) == (1, "my lucky seed")
    assert played["seed_commitment"] == session["seed_commitment"]
    assert played["session"]["spins"] == 1 and played["session"]["staked"] == 100
    closed = client.post(f"/sessions/{j.session_id}/close", json={}, headers=bearer(OPERATOR))
    reveal = closed.json()["server_seed"]
    assert commitment(reveal) == session["seed_commitment"]
    assert played["seed"] == derived_seed(reveal, j.session_id, 1, "my lucky seed")
    for reader in (OPERATOR, AUDITOR):
        again = client.get(f"/sessions/{j.session_id}", headers=bearer(reader))
        assert again.status_code == 200 and again.json() == closed.json()


def test_a_bad_client_seed_is_422_invalid_client_seed_and_changes_nothing(
    client: TestClient,
) -> None:
    j = Journey(client)
    for bad in ("x" * 65, "\u00e9t\u00e9", 42, ["a"]):
        answer = spin(client, j, {"client_seed": bad})
        assert answer.status_code == 422  # type: ignore[attr-defined]
        assert answer.json()["error"]["code"] == "invalid_client_seed"  # type: ignore[attr-defined]
    assert client.get(f"/sessions/{j.session_id}", headers=bearer(j.token)).json()["spins"] == 0


def test_a_player_reads_its_own_sessions_and_no_one_elses(client: TestClient) -> None:
    mine, theirs = Journey(client), Journey(client)
    current = client.get("/sessions/current", headers=bearer(mine.token))
    assert current.status_code == 200 and current.json()["session_id"] == mine.session_id
    other = client.get(f"/sessions/{theirs.session_id}", headers=bearer(mine.token))
    assert other.status_code == 404
    unknown = client.get(f"/sessions/{'0' * 32}", headers=bearer(OPERATOR))
    assert unknown.status_code == 404
    assert client.get("/sessions/current", headers=bearer(OPERATOR)).status_code == 403


def test_the_services_sweeper_closes_an_idle_session_and_reveals_its_seed(
    store_url: str,
) -> None:
    with played_on_a_clock(store_url, "mo") as (app, clock, session_id):
        sweeper = Sweeper(app, app.store, idle_seconds=0.2).start()
        try:
            clock.offset = timedelta(seconds=1)  # the clock moves; nobody waits it out
            deadline = time.monotonic() + 20
            while app.session(session_id)["open"] and time.monotonic() < deadline:
                time.sleep(0.05)  # the sweeper's own thread does the closing
        finally:
            sweeper.stop()
        closed = app.session(session_id)
    assert closed["open"] is False and closed["closed_by"] == "idle"
    assert closed["server_seed"] is not None
