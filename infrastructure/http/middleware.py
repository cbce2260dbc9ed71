"""One pure-ASGI middleware around every request: a request id, the log context, the body size
limit, the latency histogram and one access log line. (Pure ASGI: BaseHTTPMiddleware costs more.)
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import time
from typing import Any

import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from infrastructure.http.errors import error_response
from infrastructure.http.metrics import Metrics
from infrastructure.logging import get_logger

log = get_logger("pumpkin.http")
# What structlog's filter_by_level asks first: with INFO off (the service's WARNING), the access
# line is not even built (binding the lazy logger for it cost more than the check).
_std_log = logging.getLogger("pumpkin.http")


class BodyTooLarge(Exception):
    pass


class RequestContext:
    def __init__(self, app: ASGIApp, metrics: Metrics, max_body_bytes: int) -> None:
        self.app = app
        self.metrics = metrics
        self.max_body_bytes = max_body_bytes
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers = dict(scope.get("headers") or ())
        # The request id is always this server's own (a caller could otherwise give many
        # requests one id, or forge another's); the caller's own id, if it looks like one, is
        # logged beside it.
        request_id = _next_request_id()
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        client_request_id = _safe_request_id(headers.get(b"x-request-id"))
        if client_request_id is not None:
            structlog.contextvars.bind_contextvars(client_request_id=client_request_id)
        status: dict[str, Any] = {"code": 500, "started": False}

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start" and status.get("too_large"):
                # The framework turned our BodyTooLarge into its own 400: answer 413 instead.
                raise BodyTooLarge
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                status["started"] = True
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode()),
                ]
            await send(message)

        try:
            if _declared_length(headers) > self.max_body_bytes:
                await self._too_large(send_with_id)
            else:
                await self.app(scope, self._limited(receive, status), send_with_id)
        except BodyTooLarge:
            if status["started"]:
                raise
            status["too_large"] = False  # let our own 413 through send_with_id
            await self._too_large(send_with_id)
        finally:
            self._record(scope, int(status["code"]), time.perf_counter() - started)
            structlog.contextvars.clear_contextvars()

    def _limited(self, receive: Receive, status: dict[str, Any]) -> Receive:
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body_bytes:
                    status["too_large"] = True
                    raise BodyTooLarge
            return message

        return limited

    async def _too_large(self, send: Send) -> None:
        self.metrics.errors.labels("payload_too_large").inc()
        answer = error_response(
            "payload_too_large", f"a request body is at most {self.max_body_bytes} bytes"
        )
        await send(
            {
                "type": "http.response.start",
                "status": answer.status_code,
                "headers": answer.raw_headers,
            }
        )
        await send({"type": "http.response.body", "body": bytes(answer.body)})

    def _record(self, scope: Scope, status: int, seconds: float) -> None:
        route: Any = scope.get("route")
        template = getattr(route, "path", None) or "unmatched"
        method = scope.get("method", "")
        counted = self._children.get((method, template, status))
        if counted is None:
            counted = (
                self.metrics.requests.labels(method, template, str(status)),
                self.metrics.latency.labels(method, template),
            )
            if route is not None:  # a matched route's series, kept (bounded by the routes)
                self._children[(method, template, status)] = counted
        counted[0].inc()
        counted[1].observe(seconds)
        if not _std_log.isEnabledFor(logging.INFO):
            return
        client = scope.get("client")
        log.info(
            "http_request",
            method=method,
            route=template,
            status=status,
            ms=round(seconds * 1000, 2),
            client=client[0] if client else None,
        )


_REQUEST_IDS = itertools.count()
_PROCESS = os.urandom(8).hex()


def _next_request_id() -> str:
    """Unique per request: this process's random prefix and a counter (no randomness needed)."""
    return f"{_PROCESS}{next(_REQUEST_IDS):016x}"


def _declared_length(headers: dict[bytes, bytes]) -> int:
    try:
        return int(headers.get(b"content-length", b"0"))
    except ValueError:
        return 0


_CLIENT_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


def _safe_request_id(raw: bytes | None) -> str | None:
    """A caller's X-Request-ID, if it is a short plain token (it goes into the log only)."""
    text = raw.decode("latin-1") if raw else ""
    return text if _CLIENT_REQUEST_ID.fullmatch(text) else None
