"""Reading the read models (for the HTTP layer, the CLI and dashboards).

`wait_for(position)` lets a caller read its own writes: it waits until every view has projected
the notification id its command produced.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from typing import Any

from domain.ledger.round_features import FEATURE_EVENTS
from projections import balances, console_reads
from projections.database import (
    HasDatabaseUrl,
    database_url_of,
    dialect_of,
    iso_time,
    open_datastore,
)
from projections.recorders import Row, Sql
from projections.rtp_growth import read_growth
from projections.stats_report import read_stats
from projections.view_health import ViewsHealth, read_health
from projections.views import all_views

_SUMMARY = "round_id, time, stake, total_win, level_before, level_after, features, max_win_hit"
_MIGRATION_ROW = "__migration__"  # the library's own row in every tracking table


class RecallReader:
    def __init__(self, settings: HasDatabaseUrl | str) -> None:
        # Opened lazily by the pool; an API serves many reads at once.
        self.datastore = open_datastore(database_url_of(settings), pool_size=1, max_overflow=15)
        self.dialect = dialect_of(self.datastore)

    def close(self) -> None:
        self.datastore.close()

    def audit_rows(self, player_id: str | None = None) -> Iterator[dict[str, Any]]:
        """The audit trail, read through this reader's one bounded pool (projections.export)."""
        from projections.export import rows_in

        return rows_in(self.datastore, player_id)

    def _all(self, statement: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        with self.datastore.transaction(commit=False) as cursor:
            return Sql(cursor, self.dialect).all(statement, params)

    # -- rounds ----------------------------------------------------------------------------------

    def player_rounds(
        self, player_id: str, limit: int = 50, before: str | None = None
    ) -> list[dict[str, Any]]:
        """Summaries, newest first; `before` is the round id the previous page ended with."""
        params: dict[str, Any] = {"player_id": player_id, "limit": limit}
        older = ""
        if before is not None:
            older = (
                "AND position < (SELECT position FROM view_rounds WHERE round_id = :before "
                "AND player_id = :player_id)"
            )
            params["before"] = before
        rows = self._all(
            f"SELECT {_SUMMARY} FROM view_rounds WHERE player_id = :player_id {older} "
            "ORDER BY position DESC LIMIT :limit",
            params,
        )
        return [_summary(row) for row in rows]

    def round(self, round_id: str) -> dict[str, Any] | None:
        """The round exactly as recorded (and as the spin answered it)."""
        rows = self._all("SELECT record FROM view_rounds WHERE round_id = :id", {"id": round_id})
        return json.loads(rows[0]["record"]) if rows else None

    def find_rounds(
        self,
        *,
        player_id: str | None = None,
        since: str | None = None,
        until: str | None = None,
        min_win: int | None = None,
        feature: str | None = None,
        model_version: str | None = None,
        limit: int = 100,
        before: str | None = None,
    ) -> list[dict[str, Any]]:
        """Summaries matching every filter given, newest first (times are ISO-8601); `before`
        is the round id the previous page ended with."""
        where, params = ["1 = 1"], {"limit": limit}
        filters: list[tuple[Any, str, str]] = [
            (player_id, "player_id = :player_id", "player_id"),
            (since, "time >= :since", "since"),
            (until, "time < :until", "until"),
            (min_win, "total_win >= :min_win", "min_win"),
            (model_version, "model_version = :model_version", "model_version"),
            (before, "position < (SELECT position FROM view_rounds WHERE round_id = :before)",
             "before"),
        ]
        for value, clause, name in filters:
            if value is not None:
                where.append(clause)
                params[name] = value
        if feature is not None:
            if feature not in FEATURE_EVENTS:
                raise ValueError(f"feature is one of {', '.join(FEATURE_EVENTS)}")
            where.append(f"{feature} = :yes")
            params["yes"] = True
        rows = self._all(
            f"SELECT {_SUMMARY} FROM view_rounds WHERE {' AND '.join(where)} "
            "ORDER BY position DESC LIMIT :limit",
            params,
        )
        return [_summary(row) for row in rows]

    # -- balances --------------------------------------------------------------------------------

    def balance(self, player_id: str) -> dict[str, Any] | None:
        """The player state of docs/CONTRACT.md, plus the last round id."""
        rows = self._all(
            f"SELECT player_id, {balances.SHOWN_BALANCE}, level, spins_to_next_level, "
            "hold_and_win_multiplier, free_spins_multiplier, last_round_id "
            "FROM view_balances WHERE player_id = :id",
            {"id": player_id},
        )
        if not rows:
            return None
        row = dict(rows[0])
        for name in ("hold_and_win_multiplier", "free_spins_multiplier"):
            row[name] = float(row[name])
        return row

    def balances(self) -> list[dict[str, Any]]:
        return [
            dict(row)
            for row in self._all(f"SELECT {balances.SHOWN} FROM view_balances ORDER BY player_id")
        ]

    # -- the console -----------------------------------------------------------------------------

    def audit_tail(self, player_id: str, limit: int = 300) -> list[dict[str, Any]]:
        """The player's last `limit` audit rows, newest first."""
        return console_reads.audit_tail(self._all, player_id, limit)

    def player_events(
        self, player_id: str, names: tuple[str, ...], limit: int = 50
    ) -> list[dict[str, Any]]:
        """The player's latest events of these names, newest first."""
        return console_reads.player_events(self._all, player_id, names, limit)

    def significant_events(self, limit: int = 50, window: int = 100_000) -> list[dict[str, Any]]:
        """The latest events outside the routine of rounds, money and sessions, newest first."""
        return console_reads.significant_events(self._all, limit, window)

    def rtp_growth(self) -> dict[tuple[str, str], list[tuple[int, float]]]:
        """Per (state, model version): (rounds, actual RTP so far) as rounds grew."""
        return read_growth(self._all)

    # -- statistics ------------------------------------------------------------------------------

    def stats(
        self,
        *,
        since: str | None = None,
        until: str | None = None,
        model_version: str | None = None,
    ) -> dict[str, Any]:
        """Per day (YYYY-MM-DD, `until` exclusive), state played and model version; each
        bucket's actual RTP beside the rules document's theoretical RTP for that state."""
        return read_stats(self._all, since=since, until=until, model_version=model_version)

    # -- read your writes ------------------------------------------------------------------------

    def position(self) -> int:
        """The notification id every view has projected (0 before the first)."""
        reached = []
        for view in all_views():
            try:
                rows = self._all(
                    f"SELECT MAX(notification_id) AS n FROM {view.tracking_table} "
                    "WHERE application_name <> :migration",
                    {"migration": _MIGRATION_ROW},
                )
            except Exception:  # noqa: BLE001 - no tracking table yet: nothing projected
                return 0
            reached.append(int(rows[0]["n"] or 0))
        return min(reached)

    def views_health(self) -> ViewsHealth:
        """The views failing now and how often each failed (projections/view_health.py)."""
        health = read_health(self._all)
        every = {view.name: 0 for view in all_views()}  # a view that never failed counts 0
        return ViewsHealth(health.failing, every | health.errors)

    def wait_for(self, position: int | None, timeout: float = 1.0) -> bool:
        """Whether the views reached `position` within `timeout` seconds."""
        if position is None:
            return True
        deadline = time.monotonic() + timeout
        pause = 0.005
        while self.position() < position:
            if time.monotonic() >= deadline:
                return False
            time.sleep(min(pause, max(deadline - time.monotonic(), 0)))
            pause = min(pause * 2, 0.1)
        return True


def _summary(row: Row) -> dict[str, Any]:
    return {
        "round_id": row["round_id"],
        "time": iso_time(row["time"]),
        "stake": row["stake"],
        "total_win": row["total_win"],
        "level_before": row["level_before"],
        "level_after": row["level_after"],
        "features": json.loads(row["features"]),
        "max_win_hit": bool(row["max_win_hit"]),
    }
