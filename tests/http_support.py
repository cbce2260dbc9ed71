"""Building an HTTP test client around a GameService (the real one, or the in-memory fake)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient
from pydantic import SecretStr
from wallet_kinds_support import SECRET as WALLET_SECRET
from wallet_kinds_support import hub88_keys

from infrastructure.bootstrap import build_http_app, build_runtime
from infrastructure.settings import Settings
from infrastructure.wallet.hub88_reference import Hub88ReferenceWallet
from infrastructure.wallet.reference import ReferenceWallet

OPERATOR = "operator-key-for-tests"
AUDITOR = "auditor-key-for-tests"
PAGES_KEY = "pages-key-for-tests-0123456789abcdef"
SEED_KEY = "5eed" * 16
_ids = itertools.count()


def settings_for(database_url: str = "sqlite:///:memory:", rate_limit: int = 0) -> Settings:
    return Settings(
        database_url=database_url,
        operator_key=SecretStr(OPERATOR),
        auditor_key=SecretStr(AUDITOR),
        rate_limit_per_second=rate_limit,
        pages_key=SecretStr(PAGES_KEY),
        seed_key=SecretStr(SEED_KEY),
        # The per-address limits are tested on their own (tests/test_hardening_limits.py);
        # elsewhere one test client sends every request, from one address.
        auth_failures_per_minute=0,
        anonymous_per_second=0,
    )


class ServiceDouble:
    """What the composition root wires of a service (infrastructure/ports.py Service), for a test
    double that answers a few requests itself: nothing owed, nothing in the background."""

    def __init__(self) -> None:
        self.on_conflict_retry: Any = None

    def settlement(self, player_id: str, round_id: str) -> dict[str, Any]:
        return {}

    wallet_owed = None
    background = ()

    def bind_metrics(self, registry: Any) -> None:
        return None


def client_for(service: Any, rate_limit: int = 0) -> TestClient:
    """The HTTP app as the composition root wires it, around `service`."""
    app = build_http_app(settings_for(rate_limit=rate_limit), service)
    return TestClient(app, raise_server_exceptions=False)


class ServedClient(TestClient):
    """A test client of the API as `serve` runs it, and the operator's wallet it calls (None:
    the built-in wallet), which a Journey funds its player in."""

    operator_wallet: ReferenceWallet | None = None


@contextmanager
def served_client(
    database_url: str, wallet: ReferenceWallet | None = None, **settings: Any
) -> Iterator[ServedClient]:
    """The API as `pumpkin serve` runs it: read models projected in-process (`settings`: any
    to change from settings_for's); with `wallet` (a running reference wallet of either
    protocol), on the operator's seamless wallet."""
    configured = settings_for(database_url)
    if wallet is not None:
        on_operators_wallet(configured, wallet)
    for name, value in settings.items():
        setattr(configured, name, value)
    runtime = build_runtime(configured, with_projections=True)
    try:
        with ServedClient(runtime.http_app, raise_server_exceptions=False) as test_client:
            test_client.operator_wallet = wallet
            yield test_client
    finally:
        runtime.close()


def on_operators_wallet(settings: Settings, wallet: ReferenceWallet) -> None:
    """`settings` changed to call `wallet` (the reference wallet of either protocol)."""
    settings.wallet_url = wallet.url
    settings.wallet_secret = SecretStr(WALLET_SECRET)
    if isinstance(wallet, Hub88ReferenceWallet):
        keys = hub88_keys()
        settings.wallet_protocol = "hub88"
        settings.wallet_private_key_file = keys.supplier_file
        settings.wallet_public_key_file = keys.hub88_public_file


def error_keys(error: dict[str, Any]) -> set[str]:
    """The keys an error holds: code and message, and the field an unknown_field names."""
    named = {"field"} if error.get("code") == "unknown_field" else set()
    return {"code", "message", *named}


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def unique(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}"


class Journey:
    """A player created, funded and holding an open session, for tests to start from."""

    def __init__(self, client: TestClient, balance: int = 100_000) -> None:
        self.client = client
        self.player_id = unique("player")
        ok = client.post("/players", json={"player_id": self.player_id}, headers=bearer(OPERATOR))
        assert ok.status_code == 201, ok.text
        wallet: ReferenceWallet | None = getattr(client, "operator_wallet", None)
        if wallet is not None:  # the operator's wallet keeps the money
            wallet.set_balance(self.player_id, balance)
        elif balance:
            self.deposit(balance)
        opened = client.post(
            f"/players/{self.player_id}/sessions", json={}, headers=bearer(OPERATOR)
        )
        assert opened.status_code == 201, opened.text
        self.session_id: str = opened.json()["session_id"]
        self.token: str = opened.json()["token"]

    def deposit(self, amount: int) -> Any:
        return self.client.post(
            f"/players/{self.player_id}/deposits",
            json={"amount": amount, "request_id": unique("dep")},
            headers=bearer(OPERATOR),
        )

    def spin(self, stake: int = 100, request_id: str | None = None) -> Any:
        return self.client.post(
            f"/sessions/{self.session_id}/spins",
            json={"stake": stake, "request_id": request_id or unique("spin")},
            headers=bearer(self.token),
        )
