"""The statistics view counts jackpots per state. Found by bench/soak.py: the first round that
won a jackpot stalled the statistics view for good (its INSERT lacked the `state` parameter), so
the read models never caught up again."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from game_support import model_with, state_progress

from domain.game.engine import RoundOutcome, resolve_round
from projections.database import SQLITE
from projections.events import RecordedEvent
from projections.recorders import Sql
from projections.statistics import StatisticsView, add_jackpots


def test_a_jackpot_is_counted_in_the_statistics_of_the_state_it_was_won_in() -> None:
    connection = sqlite3.connect(":memory:")
    cursor = connection.cursor()
    for statement in StatisticsView().ddl():
        cursor.execute(SQLITE.ddl(statement))
    bucket = ("2026-11-30", 3, "L3", "pumpkin-v1")
    add_jackpots(Sql(cursor, SQLITE), {(bucket, "MINI"): [2, 500, 500]})
    add_jackpots(Sql(cursor, SQLITE), {(bucket, "MINI"): [1, 250, 250]})
    rows = cursor.execute(
        "SELECT day, level, state, model_version, tier, count, amount, prize "
        "FROM view_stats_jackpots"
    ).fetchall()
    assert rows == [("2026-11-30", 3, "L3", "pumpkin-v1", "MINI", 3, 750, 750)]


STAKE = 100
COIN_HEAVY = model_with(  # coins on most cells, Pumpkins activating often: Hold & Win often
    base_weights=[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3],
    states={"activation_ppm": 100_000, "scatter_ppm": 0, "wild_reels_ppm": 0,
            "collector_ppm": 0, "booster_ppm": 0, "clover_ppm": 0},
)


def _recorded(round_id: str, outcome: RoundOutcome, halves: int) -> list[RecordedEvent]:
    """A round's events as the store holds them: StakePlaced, the engine's facts, RoundSettled."""
    when = datetime(2026, 11, 30, 12, tzinfo=UTC)
    start = {
        "round_id": round_id, "player_id": "ann", "session_id": "s", "stake": STAKE,
        "model_version": "pumpkin-test", "level": 5, "spins_to_next_level": None,
        "hold_and_win_halves": halves, "free_spins_halves": 3, "free_round": None,
    }
    facts = [(f.name, {"round_id": round_id, "payload": f.payload}) for f in outcome.facts]
    settled = {"round_id": round_id, "total_win": outcome.total_win, "balance_after": 0}
    named = [("StakePlaced", start), *facts, ("RoundSettled", settled)]
    return [
        RecordedEvent(n + 1, "stream", n + 1, name, when, data)
        for n, (name, data) in enumerate(named)
    ]


def test_jackpots_are_counted_at_what_the_rounds_paid_after_the_hold_and_win_multiplier() -> None:
    """Issue 27 item 13: a MAJOR (50x stake) won at x2.5 paid 125x, not 50x."""
    halves = 5  # x2.5
    outcome = next(
        o
        for o in (
            resolve_round(COIN_HEAVY, state_progress(5, halves, 3), STAKE, seed.to_bytes(32, "big"))
            for seed in range(500)
        )
        if not o.max_win_hit
        and {f.payload["tier"] for f in o.facts if f.name == "JackpotWon"} == {"MAJOR"}
    )
    connection = sqlite3.connect(":memory:")
    connection.row_factory = sqlite3.Row
    cursor = connection.cursor()
    view = StatisticsView()
    for statement in view.ddl():
        cursor.execute(SQLITE.ddl(statement))
    view.apply(Sql(cursor, SQLITE), _recorded("r1", outcome, halves))
    rows = {
        row["tier"]: (row["count"], row["amount"], row["prize"])
        for row in cursor.execute("SELECT tier, count, amount, prize FROM view_stats_jackpots")
    }
    majors = sum(f.name == "JackpotWon" for f in outcome.facts)  # all MAJOR (found so)
    assert rows["MAJOR"] == (majors, majors * 125 * STAKE, majors * 50 * STAKE)
