"""Format and range rules on request values (domain.ledger.identifiers), raised as the domain's
named errors before a request reaches the service."""

from __future__ import annotations

from domain.errors import InvalidAgeBand
from domain.ledger.identifiers import check_amount, check_player_id, check_request_id
from domain.ledger.protection import check_age_band


def player_id(value: str) -> str:
    check_player_id(value)
    return value


def amount(value: int) -> int:
    check_amount(value)
    return value


def request_id(value: str) -> str:
    check_request_id(value)
    return value


def age_band(value: object) -> str:
    """A band given in the body (absent is unknown; null or anything else is not a band)."""
    band = check_age_band(value)
    if band is None:
        raise InvalidAgeBand("age_band is 18-24 or 25+ (leave it out when it is unknown)")
    return band
