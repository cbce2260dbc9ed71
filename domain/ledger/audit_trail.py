"""The audit trail as exported (GET /audit/events, `pumpkin projections export`): its columns,
and its cells as a spreadsheet must read them.

Ids may start with `-` (the contract's rule, 1-64 of A-Za-z0-9_-), and a spreadsheet opening the
audit export reads a cell that starts with = + - @ (or a tab or carriage return) as a formula:
`-1-1` shows as -2, and a crafted one can run more. Such a text cell is written with a leading
`'`, the usual neutralisation (OWASP "CSV injection"); numbers are written as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

AUDIT_COLUMNS = (
    "position",
    "stream_id",
    "version",
    "player_id",
    "name",
    "timestamp",
    "round_id",
    "amount",
    "stake",
    "win",
    "balance_after",
    "prev_hash",
    "hash",
    "data",
)
FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def neutral_cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(FORMULA_LEADS):
        return "'" + value
    return value


def neutral_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {name: neutral_cell(value) for name, value in row.items()}
