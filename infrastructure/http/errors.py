"""The ONE mapping from named errors to HTTP answers: `{"error": {"code", "message"}}`."""

from __future__ import annotations

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
    "loss_limit": 409,
    "session_time_limit": 409,
    "reality_check_due": 409,
    "player_excluded": 403,
    "round_too_soon": 429,
    "invalid_limits": 422,
    "invalid_exclusion": 422,
    "invalid_reality_check": 422,
    "invalid_stake": 422,
    "invalid_amount": 422,
    "invalid_player_id": 422,
    "invalid_request_id": 422,
    "invalid_client_seed": 422,
    "invalid_request": 422,
    "unknown_model_version": 422,
    "invalid_filter": 422,
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


def error_response(
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    details: dict[str, Any] | None = None,
) -> JSONResponse:
    """`details`: more of the answer beside "error" (e.g. the session of reality_check_due)."""
    status = STATUS_BY_CODE.get(code, 400 if code else 500)
    if status == 503:
        headers = {**(headers or {}), "Retry-After": RETRY_AFTER_SECONDS}
    return JSONResponse(
        {**(details or {}), "error": {"code": code, "message": message}},
        status_code=status,
        headers=headers,
    )


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


def _validation_message(errors: Any) -> str:
    parts = []
    for err in list(errors)[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


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
        return _answer(metrics, "invalid_request", _validation_message(exc.errors()))
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
) -> JSONResponse:
    metrics.errors.labels(code).inc()
    return error_response(code, message, headers, details)


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
