"""A snapshot changed outside the service is named by the auditor, and the service still
answers: a snapshot only speeds loading, the stream is the truth."""

from __future__ import annotations

from http_support import AUDITOR, bearer, client_for
from store_support import run_sql

from domain.ledger.player import player_aggregate_id
from infrastructure.application import PumpkinApplication


def test_an_unreadable_snapshot_is_named_and_the_player_still_loads(store_url: str) -> None:
    service = PumpkinApplication.from_url(store_url)
    service.register_player("ivy")
    service.deposit("ivy", 10**7, "d")
    session_id, _ = service.open_session("ivy")
    for n in range(130):  # past a snapshot (every 500 events)
        service.spin(session_id, 20, f"s{n}")
    balance = service.player_state("ivy")["balance"]
    service.close()
    table = "stored_snapshots" if store_url.startswith("sqlite:") else "pumpkin_snapshots"
    changed = run_sql(
        store_url, f"UPDATE {table} SET state = %s WHERE originator_id = %s",  # noqa: S608
        (b'{"garbage": 1}', player_aggregate_id("ivy").hex),
    )
    assert changed == []
    reopened = PumpkinApplication.from_url(store_url)
    try:
        with client_for(reopened) as client:
            report = client.get("/audit/players/ivy/verify", headers=bearer(AUDITOR))
            assert report.status_code == 200
            assert not report.json()["ok"]
            assert [p["kind"] for p in report.json()["problems"]] == ["snapshot_unreadable"]
            state = client.get("/players/ivy", headers=bearer(AUDITOR))
            assert state.status_code == 200 and state.json()["balance"] == balance
            unknown = client.get("/audit/players/nobody/verify", headers=bearer(AUDITOR))
            assert unknown.status_code == 404
    finally:
        reopened.close()
