"""History and recall through the read models, as `pumpkin serve` wires them (projections
running in-process), never behind the caller's own writes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, Journey, bearer, served_client

from infrastructure.wallet.reference import ReferenceWallet


@pytest.fixture
def client(store_url: str, operator_wallet: ReferenceWallet | None) -> Iterator[TestClient]:
    """The API as `serve` runs it, on the built-in wallet and on the operator's."""
    with served_client(store_url, operator_wallet) as test_client:
        yield test_client


def test_a_round_reads_back_at_once_exactly_as_the_spin_answered(client: TestClient) -> None:
    j = Journey(client)
    for _ in range(5):
        played = j.spin().json()
        recalled = client.get(f"/rounds/{played['round_id']}", headers=bearer(j.token))
        assert recalled.status_code == 200 and recalled.json() == played
        page = client.get(f"/players/{j.player_id}/rounds", headers=bearer(j.token)).json()
        assert page["rounds"][0]["round_id"] == played["round_id"]


def test_history_pages_newest_first_through_the_read_model(client: TestClient) -> None:
    j = Journey(client)
    ids = [j.spin().json()["round_id"] for _ in range(6)]
    url = f"/players/{j.player_id}/rounds"
    first = client.get(url, params={"limit": 4}, headers=bearer(AUDITOR)).json()["rounds"]
    rest = client.get(
        url, params={"limit": 4, "before": first[-1]["round_id"]}, headers=bearer(AUDITOR)
    ).json()["rounds"]
    assert [r["round_id"] for r in first + rest] == ids[::-1]
    assert {"round_id", "stake", "total_win"} <= first[0].keys()


def test_the_auditor_verifies_a_players_stream(client: TestClient) -> None:
    j = Journey(client)
    j.spin()
    report = client.get(f"/audit/players/{j.player_id}/verify", headers=bearer(AUDITOR))
    assert report.status_code == 200
    body = report.json()
    assert {"ok", "events_checked", "rounds_rederived", "problems"} <= body.keys()
    assert body["ok"] is True and body["problems"] == []
    assert body["rounds_rederived"] == 1 and body["events_checked"] > 0
