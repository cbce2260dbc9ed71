"""Open to anyone: health, the rules document, Prometheus metrics."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

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
def metrics(deps: Deps) -> Response:
    return Response(deps.metrics.exposition(), media_type="text/plain; version=0.0.4")
