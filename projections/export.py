"""The audit trail out of the service: CSV or JSON lines, in store order, streamed."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from typing import Any, Literal, TextIO

from domain.ledger.audit_trail import AUDIT_COLUMNS, neutral_row
from projections.database import (
    Datastore,
    HasDatabaseUrl,
    database_url_of,
    dialect_of,
    iso_time,
    open_datastore,
)
from projections.recorders import Sql

Format = Literal["csv", "jsonl"]
PAGE = 5000


def audit_rows(
    settings: HasDatabaseUrl | str, player_id: str | None = None
) -> Iterator[dict[str, Any]]:
    """Every audit row (a player's only, if given), by global position, through a connection of
    its own (the CLI's export; the HTTP API reads through its one shared pool: rows_in)."""
    datastore = open_datastore(database_url_of(settings), pool_size=1, max_overflow=0)
    try:
        yield from rows_in(datastore, player_id)
    finally:
        datastore.close()


def rows_in(datastore: Datastore, player_id: str | None = None) -> Iterator[dict[str, Any]]:
    """Every audit row by global position, a page per short transaction: between pages (while
    the rows are written to a reader, however slow) no connection is held."""
    dialect = dialect_of(datastore)
    who = "AND player_id = :player_id" if player_id is not None else ""
    after = 0
    while True:
        with datastore.transaction(commit=False) as cursor:
            page = Sql(cursor, dialect).all(
                f"SELECT * FROM view_audit WHERE position > :after {who} "
                "ORDER BY position LIMIT :page",
                {"after": after, "player_id": player_id, "page": PAGE},
            )
        for row in page:
            yield {**row, "timestamp": iso_time(row["timestamp"])}
        if len(page) < PAGE:
            return
        after = int(page[-1]["position"])


def export_audit(
    settings: HasDatabaseUrl | str,
    out: TextIO,
    fmt: Format = "csv",
    player_id: str | None = None,
) -> int:
    """Write the audit trail to `out`; the number of events written."""
    count = 0
    writer = csv.DictWriter(out, fieldnames=AUDIT_COLUMNS) if fmt == "csv" else None
    if writer is not None:
        writer.writeheader()
    for row in audit_rows(settings, player_id):
        if writer is not None:
            writer.writerow(neutral_row(row))
        else:
            out.write(json.dumps({**row, "data": json.loads(row["data"])}) + "\n")
        count += 1
    return count
