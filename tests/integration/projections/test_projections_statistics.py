"""The statistics view counts jackpots per state. Found by bench/soak.py: the first round that
won a jackpot stalled the statistics view for good (its INSERT lacked the `state` parameter), so
the read models never caught up again."""

from __future__ import annotations

import sqlite3

from projections.database import SQLITE
from projections.recorders import Sql
from projections.statistics import StatisticsView, add_jackpots


def test_a_jackpot_is_counted_in_the_statistics_of_the_state_it_was_won_in() -> None:
    connection = sqlite3.connect(":memory:")
    cursor = connection.cursor()
    for statement in StatisticsView().ddl():
        cursor.execute(SQLITE.ddl(statement))
    bucket = ("2026-11-30", 3, "L3", "pumpkin-v1")
    add_jackpots(Sql(cursor, SQLITE), {(bucket, "MINI"): [2, 500]})
    add_jackpots(Sql(cursor, SQLITE), {(bucket, "MINI"): [1, 250]})
    rows = cursor.execute(
        "SELECT day, level, state, model_version, tier, count, amount FROM view_stats_jackpots"
    ).fetchall()
    assert rows == [("2026-11-30", 3, "L3", "pumpkin-v1", "MINI", 3, 750)]
