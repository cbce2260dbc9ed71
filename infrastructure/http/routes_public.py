"""Health and the rules document, open to anyone; Prometheus metrics, open to a scraper on this
host (CONTRACT: no role) and to the operator's or the auditor's key from anywhere else: they show
traffic, errors and the store's health, no business of the public network."""

from __future__ import annotations

import ipaddress
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from fastapi.security import HTTPAuthorizationCredentials

from infrastructure.http.anonymous_limit import client_address
from infrastructure.http.auth import bearer_scheme, identify
from infrastructure.http.deps import Deps
from infrastructure.http.models import Health, ReadModelState
from infrastructure.http.responses import FastJSONResponse

router = APIRouter(tags=["public"])


@router.get("/health", response_model=Health, response_model_exclude_none=True)
async def health(deps: Deps) -> Health:
    """200 "ok"; or, while a read model is failing, still 200 but "degraded", naming each failing
    one with its position and error (CONTRACT.md)."""
    if deps.read_models is not None:
        await deps.read_models.refreshed()
        failing = deps.read_models.failing()
        if failing:
            return Health(
                status="degraded",
                read_models={view: ReadModelState(**state) for view, state in failing.items()},
            )
    return Health(status="ok")


@router.get("/rules", response_model=dict[str, Any])
def rules(deps: Deps) -> Any:
    return FastJSONResponse(deps.rules_document())


@router.get("/metrics", response_class=Response)
async def metrics(
    request: Request,
    deps: Deps,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> Response:
    """Prometheus text: a scraper on this host needs no key; from elsewhere, the operator's or
    the auditor's key as bearer."""
    if credentials is not None or not on_this_host(client_address(request.scope)):
        caller = await identify(request, deps, credentials.credentials if credentials else None)
        caller.may_read_metrics()
    if deps.read_models is not None:
        await deps.read_models.refreshed()  # pumpkin_read_model_errors_total, from the store
    return Response(deps.metrics.exposition(), media_type="text/plain; version=0.0.4")


def on_this_host(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False
