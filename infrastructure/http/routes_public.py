"""Health and the rules document, open to anyone; Prometheus metrics, for the operator and the
auditor only (they show traffic, errors and the store's health: no business of the public)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from infrastructure.http.auth import CallerDep
from infrastructure.http.deps import Deps
from infrastructure.http.models import Health
from infrastructure.http.responses import FastJSONResponse

router = APIRouter(tags=["public"])


@router.get("/health", response_model=Health)
async def health() -> Health:
    return Health(status="ok")


@router.get("/rules", response_model=dict[str, Any])
def rules(deps: Deps) -> Any:
    return FastJSONResponse(deps.rules_document())


@router.get("/metrics", response_class=Response)
def metrics(caller: CallerDep, deps: Deps) -> Response:
    """Prometheus text; scrape it with the operator's or the auditor's key as bearer."""
    caller.may_read_metrics()
    return Response(deps.metrics.exposition(), media_type="text/plain; version=0.0.4")
