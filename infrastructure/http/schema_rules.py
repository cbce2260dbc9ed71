"""The format and range rules of request values, as the OpenAPI document shows them.

Documentation only: the values are still checked by `checks.py` and the domain, which answer
their own codes (422 invalid_player_id, invalid_amount, invalid_request_id...); a schema
constraint here would answer a generic 422 invalid_request instead. Built from the same
constants the checks use, so the document cannot drift from them.
"""

from __future__ import annotations

from typing import Any

from domain.player import MAX_AMOUNT

PLAYER_ID: dict[str, Any] = {
    "pattern": "^[A-Za-z0-9_-]{1,64}$",
    "minLength": 1,
    "maxLength": 64,
    "description": "1-64 of A-Z a-z 0-9 _ -",
}
REQUEST_ID: dict[str, Any] = {
    "pattern": "^[!-~]{1,128}$",
    "minLength": 1,
    "maxLength": 128,
    "description": "1-128 printable ASCII characters, no spaces; the same id again answers the "
    "first result (for at least 30 days)",
}
AMOUNT: dict[str, Any] = {
    "minimum": 1,
    "maximum": MAX_AMOUNT,
    "description": f"minor units, 1 to {MAX_AMOUNT}; no balance passes 2^53 - 1 (409 balance_cap)",
}
ROUND_ID: dict[str, Any] = {
    "pattern": "^[A-Za-z0-9_-]{1,64}\\.[1-9][0-9]{0,17}$",
    "description": "<player_id>.<round number>",
}


def iso_time(pattern: str) -> dict[str, Any]:
    """An ISO-8601 date or time query value (`pattern` is the one the route checks with)."""
    return {"pattern": f"^{pattern}$", "examples": ["2026-11-30", "2026-11-30T12:00:00Z"]}
