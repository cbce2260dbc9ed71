"""The HTTP client of the operator's wallet: one pooled httpx client, a bounded timeout, and
every request signed: `X-Pumpkin-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>` for the
Pumpkin protocol, or by the `signer` a protocol gives (Hub88's RSA signature, hub88.py)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
from prometheus_client import CollectorRegistry, Histogram

from infrastructure.wallet.errors import WalletUnknownOutcome
from infrastructure.wallet.transport import KeepAliveTransport

CALL_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


# (call, raw body) -> the headers that sign it
Signer = Callable[[str, bytes], dict[str, str]]


@dataclass(frozen=True)
class WalletAnswer:
    status: int
    body: dict[str, Any]
    raw: bytes = b""  # the body as it came (a protocol that signs its answers checks it)
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names

    @property
    def balance(self) -> int:
        return int(self.body["balance"])


class WalletClient:
    """Calls `{url}/{debit|credit|rollback|balance}` with httpx requests on one pooled lean
    keep-alive transport (infrastructure/wallet/transport.py: see there why), every call
    bounded by the timeout. A timeout, a 5xx, a broken connection or an answer that is not a
    JSON object raise WalletUnknownOutcome; any other answer is returned, for the protocol's
    adapter to judge (client_wallet.py, hub88.py)."""

    def __init__(
        self, url: str, secret: str = "", timeout_seconds: float = 2.0, connections: int = 64,
        signer: Signer | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self._sign: Signer = signer or (
            lambda _call, raw: {"X-Pumpkin-Signature": sign(secret, raw)}
        )
        self._timeout = httpx.Timeout(timeout_seconds)
        self._connections = connections
        self._transport: KeepAliveTransport | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.latency = self._histogram(CollectorRegistry())

    def bind_metrics(self, registry: CollectorRegistry) -> None:
        """Report call latency in `registry` (the app's /metrics) from now on."""
        self.latency = self._histogram(registry)

    @staticmethod
    def _histogram(registry: CollectorRegistry) -> Histogram:
        return Histogram(
            "pumpkin_wallet_call_seconds",
            "Time of a call to the operator's wallet, by call and outcome",
            ["call", "outcome"],
            buckets=CALL_BUCKETS,
            registry=registry,
        )

    def _pooled(self) -> KeepAliveTransport:
        """The connection pool of the running event loop (a server has one; a new loop, as in
        tests, gets its own: connections cannot move between loops)."""
        loop = asyncio.get_running_loop()
        if self._transport is None or self._loop is not loop:
            self._transport = KeepAliveTransport(self._connections)
            self._loop = loop
        return self._transport

    async def call(self, call: str, body: dict[str, Any]) -> WalletAnswer:
        raw = orjson.dumps(body)
        headers = {"Content-Type": "application/json", **self._sign(call, raw)}
        started = time.perf_counter()
        outcome = "unknown"
        try:
            # Straight to the transport: the client's cookie jar and request building cost
            # more CPU than the call itself (profiled), and the wallet sets no cookies.
            request = httpx.Request(
                "POST", f"{self.url}/{call}", content=raw, headers=headers,
                extensions={"timeout": self._timeout.as_dict()},
            )
            response = await self._pooled().handle_async_request(request)
            await response.aread()
            outcome = str(response.status_code)
            if response.status_code >= 500:
                raise WalletUnknownOutcome(f"{call}: the wallet answered {response.status_code}")
            try:
                body = response.json()
            except ValueError:
                raise WalletUnknownOutcome(f"{call}: an answer that is not JSON") from None
            if not isinstance(body, dict):
                raise WalletUnknownOutcome(f"{call}: an answer that is not a JSON object")
            return WalletAnswer(
                response.status_code, body, response.content,
                {name.lower(): value for name, value in response.headers.items()},
            )
        except httpx.HTTPError as error:
            raise WalletUnknownOutcome(f"{call}: {type(error).__name__}") from error
        finally:
            self.latency.labels(call, outcome).observe(time.perf_counter() - started)

    async def aclose(self) -> None:
        transport, self._transport = self._transport, None
        if transport is not None:
            await transport.aclose()
