"""Player protection: limits, exclusions and reality checks (CONTRACT.md "Player protection")."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from infrastructure.http.auth import CallerDep
from infrastructure.http.deps import Deps
from infrastructure.http.models import (
    Exclusion,
    ExclusionRequest,
    Limits,
    LimitsChange,
    ProtectedSession,
    RealityCheckAnswer,
)
from infrastructure.http.routes_operator import ERRORS, PlayerId

router = APIRouter(tags=["protection"], responses=ERRORS)  # type: ignore[arg-type]


@router.get("/players/{player_id}/limits", response_model=Limits)
def limits(player_id: PlayerId, caller: CallerDep, deps: Deps) -> Any:
    caller.may_read_player(player_id)
    return deps.service.limits(player_id)


@router.put("/players/{player_id}/limits", response_model=Limits)
def set_limits(player_id: PlayerId, body: LimitsChange, caller: CallerDep, deps: Deps) -> Any:
    caller.may_change_money()
    return deps.service.set_limits(player_id, body.requested())


@router.post("/players/{player_id}/exclusions", status_code=201, response_model=Exclusion)
def exclude(player_id: PlayerId, body: ExclusionRequest, caller: CallerDep, deps: Deps) -> Any:
    caller.may_change_money()
    return deps.service.exclude(player_id, body.until, body.reason)


@router.post("/sessions/{session_id}/reality-check", response_model=ProtectedSession)
def reality_check(
    session_id: str, body: RealityCheckAnswer, caller: CallerDep, deps: Deps
) -> Any:
    caller.may_answer_reality_check(session_id)
    return deps.service.reality_check(session_id, body.proceed)
