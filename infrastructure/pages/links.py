"""Signed, expiring replay links: /replay/{round_id}?expires=UNIX_SECONDS&sig=HEX, where
sig = HMAC-SHA256(the pages' replay key, "<round_id>:<expires>"). Anyone holding the link may see
that one round until it expires; nothing else is reachable with it."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote

from infrastructure.pages.keys import PageKeys

MIN_TTL_SECONDS = 60
MAX_TTL_SECONDS = 2_592_000
DEFAULT_TTL_SECONDS = 604_800


@dataclass(frozen=True)
class ReplayLink:
    path: str  # /replay/{round_id}?expires=...&sig=...
    expires_at: datetime


class ReplaySigner:
    def __init__(self, keys: PageKeys) -> None:
        self._keys = keys

    def signature(self, round_id: str, expires: int) -> str:
        message = f"{round_id}:{expires}".encode()
        return hmac.new(self._keys.for_use("replay"), message, hashlib.sha256).hexdigest()

    def link(self, round_id: str, now: datetime, ttl_seconds: int) -> ReplayLink:
        expires = int(now.timestamp()) + ttl_seconds
        sig = self.signature(round_id, expires)
        path = f"/replay/{quote(round_id, safe='')}?expires={expires}&sig={sig}"
        return ReplayLink(path, datetime.fromtimestamp(expires, UTC))

    def valid(self, round_id: str, expires: str, sig: str, now: datetime) -> bool:
        """Whether the link is the one this service signed and has not expired (the signature
        is compared in constant time, and before the expiry is believed)."""
        if not (expires.isascii() and expires.isdigit()) or len(expires) > 12:
            return False
        expected = self.signature(round_id, int(expires))
        if not hmac.compare_digest(expected.encode(), sig.encode("utf-8", "replace")):
            return False
        return int(expires) > now.timestamp()
