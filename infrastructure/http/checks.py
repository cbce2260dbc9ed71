"""Format and range rules on request values, raised as the domain's named errors."""

from __future__ import annotations

import re

from domain.errors import InvalidAmount, InvalidPlayerId, InvalidRequestId

MAX_AMOUNT = 10**12  # minor units; far above any real movement, far below any overflow
_PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def player_id(value: str) -> str:
    if not _PLAYER_ID.fullmatch(value):
        raise InvalidPlayerId("player_id is 1-64 characters of A-Z a-z 0-9 _ -")
    return value


def amount(value: int) -> int:
    if not 0 < value <= MAX_AMOUNT:
        raise InvalidAmount(f"amount is an integer of minor units, 1..{MAX_AMOUNT}")
    return value


def request_id(value: str) -> str:
    if not 1 <= len(value) <= 128 or not value.isprintable():
        raise InvalidRequestId("request_id is 1-128 printable characters")
    return value
