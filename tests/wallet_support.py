"""The service on the operator's seamless wallet: the reference wallet (a real HTTP server in
this process, infrastructure/wallet/reference.py) and the API built as `serve` builds it.

The outbox is driven by the tests (`settle`), not by a background task, so nothing waits on
a timer; time-based rules move the application's clock instead of sleeping.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi.testclient import TestClient
from http_support import OPERATOR, bearer, settings_for, unique
from pydantic import SecretStr

from infrastructure.bootstrap import build_runtime
from infrastructure.wallet.hub88 import public_file, write_key_pair
from infrastructure.wallet.hub88_reference import Hub88ReferenceWallet
from infrastructure.wallet.reference import ReferenceWallet

SECRET = "wallet-secret-for-tests"
PROTOCOLS = ("pumpkin", "hub88")


@dataclass(frozen=True)
class Hub88Keys:
    """The supplier's key pair (the service signs with it) and Hub88's (the wallet signs with
    it), as key objects and as the PEM files the settings name."""

    supplier: rsa.RSAPrivateKey
    hub88: rsa.RSAPrivateKey
    supplier_file: str  # the supplier's private key: PUMPKIN_WALLET_PRIVATE_KEY_FILE
    hub88_public_file: str  # Hub88's public key: PUMPKIN_WALLET_PUBLIC_KEY_FILE


def write_hub88_keys(directory: Path) -> Hub88Keys:
    """Two fresh RSA key pairs, written as PEM files under `directory`."""
    supplier = write_key_pair(directory / "supplier.pem")
    hub88 = write_key_pair(directory / "hub88.pem")
    return Hub88Keys(supplier, hub88, str(directory / "supplier.pem"),
                     str(public_file(directory / "hub88.pem")))


@cache
def hub88_keys() -> Hub88Keys:
    """One pair of key pairs for the whole test run (2048-bit keys take a while to make)."""
    return write_hub88_keys(Path(tempfile.mkdtemp(prefix="hub88-keys-")))


def reference_wallet(protocol: str, default_balance: int = 0) -> ReferenceWallet:
    """The reference wallet of `protocol` (not started)."""
    if protocol == "hub88":
        keys = hub88_keys()
        return Hub88ReferenceWallet(keys.supplier.public_key(), keys.hub88, 0, default_balance)
    return ReferenceWallet(SECRET, 0, default_balance)


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
    settings.wallet_url = wallet.url
    settings.wallet_secret = SecretStr(SECRET)
    if isinstance(wallet, Hub88ReferenceWallet):
        keys = hub88_keys()
        settings.wallet_protocol = "hub88"
        settings.wallet_private_key_file = keys.supplier_file
        settings.wallet_public_key_file = keys.hub88_public_file
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


def applied(wallet: ReferenceWallet, call: str, player_id: str) -> list[dict[str, Any]]:
    """The wallet's transactions of one kind it answered 200, for one player."""
    return [
        t for t in wallet.ledger.state()["transactions"].values()
        if t["call"] == call and t["player_id"] == player_id and t["status"] == 200
    ]
