"""Helpers for the pages' tests: replay links made and forged, and console sign-in by form."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import urlencode, urlsplit

from http_support import PAGES_KEY

from infrastructure.pages.keys import PageKeys
from infrastructure.pages.links import ReplaySigner

T = TypeVar("T")


def forged_link(round_id: str, now: datetime, ttl_seconds: int) -> str:
    """A link signed with the service's key, valid from `now` (past: already expired)."""
    return ReplaySigner(PageKeys(PAGES_KEY)).link(round_id, now, ttl_seconds).path


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "the page has no form with a CSRF token"
    return found.group(1)


def tampered(url: str) -> str:
    """The link with one hex digit of its signature changed."""
    last = url[-1]
    return url[:-1] + ("0" if last != "0" else "1")


def form(fields: dict[str, Any]) -> dict[str, Any]:
    """What a browser posts for an HTML form (url-encoded)."""
    return {
        "content": urlencode(fields),
        "headers": {"Content-Type": "application/x-www-form-urlencoded"},
    }


def eventually(read: Callable[[], T], ok: Callable[[T], bool], seconds: float = 5.0) -> T:
    """What `read` gives once `ok` holds (the read models follow the store on their own)."""
    deadline = time.monotonic() + seconds
    found = read()
    while not ok(found) and time.monotonic() < deadline:
        time.sleep(0.05)
        found = read()
    return found
