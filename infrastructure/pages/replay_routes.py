"""Replay links: POST /rounds/{round_id}/replay-links makes one (for whoever may read the round),
GET /replay/{round_id}?expires=&sig= shows the round to anyone holding it until it expires."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from domain.game.board import MAX_WIN_X_STAKE
from infrastructure.http.auth import CallerDep
from infrastructure.http.deps import Deps
from infrastructure.http.exact_query import EXACT_QUERY
from infrastructure.http.routes_operator import ERRORS
from infrastructure.http.routes_reads import readable_round
from infrastructure.pages.links import DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS, MIN_TTL_SECONDS
from infrastructure.pages.replay_view import fairness, multiple, step_view
from infrastructure.pages.web import page, pages_of
from infrastructure.transparency.log_service import inclusion_of

router = APIRouter(responses=ERRORS)  # type: ignore[arg-type]


class ReplayLinkRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ttl_seconds: Annotated[StrictInt, Field(ge=MIN_TTL_SECONDS, le=MAX_TTL_SECONDS)] = (
        DEFAULT_TTL_SECONDS
    )


class ReplayLinkMade(BaseModel):
    url: str
    expires_at: str


@router.post(
    "/rounds/{round_id}/replay-links",
    status_code=201,
    response_model=ReplayLinkMade,
    tags=["reads"],
    dependencies=[EXACT_QUERY],
)
def make_replay_link(
    request: Request,
    round_id: str,
    caller: CallerDep,
    deps: Deps,
    body: Annotated[ReplayLinkRequest | None, Body()] = None,
) -> Any:
    """A signed link to the round's replay page, valid for `ttl_seconds` (60..2,592,000)."""
    readable_round(round_id, caller, deps)
    pages = pages_of(request)
    ttl = (body or ReplayLinkRequest()).ttl_seconds
    link = pages.signer.link(round_id, pages.clock(), ttl)
    expires_at = link.expires_at.isoformat().replace("+00:00", "Z")
    url = deps.public_url + link.path  # never the request's Host (CONTRACT.md)
    return JSONResponse({"url": url, "expires_at": expires_at}, status_code=201)


@router.get("/replay/{round_id}", response_class=HTMLResponse, include_in_schema=False)
def replay_page(
    request: Request,
    round_id: str,
    deps: Deps,
    expires: Annotated[str, Query(max_length=20)] = "",
    sig: Annotated[str, Query(max_length=128)] = "",
) -> HTMLResponse:
    """The round as it happened, for the holder of a signed link; 403 for a bad or expired one."""
    pages = pages_of(request)
    if not pages.signer.valid(round_id, expires, sig, pages.clock()):
        return page(
            "refused.html",
            {
                "title": "Link refused",
                "message": "This replay link is not valid or has expired. Ask for a new one.",
            },
            status=403,
        )
    played = deps.rounds.round(round_id)
    if played is None:
        return page(
            "refused.html",
            {"title": "No such round", "message": "This round is not recorded."},
            status=404,
        )
    context = replay_context(played)
    log = deps.transparency
    context["proof"] = None if log is None else inclusion_of(log.builder.store, round_id)
    context["has_log"] = log is not None
    return page("replay.html", context)


def replay_context(played: dict[str, Any]) -> dict[str, Any]:
    stake = int(played["stake"])
    steps = [step_view(i, step, stake) for i, step in enumerate(played.get("steps") or [])]
    step_sum = sum(step.win for step in steps)
    return {
        "title": f"Round {played['round_id']}",
        "round": played,
        "steps": steps,
        "step_sum": step_sum,
        "max_win": MAX_WIN_X_STAKE * stake,
        "total_multiple": multiple(int(played["total_win"]), stake),
        "fairness": fairness(played),
        "settlement": played.get("settlement"),
    }
