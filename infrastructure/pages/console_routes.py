"""/console: the audit and operations console, for the auditor or the operator key.

Every page passes the sign-in gate (console_sign_in.py); every POST form carries a CSRF token
bound to the sign-in, and no GET form or link carries one. Data come from the read models
in-process (projections.queries via HttpDeps), never over HTTP."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from domain.ledger.round_features import FEATURE_EVENTS
from infrastructure.http.deps import Deps
from infrastructure.http.routes_audit import iso_time
from infrastructure.pages.console_sign_in import (
    MaybeSignedIn,
    SignedIn,
    console_context,
    sign_in_page,
)
from infrastructure.pages.rtp import MIN_ROUNDS, all_states, state_rtps
from infrastructure.pages.svg import rtp_chart
from infrastructure.pages.web import page, pages_of

router = APIRouter(prefix="/console", include_in_schema=False)

SIGNIFICANT_SHOWN = 30
REPLAY_FROM_CONSOLE_SECONDS = 3600


@router.get("", response_class=HTMLResponse)
def console(request: Request, deps: Deps, user: MaybeSignedIn) -> Response:
    if user is None:
        return sign_in_page(request)
    context = console_context(request, user, "overview")
    since, until = (request.query_params.get(name, "")[:40] for name in ("since", "until"))
    context.update(since=since, until=until, range_error="", min_rounds=MIN_ROUNDS)
    try:
        since_time, until_time = iso_time(since or None), iso_time(until or None)
    except ValueError as error:
        since_time = until_time = None
        context["range_error"] = f"since and until: {error}"
    if deps.audit is not None:
        stats = deps.audit.stats(since=since_time, until=until_time, model_version=None)
        ranged = since_time is not None or until_time is not None
        # the growth read model spans every day; a range's growth comes from its days
        states = state_rtps(stats["buckets"], None if ranged else deps.audit.rtp_growth())
        context.update(
            whole=all_states(states),
            states=states,
            charts={(s.state, s.model_version): rtp_chart(s) for s in states},
            jackpots=_jackpot_totals(stats["buckets"]),
            largest_wins=stats["largest_wins"][:10],
            model_versions=sorted({s.model_version for s in states}),
            significant=deps.audit.significant_events(SIGNIFICANT_SHOWN),
        )
    context.update(rules=deps.rules_document(), read_models=deps.audit is not None)
    # The operator's seamless wallet owes these (None: the built-in wallet owes nothing).
    context.update(owed=deps.wallet_owed() if deps.wallet_owed is not None else None)
    return page("console.html", context)


@router.get("/players", response_class=HTMLResponse)
def players(request: Request, deps: Deps, user: SignedIn) -> Response:
    context = console_context(request, user, "players")
    context.update(players=deps.audit.balances() if deps.audit is not None else None)
    return page("players.html", context)


@router.get("/rounds", response_class=HTMLResponse)
def rounds(request: Request, deps: Deps, user: SignedIn) -> Response:
    """The /audit/rounds search (the same filters, checked the same way); each round found
    opens its replay."""
    filters = {name: request.query_params.get(name, "")[:100] for name in _FILTERS}
    filters["limit"] = filters["limit"] or "50"
    context = console_context(request, user, "rounds")
    context.update(filters=filters, found=None, error="", features=list(FEATURE_EVENTS))
    if deps.audit is not None and request.query_params:
        try:
            context["found"] = deps.audit.find_rounds(**_search(filters))
        except ValueError as error:
            context["error"] = str(error)
    return page("rounds.html", context)


_FILTERS = ("player_id", "since", "until", "min_win", "feature", "model_version", "limit")
_PLAYER = re.compile(r"[A-Za-z0-9_-]{1,64}")
_MODEL = re.compile(r"[\x21-\x7e]{1,80}")


def _search(filters: Mapping[str, str]) -> dict[str, Any]:
    """find_rounds' arguments from the form's text, or ValueError saying what is wrong."""
    player, model = filters["player_id"], filters["model_version"]
    if player and not _PLAYER.fullmatch(player):
        raise ValueError("a player id is 1-64 of A-Z a-z 0-9 _ -")
    if model and not _MODEL.fullmatch(model):
        raise ValueError("a model version is printable ASCII without spaces")
    if filters["feature"] and filters["feature"] not in FEATURE_EVENTS:
        raise ValueError(f"feature is one of {', '.join(FEATURE_EVENTS)}")
    return {
        "player_id": player or None,
        "since": iso_time(filters["since"] or None),
        "until": iso_time(filters["until"] or None),
        "min_win": _whole(filters["min_win"], "min win", 0, 2**63 - 1),
        "feature": filters["feature"] or None,
        "model_version": model or None,
        "limit": _whole(filters["limit"], "limit", 1, 1000),
    }


def _whole(text: str, name: str, low: int, high: int) -> int | None:
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
        raise ValueError(f"{name} is a whole number from {low:,} to {high:,}")
    return int(text)


@router.get("/replay/{round_id}")
def open_replay(request: Request, round_id: str, deps: Deps, _user: SignedIn) -> Response:
    """A signed-in user opens a round's replay through a fresh short-lived signed link."""
    if deps.rounds.round(round_id) is None:
        return page("refused.html", {"title": "No such round", "message": "Not recorded."}, 404)
    pages = pages_of(request)
    link = pages.signer.link(round_id, pages.clock(), REPLAY_FROM_CONSOLE_SECONDS)
    return RedirectResponse(link.path, status_code=303)


def _jackpot_totals(buckets: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    totals: dict[str, dict[str, int]] = {}
    for bucket in buckets:
        for tier, won in (bucket.get("jackpots") or {}).items():
            total = totals.setdefault(tier, {"count": 0, "amount": 0, "prize": 0})
            for figure in total:
                total[figure] += int(won.get(figure) or 0)
    return totals
