"""Console sign-in: a cookie naming a sign-in the server keeps (sign_ins.py), never the key
itself, and CSRF tokens bound to it.

The console cookie is a random id; the server keeps its digest with the role, the expiry
(SIGN_IN_SECONDS) and a fingerprint of the key that signed in. Signing out deletes the row, so the
cookie sent again opens nothing on any worker; a changed key (rotation) opens none of the sign-ins
made with the old one. Before sign-in a signed "form" cookie binds the sign-in form's CSRF token;
a form is good for one attempt (SignIns.use_once), so one form cannot carry a stream of guesses.
Both cookies are HttpOnly, SameSite=Strict."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Literal

from infrastructure.pages.keys import PageKeys
from infrastructure.pages.sign_ins import SignIn, SignIns

SESSION_COOKIE = "pumpkin_console"
PRE_COOKIE = "pumpkin_console_pre"
SIGN_IN_SECONDS = 8 * 3600
FORM_SECONDS = 3600

ConsoleRole = Literal["operator", "auditor"]
_COOKIE_ID = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)


@dataclass(frozen=True)
class ConsoleUser:
    role: ConsoleRole
    cookie: str


class ConsoleAuth:
    def __init__(
        self, keys: PageKeys, operator_key: str, auditor_key: str, sign_ins: SignIns
    ) -> None:
        self._keys = keys
        self._role_keys: dict[ConsoleRole, str] = {
            "operator": operator_key,
            "auditor": auditor_key,
        }
        self._sign_ins = sign_ins

    def role_of_key(self, key: str) -> ConsoleRole | None:
        """The role whose key this is (compared in constant time), or None."""
        found: ConsoleRole | None = None
        for role, expected in self._role_keys.items():
            if hmac.compare_digest(key.encode(), expected.encode()):
                found = role
        return found

    # -- sign-ins ------------------------------------------------------------------------------

    def sign_in(self, role: ConsoleRole, now: float) -> str:
        """A new sign-in for `role`, kept by the server; its cookie."""
        cookie = secrets.token_urlsafe(32)
        expires = int(now) + SIGN_IN_SECONDS
        self._sign_ins.open(
            SignIn(_digest(cookie), role, self._fingerprint(role), expires), int(now)
        )
        return cookie

    def user(self, cookie: str | None, now: float) -> ConsoleUser | None:
        """The signed-in user a cookie names, or None (unknown, signed out, expired, or made
        with a key that has since changed)."""
        if not cookie or not _COOKIE_ID.fullmatch(cookie):
            return None
        digest = _digest(cookie)
        found = self._sign_ins.find(digest, int(now))
        if found is None:
            return None
        role: ConsoleRole = "operator" if found.role == "operator" else "auditor"
        if found.role not in self._role_keys or not hmac.compare_digest(
            found.key_fingerprint.encode(), self._fingerprint(role).encode()
        ):
            self._sign_ins.end(digest)  # the key was rotated: this sign-in is over
            return None
        return ConsoleUser(role, cookie)

    def sign_out(self, cookie: str) -> None:
        self._sign_ins.end(_digest(cookie))

    # -- the sign-in form ----------------------------------------------------------------------

    def form_cookie(self, now: float) -> str:
        """The cookie a fresh sign-in form is bound to: "<expires>.<nonce>.<sig>"."""
        body = f"{int(now) + FORM_SECONDS}.{secrets.token_urlsafe(16)}"
        return f"{body}.{self._mac('form:' + body)}"

    def use_form(self, cookie: str | None, now: float) -> bool:
        """Whether `cookie` names a form of ours, unexpired and not used before (and, if so,
        it is used now)."""
        if not cookie or cookie.count(".") != 2:
            return False
        body, _, sig = cookie.rpartition(".")
        expires = body.partition(".")[0]
        if not hmac.compare_digest(sig.encode(), self._mac("form:" + body).encode()):
            return False
        if not (expires.isascii() and expires.isdigit()) or int(expires) <= now:
            return False
        return self._sign_ins.use_once(_digest(cookie), int(expires), int(now))

    # -- CSRF ----------------------------------------------------------------------------------

    def csrf_token(self, bound_to: str) -> str:
        """The CSRF token of forms shown to the holder of cookie `bound_to`."""
        return self._mac("csrf:" + bound_to)[:40]

    def csrf_ok(self, bound_to: str | None, token: str | None) -> bool:
        if not bound_to or not token:
            return False
        return hmac.compare_digest(self.csrf_token(bound_to).encode(), token.encode())

    def _fingerprint(self, role: ConsoleRole) -> str:
        return self._mac("key:" + self._role_keys[role])[:32]

    def _mac(self, message: str) -> str:
        key = self._keys.for_use("console")
        return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()


def _digest(cookie: str) -> str:
    return hashlib.sha256(cookie.encode()).hexdigest()
