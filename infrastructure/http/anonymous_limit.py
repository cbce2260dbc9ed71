"""Anonymous requests (health checks, the rules, the OpenAPI document, unknown paths, a protected
path asked without a key) are limited per client address too (RateLimiter.allow_anonymous),
before any routing. A request is anonymous unless its `Authorization: Bearer <secret>` names a key
or a live token (CONTRACT.md "HTTP API"): `Authorization: x` or a wrong bearer counts as
anonymous, so a header never skips the limit. `credentialed` answers from memory only (the keys,
the open-session cache, the sessions the application holds); a live token known to neither counts
once as anonymous, until its first lookup remembers it."""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from infrastructure.http.errors import ApiError, answer_for
from infrastructure.http.metrics import Metrics
from infrastructure.http.ratelimit import RateLimiter


class AnonymousLimit:
    def __init__(
        self,
        app: ASGIApp,
        limiter: RateLimiter,
        metrics: Metrics,
        credentialed: Callable[[str], bool],
    ) -> None:
        self.app = app
        self.limiter = limiter
        self.metrics = metrics
        self.credentialed = credentialed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and self.limiter.anonymous_per_second > 0
            and not self._names_someone(scope)
            and not self.limiter.allow_anonymous(client_address(scope))
        ):
            refused = ApiError("rate_limited", "too many requests", {"Retry-After": "1"})
            await answer_for(refused, self.metrics)(scope, receive, send)
            return
        await self.app(scope, receive, send)


    def _names_someone(self, scope: Scope) -> bool:
        for name, value in scope.get("headers") or ():
            if name == b"authorization":
                scheme, _, secret = value.decode("latin-1").partition(" ")
                return scheme.lower() == "bearer" and bool(secret) and self.credentialed(secret)
        return False


def client_address(scope: Scope) -> str:
    """The connection's peer address (X-Forwarded-For is not trusted: anyone can write it)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"
