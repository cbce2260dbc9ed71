"""Free rounds in the statistics, apart from paid rounds: per day and campaign, the rounds
granted, played (and what they won), cancelled and expired. A free round's stake was never
paid, so it is left out of the paid buckets' staked, won and RTP (projections/statistics.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC
from typing import Any

from projections.events import RecordedEvent
from projections.recorders import Sql

TABLE = "view_stats_free_rounds"
_COUNTERS = ("granted", "played", "staked", "won", "cancelled", "expired")
# Events that end or grant a campaign, and the counter (and field) they add to.
_CAMPAIGN_EVENTS = {
    "FreeRoundsGranted": ("granted", "rounds"),
    "FreeRoundsCancelled": ("cancelled", "rounds_left"),
    "FreeRoundsExpired": ("expired", "rounds_left"),
}


def ddl() -> list[str]:
    return [
        f"CREATE TABLE IF NOT EXISTS {TABLE} (day TEXT NOT NULL, campaign_id TEXT NOT NULL, "
        + ", ".join(f"{c} BIGINT NOT NULL" for c in _COUNTERS)
        + ", PRIMARY KEY (day, campaign_id))"
    ]


def is_free_round(part: Sequence[RecordedEvent]) -> bool:
    return bool(part[0].data.get("free_round"))


def add_free_rounds(
    db: Sql, events: Sequence[RecordedEvent], free_rounds: Sequence[Sequence[RecordedEvent]]
) -> None:
    rows: dict[tuple[str, str], dict[str, int]] = {}

    def row(event: RecordedEvent, campaign_id: str) -> dict[str, int]:
        day = event.timestamp.astimezone(UTC).date().isoformat()
        return rows.setdefault((day, campaign_id), dict.fromkeys(_COUNTERS, 0))

    for event in events:
        counted = _CAMPAIGN_EVENTS.get(event.name)
        if counted is not None:
            counter, field = counted
            row(event, str(event.data["campaign_id"]))[counter] += int(event.data[field] or 0)
    for part in free_rounds:
        start, settled = part[0], part[-1]
        counts = row(start, str(start.data["free_round"]))
        counts["played"] += 1
        counts["staked"] += int(start.data["stake"])  # the campaign's, never paid
        counts["won"] += int(settled.data["total_win"])
    if not rows:
        return
    sums = ", ".join(f"{c} = {TABLE}.{c} + excluded.{c}" for c in _COUNTERS)
    db.execute_many(
        f"INSERT INTO {TABLE} (day, campaign_id, {', '.join(_COUNTERS)}) "
        f"VALUES (:day, :campaign_id, {', '.join(':' + c for c in _COUNTERS)}) "
        f"ON CONFLICT (day, campaign_id) DO UPDATE SET {sums}",
        ({"day": day, "campaign_id": cid, **counts} for (day, cid), counts in rows.items()),
    )


def read_free_rounds(
    read: Any, condition: str, params: dict[str, Any]
) -> list[dict[str, Any]]:
    """The rows of the days in `condition` (a model_version filter does not apply)."""
    found: list[dict[str, Any]] = read(
        f"SELECT * FROM {TABLE} WHERE {condition} ORDER BY day, campaign_id", params
    )
    return [dict(r) for r in found]
