"""/play: a game client for one session token, played through the JSON API by the ES modules under
static/play/. The token never reaches this page's server side: it is pasted or arrives as
`#token=...`; the page is told only the currency its money is shown in."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from infrastructure.http.deps import HttpDeps
from infrastructure.pages.web import page

router = APIRouter(include_in_schema=False)
# Every module is preloaded with the page, so the browser fetches them at once instead of
# discovering them import by import.
MODULES = tuple(
    sorted(path.name for path in (Path(__file__).parent / "static" / "play").glob("*.js"))
)


@router.get("/play", response_class=HTMLResponse)
def play(request: Request) -> HTMLResponse:
    deps: HttpDeps = request.app.state.deps
    return page(
        "play.html", {"title": "Play Pumpkin", "currency": deps.currency, "modules": MODULES}
    )
