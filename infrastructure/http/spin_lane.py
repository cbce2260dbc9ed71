"""The hot path: `POST /sessions/{session_id}/spins`, answered without the framework's route
matching, dependency solving and exception middleware (about a third of the HTTP layer's CPU per
spin, measured in bench/bench_http.py).

Nothing about the answer differs: the same credentials check (auth.identify), the same request
model, the same route function (routes_play.spin, which plays through the application's
spin_async: no worker thread per spin) and the same one error mapping
(errors.answer_for), in the order FastAPI applies them: a body that is not JSON, then a query
parameter (the route defines none: exact_query), then the credentials, then the body's fields,
then the rules. It runs inside RequestContext, so the
request id, body size limit, metrics and access log are the same too. Every other request goes
on to FastAPI, whose spin route stays declared for the OpenAPI document.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.types import ASGIApp, Receive, Scope, Send

from infrastructure.http import routes_play
from infrastructure.http.auth import bearer_secret, identify
from infrastructure.http.deps import HttpDeps
from infrastructure.http.errors import answer_for
from infrastructure.http.exact_query import exact_query
from infrastructure.http.models import SpinRequest

SPIN_PATH = re.compile(r"/sessions/([^/]+)/spins")


class _Route:
    """What RequestContext reads from scope["route"] to label metrics and the access log."""

    path = "/sessions/{session_id}/spins"


_ROUTE = _Route()
_NO_BODY = object()


class SpinLane:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        matched = (
            SPIN_PATH.fullmatch(scope["path"])
            if scope["type"] == "http" and scope["method"] == "POST"
            else None
        )
        if matched is None:
            await self.app(scope, receive, send)
            return
        scope["route"] = _ROUTE
        request = Request(scope, receive)
        try:
            raw = await request.body()  # RequestContext's size limit applies while reading
        except ClientDisconnect:
            return  # nobody to answer
        deps: HttpDeps = request.app.state.deps
        try:
            response = await self._spin(request, deps, matched.group(1), raw)
        except Exception as exc:  # noqa: BLE001 - every error goes through the one mapping
            response = answer_for(exc, deps.metrics)
        await response(scope, receive, send)

    @staticmethod
    async def _spin(request: Request, deps: HttpDeps, session_id: str, raw: bytes) -> Any:
        body = _json(raw) if raw else _NO_BODY
        await exact_query(request)  # the route defines no query parameter
        secret = bearer_secret(request.headers.get("authorization"))
        caller = await identify(request, deps, secret, spin=True)
        if body is _NO_BODY:
            raise RequestValidationError(
                [{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}]
            )
        try:
            spin = SpinRequest.model_validate(body, from_attributes=True)  # as FastAPI does
        except ValidationError as invalid:
            errors = invalid.errors(include_url=False)
            raise RequestValidationError(
                [{**error, "loc": ("body", *error["loc"])} for error in errors]  # as FastAPI's
            ) from None
        return await routes_play.spin(session_id, spin, caller, deps)


def _json(raw: bytes) -> Any:
    """The body as FastAPI decodes it (JsonBodies made every body JSON)."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise RequestValidationError(
            [
                {
                    "type": "json_invalid",
                    "loc": ("body", error.pos),
                    "msg": "JSON decode error",
                    "input": {},
                    "ctx": {"error": error.msg},
                }
            ]
        ) from None
    except Exception:  # noqa: BLE001 - e.g. bytes that are no Unicode, nesting too deep
        raise StarletteHTTPException(400, "There was an error parsing the body") from None
