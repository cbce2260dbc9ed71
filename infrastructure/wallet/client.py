"""The HTTP client of the operator's wallet: one pooled keep-alive transport, a bounded timeout,
a bounded answer (MAX_ANSWER_BYTES), and every request signed: for the Pumpkin protocol with the
time and the call's name (signing.py: `X-Pumpkin-Signature: t=<unix seconds>,v1=<hex
HMAC-SHA256>`), or by the `signer` a protocol gives (Hub88's RSA signature, hub88.py).

A debit is sent once: nothing here or in the transport resends it (a kept-alive connection
that closes unanswered is an unknown outcome). A credit, a rollback or a balance call, which the
wallet answers as the first time when repeated, is sent once more on a new connection then."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
from prometheus_client import CollectorRegistry, Histogram

from infrastructure.wallet.errors import WalletUnknownOutcome
from infrastructure.wallet.signing import HEADER, sign
from infrastructure.wallet.transport import KeepAliveTransport, UnansweredOnReuse

CALL_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
MAX_ANSWER_BYTES = 64 * 1024  # CONTRACT.md: a longer answer is unknown, and is not read whole
RESENDABLE = frozenset(("credit", "rollback", "balance"))  # answered as the first when repeated


# (call, raw body) -> the headers that sign it
Signer = Callable[[str, bytes], dict[str, str]]


@dataclass(frozen=True)
class WalletAnswer:
    """An answer as received: its status and its body when it is a JSON object (else {}).
    Judging it is the protocol adapter's (client_wallet.py)."""

    status: int
    body: dict[str, Any]
    raw: bytes = b""  # the body as it came (a protocol that signs its answers checks it)
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names


class WalletClient:
    """Calls `{url}/{debit|credit|rollback|balance}` with httpx requests on one pooled lean
    keep-alive transport (infrastructure/wallet/transport.py: see there why), every call
    bounded by the timeout and its answer by MAX_ANSWER_BYTES. No answer (a timeout, a broken
    connection, an answer too long or not HTTP), a 5xx or an answer that is not a JSON object
    raise WalletUnknownOutcome; any other answer is returned, for the protocol's adapter to
    judge (client_wallet.py, hub88.py)."""

    def __init__(
        self, url: str, secret: str = "", timeout_seconds: float = 2.0, connections: int = 64,
        signer: Signer | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self._sign: Signer = signer or (
            lambda call, raw: {HEADER: sign(secret, call, raw)}
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
        started = time.perf_counter()
        outcome = "unknown"
        try:
            try:
                response = await self._send(call, raw, fresh=False)
            except UnansweredOnReuse:
                if call not in RESENDABLE:
                    raise  # a debit is never resent: its outcome is unknown
                response = await self._send(call, raw, fresh=True)
            outcome = str(response.status_code)
            if response.status_code >= 500:
                raise WalletUnknownOutcome(f"{call}: the wallet answered {response.status_code}")
            answer = _json_object(response.content)
            if answer is None:
                raise WalletUnknownOutcome(f"{call}: an answer that is not a JSON object")
            return WalletAnswer(
                response.status_code, answer, response.content,
                {name.lower(): value for name, value in response.headers.items()},
            )
        except httpx.HTTPError as error:
            raise WalletUnknownOutcome(f"{call}: {type(error).__name__}: {error}") from error
        finally:
            self.latency.labels(call, outcome).observe(time.perf_counter() - started)

    async def _send(self, call: str, raw: bytes, fresh: bool) -> httpx.Response:
        # Straight to the transport: the client's cookie jar and request building cost more
        # CPU than the call itself (profiled), and the wallet sets no cookies. Signed at each
        # send: a resend carries its own time.
        headers = {"Content-Type": "application/json", **self._sign(call, raw)}
        request = httpx.Request(
            "POST", f"{self.url}/{call}", content=raw, headers=headers,
            extensions={"timeout": self._timeout.as_dict(), "max_body": MAX_ANSWER_BYTES,
                        "fresh_connection": fresh},
        )
        return await self._pooled().handle_async_request(request)

    async def aclose(self) -> None:
        transport, self._transport = self._transport, None
        if transport is not None:
            await transport.aclose()


def _json_object(content: bytes) -> dict[str, Any] | None:
    """The answer's JSON object (None when it is not one). The standard parser, not orjson: it
    reads any integer exactly (orjson refuses those past 64 bits), and judging the value is the
    adapter's."""
    try:
        value = json.loads(content)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
