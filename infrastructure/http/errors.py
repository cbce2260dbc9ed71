"""The ONE mapping from named errors to HTTP answers: `{"error": {"code", "message"}}`.

Bodies and queries are exact (CONTRACT.md "HTTP API"): a body field the route does not define is
422 `unknown_field` (the error names it: `"field"`), a query parameter that is unknown, repeated
or does not parse is 422 `invalid_query`, anything else wrong with a request's shape 422
`invalid_request`. No message carries a control character (printable() spells them out).
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from domain.errors import RuleViolation
from infrastructure.http.metrics import Metrics
from infrastructure.logging import get_logger

STATUS_BY_CODE: dict[str, int] = {
    "player_exists": 409,
    "not_in_checkpoint": 409,
    "invalid_query": 422,
    "invalid_cosignature": 422,
    "no_checkpoint": 404,
    "insufficient_funds": 409,
    "balance_cap": 409,
    "session_closed": 409,
    "request_id_reused": 409,
    "concurrent_update": 409,
    "stake_limit": 409,
    "session_limit": 409,
    "loss_limit": 409,
    "session_time_limit": 409,
    "reality_check_due": 409,
    "player_excluded": 403,
    "round_too_soon": 429,
    "invalid_limits": 422,
    "invalid_exclusion": 422,
    "invalid_reality_check": 422,
    "invalid_age_band": 422,
    "invalid_stake": 422,
    "invalid_amount": 422,
    "invalid_player_id": 422,
    "invalid_request_id": 422,
    "invalid_client_seed": 422,
    "invalid_request": 422,
    "unknown_model_version": 422,
    "unknown_field": 422,
    "player_not_found": 404,
    "session_not_found": 404,
    "round_not_found": 404,
    "not_found": 404,
    "method_not_allowed": 405,
    "unauthorized": 401,
    "forbidden": 403,
    "payload_too_large": 413,
    "headers_too_large": 431,
    "request_timeout": 408,
    "rate_limited": 429,
    "too_many_exports": 429,
    "too_many_connections": 429,
    "external_wallet": 409,
    "wallet_refused": 409,
    "no_free_rounds": 409,
    "campaign_exists": 409,
    "invalid_free_rounds": 422,
    "wallet_unavailable": 503,
    "store_unavailable": 503,
    "read_models_unavailable": 503,
}
RETRY_AFTER_SECONDS = "1"

log = get_logger("pumpkin.http")


class ApiError(Exception):
    """An answer the HTTP layer itself decides (credentials, roles, limits, store outages)."""

    def __init__(self, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.headers = headers or {}


def unauthorized(message: str = "missing or unknown credentials") -> ApiError:
    return ApiError("unauthorized", message, {"WWW-Authenticate": "Bearer"})


def forbidden(message: str = "this role may not do that") -> ApiError:
    return ApiError("forbidden", message)


def invalid_query(message: str) -> ApiError:
    return ApiError("invalid_query", message)


# C0 and C1 controls, DEL, and the line and paragraph separators JSON lets through unescaped.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str) -> str:
    """`text` with every control character spelt out (`\\x00`), so that no error message
    echoes one, not even JSON-escaped (CONTRACT.md "HTTP API")."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(_spelt, text)


