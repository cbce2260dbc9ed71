"""What every page shares: the Jinja2 templates, the security headers, the static files and the
pages' state (keys, signer, console sign-in, clock) kept on the app."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.types import Message, Receive, Scope, Send

from infrastructure.pages.assets import ContentsNamedFiles
from infrastructure.pages.console_auth import ConsoleAuth
from infrastructure.pages.keys import PageKeys
from infrastructure.pages.links import ReplaySigner
from infrastructure.pages.sign_ins import SignIns, SignInsInMemory

_HERE = Path(__file__).parent
STATIC_PREFIX = "/static/pages"

# Only this service's own scripts, styles and connections; no frames, no plugins, no inline code.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    # Referer only within this service: a replay link's signature never leaves in one, and forms
    # still send their Origin (with "no-referrer" a browser posts "Origin: null").
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}

# Static files are cached as usual (they hold no secret), with every other page header.
STATIC_HEADERS = {name: value for name, value in PAGE_HEADERS.items() if name != "Cache-Control"}

_STATIC_RAW_HEADERS = [(k.lower().encode(), v.encode()) for k, v in STATIC_HEADERS.items()]


class GuardedStaticFiles(StaticFiles):
    """The pages' scripts, styles and images, with the pages' security headers: never sniffed
    into another type, never framed, and under the same CSP (an SVG opened directly runs no
    script)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":  # a file, or 304 Not Modified
                message["headers"] = [*message.get("headers", []), *_STATIC_RAW_HEADERS]
            await send(message)

        await super().__call__(scope, receive, with_headers)


# The same files under a name made of their contents (assets.py), which the pages link to.
ASSETS = ContentsNamedFiles(_HERE / "static", _STATIC_RAW_HEADERS)
ASSETS_PREFIX = ASSETS.prefix


templates = Environment(
    loader=FileSystemLoader(_HERE / "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
templates.filters["money"] = lambda v: f"{v / 100:,.2f}" if isinstance(v, int) else "–"
templates.filters["pct"] = lambda v: f"{v:.2%}" if isinstance(v, int | float) else "–"
templates.filters["thousands"] = lambda v: f"{v:,}" if isinstance(v, int) else v
templates.filters["epoch"] = lambda v: (  # Unix seconds, to the second, UTC
    datetime.fromtimestamp(v, UTC).strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(v, int | float) else ""
)
templates.filters["when"] = lambda v: str(v or "")[:19].replace("T", " ")  # to the second, UTC


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Pages:
    keys: PageKeys
    signer: ReplaySigner
    console: ConsoleAuth
    clock: Callable[[], datetime] = field(default=_now)


def pages_of(request: Request) -> Pages:
    pages: Pages = request.app.state.pages
    return pages


def page(
    name: str, context: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None
) -> HTMLResponse:
    html = templates.get_template(name).render(static=ASSETS_PREFIX, **context)
    return HTMLResponse(html, status_code=status, headers={**PAGE_HEADERS, **(headers or {})})


def install_pages(
    app: FastAPI,
    keys: PageKeys | None,
    operator_key: str,
    auditor_key: str,
    sign_ins: SignIns | None = None,
) -> None:
    """The pages' routes, their static files and their state, on `app`."""
    from infrastructure.pages import (
        console_player,
        console_routes,
        console_sign_in,
        play_routes,
        replay_routes,
    )

    keys = keys or PageKeys(secrets.token_hex(32))  # no configured key: links last this run
    console = ConsoleAuth(keys, operator_key, auditor_key, sign_ins or SignInsInMemory())
    app.state.pages = Pages(keys, ReplaySigner(keys), console)
    for module in (console_sign_in, console_routes, console_player, replay_routes, play_routes):
        app.include_router(module.router)
    app.add_exception_handler(console_sign_in.NotSignedIn, console_sign_in.not_signed_in)
    app.add_exception_handler(console_sign_in.LockedOut, console_sign_in.locked_out)
    app.mount(STATIC_PREFIX, GuardedStaticFiles(directory=_HERE / "static"), name="pages-static")
    app.mount(ASSETS_PREFIX, ASSETS, name="pages-assets")
