"""The format and range rules of request values, as the OpenAPI document shows them.

Documentation only: the values are still checked by `checks.py` and the domain, which answer
their own codes (422 invalid_player_id, invalid_amount, invalid_request_id...); a schema
constraint here would answer a generic 422 invalid_request instead. Built from the same
constants the checks use, so the document cannot drift from them.
"""

from __future__ import annotations

from typing import Any

from domain.ledger.identifiers import (
    MAX_AMOUNT,
    PLAYER_ID_CHARS,
    PLAYER_ID_MAX,
    PLAYER_ID_PATTERN,
    REQUEST_ID_MAX,
)

PLAYER_ID: dict[str, Any] = {
    "pattern": f"^{PLAYER_ID_PATTERN}$",
    "minLength": 1,
    "maxLength": PLAYER_ID_MAX,
    "description": f"1-{PLAYER_ID_MAX} of {PLAYER_ID_CHARS}",
}
REQUEST_ID: dict[str, Any] = {
    "pattern": f"^[!-~]{{1,{REQUEST_ID_MAX}}}$",  # REQUEST_ID_PATTERN, without escapes
    "minLength": 1,
    "maxLength": REQUEST_ID_MAX,
    "description": f"1-{REQUEST_ID_MAX} printable ASCII characters, no spaces; the same id "
    "again answers the first result (for at least 30 days)",
}
AMOUNT: dict[str, Any] = {
    "minimum": 1,
    "maximum": MAX_AMOUNT,
    "description": f"minor units, 1 to {MAX_AMOUNT}; no balance passes 2^53 - 1 (409 balance_cap)",
}
ROUND_ID: dict[str, Any] = {
    "pattern": f"^{PLAYER_ID_PATTERN}\\.[1-9][0-9]{{0,17}}$",
    "description": "<player_id>.<round number>",
}


def iso_time(pattern: str) -> dict[str, Any]:
    """An ISO-8601 date or time query value (`pattern` is the one the route checks with)."""
    return {"pattern": f"^{pattern}$", "examples": ["2026-11-30", "2026-11-30T12:00:00Z"]}
