"""The operator's back office: players, money and opening sessions."""

from __future__ import annotations

import asyncio
from typing import Annotated

import structlog
from fastapi import APIRouter, Body, Depends, Path, Response

from infrastructure.http import checks, schema_rules
from infrastructure.http.auth import CallerDep
from infrastructure.http.deps import Deps
from infrastructure.http.models import (
    Balance,
    Empty,
    ErrorBody,
    MoneyMovement,
    NewPlayer,
    PlayerCreated,
    SessionOpen,
    SessionOpened,
)

ERRORS: dict[int, dict[str, object]] = {
    code: {"model": ErrorBody} for code in (401, 403, 404, 409, 413, 429, 503)
}
# Bodies and queries are exact (errors.py): what the route does not define is refused.
ERRORS[422] = {
    "model": ErrorBody,
    "description": "The request does not fit the route: `unknown_field` (a body field the route "
    "does not define, named in `error.field`), `invalid_query` (a query parameter the route "
    "does not define, given twice, or whose value does not parse), `invalid_request` (a body "
    "that is not JSON or lacks a field, a value of the wrong type) or the rule's own code "
    "(`invalid_stake`, `invalid_amount`, ...).",
}
router = APIRouter(tags=["operator"], responses=ERRORS)  # type: ignore[arg-type]


async def player_in_path(
    player_id: Annotated[str, Path(json_schema_extra=schema_rules.PLAYER_ID)],
) -> str:
    """The path's player id, bound to every log line of the request."""
    structlog.contextvars.bind_contextvars(player_id=player_id)
    return player_id


PlayerId = Annotated[str, Depends(player_in_path)]
OptionalEmpty = Annotated[Empty | None, Body()]


@router.post("/players", status_code=201, response_model=PlayerCreated)
def register_player(body: NewPlayer, caller: CallerDep, deps: Deps) -> PlayerCreated:
    caller.may_change_money()
    given = "age_band" in body.model_fields_set
    band = checks.age_band(body.age_band) if given else None
    deps.service.register_player(checks.player_id(body.player_id), band)
    return PlayerCreated(player_id=body.player_id)


@router.post("/players/{player_id}/deposits", status_code=201, response_model=Balance)
def deposit(player_id: PlayerId, body: MoneyMovement, caller: CallerDep, deps: Deps) -> Balance:
    caller.may_change_money()
    amount, request_id = checks.amount(body.amount), checks.request_id(body.request_id)
    return Balance(balance=deps.service.deposit(player_id, amount, request_id))


@router.post("/players/{player_id}/withdrawals", status_code=201, response_model=Balance)
def withdraw(player_id: PlayerId, body: MoneyMovement, caller: CallerDep, deps: Deps) -> Balance:
    caller.may_change_money()
    amount, request_id = checks.amount(body.amount), checks.request_id(body.request_id)
    return Balance(balance=deps.service.withdraw(player_id, amount, request_id))


@router.post("/players/{player_id}/sessions", status_code=201, response_model=SessionOpened)
async def open_session(
    player_id: PlayerId,
    caller: CallerDep,
    deps: Deps,
    response: Response,
    body: Annotated[SessionOpen | None, Body()] = None,
) -> SessionOpened:
    caller.may_change_money()
    response.headers["Cache-Control"] = "no-store"  # the answer holds the session's token
    minutes = None if body is None else body.reality_check_minutes
    service = deps.service
    session_id, token = await service.open_session_async(player_id, minutes)
    commitment = (await asyncio.to_thread(service.session, session_id))["seed_commitment"]
    state = await asyncio.to_thread(service.player_state, player_id)
    return SessionOpened(
        session_id=session_id, token=token, seed_commitment=commitment, balance=state["balance"]
    )
