"""/console/players/{id}: one player as an auditor checks them: state, verification, sessions,
limits and exclusions, money in and out, the audit trail (the player's own events: the service's
key streams stay out of it), and the whole trail to download."""

from __future__ import annotations

import json
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from domain.errors import PlayerNotFound
from infrastructure.http.deps import Deps, HttpDeps
from infrastructure.pages.console_auth import ConsoleUser
from infrastructure.pages.console_sign_in import (
    SignedIn,
    console_context,
    csrf_ok,
    posted_form,
    refused,
)
from infrastructure.pages.web import PAGE_HEADERS, page

router = APIRouter(prefix="/console", include_in_schema=False)

TRAIL_SHOWN = 300
SHOWN = 50  # sessions, exclusions, deposits and withdrawals: the latest of each
SESSION_EVENTS = ("SessionOpened", "SessionClosed")
PROTECTION_EVENTS = ("LimitsChanged", "Excluded")
MONEY_EVENTS = ("Deposited", "Withdrawn")


@router.get("/players/{player_id}", response_class=HTMLResponse)
def player(request: Request, player_id: str, deps: Deps, user: SignedIn) -> Response:
    return _player_page(request, user, deps, player_id, None)


@router.post("/players/{player_id}/verify", response_class=HTMLResponse)
async def verify(request: Request, player_id: str, deps: Deps, user: SignedIn) -> Response:
    if not csrf_ok(request, user, await posted_form(request)):
        return refused("The form had expired or came from elsewhere. Reload the page.")
    return _player_page(request, user, deps, player_id, deps.verify_player(player_id))


@router.get("/players/{player_id}/audit.{fmt}")
def export(player_id: str, fmt: Literal["csv", "jsonl"], deps: Deps, _user: SignedIn) -> Response:
    """The player's whole audit trail, as GET /audit/events?player_id=&format= answers it."""
    if deps.audit_trail is None:
        return refused("This service runs without read models: nothing to export.")
    response = deps.audit_trail.response(player_id, fmt)
    response.headers.update(
        {
            "Content-Disposition": f'attachment; filename="audit-{player_id}.{fmt}"',
            "X-Content-Type-Options": PAGE_HEADERS["X-Content-Type-Options"],
            "Cache-Control": "no-store",
        }
    )
    return response


def _player_page(
    request: Request,
    user: ConsoleUser,
    deps: HttpDeps,
    player_id: str,
    verified: dict[str, Any] | None,
) -> HTMLResponse:
    context = console_context(request, user, "players")
    audit = deps.audit
    state = audit.balance(player_id) if audit is not None else None
    context.update(player_id=player_id, state=state, verified=verified, trail_limit=TRAIL_SHOWN)
    if audit is not None and state is not None:
        context.update(
            trail=audit.audit_tail(player_id, TRAIL_SHOWN),
            sessions=_with_fields(audit.player_events(player_id, SESSION_EVENTS, SHOWN)),
            protection=_with_fields(audit.player_events(player_id, PROTECTION_EVENTS, SHOWN)),
            money=_with_fields(audit.player_events(player_id, MONEY_EVENTS, SHOWN)),
            limits=_limits(deps, player_id),
            operators_wallet=deps.wallet_owed is not None,  # the seamless wallet owes, or none
        )
    return page("player.html", context, status=200 if state is not None else 404)


def _limits(deps: HttpDeps, player_id: str) -> dict[str, Any] | None:
    try:
        return deps.service.limits(player_id)
    except PlayerNotFound:  # in the read models before the write side has it: none to show
        return None


def _with_fields(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with its event's recorded fields (`fields`), for the page to show."""
    shown = []
    for row in rows:
        try:
            fields = json.loads(row.get("data") or "{}")
        except ValueError:
            fields = {}
        shown.append({**row, "fields": fields if isinstance(fields, dict) else {}})
    return shown
