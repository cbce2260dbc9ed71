"""Statistics: per day, game state and model version, what was staked and won, which features
came, jackpots by tier, and the largest wins. A state is the level with its two bonus
multipliers as the round was played (the rules document's `states`, named by
domain.game.model.state_key), so actual RTP (won / staked) reads beside that state's theoretical RTP
(projections.queries)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC
from typing import Any

from domain.game.model import state_key
from domain.game.progress import Progress, unlock_if_due
from domain.ledger.recorded_progress import STEP_HALVES, recorded_progress
from domain.ledger.round_features import FEATURE_EVENTS, round_features
from projections import free_round_stats
from projections.events import RecordedEvent
from projections.recorders import Sql, View
from projections.round_assembly import PendingRounds

LARGEST_WINS_KEPT = 100
_COUNTERS = ("rounds", "staked", "won", *FEATURE_EVENTS, "max_win_hits")
Bucket = tuple[str, int, str, str]  # day, level played, state played, model version
_KEY = ("day", "level", "state", "model_version")


class StatisticsView(View):
    name = "stats"
    tables = (
        "view_stats", "view_stats_jackpots", "view_stats_largest_wins", "view_stats_pending",
        free_round_stats.TABLE,
    )

    def __init__(self) -> None:
        self.pending = PendingRounds("view_stats_pending")

    def ddl(self) -> list[str]:
        key = (
            "day TEXT NOT NULL, level INTEGER NOT NULL, state TEXT NOT NULL, "
            "model_version TEXT NOT NULL"
        )
        return [
            f"CREATE TABLE IF NOT EXISTS view_stats ({key}, "
            + ", ".join(f"{c} BIGINT NOT NULL" for c in _COUNTERS)
            + ", largest_win BIGINT NOT NULL, largest_win_round_id TEXT, "
            "PRIMARY KEY (day, state, model_version))",
            f"CREATE TABLE IF NOT EXISTS view_stats_jackpots ({key}, tier TEXT NOT NULL, "
            # amount: what the rounds paid (the prize times the Hold & Win multiplier);
            # prize: the prizes as the candies showed them, before it
            "count BIGINT NOT NULL, amount BIGINT NOT NULL, prize BIGINT NOT NULL, "
            "PRIMARY KEY (day, state, model_version, tier))",
            "CREATE TABLE IF NOT EXISTS view_stats_largest_wins (round_id TEXT PRIMARY KEY, "
            "player_id TEXT NOT NULL, position BIGINT NOT NULL, day TEXT NOT NULL, "
            "level INTEGER NOT NULL, state TEXT NOT NULL, model_version TEXT NOT NULL, "
            "stake BIGINT NOT NULL, "
            "total_win BIGINT NOT NULL)",
            *self.pending.ddl(),
            *free_round_stats.ddl(),
        ]

    def apply(self, db: Sql, events: Sequence[RecordedEvent]) -> None:
        buckets: dict[Bucket, dict[str, Any]] = {}
        jackpots: dict[tuple[Bucket, str], list[int]] = {}
        wins: list[dict[str, Any]] = []
        free_rounds: list[Sequence[RecordedEvent]] = []
        for part in self.pending.settled_rounds(db, events):
            if free_round_stats.is_free_round(part):  # counted apart from paid rounds
                free_rounds.append(part)
                continue
            start, settled = part[0].data, part[-1].data
            played = played_state(start)
            bucket = (
                part[0].timestamp.astimezone(UTC).date().isoformat(),
                played.level,
                state_key(played.level, played.hold_and_win_halves, played.free_spins_halves),
                str(start["model_version"]),
            )
            win = int(settled["total_win"])
            features = round_features([e.name for e in part])
            row = buckets.setdefault(bucket, _empty_bucket())
            row["rounds"] += 1
            row["staked"] += int(start["stake"])
            row["won"] += win
            for feature in features:
                row[feature] += 1
            row["max_win_hits"] += int(bool(settled.get("max_win_hit")))
            if win > row["largest_win"]:  # strictly: on a tie the earlier round stays
                row["largest_win"], row["largest_win_round_id"] = win, str(start["round_id"])
            halves = _hold_and_win_halves(part)
            for event in part:
                if event.name == "JackpotWon":
                    prize = int(event.payload["amount"])
                    tier = jackpots.setdefault((bucket, str(event.payload["tier"])), [0, 0, 0])
                    tier[0] += 1
                    tier[1] += prize * halves // 2  # as the kernel pays a collection
                    tier[2] += prize
            if win > 0:
                wins.append(_largest_win_row(part, bucket, win))
        _add_buckets(db, buckets)
        add_jackpots(db, jackpots)
        _keep_largest_wins(db, wins)
        free_round_stats.add_free_rounds(db, events, free_rounds)


def _hold_and_win_halves(part: Sequence[RecordedEvent]) -> int:
    """The Hold & Win multiplier (in halves) the round's collections were paid at: the one its
    HoldAndWinEnded records (2, x1, for a round without the feature)."""
    for event in reversed(part):
        if event.name == "HoldAndWinEnded":
            return int(event.payload.get(STEP_HALVES, 2))
    return 2


def played_state(stake_placed: Mapping[str, Any]) -> Progress:
    """The state a round was played in: its player's state before it, with the level the
    round unlocked first (the engine's own rule, domain.game.progress). Either schema: a round
    parked in a pending table by the first release records its multipliers as numbers."""
    before: Progress = recorded_progress(stake_placed)
    return unlock_if_due(before)[0]


def _empty_bucket() -> dict[str, Any]:
    return {**dict.fromkeys(_COUNTERS, 0), "largest_win": 0, "largest_win_round_id": None}


def _largest_win_row(part: Sequence[RecordedEvent], bucket: Bucket, win: int) -> dict[str, Any]:
    start = part[0].data
    return {
        "round_id": str(start["round_id"]),
        "player_id": str(start["player_id"]),
        "position": part[-1].position,
        **dict(zip(_KEY, bucket, strict=True)),
        "stake": int(start["stake"]),
        "total_win": win,
    }


def _add_buckets(db: Sql, buckets: dict[Bucket, dict[str, Any]]) -> None:
    columns = (*_KEY, *_COUNTERS, "largest_win", "largest_win_round_id")
    sums = ", ".join(f"{c} = view_stats.{c} + excluded.{c}" for c in _COUNTERS)
    db.execute_many(
        f"INSERT INTO view_stats ({', '.join(columns)}) "
        f"VALUES ({', '.join(':' + c for c in columns)}) "
        f"ON CONFLICT (day, state, model_version) DO UPDATE SET {sums}, "
        "largest_win_round_id = CASE WHEN excluded.largest_win > view_stats.largest_win "
        "THEN excluded.largest_win_round_id ELSE view_stats.largest_win_round_id END, "
        "largest_win = CASE WHEN excluded.largest_win > view_stats.largest_win "
        "THEN excluded.largest_win ELSE view_stats.largest_win END",
        ({**dict(zip(_KEY, bucket, strict=True)), **row} for bucket, row in buckets.items()),
    )


def add_jackpots(db: Sql, jackpots: dict[tuple[Bucket, str], list[int]]) -> None:
    """Adds [count, amount paid, prize] per (bucket, tier)."""
    db.execute_many(
        "INSERT INTO view_stats_jackpots VALUES "
        "(:day, :level, :state, :model_version, :tier, :count, :amount, :prize) "
        "ON CONFLICT (day, state, model_version, tier) DO UPDATE SET "
        "count = view_stats_jackpots.count + excluded.count, "
        "amount = view_stats_jackpots.amount + excluded.amount, "
        "prize = view_stats_jackpots.prize + excluded.prize",
        (
            {
                **dict(zip(_KEY, b, strict=True)),
                "tier": tier, "count": count, "amount": amount, "prize": prize,
            }
            for (b, tier), (count, amount, prize) in jackpots.items()
        ),
    )


def _keep_largest_wins(db: Sql, wins: list[dict[str, Any]]) -> None:
    """The top wins overall, biggest first, the earlier round first on a tie."""
    wins = sorted(wins, key=lambda w: (-w["total_win"], w["position"]))[:LARGEST_WINS_KEPT]
    if not wins:
        return
    db.execute_many(
        "INSERT INTO view_stats_largest_wins VALUES (:round_id, :player_id, :position, :day, "
        ":level, :state, :model_version, :stake, :total_win)",
        wins,
    )
    db.execute(
        "DELETE FROM view_stats_largest_wins WHERE round_id NOT IN (SELECT round_id FROM "
        "view_stats_largest_wins ORDER BY total_win DESC, position ASC LIMIT :kept)",
        {"kept": LARGEST_WINS_KEPT},
    )
