"""Game recall: every settled round, its whole record as the spin answered it, plus columns
to find it by (player, time, size of win, feature, model version)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from domain.ledger.recall import round_view
from domain.ledger.round_features import FEATURE_EVENTS, round_features
from projections.events import RecordedEvent
from projections.recorders import Sql, View
from projections.round_assembly import PendingRounds


# A feature is in a round when one of these events is.
class RoundsView(View):
    name = "rounds"
    tables = ("view_rounds", "view_rounds_pending")

    def __init__(self) -> None:
        self.pending = PendingRounds("view_rounds_pending")

    def ddl(self) -> list[str]:
        return [
            "CREATE TABLE IF NOT EXISTS view_rounds (round_id TEXT PRIMARY KEY, "
            "player_id TEXT NOT NULL, session_id TEXT NOT NULL, position BIGINT NOT NULL, "
            "time {timestamp} NOT NULL, stake BIGINT NOT NULL, total_win BIGINT NOT NULL, "
            "win_multiple {real} NOT NULL, level_before INTEGER NOT NULL, "
            "level_after INTEGER NOT NULL, model_version TEXT NOT NULL, "
            "free_spins {boolean} NOT NULL, hold_and_win {boolean} NOT NULL, "
            "jackpot {boolean} NOT NULL, max_win_hit {boolean} NOT NULL, "
            "features TEXT NOT NULL, record TEXT NOT NULL)",
            "CREATE INDEX IF NOT EXISTS view_rounds_player ON view_rounds (player_id, position)",
            "CREATE INDEX IF NOT EXISTS view_rounds_time ON view_rounds (time)",
            "CREATE INDEX IF NOT EXISTS view_rounds_win ON view_rounds (total_win)",
            "CREATE INDEX IF NOT EXISTS view_rounds_model ON view_rounds (model_version)",
            *self.pending.ddl(),
        ]

    def apply(self, db: Sql, events: Sequence[RecordedEvent]) -> None:
        rows = [round_row(db, part) for part in self.pending.settled_rounds(db, events)]
        if rows:
            db.insert("view_rounds", tuple(rows[0]), rows)


def round_row(db: Sql, events: Sequence[RecordedEvent]) -> dict[str, Any]:
    record = round_view((e.name, e.payload) for e in events)
    features = round_features(record["events"])
    stake = int(record["stake"])
    return {
        "round_id": record["round_id"],
        "player_id": record["player_id"],
        "session_id": record["session_id"],
        "position": events[-1].position,
        "time": db.dialect.time(events[0].timestamp),
        "stake": stake,
        "total_win": int(record["total_win"]),
        "win_multiple": int(record["total_win"]) / stake if stake else 0.0,
        "level_before": int(record["level_before"]),
        "level_after": int(record["level_after"]),
        "model_version": str(record["model_version"]),
        **{feature: feature in features for feature in FEATURE_EVENTS},
        "max_win_hit": bool(record["max_win_hit"]),
        "features": json.dumps(features),
        "record": json.dumps(record),
    }
