"""RTP as rounds grow: per game state and model version, the running totals (rounds, staked,
won) kept at checkpoints spaced evenly on a log scale (every round up to 10, then 10, 12, 15, 20,
25, 30, 40, 50, 60, 70, 80, 90 x 10^k rounds). A chart of actual RTP against rounds played thus
has a dozen points per tenfold growth however long the service runs, and a state's row count
stays small (about 110 at ten billion rounds)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from domain.game.model import state_key
from projections.events import RecordedEvent
from projections.recorders import Row, Sql, View
from projections.round_assembly import PendingRounds
from projections.statistics import played_state

_STEPS = frozenset({10, 12, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90})
_FIGURES = "rounds BIGINT NOT NULL, staked BIGINT NOT NULL, won BIGINT NOT NULL"
Key = tuple[str, str]  # state, model version


def is_checkpoint(rounds: int) -> bool:
    if rounds < 10:
        return rounds > 0
    scale = 10 ** (len(str(rounds)) - 2)
    return rounds % scale == 0 and rounds // scale in _STEPS


class RtpGrowthView(View):
    name = "rtp_growth"
    tables = ("view_rtp_growth", "view_rtp_totals", "view_rtp_growth_pending")

    def __init__(self) -> None:
        self.pending = PendingRounds("view_rtp_growth_pending")

    def ddl(self) -> list[str]:
        key = "state TEXT NOT NULL, model_version TEXT NOT NULL"
        return [
            f"CREATE TABLE IF NOT EXISTS view_rtp_totals ({key}, {_FIGURES}, "
            "PRIMARY KEY (state, model_version))",
            f"CREATE TABLE IF NOT EXISTS view_rtp_growth ({key}, {_FIGURES}, "
            "PRIMARY KEY (state, model_version, rounds))",
            *self.pending.ddl(),
        ]

    def apply(self, db: Sql, events: Sequence[RecordedEvent]) -> None:
        totals: dict[Key, list[int]] = {}
        points: list[dict[str, Any]] = []
        for part in self.pending.settled_rounds(db, events):
            start, settled = part[0].data, part[-1].data
            played = played_state(start)
            state = state_key(played.level, played.hold_and_win_halves, played.free_spins_halves)
            key = (state, str(start["model_version"]))
            if key not in totals:
                totals[key] = _stored_totals(db, key)
            figures = totals[key]
            figures[0] += 1
            figures[1] += int(start["stake"])
            figures[2] += int(settled["total_win"])
            if is_checkpoint(figures[0]):
                points.append(_row(key, figures))
        db.execute_many(
            "INSERT INTO view_rtp_totals VALUES (:state, :model_version, :rounds, :staked, :won) "
            "ON CONFLICT (state, model_version) DO UPDATE SET rounds = excluded.rounds, "
            "staked = excluded.staked, won = excluded.won",
            (_row(key, figures) for key, figures in totals.items()),
        )
        db.execute_many(
            "INSERT INTO view_rtp_growth VALUES (:state, :model_version, :rounds, :staked, :won)",
            points,
        )


def _stored_totals(db: Sql, key: Key) -> list[int]:
    row = db.one(
        "SELECT rounds, staked, won FROM view_rtp_totals "
        "WHERE state = :state AND model_version = :model_version",
        {"state": key[0], "model_version": key[1]},
    )
    return [int(row["rounds"]), int(row["staked"]), int(row["won"])] if row else [0, 0, 0]


def _row(key: Key, figures: list[int]) -> dict[str, Any]:
    rounds, staked, won = figures
    return {
        "state": key[0],
        "model_version": key[1],
        "rounds": rounds,
        "staked": staked,
        "won": won,
    }


def read_growth(
    read: Callable[[str, Mapping[str, Any]], list[Row]],
) -> dict[Key, list[tuple[int, float]]]:
    """Per (state, model version): (rounds played, actual RTP so far) at each checkpoint and
    now, in order of rounds."""
    rows = read(
        "SELECT state, model_version, rounds, staked, won FROM view_rtp_growth "
        "UNION SELECT state, model_version, rounds, staked, won FROM view_rtp_totals "
        "ORDER BY state, model_version, rounds",
        {},
    )
    growth: dict[Key, list[tuple[int, float]]] = {}
    for row in rows:
        if int(row["staked"]):
            point = (int(row["rounds"]), int(row["won"]) / int(row["staked"]))
            growth.setdefault((str(row["state"]), str(row["model_version"])), []).append(point)
    return growth
