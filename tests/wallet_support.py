"""The service on the operator's seamless wallet: the reference wallet (a real HTTP server in
this process, infrastructure/wallet/reference.py) and the API built as `serve` builds it.

The outbox is driven by the tests (`settle`), not by a background task, so nothing waits on
a timer; time-based rules move the application's clock instead of sleeping.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, bearer, on_operators_wallet, settings_for, unique

from infrastructure.bootstrap import build_runtime
from infrastructure.wallet.reference import ReferenceWallet


class MovableClock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@contextmanager
def wallet_service(
    store_url: str, wallet: ReferenceWallet, timeout: float = 0.5, projections: bool = False
) -> Iterator[tuple[TestClient, Any, MovableClock]]:
    """(client, the seamless service, its clock) on `store_url`, calling `wallet`; with
    `projections`, its read models are created and followed in-process, as `serve` runs."""
    settings = settings_for(store_url)
    on_operators_wallet(settings, wallet)
    settings.wallet_timeout_seconds = timeout
    runtime = build_runtime(settings, with_projections=projections)
    clock = MovableClock()
    runtime.application.clock = clock
    try:
        client = TestClient(runtime.http_app, raise_server_exceptions=False)
        yield client, runtime.application, clock
    finally:
        runtime.close()


def settle(service: Any, clock: MovableClock) -> int:
    """One pass of the outbox, past every backoff: the number of items acknowledged."""
    clock.advance(60)
    acknowledged: int = asyncio.run(service.wallet.outbox.pass_once())
    return acknowledged


class WalletPlayer:
    """A player (funded in the wallet) with an open session."""

    def __init__(self, client: TestClient, wallet: ReferenceWallet, balance: int = 10_000) -> None:
        self.client = client
        self.player_id = unique("wp")
        wallet.set_balance(self.player_id, balance)
        made = client.post("/players", json={"player_id": self.player_id},
                           headers=bearer(OPERATOR))
        assert made.status_code == 201, made.text
        opened = client.post(f"/players/{self.player_id}/sessions", json={},
                             headers=bearer(OPERATOR))
        assert opened.status_code == 201, opened.text
        self.session_id: str = opened.json()["session_id"]
        self.token: str = opened.json()["token"]

    def spin(self, stake: int | None = 100, request_id: str | None = None,
             free_round: str | None = None) -> Any:
        body: dict[str, Any] = {"request_id": request_id or unique("spin")}
        if stake is not None:
            body["stake"] = stake
        if free_round is not None:
            body["free_round"] = free_round
        return self.client.post(f"/sessions/{self.session_id}/spins", json=body,
                                headers=bearer(self.token))


def owed(client: TestClient) -> list[dict[str, Any]]:
    """What the service owes the wallet, as GET /audit/wallet?status=owed answers."""
    answer = client.get("/audit/wallet?status=owed", headers=bearer(AUDITOR))
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["owed"]
    return items


def applied(wallet: ReferenceWallet, call: str, player_id: str) -> list[dict[str, Any]]:
    """The wallet's transactions of one kind it answered 200, for one player."""
    return [
        t for t in wallet.ledger.state()["transactions"].values()
        if t["call"] == call and t["player_id"] == player_id and t["status"] == 200
    ]
