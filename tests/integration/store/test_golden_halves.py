"""The golden stores' rounds recorded their bonus multipliers as numbers (StakePlaced version 1,
RoundSettled version 1): they read back through the upcasts as the same halves, their hash chain
still covers the bytes stored, and a player who plays on writes the halves schema (StakePlaced
version 3, RoundSettled version 2) into the same stream, which verifies as a whole. On SQLite
and on PostgreSQL, like tests/integration/store/test_golden_stores.py."""

from __future__ import annotations

import json
from typing import Any

import test_golden_stores as golden
from eventsourcing.persistence import StoredEvent

from domain.game.progress import halves_of
from domain.ledger.hashchain import STORED_DIGEST, digest_of, event_digest
from domain.ledger.player import Player, player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.audit.dispute import dispute_report
from infrastructure.store.event_rows import EventRows, StoredRow
from projections.queries import RecallReader
from projections.runner import rebuild

golden_url = golden.golden_url  # the fixture: a private copy of a golden store of each kind
EXPECTED, verify = golden.EXPECTED, golden.verify
ROUND_TOPICS = (Player.StakePlaced.TOPIC, Player.RoundSettled.TOPIC)
DEE = EXPECTED["players"]["dee"]


def round_rows(app: PumpkinApplication, player_id: str) -> list[StoredRow]:
    stream = str(player_aggregate_id(player_id))
    return [row for row in EventRows(app).rows(stream) if row.topic in ROUND_TOPICS]


def raw(row: StoredRow) -> dict[str, Any]:
    state: dict[str, Any] = json.loads(row.state)
    return state


def decoded(app: PumpkinApplication, row: StoredRow) -> Any:
    return app.mapper.to_domain_event(StoredEvent(row.stream, row.version, row.topic, row.state))


def test_the_first_releases_multipliers_read_back_as_the_same_halves(golden_url: str) -> None:
    seen: set[float] = set()
    with PumpkinApplication.from_url(golden_url) as app:
        rows = round_rows(app, "dee")
        assert len(rows) == 2 * DEE["round_count"]
        for row in rows:
            stored = raw(row)
            assert "class_version" not in stored and "hold_and_win_halves" not in stored
            numbers = (stored["hold_and_win_multiplier"], stored["free_spins_multiplier"])
            seen.update(numbers)
            event = decoded(app, row)
            assert (event.hold_and_win_halves, event.free_spins_halves) == tuple(
                halves_of(n) for n in numbers
            )
            assert not hasattr(event, "hold_and_win_multiplier")
            # The chain covers the state as stored, not the upcast one.
            as_stored = app.mapper.transcoder.decode(row.state)
            assert vars(event)[STORED_DIGEST] == event_digest(
                row.stream, row.version, row.topic, as_stored
            )
            assert digest_of(event, row.topic) == vars(event)[STORED_DIGEST]
        assert {1.0, 1.5, 2.0} <= seen  # level 5's x1.5 and a booster's x2 among them

        # Replayed from its events alone (no snapshot), the player holds the same halves.
        replayed: Any = None
        for event in app.events.get(player_aggregate_id("dee")):
            replayed = event.mutate(replayed)
        state = DEE["state"]
        assert (replayed.hold_and_win_halves, replayed.free_spins_halves) == (
            halves_of(state["hold_and_win_multiplier"]), halves_of(state["free_spins_multiplier"])
        )
        assert replayed.state() == state
        assert replayed.chain_head == app.load_player("dee").chain_head


