"""Player protection in the statistics: per day, how many limit changes, exclusions, reality
checks and refusals (by rule) the players' streams recorded."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC

from projections.events import RecordedEvent
from projections.recorders import Sql, View

# The protection events (domain.ledger.protection_events), by name: views never import the domain.
PROTECTION_EVENTS = frozenset(
    ("LimitsChanged", "Excluded", "SessionProtected", "RealityCheckAnswered", "ProtectionRefused")
)


class ProtectionStatsView(View):
    name = "protection"
    tables = ("view_protection",)

    def ddl(self) -> list[str]:
        return [
            "CREATE TABLE IF NOT EXISTS view_protection (day TEXT NOT NULL, "
            "event TEXT NOT NULL, rule TEXT NOT NULL, count BIGINT NOT NULL, "
            "PRIMARY KEY (day, event, rule))"
        ]

    def apply(self, db: Sql, events: Sequence[RecordedEvent]) -> None:
        counts: Counter[tuple[str, str, str]] = Counter()
        for event in events:
            if event.name in PROTECTION_EVENTS:
                day = event.timestamp.astimezone(UTC).date().isoformat()
                rule = str(event.data.get("rule", ""))
                if event.name == "RealityCheckAnswered":
                    rule = "continue" if event.data.get("proceed") else "stop"
                counts[(day, event.name, rule)] += 1
        db.execute_many(
            "INSERT INTO view_protection VALUES (:day, :event, :rule, :count) "
            "ON CONFLICT (day, event, rule) DO UPDATE SET "
            "count = view_protection.count + excluded.count",
            (
                {"day": day, "event": name, "rule": rule, "count": count}
                for (day, name, rule), count in counts.items()
            ),
        )
