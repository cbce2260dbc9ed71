"""Reading a session: its running figures, its commitment and, once closed, its seed."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from domain.errors import SessionNotFound
from infrastructure.http.auth import CallerDep
from infrastructure.http.deps import Deps
from infrastructure.http.errors import forbidden
from infrastructure.http.models import Session
from infrastructure.http.routes_operator import ERRORS

router = APIRouter(tags=["play"], responses=ERRORS)  # type: ignore[arg-type]


@router.get("/sessions/current", response_model=Session)
def current_session(caller: CallerDep, deps: Deps, response: Response) -> Any:
    """The token's session, open or closed (a closed one's token reads it for 30 days): an
    answer to a token, never kept by a cache."""
    response.headers["Cache-Control"] = "no-store"
    if caller.role != "player" or caller.session is None:
        raise forbidden("the current session is a player token's")
    return deps.service.session(caller.session.session_id)


@router.get("/sessions/{session_id}", response_model=Session)
def session(session_id: str, caller: CallerDep, deps: Deps) -> Any:
    caller.may_read_session(session_id)
    found = deps.service.session(session_id)
    if caller.role == "player":
        if caller.session is None or caller.session.player_id != found["player_id"]:
            raise SessionNotFound(f"no session {session_id!r}")  # as if it did not exist
    return found
