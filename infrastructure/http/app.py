"""The FastAPI app factory. It builds nothing but the web layer: the composition root
(infrastructure/bootstrap.py) hands it the service and read models through HttpDeps."""

from __future__ import annotations

import asyncio
import hmac
import inspect
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from infrastructure.http import (
    routes_audit,
    routes_log,
    routes_operator,
    routes_play,
    routes_protection,
    routes_public,
    routes_reads,
    routes_sessions,
    routes_wallet,
)
from infrastructure.http.anonymous_limit import AnonymousLimit
from infrastructure.http.deps import HttpDeps
from infrastructure.http.errors import install_error_handlers
from infrastructure.http.exact_query import EXACT_QUERY
from infrastructure.http.json_body import JsonBodies
from infrastructure.http.middleware import RequestContext
from infrastructure.http.pauses import PauseWatch
from infrastructure.http.ratelimit import RateLimiter
from infrastructure.http.spin_lane import SpinLane
from infrastructure.http.token_cache import OpenSessionCache
from infrastructure.http.unknown_tokens import UnknownTokens
from infrastructure.pages.web import install_pages

# FastAPI's own OpenTelemetry bridge (releases that have one) asks the global tracer, meter and
# logger providers on every request whether anyone configured them; this service configures
# none, and that question was a visible share of a spin's CPU. Off, as the service has it.
_NO_TELEMETRY: dict[str, Any] = (
    {"telemetry": {"tracing": False, "metrics": False, "logs": False}}
    if "telemetry" in inspect.signature(FastAPI).parameters
    else {}
)


def _credentialed(deps: HttpDeps, open_sessions: OpenSessionCache) -> Callable[[str], bool]:
    """Whether a bearer secret names a key or a live token, from memory (AnonymousLimit)."""
    keys = (deps.operator_key.encode(), deps.auditor_key.encode())
    known = getattr(deps.service, "known_session_for_token", None)

    def credentialed(secret: str) -> bool:
        if any(hmac.compare_digest(secret.encode(), key) for key in keys):
            return True
        if open_sessions.get(secret) is not None:
            return True
        session = known(secret) if known is not None else None
        return session is not None and bool(session.open)

    return credentialed


def create_app(
    deps: HttpDeps,
    on_shutdown: Callable[[], object] | None = None,
    *,
    spin_lane: bool = True,
) -> FastAPI:
    """spin_lane: answer spins on the hot path (infrastructure/http/spin_lane.py); off, the
    framework's route answers them, identically (tests compare the two)."""
    pauses = PauseWatch(deps.metrics)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        pauses.start()
        tasks = [asyncio.create_task(run()) for run in deps.background]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            pauses.stop()
        if on_shutdown is not None:
            on_shutdown()

    app = FastAPI(
        lifespan=lifespan,
        title="Pumpkin RGS",
        version="0.1.0",
        description="Remote game server for one Halloween video slot. Money in minor units.",
        # The interactive pages load Swagger UI / ReDoc from a public CDN: off unless asked for
        # (PUMPKIN_DOCS). /openapi.json is this process's own document, always served.
        docs_url="/docs" if deps.docs else None,
        redoc_url="/redoc" if deps.docs else None,
        **_NO_TELEMETRY,
    )
    # A path with a trailing slash is 404, not a redirect: the framework built its Location from
    # the Host header, which the client chooses (issue 17, finding 12).
    app.router.redirect_slashes = False
    app.state.deps = deps
    app.state.limiter = deps.limiter or RateLimiter(deps.rate_limit_per_second)
    app.state.unknown_tokens = UnknownTokens(deps.unknown_token_cache_seconds)
    app.state.open_sessions = OpenSessionCache(deps.token_cache_seconds)
    install_error_handlers(app, deps.metrics)
    routers = (routes_public, routes_operator, routes_play, routes_sessions, routes_reads,
               routes_audit, routes_wallet, routes_protection, routes_log)
    for module in routers:
        app.include_router(module.router, dependencies=[EXACT_QUERY])
    install_pages(
        app, deps.pages_keys, deps.operator_key, deps.auditor_key, deps.console_sign_ins
    )
    if spin_lane:
        app.add_middleware(SpinLane)
    app.add_middleware(JsonBodies)
    app.add_middleware(
        AnonymousLimit,
        limiter=app.state.limiter,
        metrics=deps.metrics,
        credentialed=_credentialed(deps, app.state.open_sessions),
    )
    app.add_middleware(RequestContext, metrics=deps.metrics, max_body_bytes=deps.max_body_bytes)
    return app
