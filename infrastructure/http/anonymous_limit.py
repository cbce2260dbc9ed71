"""Requests that carry no credentials at all (health checks, the rules, the OpenAPI document,
unknown paths, a protected path asked without a key) are limited per client address too
(RateLimiter.allow_anonymous), before any routing. Requests with an Authorization header pass on
to the credential limits in auth.identify."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from infrastructure.http.errors import ApiError, answer_for
from infrastructure.http.metrics import Metrics
from infrastructure.http.ratelimit import RateLimiter


class AnonymousLimit:
    def __init__(self, app: ASGIApp, limiter: RateLimiter, metrics: Metrics) -> None:
        self.app = app
        self.limiter = limiter
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and self.limiter.anonymous_per_second > 0
            and not any(name == b"authorization" for name, _ in scope.get("headers") or ())
            and not self.limiter.allow_anonymous(client_address(scope))
        ):
            refused = ApiError("rate_limited", "too many requests", {"Retry-After": "1"})
            await answer_for(refused, self.metrics)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def client_address(scope: Scope) -> str:
    """The connection's peer address (X-Forwarded-For is not trusted: anyone can write it)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"
