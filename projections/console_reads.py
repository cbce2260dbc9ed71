"""Reads for the console (infrastructure/pages): a player's latest audit events, and the service's
significant events (anything but the routine of rounds, money and opening sessions: closes,
exclusions, limits, configuration... whatever the streams come to record), newest first."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.game.facts import ROUND_FACTS
from projections.database import iso_time
from projections.recorders import Row

Read = Callable[[str, Mapping[str, Any]], list[Row]]

ROUTINE_EVENTS = (
    *ROUND_FACTS,
    "StakePlaced",
    "RoundSettled",
    "Registered",
    "Deposited",
    "Withdrawn",
    "SessionOpened",
    "SessionClosed",
    "Issued",
    # a session's bookkeeping: its protection, its reveal, its final figures
    "SessionProtected",
    "SeedRevealed",
    "Closed",
    "RealityCheckAnswered",
    # the operator's wallet's routine: its balances, debits, credits and their acknowledgements
    "WalletBalanceReported",
    "BalanceReported",
    "Opened",
    "DebitRecorded",
    "CreditOwed",
    "Acknowledged",
)


# The bookkeeping of the service's key streams (request ids, session keys, token keys): each
# names a player but is no event of the player's (a request key is version 1 of a stream of its
# own); kept out of a player's trail (the export, GET /audit/events, has them all).
KEY_EVENTS = ("Issued", "Closed")


def audit_tail(read: Read, player_id: str, limit: int) -> list[dict[str, Any]]:
    """The player's last `limit` audit rows (its own stream and its wallet account's), newest
    first."""
    keys = {f"key{i}": name for i, name in enumerate(KEY_EVENTS)}
    rows = read(
        "SELECT * FROM view_audit WHERE player_id = :player_id "
        f"AND name NOT IN ({', '.join(':' + key for key in keys)}) "
        "ORDER BY position DESC LIMIT :limit",
        {**keys, "player_id": player_id, "limit": limit},
    )
    return [_shown(row) for row in rows]


def player_events(
    read: Read, player_id: str, names: tuple[str, ...], limit: int
) -> list[dict[str, Any]]:
    """The player's latest events of these names, newest first (the console's player page)."""
    wanted = {f"name{i}": name for i, name in enumerate(names)}
    rows = read(
        "SELECT * FROM view_audit WHERE player_id = :player_id "
        f"AND name IN ({', '.join(':' + key for key in wanted)}) "
        "ORDER BY position DESC LIMIT :limit",
        {**wanted, "player_id": player_id, "limit": limit},
    )
    return [_shown(row) for row in rows]


def significant_events(read: Read, limit: int, window: int) -> list[dict[str, Any]]:
    """The last `limit` events outside ROUTINE_EVENTS among the store's last `window` events
    (bounded: the console never scans the whole trail)."""
    names = {f"routine{i}": name for i, name in enumerate(ROUTINE_EVENTS)}
    rows = read(
        "SELECT * FROM view_audit WHERE position > "
        "(SELECT COALESCE(MAX(position), 0) FROM view_audit) - :window "
        f"AND name NOT IN ({', '.join(':' + key for key in names)}) "
        "ORDER BY position DESC LIMIT :limit",
        {**names, "window": window, "limit": limit},
    )
    return [_shown(row) for row in rows]


def _shown(row: Row) -> dict[str, Any]:
    return {**row, "timestamp": iso_time(row["timestamp"])}
