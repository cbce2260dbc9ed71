"""Audit dashboards read statistics, rounds, balances and the audit trail from the read models."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, served_client

from infrastructure.wallet.reference import ReferenceWallet


@pytest.fixture
def client(store_url: str, operator_wallet: ReferenceWallet | None) -> Iterator[TestClient]:
    """The API as `serve` runs it, on the built-in wallet and on the operator's."""
    with served_client(store_url, operator_wallet) as test_client:
        yield test_client


def played(client: TestClient, spins: int) -> Journey:
    j = Journey(client)
    for _ in range(spins):
        assert j.spin().status_code == 200
    return j


def eventually(check: object, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.05)


def test_the_auditor_reads_statistics_with_actual_beside_theoretical_rtp(
    client: TestClient,
) -> None:
    j = played(client, 5)
    def rounds() -> list[dict[str, object]]:
        answer = client.get(
            "/audit/rounds", params={"player_id": j.player_id}, headers=bearer(AUDITOR)
        )
        found: list[dict[str, object]] = answer.json()["rounds"]
        return found

    def stats() -> dict[str, object]:
        answer = client.get("/audit/stats", headers=bearer(AUDITOR))
        assert answer.status_code == 200
        found: dict[str, object] = answer.json()
        return found

    # each view follows the store on its own: the rounds view may be ahead of the statistics
    def counted() -> int:
        buckets: list[dict[str, int]] = stats()["buckets"]  # type: ignore[assignment]
        return sum(bucket["rounds"] for bucket in buckets)

    eventually(lambda: len(rounds()) == 5 and counted() == 5)
    assert len(rounds()) == 5 and counted() == 5  # every round, on either wallet
    assert "theoretical_rtp" in json.dumps(stats())


def test_the_auditor_finds_big_wins_and_every_balance(client: TestClient) -> None:
    j = played(client, 4)
    eventually(
        lambda: any(
            b["player_id"] == j.player_id
            for b in client.get("/audit/balances", headers=bearer(AUDITOR)).json()["balances"]
        )
    )
    big = client.get("/audit/rounds", params={"min_win": 10**9}, headers=bearer(AUDITOR))
    assert big.status_code == 200 and big.json() == {"rounds": []}
    bad = client.get("/audit/rounds", params={"feature": "nonsense"}, headers=bearer(AUDITOR))
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_query"


def test_the_audit_trail_exports_as_json_lines_and_csv_with_a_hash_chain(
    client: TestClient,
) -> None:
    j = played(client, 3)
    params = {"player_id": j.player_id}

    def lines() -> list[dict[str, object]]:
        text = client.get("/audit/events", params=params, headers=bearer(AUDITOR)).text
        return [json.loads(line) for line in text.splitlines()]

    eventually(lambda: sum(1 for e in lines() if e["name"] == "RoundSettled") == 3)
    events = lines()
    assert events[0]["name"] == "Registered"
    as_csv = client.get(
        "/audit/events", params={**params, "format": "csv"}, headers=bearer(AUDITOR)
    )
    rows = list(csv.DictReader(io.StringIO(as_csv.text)))
    assert len(rows) == len(events)


def test_only_the_auditor_reads_the_audit_views(client: TestClient) -> None:
    j = played(client, 1)
    for path in ("/audit/stats", "/audit/rounds", "/audit/balances", "/audit/events"):
        assert client.get(path, headers=bearer(OPERATOR)).status_code == 403
        assert client.get(path, headers=bearer(j.token)).status_code == 403
        assert client.get(path).status_code == 401
