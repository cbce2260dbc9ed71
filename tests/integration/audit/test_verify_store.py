"""A clean store verifies whole: thousands of rounds through every level and feature, rounds
played on a math model since replaced, and players compared with the balances view."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator

import pytest
from test_verify_tampering import run_sql

from domain.game import engine as engine_module
from domain.game import model as model_module
from domain.game.model import STATE_KEYS, MathModel, current_model, registry
from domain.ledger.player import player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.audit.verification import verify_player, verify_store
from projections.runner import rebuild

FEATURES = (
    "LevelUnlocked", "WildReelsTriggered", "CloverMoonSwapped", "NormalGameCollectorCollected",
    "BoosterLanded", "PumpkinActivated", "FreeSpinsStarted", "HoldAndWinStarted", "JackpotWon",
)


def feature_rich_model(name: str) -> MathModel:
    """The current model with every feature that a state allows made four times as likely."""
    definition = json.loads(json.dumps(current_model().definition))
    definition["name"] = name
    for table in definition["states"].values():
        for key in STATE_KEYS:
            if table[key] > 0:
                table[key] = min(table[key] * (2 if key == "scatter_ppm" else 4), 300_000)
    return MathModel(definition)


@pytest.fixture
def publish(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """publish(model): add it to the published models and make it the one new rounds play."""
    published = dict(registry())
    monkeypatch.setattr(model_module, "registry", lambda: published)

    def make_current(model: MathModel) -> None:
        published[model.version] = model
        monkeypatch.setattr(model_module, "current_model", lambda: model)
        monkeypatch.setattr(engine_module, "current_model", lambda: model)

    yield make_current


def play(app: PumpkinApplication, player_id: str, spins: int, stake: int = 20) -> None:
    app.register_player(player_id)
    app.deposit(player_id, 10**9, f"{player_id}-d")
    session_id, _ = app.open_session(player_id)
    for n in range(spins):
        app.spin(session_id, stake, f"{player_id}-{n}")


def event_counts(store_url: str) -> Counter[str]:
    rows = run_sql(store_url, "SELECT topic, COUNT(*) FROM {TABLE} GROUP BY topic")
    counts: Counter[str] = Counter()
    for topic, n in rows:
        counts[topic.rsplit(".", 1)[-1]] += int(n)
    return counts


@pytest.mark.slow
def test_thousands_of_rounds_through_every_level_and_feature_verify(
    service: PumpkinApplication, store_url: str, publish: object
) -> None:
    publish(feature_rich_model("test-features"))  # type: ignore[operator]
    for n in range(8):
        play(service, f"p{n}", 375, stake=(20, 100, 1000)[n % 3])
    counts = event_counts(store_url)
    assert all(counts[name] for name in FEATURES), counts
    assert all(service.player_state(f"p{n}")["level"] == 5 for n in range(8))
    report = verify_store(service)
    assert report["ok"], report["problems"][:5]
    assert report["rounds_rederived"] == 3000
    assert report["events_checked"] == sum(counts.values())
    assert report["players_checked"] == 8


def test_rounds_played_on_an_old_model_rederive_after_a_new_model_ships(
    service: PumpkinApplication, store_url: str, publish: object
) -> None:
    old, new = feature_rich_model("test-old"), feature_rich_model("test-new")
    new.definition["paytable"] = {**new.definition["paytable"], "A": [11, 31, 101]}
    publish(old)  # type: ignore[operator]
    play(service, "old", 40)
    publish(new)  # type: ignore[operator]
    play(service, "new", 40)
    versions = {
        json.loads(bytes(s))["model_version"] for (s,) in run_sql(
            store_url, "SELECT state FROM {TABLE} WHERE topic LIKE %s", ("%StakePlaced",))}
    assert versions == {old.version, new.version}
    report = verify_store(service)
    assert report["ok"], report["problems"][:5]
    assert report["rounds_rederived"] == 80


def test_a_round_on_a_model_that_is_not_published_is_named(
    service: PumpkinApplication, publish: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = feature_rich_model("test-withdrawn")
    publish(gone)  # type: ignore[operator]
    play(service, "ivy", 3)
    monkeypatch.setattr(model_module, "registry", lambda: {})
    report = verify_player(service, "ivy")
    assert [(p["kind"], p["field"], p["found"], p["round_id"]) for p in report["problems"]] == [
        ("rederivation_failed", "StakePlaced.model_version", gone.version, f"ivy.{n}")
        for n in (1, 2, 3)
    ]


def test_players_are_compared_with_the_balances_view_once_it_has_caught_up(
    service: PumpkinApplication, store_url: str
) -> None:
    play(service, "ivy", 5)
    before = verify_player(service, "ivy")
    assert before["ok"] and not before["balance_view"]["caught_up"]
    rebuild(store_url)
    after = verify_player(service, "ivy")
    assert after["ok"] and after["balance_view"] == {
        "compared": 1, "behind": 0, "caught_up": True, "note": "all compared"}
    run_sql(store_url, "UPDATE view_balances SET balance = balance + 1")
    report = verify_store(service)
    assert [(p["kind"], p["field"], p["player_id"]) for p in report["problems"]] == [
        ("balance_view_mismatch", "view_balances.balance", "ivy")]


def test_a_snapshot_that_disagrees_with_replay_is_named(
    service: PumpkinApplication, store_url: str
) -> None:
    play(service, "ivy", 130)  # past one snapshot (every 500 events)
    stream = player_aggregate_id("ivy").hex
    table = "stored_snapshots" if store_url.startswith("sqlite:") else "pumpkin_snapshots"
    rows = run_sql(store_url, f"SELECT originator_version, state FROM {table} "  # noqa: S608
                   "WHERE originator_id = %s", (stream,))
    assert rows, "a snapshot was taken"
    version, state = rows[0]
    forged = json.loads(bytes(state))
    forged["state"]["balance"] += 1_000
    run_sql(store_url, f"UPDATE {table} SET state = %s WHERE originator_id = %s",  # noqa: S608
            (json.dumps(forged, separators=(",", ":")).encode(), stream))
    report = verify_player(service, "ivy")
    assert [(p["kind"], p["version"], p["field"]) for p in report["problems"]] == [
        ("snapshot_mismatch", version, "snapshot.balance")]


def test_events_deleted_from_the_end_of_a_stream_are_caught_by_the_balances_view(
    service: PumpkinApplication, store_url: str
) -> None:
    play(service, "ivy", 5)
    service.withdraw("ivy", 10, "w")
    rebuild(store_url)
    stream = player_aggregate_id("ivy").hex
    (last,), = run_sql(store_url, "SELECT MAX(originator_version) FROM {TABLE} "
                       "WHERE originator_id = %s", (stream,))
    run_sql(store_url, "DELETE FROM {TABLE} WHERE originator_id = %s AND originator_version = %s",
            (stream, last))
    assert service.check_player_chain("ivy") == []  # the chain alone cannot see a missing tail
    report = verify_player(service, "ivy")
    assert [(p["kind"], p["version"], p["player_id"]) for p in report["problems"]] == [
        ("missing_events", last, "ivy")]


def test_a_player_whose_whole_stream_was_deleted_is_caught_by_the_balances_view(
    service: PumpkinApplication, store_url: str
) -> None:
    play(service, "ivy", 2)
    play(service, "joe", 2)
    rebuild(store_url)
    run_sql(store_url, "DELETE FROM {TABLE} WHERE originator_id = %s",
            (player_aggregate_id("joe").hex,))
    report = verify_store(service)
    assert [(p["kind"], p["player_id"], p["field"]) for p in report["problems"]] == [
        ("missing_events", "joe", "stream")]
