"""A player's session: spins and closing."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request

from domain.ledger.fairness import check_client_seed
from infrastructure.http import checks
from infrastructure.http.auth import CallerDep
from infrastructure.http.deps import Deps
from infrastructure.http.models import Empty, Round, Session, SpinRequest
from infrastructure.http.responses import FastJSONResponse
from infrastructure.http.routes_operator import ERRORS
from infrastructure.http.token_cache import OpenSessionCache

router = APIRouter(tags=["play"], responses=ERRORS)  # type: ignore[arg-type]


@router.post("/sessions/{session_id}/spins", response_model=Round)
async def spin(session_id: str, body: SpinRequest, caller: CallerDep, deps: Deps) -> Any:
    caller.may_spin(session_id)
    request_id = checks.request_id(body.request_id)
    played = await deps.service.spin_async(
        session_id, body.stake, request_id, check_client_seed(body.client_seed),
        free_round=body.free_round,
    )
    deps.metrics.round_played(played["stake"], played["total_win"])
    # The round goes out as the write side built it (no second validation on the hot path).
    return FastJSONResponse(played)


@router.post("/sessions/{session_id}/close", response_model=Session)
def close_session(
    request: Request,
    session_id: str,
    caller: CallerDep,
    deps: Deps,
    body: Annotated[Empty | None, Body()] = None,
) -> Any:
    caller.may_close(session_id)
    summary = deps.service.close_session(session_id, closed_by=caller.role)
    open_sessions: OpenSessionCache = request.app.state.open_sessions
    open_sessions.forget_session(session_id)
    return summary
