"""The Pumpkin wallet protocol's request signature (CONTRACT.md "The operator's seamless wallet"):

    X-Pumpkin-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<call>.<raw body>")>

The call's name and the time are signed with the body, so a signed body cannot be replayed to
another call (a debit's body posted to /credit), nor later than WINDOW_SECONDS from the
receiver's clock. One definition, used by the client (client.py) and the reference wallet
(reference.py), so both sides always agree.
"""

from __future__ import annotations

import hashlib
import hmac
import time

HEADER = "X-Pumpkin-Signature"
WINDOW_SECONDS = 300


def _digest(secret: str, timestamp: int, call: str, body: bytes) -> str:
    signed = f"{timestamp}.{call}.".encode("ascii") + body
    return hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()


def sign(secret: str, call: str, body: bytes, timestamp: int | None = None) -> str:
    """The header's value for `body` sent to `call` at `timestamp` (unix seconds; now)."""
    at = int(time.time()) if timestamp is None else timestamp
    return f"t={at},v1={_digest(secret, at, call, body)}"


def verified(
    secret: str, call: str, body: bytes, header: str, now: float | None = None,
    window: float = WINDOW_SECONDS,
) -> bool:
    """Whether `header` signs `body` for `call`, at a time within `window` seconds of `now`."""
    fields: dict[str, str] = {}
    for part in header.split(","):
        name, _, value = part.strip().partition("=")
        fields.setdefault(name, value)
    stamp, given = fields.get("t", ""), fields.get("v1", "")
    if not stamp.isdigit() or len(stamp) > 12 or not given:
        return False
    at = int(stamp)
    clock = time.time() if now is None else now
    if abs(clock - at) > window:
        return False
    return hmac.compare_digest(given, _digest(secret, at, call, body))
