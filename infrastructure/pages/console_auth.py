"""Console sign-in: a signed cookie, never the key itself, and CSRF tokens bound to it.

The cookie holds "<role>.<expires>.<nonce>.<sig>", sig = HMAC(console key, those three and a
fingerprint of the role's current key): it proves the key was shown once, expires after
SIGN_IN_SECONDS, and stops working the moment that role's key is changed. Before sign-in a random
"pre" cookie binds the sign-in form's CSRF token. Both cookies are HttpOnly, SameSite=Strict."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Literal

from infrastructure.pages.keys import PageKeys

SESSION_COOKIE = "pumpkin_console"
PRE_COOKIE = "pumpkin_console_pre"
SIGN_IN_SECONDS = 8 * 3600

ConsoleRole = Literal["operator", "auditor"]


@dataclass(frozen=True)
class ConsoleUser:
    role: ConsoleRole
    cookie: str


class ConsoleAuth:
    def __init__(self, keys: PageKeys, operator_key: str, auditor_key: str) -> None:
        self._keys = keys
        self._role_keys: dict[ConsoleRole, str] = {
            "operator": operator_key,
            "auditor": auditor_key,
        }

    def role_of_key(self, key: str) -> ConsoleRole | None:
        """The role whose key this is (compared in constant time), or None."""
        found: ConsoleRole | None = None
        for role, expected in self._role_keys.items():
            if hmac.compare_digest(key.encode(), expected.encode()):
                found = role
        return found

    def cookie_for(self, role: ConsoleRole, now: float) -> str:
        body = f"{role}.{int(now) + SIGN_IN_SECONDS}.{secrets.token_urlsafe(12)}"
        return f"{body}.{self._sign(body, role)}"

    def user(self, cookie: str | None, now: float) -> ConsoleUser | None:
        """The signed-in user a cookie names, or None (bad, expired or for an old key)."""
        if not cookie or cookie.count(".") != 3:
            return None
        body, _, sig = cookie.rpartition(".")
        role, expires, _nonce = body.split(".")
        if role not in self._role_keys or not (expires.isascii() and expires.isdigit()):
            return None
        known: ConsoleRole = "operator" if role == "operator" else "auditor"
        if not hmac.compare_digest(sig.encode(), self._sign(body, known).encode()):
            return None
        return ConsoleUser(known, cookie) if int(expires) > now else None

    def csrf_token(self, bound_to: str) -> str:
        """The CSRF token of forms shown to the holder of cookie `bound_to`."""
        return self._mac("csrf:" + bound_to)[:40]

    def csrf_ok(self, bound_to: str | None, token: str | None) -> bool:
        if not bound_to or not token:
            return False
        return hmac.compare_digest(self.csrf_token(bound_to).encode(), token.encode())

    def _sign(self, body: str, role: ConsoleRole) -> str:
        fingerprint = hashlib.sha256(self._role_keys[role].encode()).hexdigest()
        return self._mac(f"{body}:{fingerprint}")

    def _mac(self, message: str) -> str:
        key = self._keys.for_use("console")
        return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()
