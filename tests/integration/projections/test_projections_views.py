"""The read models after a scenario, on SQLite and PostgreSQL, on the built-in wallet and on the
operator's seamless wallet (the `table` fixture: conftest.py)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from view_support import dump_views
from wallet_kinds_support import Table

from projections.console_reads import KEY_EVENTS
from projections.database import dialect_of, open_datastore
from projections.export import export_audit
from projections.queries import RecallReader
from projections.recorders import Sql
from projections.rounds import RoundsView
from projections.runner import ProjectionsRunner, ViewFailing, rebuild, start_in_process

# The player state's, not the balance view's: protection, and the seamless wallet's currency.
STATE_ONLY = ("excluded", "excluded_until", "currency")


def play_scenario(table: Table, players: int = 3, spins: int = 25) -> list[str]:
    """Money in and out, sessions opened and closed, rounds; the player ids."""
    ids = [f"player-{n}" for n in range(players)]
    for n, player_id in enumerate(ids):
        table.register(player_id)
        table.fund(player_id, 50_000, f"{player_id}-in")
        session_id = table.open_session(player_id)
        for spin in range(spins + n):
            table.spin(session_id, 20 * (1 + spin % 3), f"{player_id}-spin-{spin}")
        table.take(player_id, 100, f"{player_id}-out")
        table.close_session(session_id)
    table.settle()
    return ids


def rounds_of(table: Table, *players: str) -> list[dict[str, Any]]:
    """Every round the players played, oldest first."""
    return [table.app.round(r) for p in players for r in reversed(table.app.round_ids(p))]


def project(url: str, max_batch: int = 2000) -> int:
    runner = ProjectionsRunner(url, max_batch=max_batch)
    try:
        return runner.catch_up()
    finally:
        runner.stop()


def test_the_balance_view_equals_each_players_aggregate(
    table: Table, store_url: str
) -> None:
    players = play_scenario(table)
    table.register("idle")  # funded, a session opened, no round played
    table.fund("idle", 7_000, "idle-in")
    table.open_session("idle")
    project(store_url)
    reader = RecallReader(store_url)
    try:
        for player_id in [*players, "idle"]:
            view = reader.balance(player_id)
            assert view is not None
            state = table.app.player_state(player_id)
            assert {k: view[k] for k in state if k not in STATE_ONLY} == {
                k: v for k, v in state.items() if k not in STATE_ONLY
            }
            rounds = table.app.round_ids(player_id)
            assert view["last_round_id"] == (rounds[0] if rounds else None)
        assert reader.balance("idle")["balance"] == 7_000
        assert reader.balance("nobody") is None
    finally:
        reader.close()


def test_the_balance_view_follows_a_player_through_every_level_and_its_multipliers(
    table: Table, store_url: str
) -> None:
    table.register("veteran")
    table.fund("veteran", 1_000_000, "veteran-in")
    session_id = table.open_session("veteran")
    for spin in range(265):
        table.spin(session_id, 20, f"veteran-{spin}")
    table.settle()
    project(store_url)
    reader = RecallReader(store_url)
    try:
        view = reader.balance("veteran")
        assert view is not None
        state = table.app.player_state("veteran")
        assert state["level"] == 5
        assert {k: view[k] for k in state if k not in STATE_ONLY} == {
            k: v for k, v in state.items() if k not in STATE_ONLY
        }
        rounds_per_level: dict[int, int] = {}
        for bucket in reader.stats()["buckets"]:
            level = bucket["level"]
            rounds_per_level[level] = rounds_per_level.get(level, 0) + bucket["rounds"]
            assert bucket["state"].startswith(f"L{level}/")
            assert bucket["theoretical_rtp"] is not None
        # Levels unlock on spins 11, 36, 86, 161 and 261: an unlocking round counts as played
        # in its new level (with x1.5 multipliers at level 5).
        assert rounds_per_level == {0: 10, 1: 25, 2: 50, 3: 75, 4: 100, 5: 5}
    finally:
        reader.close()


def test_a_recalled_round_is_exactly_what_the_write_side_recorded(
    table: Table, store_url: str
) -> None:
    players = play_scenario(table, players=2, spins=12)
    project(store_url)
    reader = RecallReader(store_url)
    try:
        for player_id in players:
            for round_id in table.app.round_ids(player_id):
                assert reader.round(round_id) == table.app.round(round_id)
        assert reader.round("player-0.999") is None
    finally:
        reader.close()


def test_a_players_rounds_page_newest_first_with_limit_and_before(
    table: Table, store_url: str
) -> None:
    play_scenario(table, players=2, spins=12)
    project(store_url)
    reader = RecallReader(store_url)
    try:
        expected = table.app.round_ids("player-1")
        pages, before = [], None
        while True:
            page = reader.player_rounds("player-1", limit=5, before=before)
            if not page:
                break
            pages.append(page)
            before = page[-1]["round_id"]
        seen = [row["round_id"] for page in pages for row in page]
        assert seen == expected
        assert [len(page) for page in pages] == [5, 5, 3]
        first = pages[0][0]
        recorded = table.app.round(first["round_id"])
        assert set(first) == {"round_id", "time", "stake", "total_win", "level_before",
                              "level_after", "features", "max_win_hit"}
        assert first["stake"] == recorded["stake"]
        assert first["total_win"] == recorded["total_win"]
        assert reader.player_rounds("nobody", limit=5) == []
    finally:
        reader.close()


def test_rounds_can_be_found_by_win_size_model_version_and_time(
    table: Table, store_url: str
) -> None:
    play_scenario(table, players=2, spins=12)
    project(store_url)
    reader = RecallReader(store_url)
    try:
        everything = reader.find_rounds(limit=1000)
        assert len(everything) == 12 + 13
        winners = reader.find_rounds(min_win=1, limit=1000)
        assert all(row["total_win"] >= 1 for row in winners)
        assert len(winners) == sum(1 for row in everything if row["total_win"] >= 1)
        model = table.app.round(everything[0]["round_id"])["model_version"]
        assert len(reader.find_rounds(model_version=model, limit=1000)) == len(everything)
        assert reader.find_rounds(model_version="no-such-model") == []
        oldest = everything[-1]["time"]
        assert len(reader.find_rounds(since=oldest, limit=1000)) == len(everything)
        assert reader.find_rounds(until=oldest) == []
    finally:
        reader.close()


def test_statistics_add_up_to_the_rounds(table: Table, store_url: str) -> None:
    play_scenario(table)
    project(store_url)
    reader = RecallReader(store_url)
    try:
        rounds = [table.app.round(r) for p in ("player-0", "player-1", "player-2")
                  for r in table.app.round_ids(p)]
        stats = reader.stats()
        buckets = stats["buckets"]
        assert sum(b["rounds"] for b in buckets) == len(rounds)
        assert sum(b["staked"] for b in buckets) == sum(r["stake"] for r in rounds)
        assert sum(b["won"] for b in buckets) == sum(r["total_win"] for r in rounds)
        for bucket in buckets:
            assert bucket["actual_rtp"] == bucket["won"] / bucket["staked"]
            assert bucket["theoretical_rtp"] is not None  # the state's PAR RTP or the target
        wins = [r["total_win"] for r in rounds if r["total_win"] > 0]
        assert [w["total_win"] for w in stats["largest_wins"]] == sorted(wins, reverse=True)
    finally:
        reader.close()


def test_the_audit_trail_holds_every_event_and_exports_as_csv_and_json_lines(
    table: Table, store_url: str
) -> None:
    play_scenario(table, players=2, spins=5)
    project(store_url)
    stored = table.app.recorder.select_notifications(start=1, limit=100_000)
    as_csv, as_jsonl = io.StringIO(), io.StringIO()
    assert export_audit(store_url, as_csv, "csv") == len(stored)
    assert export_audit(store_url, as_jsonl, "jsonl") == len(stored)
    rows = list(csv.DictReader(io.StringIO(as_csv.getvalue())))
    lines = [json.loads(line) for line in as_jsonl.getvalue().splitlines()]
    assert [int(r["position"]) for r in rows] == [n.id for n in stored]
    assert [line["position"] for line in lines] == [n.id for n in stored]
    deposits = [(d["player_id"], d["amount"]) for d in lines if d["name"] == "Deposited"]
    if table.kind == "builtin":
        assert deposits == [("player-0", 50_000), ("player-1", 50_000)]
    else:  # the operator's wallet keeps the money: its debits show, each naming its player
        assert deposits == []
        debits = [(d["player_id"], d["amount"]) for d in lines if d["name"] == "DebitRecorded"]
        assert debits == [(r["player_id"], r["stake"]) for r in rounds_of(table, "player-0",
                                                                          "player-1")]
    # Each event's hash is the next one's prev_hash in the same stream (the chain, flattened);
    # the key streams (request and session keys) and the wallet account name the player too,
    # and chain apart.
    streams: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        if line["player_id"] == "player-0" and line["name"] not in KEY_EVENTS:
            streams.setdefault(line["stream_id"], []).append(line)
    assert len(streams) == (1 if table.kind == "builtin" else 2)  # the player; its account
    for chain in streams.values():
        for before, after in zip(chain, chain[1:], strict=False):
            assert after["prev_hash"] == before["hash"]
    one = io.StringIO()
    assert export_audit(store_url, one, "jsonl", player_id="player-1") == sum(
        1 for line in lines if line["player_id"] == "player-1"
    )


def test_views_after_a_scenario_equal_views_rebuilt_from_zero(
    table: Table, store_url: str
) -> None:
    play_scenario(table)
    project(store_url, max_batch=3)  # small batches: rounds straddle transactions
    followed = dump_views(store_url)
    assert rebuild(store_url) == table.app.recorder.max_notification_id()
    assert dump_views(store_url) == followed
    assert followed["view_rounds_pending"] == []


def test_an_in_process_runner_lets_the_api_read_its_own_writes(
    table: Table, store_url: str
) -> None:
    handle = start_in_process(store_url)
    reader = RecallReader(store_url)
    try:
        table.register("eve")
        table.fund("eve", 10_000, "eve-in")
        session_id = table.open_session("eve")
        answer = table.spin(session_id, 20, "eve-spin-1")
        position = table.app.recorder.max_notification_id()
        assert handle.wait_for(position, timeout=10)
        assert reader.wait_for(position, timeout=10)
        played = {k: v for k, v in answer.items() if k not in ("settlement", "currency")}
        assert reader.round(answer["round_id"]) == played
        assert reader.balance("eve")["balance"] == answer["balance_after"]
        assert not reader.wait_for(position + 1_000, timeout=0.05)
    finally:
        reader.close()
        handle.stop()


def test_a_view_whose_schema_changed_is_dropped_and_replayed_from_zero(
    table: Table, store_url: str
) -> None:
    play_scenario(table, players=2, spins=5)
    project(store_url)
    projected = dump_views(store_url)
    datastore = open_datastore(store_url, pool_size=1)
    try:
        with datastore.transaction(commit=True) as cursor:
            db = Sql(cursor, dialect_of(datastore))
            db.execute("UPDATE view_schemas SET digest = 'older' WHERE name = 'stats'")
            db.execute("DELETE FROM view_stats")  # what an older layout held is gone
    finally:
        datastore.close()
    assert project(store_url) == table.app.recorder.max_notification_id()
    assert dump_views(store_url) == projected


def test_a_failing_view_does_not_hold_the_others_back_and_catches_up_once_fixed(
    table: Table, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    play_scenario(table, players=1, spins=3)
    end = table.app.recorder.max_notification_id()

    def broken(*_: object) -> None:
        raise RuntimeError("a bug in the rounds view")

    runner = ProjectionsRunner(store_url)
    try:
        monkeypatch.setattr(RoundsView, "apply", broken)
        with pytest.raises(ViewFailing, match="a bug in the rounds view"):
            runner.catch_up()
        reached = {p.name: p.position for p in runner.projections}
        assert reached == {
            "balances": end, "rounds": 0, "audit": end, "stats": end, "rtp_growth": end,
            "protection": end,
        }
        monkeypatch.undo()
        assert runner.catch_up() == end
    finally:
        runner.stop()
    projected = dump_views(store_url)
    rebuild(store_url)
    assert dump_views(store_url) == projected