def _spelt(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def error_response(
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    details: dict[str, Any] | None = None,
    field: str | None = None,
) -> JSONResponse:
    """`details`: more of the answer beside "error" (e.g. the session of reality_check_due);
    `field`: the unknown body field an `unknown_field` names, inside "error"."""
    status = STATUS_BY_CODE.get(code, 400 if code else 500)
    if status == 503:
        headers = {**(headers or {}), "Retry-After": RETRY_AFTER_SECONDS}
    error = {"code": code, "message": printable(message)}
    if field is not None:
        error["field"] = printable(field)
    return JSONResponse({**(details or {}), "error": error}, status_code=status, headers=headers)


def store_outage_types() -> tuple[type[Exception], ...]:
    """Exceptions that mean the store is down or busy: answer 503 (the client may retry)."""
    import psycopg
    import psycopg_pool
    from eventsourcing import persistence

    return (
        sqlite3.OperationalError,
        psycopg.OperationalError,
        psycopg.InterfaceError,
        psycopg_pool.PoolTimeout,
        persistence.OperationalError,
        persistence.InterfaceError,
        # A concurrent write won the race and the application gave up retrying.
        persistence.IntegrityError,
    )


def _where(error: dict[str, Any]) -> str:
    return ".".join(str(p) for p in error.get("loc", ())[1:]) or str(error.get("loc", ("body",))[0])


def _validation_message(errors: list[dict[str, Any]]) -> str:
    parts = [f"{_where(err)}: {err.get('msg', 'invalid')}" for err in errors[:5]]
    return "; ".join(parts) or "invalid request"


def _invalid_request(
    metrics: Metrics, exc: RequestValidationError
) -> JSONResponse:
    """unknown_field before any other complaint about the body (a misspelt `clientSeed` is
    named even when the body also lacks a field), then invalid_query, then invalid_request."""
    errors = list(exc.errors())
    unknown = [e for e in errors if e.get("type") == "extra_forbidden" and e["loc"][0] == "body"]
    if unknown:
        field = _where(unknown[0])
        return _answer(
            metrics, "unknown_field", f"{field!r} is not a field of this request", field=field
        )
    in_query = [e for e in errors if e.get("loc", ("",))[0] == "query"]
    if in_query:
        return _answer(metrics, "invalid_query", _validation_message(in_query))
    return _answer(metrics, "invalid_request", _validation_message(errors))


def answer_for(exc: BaseException, metrics: Metrics) -> JSONResponse:
    """The answer to an exception a request raised: its named code, status and message."""
    if isinstance(exc, ApiError):
        return _answer(metrics, exc.code, exc.message, exc.headers)
    if isinstance(exc, RuleViolation):
        code = getattr(exc, "code", "rule_violation")
        if code == "concurrent_update":  # the application's retries all lost the race
            metrics.store_conflicts.inc()
        retry_after = getattr(exc, "retry_after", None)  # e.g. round_too_soon
        headers = None if retry_after is None else {"Retry-After": str(retry_after)}
        details = getattr(exc, "details", None)
        return _answer(metrics, code, str(exc) or code.replace("_", " "), headers, details)
    if isinstance(exc, RequestValidationError):
        return _invalid_request(metrics, exc)
    if isinstance(exc, StarletteHTTPException):
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "invalid_request")
        response = _answer(metrics, code, str(exc.detail), dict(exc.headers or {}))  # 405: Allow
        if exc.status_code != 400:  # a body that cannot be decoded is 422 as any invalid body
            response.status_code = exc.status_code
        return response
    if isinstance(exc, store_outage_types()):
        log.warning("store_unavailable", error=type(exc).__name__, detail=str(exc)[:200])
        metrics.store_outage(exc)
        return _answer(metrics, "store_unavailable", "the store is unavailable, retry shortly")
    log.error("defect", exc_info=exc)
    response = _answer(metrics, "internal_error", "an internal error; it has been logged")
    response.status_code = 500
    return response


def _answer(
    metrics: Metrics,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    details: dict[str, Any] | None = None,
    field: str | None = None,
) -> JSONResponse:
    metrics.errors.labels(code).inc()
    return error_response(code, message, headers, details, field)


def install_error_handlers(app: FastAPI, metrics: Metrics) -> None:
    async def handler(_request: Request, exc: Exception) -> JSONResponse:
        return answer_for(exc, metrics)

    for handled in (
        RuleViolation,
        ApiError,
        RequestValidationError,
        StarletteHTTPException,
        *store_outage_types(),
        Exception,
    ):
        app.add_exception_handler(handled, handler)
