"""Races through the HTTP API, on SQLite and PostgreSQL: clients racing on one session, the same
request sent many times at once, a spin racing a close. Every accepted answer is counted exactly
once in the store, in the balance and in the session summary; nothing else is.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_support import OPERATOR, Journey, bearer, client_for, unique

from infrastructure.application import PumpkinApplication

FUNDS = 10**8
UNCERTAIN = {"concurrent_update", "store_unavailable"}  # nothing changed: same request again


@pytest.fixture
def client(service: PumpkinApplication) -> Iterator[TestClient]:
    with client_for(service) as test_client:
        yield test_client


def until_definite(send: Callable[[], Any]) -> Any:
    for _ in range(50):
        answer = send()
        if answer.status_code < 400 or answer.json()["error"]["code"] not in UNCERTAIN:
            return answer
    raise AssertionError("no definite answer after 50 tries")


def balance(client: TestClient, player_id: str) -> int:
    state: int = client.get(f"/players/{player_id}", headers=bearer(OPERATOR)).json()["balance"]
    return state


def test_two_clients_racing_on_one_session_are_each_counted_once(
    client: TestClient, service: PumpkinApplication
) -> None:
    j = Journey(client, balance=FUNDS)
    barrier = threading.Barrier(2)

    def racer(_: int) -> list[dict[str, Any]]:
        barrier.wait()
        played = []
        for _ in range(12):
            request_id = unique("race")
            answer = until_definite(lambda r=request_id: j.spin(100, request_id=r))
            assert answer.status_code == 200, answer.text
            played.append(answer.json())
        return played

    with ThreadPoolExecutor(2) as pool:
        rounds = [r for racer_rounds in pool.map(racer, range(2)) for r in racer_rounds]
    assert len({r["round_id"] for r in rounds}) == 24
    assert set(service.round_ids(j.player_id)) == {r["round_id"] for r in rounds}
    net = sum(r["total_win"] - r["stake"] for r in rounds)
    assert balance(client, j.player_id) == FUNDS + net
    # The rounds chain: each one starts from the balance the one before it left.
    by_number = sorted(rounds, key=lambda r: int(r["round_id"].rsplit(".", 1)[1]))
    for before, after in zip(by_number, by_number[1:], strict=False):
        assert after["balance_before"] == before["balance_after"]
    summary = client.post(f"/sessions/{j.session_id}/close", headers=bearer(OPERATOR)).json()
    won = sum(r["total_win"] for r in rounds)
    assert summary | {
        "session_id": j.session_id,
        "spins": 24,
        "staked": 2400,
        "won": won,
        "net": won - 2400,
    } == summary  # the session object: these figures, and the revealed seed


def test_the_same_spin_sent_many_times_at_once_is_played_once(
    client: TestClient, service: PumpkinApplication
) -> None:
    j = Journey(client, balance=FUNDS)
    barrier = threading.Barrier(6)

    def send(_: int) -> Any:
        barrier.wait()
        return until_definite(lambda: j.spin(200, request_id="the-one-spin"))

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(send, range(6)))
    assert {a.status_code for a in answers} == {200}
    assert all(a.json() == answers[0].json() for a in answers)
    assert service.round_ids(j.player_id) == [answers[0].json()["round_id"]]
    played = answers[0].json()
    assert balance(client, j.player_id) == FUNDS - 200 + played["total_win"]


def test_the_same_deposit_sent_many_times_at_once_is_credited_once(client: TestClient) -> None:
    j = Journey(client, balance=0)
    barrier = threading.Barrier(6)
    path = f"/players/{j.player_id}/deposits"

    def send(_: int) -> Any:
        barrier.wait()
        return until_definite(
            lambda: client.post(
                path, json={"amount": 777, "request_id": "one-deposit"}, headers=bearer(OPERATOR)
            )
        )

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(send, range(6)))
    assert [a.status_code for a in answers] == [201] * 6
    assert {a.json()["balance"] for a in answers} == {777}
    assert balance(client, j.player_id) == 777


def test_a_spin_racing_a_close_is_either_in_the_summary_or_refused(
    client: TestClient, service: PumpkinApplication
) -> None:
    j = Journey(client, balance=FUNDS)
    accepted: list[dict[str, Any]] = []
    refused: list[str] = []
    some_played = threading.Event()

    def spinner() -> None:
        # Spin until the close has landed, then a few more: those must all be refused.
        for _ in range(5_000):
            answer = until_definite(lambda: j.spin(100, request_id=unique("vs-close")))
            if answer.status_code == 200:
                assert not refused, "a spin was accepted after one was refused"
                accepted.append(answer.json())
                if len(accepted) >= 5:
                    some_played.set()
            else:
                refused.append(answer.json()["error"]["code"])
                if len(refused) >= 3:
                    break
        some_played.set()

    def closer() -> Any:
        some_played.wait(timeout=30)
        return until_definite(
            lambda: client.post(f"/sessions/{j.session_id}/close", headers=bearer(OPERATOR))
        )

    with ThreadPoolExecutor(2) as pool:
        spinning = pool.submit(spinner)
        closing = pool.submit(closer)
        spinning.result()
        summary = closing.result()
    assert summary.status_code == 200, summary.text
    assert refused and set(refused) <= {"session_closed", "unauthorized"}, refused
    assert summary.json()["spins"] == len(accepted)
    assert summary.json()["staked"] == 100 * len(accepted)
    assert summary.json()["won"] == sum(r["total_win"] for r in accepted)
    assert set(service.round_ids(j.player_id)) == {r["round_id"] for r in accepted}
    net = sum(r["total_win"] - r["stake"] for r in accepted)
    assert balance(client, j.player_id) == FUNDS + net
