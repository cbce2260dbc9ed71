"""Rounds span many events: hold a round's events until its RoundSettled arrives.

A round's events are in one stream and contiguous, but a batch may end in the middle of one.
Only a round's own events count (RecordedEvent.round_id: by what an event is, so the wallet's
facts, which name the round they pay for, are not taken for it).
The unsettled part waits in a table written in the same transaction as the view (and its
tracking position), so a runner that dies between batches resumes with exactly those events.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from projections.database import iso_time
from projections.events import RecordedEvent
from projections.recorders import Sql

SETTLED = "RoundSettled"


class PendingRounds:
    def __init__(self, table: str) -> None:
        self.table = table

    def ddl(self) -> list[str]:
        return [
            f"CREATE TABLE IF NOT EXISTS {self.table} (position BIGINT PRIMARY KEY, "
            "round_id TEXT NOT NULL, stream_id TEXT NOT NULL, version BIGINT NOT NULL, "
            "name TEXT NOT NULL, timestamp {timestamp} NOT NULL, data TEXT NOT NULL)",
            f"CREATE INDEX IF NOT EXISTS {self.table}_round ON {self.table} (round_id)",
        ]

    def settled_rounds(self, db: Sql, events: Sequence[RecordedEvent]) -> list[list[RecordedEvent]]:
        """The rounds this batch settles (each whole, in order); park the rest."""
        by_round: dict[str, list[RecordedEvent]] = {}
        for event in events:
            round_id = event.round_id
            if round_id is not None:
                by_round.setdefault(round_id, []).append(event)
        settled: list[list[RecordedEvent]] = []
        parked: list[RecordedEvent] = []
        for round_id, part in by_round.items():
            if not any(e.name == SETTLED for e in part):
                parked.extend(part)
                continue
            if part[0].name != "StakePlaced":
                part = self._take(db, round_id) + part
            settled.append(part)
        db.insert(
            self.table,
            ("position", "round_id", "stream_id", "version", "name", "timestamp", "data"),
            (
                {
                    "position": e.position,
                    "round_id": e.round_id,
                    "stream_id": e.stream_id,
                    "version": e.version,
                    "name": e.name,
                    "timestamp": db.dialect.time(e.timestamp),
                    "data": json.dumps(e.data),
                }
                for e in parked
            ),
        )
        settled.sort(key=lambda part: part[-1].position)
        return settled

    def _take(self, db: Sql, round_id: str) -> list[RecordedEvent]:
        rows = db.all(
            f"SELECT * FROM {self.table} WHERE round_id = :round_id ORDER BY position",
            {"round_id": round_id},
        )
        db.execute(f"DELETE FROM {self.table} WHERE round_id = :round_id", {"round_id": round_id})
        parked = (
            RecordedEvent(
                position=int(row["position"]),
                stream_id=str(row["stream_id"]),
                version=int(row["version"]),
                name=str(row["name"]),
                timestamp=datetime.fromisoformat(iso_time(row["timestamp"])),
                data=json.loads(row["data"]),
            )
            for row in rows
        )
        # A store parked by an earlier release may hold the wallet's facts of the round too.
        return [event for event in parked if event.in_round]
