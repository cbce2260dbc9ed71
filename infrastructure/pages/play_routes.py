"""/play: a game client for one session token, played through the JSON API by static/play.js.
The token never reaches this page's server side: it is pasted or arrives as `#token=...`."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from infrastructure.pages.web import page

router = APIRouter(include_in_schema=False)


@router.get("/play", response_class=HTMLResponse)
def play() -> HTMLResponse:
    return page("play.html", {"title": "Play Pumpkin"})
