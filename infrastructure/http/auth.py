"""Who is asking: the operator key, the auditor key, or a player's session token.

Keys are compared in constant time. A token whose session is closed still names its session, so
its own spin endpoint can answer 409 session_closed; everywhere else it is refused with 401.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Annotated, Literal

import structlog
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.security.utils import get_authorization_scheme_param
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from infrastructure.http.anonymous_limit import client_address
from infrastructure.http.deps import Deps, HttpDeps
from infrastructure.http.errors import ApiError, forbidden, unauthorized
from infrastructure.http.ratelimit import RateLimiter
from infrastructure.http.token_cache import OpenSessionCache
from infrastructure.http.unknown_tokens import UnknownTokens
from infrastructure.ports import SessionRef

Role = Literal["operator", "auditor", "player"]
bearer_scheme = HTTPBearer(
    auto_error=False, description="operator key, auditor key or session token"
)


@dataclass(frozen=True)
class Caller:
    role: Role
    session: SessionRef | None = None

    def may_read_player(self, player_id: str) -> None:
        if self.role != "player":
            return
        self._live_player()
        if self.session is None or self.session.player_id != player_id:
            raise forbidden("a session token reaches only its own player")

    def may_change_money(self) -> None:
        if self.role != "operator":
            self._live_player()
            raise forbidden("only the operator moves money, adds players or opens sessions")

    def may_spin(self, session_id: str) -> None:
        # A closed session's spin is judged by the service: session_closed, or what closed it
        # (an exclusion: player_excluded; the session time limit: session_time_limit).
        self._own_session(session_id, "plays")

    def may_answer_reality_check(self, session_id: str) -> None:
        self._own_session(session_id, "answers the reality check of")

    def _own_session(self, session_id: str, acts: str) -> None:
        if self.role != "player":
            raise forbidden(f"only the session's own token {acts} it")
        if self.session is None or self.session.session_id != session_id:
            self._live_player()
            raise forbidden(f"a session token {acts} only its own session")

    def may_close(self, session_id: str) -> None:
        if self.role == "operator":
            return
        if self.role == "auditor":
            raise forbidden("the auditor changes nothing")
        self._live_player()
        if self.session is None or self.session.session_id != session_id:
            raise forbidden("a session token closes only its own session")

    def may_audit(self) -> None:
        if self.role != "auditor":
            self._live_player()
            raise forbidden("verification is the auditor's")

    def may_read_metrics(self) -> None:
        if self.role == "player":
            self._live_player()
            raise forbidden("metrics are the operator's and the auditor's")

    def _live_player(self) -> None:
        if self.role == "player" and (self.session is None or not self.session.open):
            raise unauthorized("this session is closed; its token is no longer valid")


async def identify(request: HTTPConnection, deps: HttpDeps, secret: str | None) -> Caller:
    """The caller a bearer secret names, or 401. Limited per secret, and per client address
    for secrets that name nobody (infrastructure/http/ratelimit.py)."""
    limiter: RateLimiter = request.app.state.limiter
    address = client_address(request.scope)
    if not secret:
        limiter.failed(address)
        raise unauthorized()
    if not limiter.allow(hashlib.blake2b(secret.encode(), digest_size=16).hexdigest()):
        raise _rate_limited()
    if hmac.compare_digest(secret.encode(), deps.operator_key.encode()):
        structlog.contextvars.bind_contextvars(role="operator")
        return Caller("operator")
    if hmac.compare_digest(secret.encode(), deps.auditor_key.encode()):
        structlog.contextvars.bind_contextvars(role="auditor")
        return Caller("auditor")
    sessions: OpenSessionCache = request.app.state.open_sessions
    session = sessions.get(secret)
    if session is None:
        session = await _session_from_store(request, deps, secret, address)
        sessions.remember(secret, session)
    structlog.contextvars.bind_contextvars(role="player", player_id=session.player_id)
    return Caller("player", session)


async def _session_from_store(
    request: HTTPConnection, deps: HttpDeps, secret: str, address: str
) -> SessionRef:
    """The session a token names, read from the store, unless the token is known to name none
    (UnknownTokens) or its address has used up its failed-authentication allowance (429)."""
    limiter: RateLimiter = request.app.state.limiter
    unknown: UnknownTokens = request.app.state.unknown_tokens
    if not limiter.may_try_credentials(address):
        raise _rate_limited()
    if unknown.known_unknown(secret):
        limiter.failed(address)
        raise unauthorized()
    session = await run_in_threadpool(deps.service.session_for_token, secret)
    if session is None:
        unknown.remember(secret)
        limiter.failed(address)
        raise unauthorized()
    return session


def _rate_limited() -> ApiError:
    return ApiError("rate_limited", "too many requests", {"Retry-After": "1"})


def bearer_secret(authorization: str | None) -> str | None:
    """The secret of an `Authorization: Bearer SECRET` header (as fastapi.security reads it)."""
    scheme, secret = get_authorization_scheme_param(authorization)
    return secret if authorization and scheme.lower() == "bearer" else None


async def _caller(
    request: Request,
    deps: Deps,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> Caller:
    return await identify(request, deps, credentials.credentials if credentials else None)


CallerDep = Annotated[Caller, Depends(_caller)]
