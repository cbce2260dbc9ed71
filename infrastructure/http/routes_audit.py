"""Audit dashboards: statistics, round search, balances and the audit trail, from read models."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import AfterValidator

from domain.errors import RuleViolation
from domain.ledger.identifiers import PLAYER_ID_PATTERN
from domain.ledger.round_features import FEATURE_EVENTS
from infrastructure.http import schema_rules
from infrastructure.http.auth import CallerDep
from infrastructure.http.deps import AuditReads, Deps, HttpDeps
from infrastructure.http.errors import invalid_query
from infrastructure.http.routes_operator import ERRORS
from infrastructure.http.routes_reads import Before

router = APIRouter(prefix="/audit", tags=["audit"], responses=ERRORS)  # type: ignore[arg-type]

_ISO_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?(Z|[+-]\d{2}:\d{2})?"
)


def iso_time(value: str | None) -> str | None:
    """An ISO-8601 date or time both stores understand (PostgreSQL refused the rest with a 500)."""
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value) if _ISO_TIME.fullmatch(value) else None
    except ValueError:
        moment = None
    offset = moment.utcoffset() if moment is not None else None
    if moment is None or (offset is not None and abs(offset) >= timedelta(hours=16)):
        raise ValueError("an ISO-8601 date or time, e.g. 2026-11-30 or 2026-11-30T12:00:00Z")
    return value


Time = Annotated[
    str | None,
    Query(
        max_length=40,
        description="ISO-8601, e.g. 2026-11-30",
        json_schema_extra=schema_rules.iso_time(_ISO_TIME.pattern),
    ),
    AfterValidator(iso_time),
]
PlayerFilter = Annotated[str | None, Query(pattern=f"^{PLAYER_ID_PATTERN}$")]
ModelFilter = Annotated[str | None, Query(max_length=80, pattern=r"^[\x21-\x7e]+$")]


class ReadModelsUnavailable(RuleViolation):
    code = "read_models_unavailable"
Feature = Annotated[str | None, Query(max_length=40, json_schema_extra={"enum": [*FEATURE_EVENTS]})]


def _audit(deps: HttpDeps) -> AuditReads:
    if deps.audit is None:
        raise ReadModelsUnavailable("this service runs without read models")
    return deps.audit


@router.get("/stats")
def stats(
    caller: CallerDep,
    deps: Deps,
    since: Time = None,
    until: Time = None,
    model_version: ModelFilter = None,
) -> Any:
    """Per day, game state and model version: rounds, staked, won, actual beside theoretical
    RTP, feature counts, jackpots by tier and the largest wins."""
    caller.may_audit()
    found = _audit(deps).stats(since=since, until=until, model_version=model_version)
    return JSONResponse(jsonable_encoder(found))


@router.get("/rounds")
def rounds(
    caller: CallerDep,
    deps: Deps,
    player_id: PlayerFilter = None,
    since: Time = None,
    until: Time = None,
    min_win: Annotated[int | None, Query(ge=0)] = None,
    feature: Feature = None,
    model_version: ModelFilter = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    before: Before = None,
) -> Any:
    """Round summaries matching every filter, newest first (big wins: `min_win`)."""
    caller.may_audit()
    try:
        found = _audit(deps).find_rounds(
            player_id=player_id,
            since=since,
            until=until,
            min_win=min_win,
            feature=feature,
            model_version=model_version,
            limit=limit,
            before=before,
        )
    except ValueError as error:  # a feature it does not know
        raise invalid_query(f"feature: {error}") from None
    return JSONResponse(jsonable_encoder({"rounds": found}))


@router.get("/balances")
def balances(caller: CallerDep, deps: Deps) -> Any:
    caller.may_audit()
    return JSONResponse(jsonable_encoder({"balances": _audit(deps).balances()}))


@router.get(
    "/events",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "one event a line: JSON lines (`format=jsonl`, the default) or CSV",
            "content": {"application/x-ndjson": {}, "text/csv": {}},
        }
    },
)
def events(
    caller: CallerDep,
    deps: Deps,
    player_id: PlayerFilter = None,
    format: Literal["csv", "jsonl"] = "jsonl",  # noqa: A002 - the query parameter's name
) -> Any:
    """The audit trail: every event flattened (stream, version, position, name, time, round,
    amounts, hashes), by global position, as CSV or JSON lines."""
    caller.may_audit()
    if deps.audit_trail is None:
        raise ReadModelsUnavailable("this service runs without read models")
    return deps.audit_trail.response(player_id, format)
