"""Reads: player state, history, one round (game recall) and the auditor's verification."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import AfterValidator

from domain.errors import RoundNotFound
from domain.ledger.identifiers import parse_round_id
from infrastructure.http import schema_rules
from infrastructure.http.auth import Caller, CallerDep
from infrastructure.http.deps import Deps, HttpDeps
from infrastructure.http.errors import invalid_query
from infrastructure.http.models import PlayerState, Round, RoundsPage, VerifyReport
from infrastructure.http.responses import FastJSONResponse
from infrastructure.http.routes_operator import ERRORS, PlayerId

router = APIRouter(tags=["reads"], responses=ERRORS)  # type: ignore[arg-type]


def round_id_query(value: str | None) -> str | None:
    if value is not None and parse_round_id(value) is None:
        raise ValueError("a round id: <player_id>.<round number>")
    return value


# The round id the previous page ended with (a page of rounds older than it).
Before = Annotated[
    str | None,
    Query(max_length=128, json_schema_extra=schema_rules.ROUND_ID),
    AfterValidator(round_id_query),
]


@router.get("/players/{player_id}", response_model=PlayerState)
def player_state(player_id: PlayerId, caller: CallerDep, deps: Deps) -> Any:
    caller.may_read_player(player_id)
    return deps.service.player_state(player_id)


@router.get("/players/{player_id}/rounds", response_model=RoundsPage)
def player_rounds(
    player_id: PlayerId,
    caller: CallerDep,
    deps: Deps,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    before: Before = None,
) -> Any:
    """The player's rounds, newest first; `before` is one of the player's round ids (the page
    starts after it)."""
    caller.may_read_player(player_id)
    found = parse_round_id(before) if before is not None else None
    if found is not None and found[0] != player_id:
        raise invalid_query(f"before: {before!r} is not a round of this player")
    deps.service.player_state(player_id)  # an unknown player is 404, not an empty page
    return FastJSONResponse({"rounds": deps.rounds.player_rounds(player_id, limit, before)})


@router.get("/rounds/{round_id}", response_model=Round)
def round_by_id(
    round_id: Annotated[str, Path(json_schema_extra=schema_rules.ROUND_ID)],
    caller: CallerDep,
    deps: Deps,
) -> Any:
    return FastJSONResponse(readable_round(round_id, caller, deps))


def readable_round(round_id: str, caller: Caller, deps: HttpDeps) -> dict[str, Any]:
    """The round, if the caller may read it (Caller.may_read_round: its own player's, or a
    closed session's token its session's; the operator and the auditor any); another player's
    round is 404, exactly as a missing one."""
    played = deps.rounds.round(round_id)
    if played is None:
        caller.may_read_round("", "")  # a closed session's token: 401 as for any other round
        raise RoundNotFound(f"no round {round_id}")
    caller.may_read_round(str(played["player_id"]), str(played["session_id"]))
    return played


@router.get("/audit/players/{player_id}/verify", response_model=VerifyReport, tags=["audit"])
def verify_player(player_id: PlayerId, caller: CallerDep, deps: Deps) -> Any:
    caller.may_audit()
    return deps.verify_player(player_id)  # reads stored rows, not the (maybe tampered) player
