"""Who is asking: the operator key, the auditor key, or a player's session token.

Keys are compared in constant time. A token whose session is closed still names its session
for 30 days after the close (the service's session_for_token), read-only: its session and that
session's rounds (may_read_session, may_read_round), and its own spin endpoint, which answers 409
session_closed (or replays a spin it played); everywhere else it is refused with 401.
Another player's data (or another session) answers a player's token exactly as a missing one
(404, the same code and message): ids are guessable, existence must not leak.
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

from domain.errors import PlayerNotFound, RoundNotFound, SessionNotFound
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

    def reaches_player(self, player_id: str) -> bool:
        """A player's token reaches only its own player; the other roles reach every one."""
        if self.role != "player":
            return True
        return self.session is not None and self.session.player_id == player_id

    def may_read_player(self, player_id: str) -> None:
        if self.role != "player":
            return
        self._live_player()
        if not self.reaches_player(player_id):
            raise PlayerNotFound(f"no player {player_id!r}")  # as the application's own

    def may_change_money(self) -> None:
        if self.role != "operator":
            self._live_player()
            raise forbidden("only the operator moves money, adds players or opens sessions")

    def may_spin(self, session_id: str) -> None:
        if self.role != "player":
            raise forbidden("only the session's own token plays")
        # A closed session is refused by the application (409 session_closed), after it has
        # answered a replayed request id with the round that request played.
        self._own_session(session_id)

    def may_read_session(self, session_id: str) -> None:
        """A closed session's token reads its own session only (read-only); an open one's,
        its player's sessions (another player's: 404, as the route answers)."""
        if self.role == "player" and self.session is not None and not self.session.open:
            if self.session.session_id != session_id:
                self._live_player()

    def may_read_round(self, player_id: str, session_id: str) -> None:
        """A round the caller may read: any for the operator and the auditor; its own player's
        for an open session's token (another's: 404, exactly as a missing one); the rounds of
        its own session for a closed session's token (anything else: 401)."""
        if self.role != "player":
            return
        if self.session is not None and not self.session.open:
            if self.session.session_id != session_id:
                self._live_player()
            return
        if not self.reaches_player(player_id):
            raise RoundNotFound("no such round")  # another player's: exactly as a missing one

    def may_answer_reality_check(self, session_id: str) -> None:
        if self.role != "player":
            raise forbidden("only the session's own token answers its reality check")
        self._own_session(session_id)

    def may_close(self, session_id: str) -> None:
        if self.role == "operator":
            return
        if self.role == "auditor":
            raise forbidden("the auditor changes nothing")
        self._live_player()
        self._own_session(session_id)

    def may_audit(self) -> None:
        if self.role != "auditor":
            self._live_player()
            raise forbidden("verification is the auditor's")

    def may_read_metrics(self) -> None:
        if self.role == "player":
            self._live_player()
            raise forbidden("metrics are the operator's and the auditor's")

    def _own_session(self, session_id: str) -> None:
        if self.session is None or self.session.session_id != session_id:
            self._live_player()
            raise SessionNotFound(f"no session {session_id!r}")  # as the application's own

    def _live_player(self) -> None:
        if self.role == "player" and (self.session is None or not self.session.open):
            raise unauthorized("this session is closed; its token is no longer valid")


async def identify(
    request: HTTPConnection, deps: HttpDeps, secret: str | None, *, spin: bool = False
) -> Caller:
    """The caller a bearer secret names, or 401. Limited per secret, and per client address
    for secrets that name nobody (infrastructure/http/ratelimit.py).

    spin: the open-session cache may name the caller. Only a spin may use it: the application
    judges a spin on the newest state (a session closed through another worker conflicts on
    its version and is refused), so a stale entry cannot let a closed session play. Any other
    request reads the session's state from the store, so a close is effective on every worker
    at once (issue 17, finding 7).
    """
    limiter: RateLimiter = request.app.state.limiter
    address = client_address(request.scope)
    if not limiter.may_try_credentials(address):
        raise locked_out(limiter)  # the right secret too: one budget for every way of guessing
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
    session = sessions.get(secret) if spin else None
    if session is None:
        session = await _session_from_store(request, deps, secret, address, spin)
        sessions.remember(secret, session)
    structlog.contextvars.bind_contextvars(role="player", player_id=session.player_id)
    return Caller("player", session)


async def _session_from_store(
    request: HTTPConnection, deps: HttpDeps, secret: str, address: str, spin: bool = False
) -> SessionRef:
    """The session a token names, read from the store, unless the token is known to name none
    (UnknownTokens). (An address that has used up its failed-authentication allowance never
    comes this far: identify refuses it first, 429.)

    spin: what the application already holds may name it (known_session_for_token), as the
    open-session cache may, and for the same reason; then no worker thread and no store read.
    A spin whose cache entry had expired took both, waiting for the interpreter lock behind the
    event loop's own spins: the slowest spins of a busy server."""
    limiter: RateLimiter = request.app.state.limiter
    unknown: UnknownTokens = request.app.state.unknown_tokens
    if unknown.known_unknown(secret):
        limiter.failed(address)
        raise unauthorized()
    known = getattr(deps.service, "known_session_for_token", None) if spin else None
    session: SessionRef | None = known(secret) if known is not None else None
    if session is None:
        session = await run_in_threadpool(deps.service.session_for_token, secret)
    if session is None:
        unknown.remember(secret)
        limiter.failed(address)
        raise unauthorized()
    return session


def _rate_limited() -> ApiError:
    return ApiError("rate_limited", "too many requests", {"Retry-After": "1"})


def locked_out(limiter: RateLimiter) -> ApiError:
    """429 for an address past its failed-authentication budget, until the budget refills."""
    wait = str(limiter.retry_after_seconds())
    return ApiError(
        "rate_limited", "too many wrong secrets from this address", {"Retry-After": wait}
    )


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
