"""The audit trail names the player of every event of a player's wallet account, not only the
one that opened it (issue 27 item 13: wallet events under "significant events" had no player)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from projections.audit import AuditTrailView
from projections.database import SQLITE
from projections.events import RecordedEvent
from projections.recorders import Sql

WHEN = datetime(2026, 11, 30, 12, tzinfo=UTC)


def audit_view_on_sqlite() -> tuple[sqlite3.Connection, sqlite3.Cursor, AuditTrailView]:
    """An audit trail view with its tables in a fresh in-memory SQLite database."""
    connection = sqlite3.connect(":memory:")
    connection.row_factory = sqlite3.Row
    cursor = connection.cursor()
    view = AuditTrailView()
    for statement in view.ddl():
        cursor.execute(SQLITE.ddl(statement))
    return connection, cursor, view


def test_every_event_of_a_wallet_account_names_the_player_its_opening_named() -> None:
    connection, cursor, view = audit_view_on_sqlite()
    opened = RecordedEvent(1, "wallet-1", 1, "Opened", WHEN, {"player_id": "ann", "prev_hash": ""})
    view.apply(Sql(cursor, SQLITE), [opened])
    later = AuditTrailView()  # a restarted runner: it knows the stream from the table
    failed = RecordedEvent(2, "wallet-1", 2, "AttemptFailed", WHEN, {"transaction_id": "t"})
    later.apply(Sql(cursor, SQLITE), [failed])
    rows = cursor.execute("SELECT name, player_id FROM view_audit ORDER BY position").fetchall()
    assert [tuple(row) for row in rows] == [("Opened", "ann"), ("AttemptFailed", "ann")]


def test_a_batch_applied_again_after_a_rollback_still_writes_its_streams_player() -> None:
    # The runner's database connection was cut mid-batch: the transaction rolled back, the view
    # object (and what it remembered) lived on, and the batch is applied again.
    connection, cursor, view = audit_view_on_sqlite()
    connection.commit()
    opened = RecordedEvent(1, "wallet-1", 1, "Opened", WHEN, {"player_id": "ann", "prev_hash": ""})
    view.apply(Sql(cursor, SQLITE), [opened])
    connection.rollback()
    view.apply(Sql(cursor, SQLITE), [opened])
    connection.commit()
    rows = cursor.execute("SELECT stream_id, player_id FROM view_audit_streams").fetchall()
    assert [tuple(row) for row in rows] == [("wallet-1", "ann")]