def test_a_golden_player_plays_on_in_halves_and_the_mixed_stream_verifies(
    golden_url: str,
) -> None:
    state = DEE["state"]
    open_session = next(s for s, v in DEE["sessions"].items() if v["open"])
    old_round = f"dee.{DEE['round_count']}"
    with PumpkinApplication.from_url(golden_url) as app:
        for n in range(3):
            app.spin(open_session, 20, f"golden-halves-{n}")
        rows = round_rows(app, "dee")
        old, new = rows[: 2 * DEE["round_count"]], rows[2 * DEE["round_count"]:]
        assert all("hold_and_win_multiplier" in raw(row) for row in old)
        assert len(new) == 6
        for row in new:
            stored = raw(row)
            version = 3 if row.topic == Player.StakePlaced.TOPIC else 2
            assert stored["class_version"] == version
            assert type(stored["hold_and_win_halves"]) is int
            assert type(stored["free_spins_halves"]) is int
            assert "hold_and_win_multiplier" not in stored
            assert STORED_DIGEST not in vars(decoded(app, row))  # current: nothing to upcast
        # The first new round starts from what the last old one settled on.
        first = raw(new[0])
        assert (first["hold_and_win_halves"], first["free_spins_halves"]) == (
            halves_of(state["hold_and_win_multiplier"]), halves_of(state["free_spins_multiplier"])
        )
        # The dispute report reads both versions and shows numbers, as before.
        before = dispute_report(app, old_round)
        after = dispute_report(app, f"dee.{DEE['round_count'] + 1}")
        for report in (before, after):
            assert report["verification"]["round_ok"], report["verification"]["problems"]
        shown = {k: state[k] for k in ("hold_and_win_multiplier", "free_spins_multiplier")}
        assert {k: before["state_after"][k] for k in shown} == shown
        assert {k: after["state_before"][k] for k in shown} == shown
        player_state = app.player_state("dee")
    report = verify(golden_url)
    assert report["ok"] and report["problems"] == []
    assert report["rounds_rederived"] == EXPECTED["verify"]["rounds_rederived"] + 3

    # The read models, rebuilt from the mixed stream, show the multipliers as numbers.
    rebuild(golden_url)
    reader = RecallReader(golden_url)
    try:
        balance = reader.balance("dee")
        assert balance is not None
        assert {k: balance[k] for k in player_state if k in balance} == {
            k: v for k, v in player_state.items() if k in balance
        }
        audit = [row for row in reader.audit_rows("dee") if row["name"] == "StakePlaced"]
        assert "hold_and_win_multiplier" in audit[0]["data"]  # the trail: as stored
        assert '"class_version":3' in audit[-1]["data"]
    finally:
        reader.close()
    report = verify(golden_url)  # now also against the balances view
    assert report["ok"] and report["problems"] == []


STEP_TOPICS = tuple(
    getattr(Player, name).TOPIC
    for name in (
        "BoosterLanded", "SpinCompleted", "HoldAndWinStarted", "PrizesCollected",
        "HoldAndWinEnded", "FreeSpinsStarted", "FreeSpinsEnded",
    )
)


def step_rows(app: PumpkinApplication, player_id: str) -> list[StoredRow]:
    stream = str(player_aggregate_id(player_id))
    return [row for row in EventRows(app).rows(stream) if row.topic in STEP_TOPICS]


def test_the_round_facts_multipliers_read_back_as_halves_and_show_as_before(
    golden_url: str,
) -> None:
    """SpinCompleted, BoosterLanded and the features' facts stored `multiplier: 1.5` (version 1);
    read back, their payload holds `multiplier_halves: 3` in its place, the chain covers the bytes
    stored, and the round shows the same numbers; facts written now are version 2, in halves."""
    open_session = next(s for s, v in DEE["sessions"].items() if v["open"])
    with PumpkinApplication.from_url(golden_url) as app:
        old = step_rows(app, "dee")
        assert old
        seen: set[float] = set()
        for row in old:
            stored = raw(row)
            assert "class_version" not in stored
            number = stored["payload"]["multiplier"]
            seen.add(number)
            event = decoded(app, row)
            assert event.payload["multiplier_halves"] == halves_of(number)
            assert "multiplier" not in event.payload
            assert list(event.payload) == [  # in the same place
                "multiplier_halves" if key == "multiplier" else key for key in stored["payload"]
            ]
            assert digest_of(event, row.topic) == event_digest(
                row.stream, row.version, row.topic, app.mapper.transcoder.decode(row.state)
            )
        assert 1.0 in seen
        old_round = app.round(f"dee.{DEE['round_count']}")
        for n in range(3):
            app.spin(open_session, 20, f"golden-steps-{n}")
        new = step_rows(app, "dee")[len(old):]
        assert new
        for row in new:
            stored = raw(row)
            assert stored["class_version"] == 2
            assert type(stored["payload"]["multiplier_halves"]) is int
            assert "multiplier" not in stored["payload"]
        # The round as answered shows numbers, from either schema.
        for view in (old_round, app.round(f"dee.{DEE['round_count'] + 1}")):
            assert all(isinstance(step["multiplier"], float) for step in view["steps"])
    report = verify(golden_url)
    assert report["ok"] and report["problems"] == []
