"""Format and range rules on request values (domain.ledger.identifiers), raised as the domain's
named errors before a request reaches the service."""

from __future__ import annotations

from domain.ledger.identifiers import check_amount, check_player_id, check_request_id


def player_id(value: str) -> str:
    check_player_id(value)
    return value


def amount(value: int) -> int:
    check_amount(value)
    return value


def request_id(value: str) -> str:
    check_request_id(value)
    return value
