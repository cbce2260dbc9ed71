"""Signing in to /console and out of it, and the gate every console page passes.

A key is traded for a cookie naming a sign-in the server keeps (console_auth.py, sign_ins.py);
every POST form carries a CSRF token bound to a cookie, and a POST from another origin is
refused. The sign-in form is good for one attempt. Wrong keys, and cookies that name no live
sign-in, count against the same failure budget per address as wrong bearer secrets
(RateLimiter): past it every attempt from that address, the right key included, is 429 with
Retry-After until the budget refills."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from infrastructure.http.anonymous_limit import client_address
from infrastructure.http.ratelimit import RateLimiter
from infrastructure.pages.console_auth import (
    FORM_SECONDS,
    PRE_COOKIE,
    SESSION_COOKIE,
    SIGN_IN_SECONDS,
    ConsoleUser,
)
from infrastructure.pages.web import page, pages_of

router = APIRouter(prefix="/console", include_in_schema=False)


class NotSignedIn(Exception):
    """A console page asked without a live sign-in: answered with the sign-in page's address."""


class LockedOut(Exception):
    """The address is past its failed-authentication budget: 429 until it refills."""


def _budget(request: Request) -> tuple[RateLimiter, str]:
    """The one failure budget of wrong secrets (bearer or console), and the caller's address."""
    limiter: RateLimiter = request.app.state.limiter
    return limiter, client_address(request.scope)


def current_user(request: Request) -> ConsoleUser | None:
    """The signed-in user, or None. A cookie that names no live sign-in (made up, signed out,
    expired or from a rotated key) is a wrong secret like any other and counts against the
    address's budget; while that budget is spent every console page is refused (LockedOut)."""
    limiter, address = _budget(request)
    if not limiter.may_try_credentials(address):
        raise LockedOut
    pages = pages_of(request)
    cookie = request.cookies.get(SESSION_COOKIE)
    user = pages.console.user(cookie, pages.clock().timestamp())
    if user is None and cookie:
        limiter.failed(address)
    return user


def signed_in(request: Request) -> ConsoleUser:
    user = current_user(request)
    if user is None:
        raise NotSignedIn
    return user


SignedIn = Annotated[ConsoleUser, Depends(signed_in)]
MaybeSignedIn = Annotated[ConsoleUser | None, Depends(current_user)]


def console_context(request: Request, user: ConsoleUser, section: str) -> dict[str, Any]:
    """What every console page's template is given: the user, its section, its forms' token,
    and the read models failing now (a banner names them: what the console shows may be
    behind)."""
    return {
        "title": f"Console · {section}",
        "user": user,
        "section": section,
        "csrf": pages_of(request).console.csrf_token(user.cookie),
        "failing_views": failing_views(request),
    }


def failing_views(request: Request) -> dict[str, dict[str, Any]]:
    """The read models failing now (view -> {"position", "error"}); called from a worker
    thread (the console's routes are plain functions), so the store may be asked here."""
    health = getattr(request.app.state.deps, "read_models", None)
    if health is None:
        return {}
    health.refresh()
    failing: dict[str, dict[str, Any]] = health.failing()
    return failing


def not_signed_in(request: Request, _exc: Exception) -> Response:
    response = to_console()
    if SESSION_COOKIE in request.cookies:
        response.delete_cookie(SESSION_COOKIE, path="/console")  # it names nothing: forget it
    return response


def locked_out(request: Request, _exc: Exception) -> Response:
    wait = _budget(request)[0].retry_after_seconds()
    message = (
        "Too many wrong keys from this address. Every attempt is refused, the right key "
        f"included, until the allowance refills: try again in {wait} s."
    )
    return page(
        "refused.html",
        {"title": "Too many attempts", "message": message},
        status=429,
        headers={"Retry-After": str(wait)},
    )


def to_console(path: str = "/console") -> RedirectResponse:
    """A redirect that may set or clear the sign-in cookie (a session token): never cached."""
    return RedirectResponse(path, status_code=303, headers={"Cache-Control": "no-store"})


def refused(message: str) -> HTMLResponse:
    return page("refused.html", {"title": "Refused", "message": message}, status=403)


def set_cookie(request: Request, response: Response, name: str, value: str, seconds: int) -> None:
    """HttpOnly, SameSite=Strict, for /console only; Secure whenever the page came over TLS."""
    response.set_cookie(
        name,
        value,
        max_age=seconds,
        path="/console",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    return origin is None or origin == f"{request.url.scheme}://{request.url.netloc}"


async def posted_form(request: Request) -> dict[str, str]:
    """A url-encoded form's fields (the first of each); nothing for a body that is not one."""
    try:
        fields = parse_qs((await request.body()).decode("utf-8", "replace"), max_num_fields=20)
    except ValueError:
        return {}
    return {name: values[0] for name, values in fields.items()}


def csrf_ok(request: Request, user: ConsoleUser, form: Mapping[str, str]) -> bool:
    return _same_origin(request) and pages_of(request).console.csrf_ok(
        user.cookie, form.get("csrf")
    )


def sign_in_page(request: Request, error: str = "", status: int = 200) -> HTMLResponse:
    """The sign-in form, bound to a fresh form cookie: each form is good for one attempt."""
    pages = pages_of(request)
    pre = pages.console.form_cookie(pages.clock().timestamp())
    response = page(
        "sign_in.html",
        {"title": "Sign in", "csrf": pages.console.csrf_token(pre), "error": error},
        status=status,
    )
    set_cookie(request, response, PRE_COOKIE, pre, FORM_SECONDS)
    if SESSION_COOKIE in request.cookies:
        response.delete_cookie(SESSION_COOKIE, path="/console")
    return response


@router.post("/sign-in", response_class=HTMLResponse)
async def sign_in(request: Request) -> Response:
    pages = pages_of(request)
    limiter, address = _budget(request)
    if not limiter.may_try_credentials(address):
        raise LockedOut
    form = await posted_form(request)
    pre, now = request.cookies.get(PRE_COOKIE), pages.clock().timestamp()
    if (
        not _same_origin(request)
        or not pages.console.csrf_ok(pre, form.get("csrf"))
        or not await run_in_threadpool(pages.console.use_form, pre, now)
    ):
        return refused(
            "The sign-in form had been used, had expired or came from elsewhere. Reload the page."
        )
    role = pages.console.role_of_key(form.get("key", ""))
    if role is None:
        limiter.failed(address)
        return sign_in_page(request, "That key is neither the auditor's nor the operator's.", 401)
    response = to_console()
    cookie = await run_in_threadpool(pages.console.sign_in, role, now)
    set_cookie(request, response, SESSION_COOKIE, cookie, SIGN_IN_SECONDS)
    response.delete_cookie(PRE_COOKIE, path="/console")
    return response


@router.post("/sign-out", response_class=HTMLResponse)
async def sign_out(request: Request) -> Response:
    """Ends the sign-in on the server: the cookie, sent again, opens nothing."""
    pages = pages_of(request)
    cookie = request.cookies.get(SESSION_COOKIE)
    form = await posted_form(request)
    if cookie:
        if not (_same_origin(request) and pages.console.csrf_ok(cookie, form.get("csrf"))):
            return refused("The sign-out form had expired or came from elsewhere.")
        await run_in_threadpool(pages.console.sign_out, cookie)
    response = to_console()
    response.delete_cookie(SESSION_COOKIE, path="/console")
    return response
