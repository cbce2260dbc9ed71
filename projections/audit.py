"""Audit trail: every event, flattened to one row, in store order."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from domain.ledger.audit_trail import AUDIT_COLUMNS
from projections.events import RecordedEvent
from projections.recorders import Sql, View


class AuditTrailView(View):
    name = "audit"
    tables = ("view_audit", "view_audit_streams")

    def ddl(self) -> list[str]:
        return [
            "CREATE TABLE IF NOT EXISTS view_audit (position BIGINT PRIMARY KEY, "
            "stream_id TEXT NOT NULL, version BIGINT NOT NULL, player_id TEXT, "
            "name TEXT NOT NULL, timestamp {timestamp} NOT NULL, round_id TEXT, amount BIGINT, "
            "stake BIGINT, win BIGINT, balance_after BIGINT, prev_hash TEXT, hash TEXT, "
            "data TEXT NOT NULL)",
            "CREATE INDEX IF NOT EXISTS view_audit_player ON view_audit (player_id, position)",
            "CREATE INDEX IF NOT EXISTS view_audit_round ON view_audit (round_id)",
            "CREATE INDEX IF NOT EXISTS view_audit_stream ON view_audit (stream_id, version)",
            # Which player a stream belongs to: a player's by its Registered event, any other
            # (the player's wallet account, its keys) by its first event, which names the player.
            "CREATE TABLE IF NOT EXISTS view_audit_streams (stream_id TEXT PRIMARY KEY, "
            "player_id TEXT NOT NULL)",
        ]

    def __init__(self) -> None:
        # stream -> player. A stream's player never changes, so remembering one read (or one
        # written in a transaction that later rolled back) can never be wrong as a lookup. The
        # row is another matter: a batch that rolled back is applied again, and its naming events
        # must write their rows again (so the memory never decides whether a row is written).
        self.players: dict[str, str] = {}

    def apply(self, db: Sql, events: Sequence[RecordedEvent]) -> None:
        new_streams: dict[str, str] = {}
        for event in events:
            named = event.name == "Registered" or event.version == 1
            if named and "player_id" in event.data:
                new_streams.setdefault(event.stream_id, str(event.data["player_id"]))
        db.execute_many(
            "INSERT INTO view_audit_streams VALUES (:stream_id, :player_id) "
            "ON CONFLICT (stream_id) DO NOTHING",
            ({"stream_id": s, "player_id": p} for s, p in new_streams.items()),
        )
        self.players.update(new_streams)
        unknown = {e.stream_id for e in events if "player_id" not in e.data}
        for stream_id in unknown - self.players.keys():
            row = db.one(
                "SELECT player_id FROM view_audit_streams WHERE stream_id = :stream_id",
                {"stream_id": stream_id},
            )
            if row is not None:
                self.players[stream_id] = str(row["player_id"])
        db.insert(
            "view_audit",
            AUDIT_COLUMNS,
            (audit_row(db, event, self._player_of(event)) for event in events),
        )

    def _player_of(self, event: RecordedEvent) -> str | None:
        """A stream's player, as its first event (or Registered) named it: so every event of
        a player's wallet account names its player, not only the one that opened it."""
        player = self.players.get(event.stream_id, event.data.get("player_id"))
        return None if player is None else str(player)


def audit_row(db: Sql, event: RecordedEvent, player_id: str | None) -> dict[str, Any]:
    data, payload = event.data, event.payload
    return {
        "position": event.position,
        "stream_id": event.stream_id,
        "version": event.version,
        "player_id": player_id,
        "name": event.name,
        "timestamp": db.dialect.time(event.timestamp),
        "round_id": event.named_round,
        "amount": _money(data.get("amount", payload.get("amount"))),
        "stake": _money(data.get("stake")),
        "win": _money(data.get("total_win", payload.get("win"))),
        "balance_after": _money(data.get("balance_after")),
        "prev_hash": data.get("prev_hash"),
        "hash": event.digest or None,
        "data": event.stored or json.dumps(data),
    }


def _money(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
