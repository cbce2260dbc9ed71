"""The transparency log over HTTP (CONTRACT.md, "Tamper evidence"): the newest checkpoint with
its cosignatures, the log's verifier key and consistency proofs, open to anyone; a round's
inclusion proof to whoever may read the round; witnesses' cosignatures from the auditor."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import PlainTextResponse

from infrastructure.http import schema_rules
from infrastructure.http.auth import CallerDep
from infrastructure.http.deps import Deps, HttpDeps
from infrastructure.http.errors import ApiError
from infrastructure.http.responses import FastJSONResponse
from infrastructure.http.routes_reads import readable_round
from infrastructure.transparency.log_service import InvalidQuery, TransparencyLog

router = APIRouter(tags=["transparency log"])
MAX_NOTE_BYTES = 16 * 1024


def _log(deps: HttpDeps) -> TransparencyLog:
    if deps.transparency is None:
        raise ApiError("not_found", "this service runs without a transparency log")
    log: TransparencyLog = deps.transparency
    return log


@router.get("/log/checkpoint", response_class=PlainTextResponse)
def log_checkpoint(deps: Deps) -> Any:
    return PlainTextResponse(_log(deps).checkpoint())


@router.get("/log/key", response_class=PlainTextResponse)
def log_key(deps: Deps) -> Any:
    return PlainTextResponse(_log(deps).vkey() + "\n")


@router.get("/log/consistency")
def log_consistency(
    deps: Deps,
    first: Annotated[str, Query(max_length=20)] = "",
    second: Annotated[str, Query(max_length=20)] = "",
) -> Any:
    if not (first.isdigit() and second.isdigit()):
        raise InvalidQuery("first and second are tree sizes (whole numbers)")
    return FastJSONResponse({"proof": _log(deps).consistency(int(first), int(second))})


@router.get("/rounds/{round_id}/proof")
def round_proof(
    round_id: Annotated[str, Path(json_schema_extra=schema_rules.ROUND_ID)],
    caller: CallerDep,
    deps: Deps,
) -> Any:
    readable_round(round_id, caller, deps)
    return FastJSONResponse(_log(deps).round_proof(round_id))


@router.post("/log/cosignatures", status_code=201)
async def log_cosignatures(request: Request, caller: CallerDep, deps: Deps) -> Any:
    caller.may_audit()
    body = await request.body()
    if len(body) > MAX_NOTE_BYTES:
        raise ApiError("payload_too_large", f"a cosigned checkpoint is at most {MAX_NOTE_BYTES}")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError("invalid_cosignature", "a cosigned checkpoint is UTF-8 text") from None
    added = _log(deps).add_cosignatures(text)
    return FastJSONResponse({"added": added}, status_code=201)
