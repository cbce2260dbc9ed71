"""Free rounds (operator promotions) and the seamless wallet's owed transactions."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from infrastructure.http import checks
from infrastructure.http.auth import CallerDep
from infrastructure.http.deps import Deps
from infrastructure.http.models import FreeRoundsGrant
from infrastructure.http.routes_operator import ERRORS, PlayerId

router = APIRouter(tags=["wallet"], responses=ERRORS)  # type: ignore[arg-type]


@router.post("/players/{player_id}/free-rounds", status_code=201)
def grant_free_rounds(
    player_id: PlayerId, body: FreeRoundsGrant, caller: CallerDep, deps: Deps
) -> Any:
    caller.may_change_money()
    request_id = checks.request_id(body.request_id)
    return deps.service.grant_free_rounds(
        player_id, body.campaign_id, body.rounds, body.stake, body.expires_at, request_id
    )


@router.get("/players/{player_id}/free-rounds")
def list_free_rounds(player_id: PlayerId, caller: CallerDep, deps: Deps) -> Any:
    caller.may_read_player(player_id)
    return {"free_rounds": deps.service.live_free_rounds(player_id)}


@router.delete("/players/{player_id}/free-rounds/{campaign_id}")
def cancel_free_rounds(player_id: PlayerId, campaign_id: str, caller: CallerDep, deps: Deps) -> Any:
    caller.may_change_money()
    return deps.service.cancel_free_rounds(player_id, campaign_id)


@router.get("/audit/wallet", tags=["audit"])
def owed_to_the_wallet(
    caller: CallerDep, deps: Deps, status: Annotated[Literal["owed"], Query()] = "owed"
) -> Any:
    """Every credit and rollback the operator's wallet has not yet acknowledged."""
    caller.may_audit()
    return {"owed": deps.wallet_owed() if deps.wallet_owed is not None else []}
