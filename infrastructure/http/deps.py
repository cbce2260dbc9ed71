"""What the routes are given by the composition root, and the `Annotated` aliases they use."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Annotated, Any, Protocol

from fastapi import Depends, Request

from infrastructure.http.audit_export import AuditExports
from infrastructure.http.metrics import Metrics
from infrastructure.http.ratelimit import RateLimiter
from infrastructure.http.read_models_health import ReadModelsHealth
from infrastructure.pages.keys import PageKeys
from infrastructure.pages.sign_ins import SignIns
from infrastructure.ports import GameService


class RoundReads(Protocol):
    """The rounds read model (game recall), with read-your-writes for a round just played."""

    def player_rounds(
        self, player_id: str, limit: int, before: str | None
    ) -> list[dict[str, Any]]: ...

    def round(self, round_id: str) -> dict[str, Any] | None: ...


class AuditReads(Protocol):
    """The read models for audit dashboards (projections.queries.RecallReader, export)."""

    def stats(
        self, *, since: str | None, until: str | None, model_version: str | None
    ) -> dict[str, Any]: ...

    def find_rounds(
        self,
        *,
        player_id: str | None,
        since: str | None,
        until: str | None,
        min_win: int | None,
        feature: str | None,
        model_version: str | None,
        limit: int,
        before: str | None = None,
    ) -> list[dict[str, Any]]: ...

    def balances(self) -> list[dict[str, Any]]: ...

    # the console's (infrastructure/pages)
    def balance(self, player_id: str) -> dict[str, Any] | None: ...

    def audit_tail(self, player_id: str, limit: int) -> list[dict[str, Any]]: ...

    def player_events(
        self, player_id: str, names: tuple[str, ...], limit: int
    ) -> list[dict[str, Any]]: ...

    def significant_events(self, limit: int) -> list[dict[str, Any]]: ...

    def rtp_growth(self) -> dict[tuple[str, str], list[tuple[int, float]]]: ...


@dataclass(frozen=True)
class HttpDeps:
    service: GameService
    rounds: RoundReads
    verify_player: Callable[[str], dict[str, Any]]
    rules_document: Callable[[], dict[str, Any]]
    operator_key: str
    auditor_key: str
    metrics: Metrics
    max_body_bytes: int = 64 * 1024
    rate_limit_per_second: int = 0
    token_cache_seconds: float = 2.0
    audit: AuditReads | None = None  # None: this build runs without read models
    audit_trail: AuditExports | None = None  # GET /audit/events, within bounds
    # Limits shared by every `serve` process (bootstrap builds them); None: this process's own
    # limiter at rate_limit_per_second, per credential only.
    limiter: RateLimiter | None = None
    unknown_token_cache_seconds: float = 0.0
    docs: bool = False  # serve /docs and /redoc (their scripts come from a public CDN)
    pages_keys: PageKeys | None = None  # None: a key for this run only (infrastructure/pages)
    # The console's sign-ins, kept in the service's database (None: in this process only).
    console_sign_ins: SignIns | None = None
    currency: str = "EUR"  # ISO 4217: the play page shows money in it (PUMPKIN_CURRENCY)
    # The base of the URLs handed out (PUMPKIN_PUBLIC_URL, else the address `serve` listens on).
    public_url: str = "http://127.0.0.1:8000"
    # The seamless wallet's owed credits and rollbacks (None: the built-in wallet owes none).
    wallet_owed: Callable[[], list[dict[str, Any]]] | None = None
    # The transparency log (infrastructure.transparency.log_service.TransparencyLog; None: this
    # build serves none).
    transparency: Any = None
    # Tasks run in the server's event loop while it serves (e.g. the wallet's outbox).
    background: tuple[Callable[[], Coroutine[Any, Any, None]], ...] = ()
    # The read models failing now, for /health, /metrics and the console (None: no read models).
    read_models: ReadModelsHealth | None = None


async def _deps(request: Request) -> HttpDeps:
    deps: HttpDeps = request.app.state.deps  # async: a sync dependency costs a thread hop
    return deps


Deps = Annotated[HttpDeps, Depends(_deps)]
