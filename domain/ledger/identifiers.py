"""The format rules of the ids and amounts a request carries, defined once.

The HTTP layer (infrastructure/http/checks.py, query filters) and the Player aggregate both use
these, so a value the API accepts is one the aggregate accepts, with the same named error.
"""

from __future__ import annotations

import functools
import re
from uuid import UUID, uuid5

from domain.errors import InvalidAmount, InvalidPlayerId, InvalidRequestId

PLAYER_ID_CHARS = "A-Za-z0-9_-"
PLAYER_ID_MAX = 64
PLAYER_ID_PATTERN = f"[{PLAYER_ID_CHARS}]{{1,{PLAYER_ID_MAX}}}"
# Printable ASCII without spaces (0x21-0x7e), so a request id is one unambiguous token.
REQUEST_ID_MAX = 128
REQUEST_ID_PATTERN = rf"[\x21-\x7e]{{1,{REQUEST_ID_MAX}}}"
MAX_AMOUNT = 10**12  # minor units: keeps every balance far inside a JSON-safe integer

NAMESPACE = UUID("6a0e7d3c-58f4-4b9c-9a51-2f1d6c0b7e11")  # fixed: ids must never change
_ROUND_NUMBER = re.compile(r"[1-9][0-9]{0,17}")  # ASCII, no leading zero: one spelling per round
_PLAYER_ID = re.compile(PLAYER_ID_PATTERN)
_REQUEST_ID = re.compile(REQUEST_ID_PATTERN)


def is_player_id(value: object) -> bool:
    return isinstance(value, str) and _PLAYER_ID.fullmatch(value) is not None


def check_player_id(player_id: str) -> None:
    if not is_player_id(player_id):
        raise InvalidPlayerId(f"a player id is 1 to {PLAYER_ID_MAX} of A-Z a-z 0-9 _ -")


def check_request_id(request_id: str) -> None:
    if not isinstance(request_id, str) or not _REQUEST_ID.fullmatch(request_id):
        raise InvalidRequestId(
            f"a request id is 1 to {REQUEST_ID_MAX} printable ASCII characters without spaces"
        )


def check_amount(amount: int) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= MAX_AMOUNT:
        raise InvalidAmount(f"an amount is a whole number of minor units, 1 to {MAX_AMOUNT}")


@functools.lru_cache(maxsize=65_536)
def player_aggregate_id(player_id: str) -> UUID:
    return uuid5(NAMESPACE, f"player:{player_id}")


def round_id_of(player_id: str, number: int) -> str:
    return f"{player_id}.{number}"


def parse_round_id(round_id: str) -> tuple[str, int] | None:
    player_id, _, number = round_id.rpartition(".")
    if not is_player_id(player_id) or not _ROUND_NUMBER.fullmatch(number):
        return None
    return player_id, int(number)
