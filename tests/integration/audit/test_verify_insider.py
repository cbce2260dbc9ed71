"""Verify proves the state the service acts on, against an insider with write access to the
database (or a defect): a stale snapshot, events that break the rules though they chain, a
change of an event's meaning outside its fields, and a row naming code to import are each
caught and named."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from store_support import run_sql

from domain.ledger import player as player_module
from domain.ledger import protection_commands
from domain.ledger.player import player_aggregate_id
from domain.ledger.protection import PROFILES
from infrastructure.application import PumpkinApplication
from infrastructure.audit.verification import verify_player, verify_store
from infrastructure.rounds import spins as spins_module


def kinds(report: dict[str, Any]) -> set[str]:
    return {p["kind"] for p in report["problems"]}


def funded(app: PumpkinApplication, player_id: str = "ivy") -> str:
    app.register_player(player_id)
    app.deposit(player_id, 100_000, "d1")
    session_id, _ = app.open_session(player_id)
    return session_id


def stored(store_url: str, stream: str, topic: str) -> list[tuple[int, dict[str, Any]]]:
    found = run_sql(
        store_url, "SELECT originator_version, state FROM {TABLE} WHERE originator_id = %s "
        "AND topic = %s ORDER BY originator_version", (stream, topic))
    return [(int(v), json.loads(bytes(s))) for v, s in found]


def put(store_url: str, stream: str, version: int, state: dict[str, Any]) -> None:
    run_sql(store_url, "UPDATE {TABLE} SET state = %s WHERE originator_id = %s AND "
            "originator_version = %s", (json.dumps(state).encode(), stream, version))


# -- the stale snapshot ------------------------------------------------------------------------


def test_a_snapshot_that_lifts_an_exclusion_and_inflates_a_campaign_is_a_snapshot_mismatch(
    service: PumpkinApplication,
) -> None:
    funded(service)
    service.grant_free_rounds("ivy", "welcome", 5, 20, None, "g1")
    service.exclude("ivy", None, "asked to")
    # An insider writes the newest snapshot (sealed, even: they hold the service's key) of the
    # player as they would like the service to see it: no exclusion, 1,000 free rounds.
    player = service.load_player("ivy")
    player.guard = replace(player.guard, excluded=False)
    player.free_rounds = {"welcome": replace(player.free_rounds["welcome"], rounds_left=1_000)}
    service.store.write_snapshots([player])
    report = verify_player(service, "ivy")
    assert not report["ok"]
    fields = {p["field"] for p in report["problems"] if p["kind"] == "snapshot_mismatch"}
    assert any(f.startswith("snapshot.guard") for f in fields), fields
    assert any(f.startswith("snapshot.free_rounds") for f in fields), fields
    assert not verify_store(service)["ok"]


def test_an_honest_snapshot_compares_equal_in_full(service: PumpkinApplication) -> None:
    funded(service)
    service.grant_free_rounds("ivy", "welcome", 5, 20, None, "g1")
    service.store.write_snapshots([service.load_player("ivy")])
    report = verify_player(service, "ivy")
    assert report["ok"], report["problems"]


# -- rules the events must obey ----------------------------------------------------------------


def test_a_session_opened_and_a_round_played_while_excluded_are_excluded_play(
    service: PumpkinApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = funded(service)
    service.exclude("ivy", None, "asked to")
    # A defect (or a forged history) that forgot the exclusion: the events still chain.
    monkeypatch.setattr(player_module, "check_opening", lambda *a: None)
    monkeypatch.setattr(protection_commands, "check_access", lambda *a: None)
    late, _ = service.open_session("ivy")
    service.spin(late, 20, "after")
    report = verify_store(service)
    excluded = [p for p in report["problems"] if p["kind"] == "excluded_play"]
    assert len(excluded) == 2 and excluded[1]["round_id"] == "ivy.1", report["problems"]
    assert session_id != late


def test_a_free_round_beyond_its_grant_is_free_round_overdrawn(
    service: PumpkinApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = funded(service)
    service.grant_free_rounds("ivy", "welcome", 2, 20, None, "g1")
    for n in range(2):
        service.spin(session_id, None, f"f{n}", free_round="welcome")
    assert verify_store(service)["ok"]
    monkeypatch.setattr(player_module, "check_free_round", lambda *a: None)
    monkeypatch.setattr(spins_module, "check_free_round", lambda *a: None)
    service.spin(session_id, None, "f2", free_round="welcome")
    report = verify_store(service)
    [overdrawn] = [p for p in report["problems"] if p["kind"] == "free_round_overdrawn"]
    assert overdrawn["round_id"] == "ivy.3" and "used up" in overdrawn["detail"]


def test_a_stake_above_the_players_maximum_in_force_is_limit_broken(
    service: PumpkinApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = funded(service)
    service.set_limits("ivy", {"max_stake": 20})
    service.spin(session_id, 20, "ok")
    monkeypatch.setattr(protection_commands, "check_round", lambda *a, **k: None)
    service.spin(session_id, 100, "over")
    report = verify_store(service)
    [broken] = [p for p in report["problems"] if p["kind"] == "limit_broken"]
    assert broken["round_id"] == "ivy.2" and "maximum stake 20" in broken["detail"]


def test_rules_are_judged_at_the_events_own_time(service: PumpkinApplication) -> None:
    service.profile = PROFILES["none"]
    start = datetime.now(UTC)
    later = start
    service.clock = lambda: later
    funded(service)
    service.exclude("ivy", start + timedelta(hours=1), "a break")
    later = start + timedelta(hours=2)  # the exclusion is over: play is allowed again
    session_id, _ = service.open_session("ivy")
    service.spin(session_id, 20, "back")
    report = verify_store(service)
    assert report["ok"], report["problems"]


# -- meaning outside the hash ------------------------------------------------------------------


def test_removing_class_version_from_a_free_rounds_stake_breaks_the_chain(
    service: PumpkinApplication, store_url: str
) -> None:
    session_id = funded(service)
    service.grant_free_rounds("ivy", "welcome", 1, 20, None, "g1")
    service.spin(session_id, None, "f", free_round="welcome")
    stream = player_aggregate_id("ivy").hex
    [(version, state)] = stored(store_url, stream, "domain.player:Player.StakePlaced")
    assert state["class_version"] == 3 and state["chain_rule"] == 2
    del state["class_version"]  # read as version 1: a paid round
    put(store_url, stream, version, state)
    report = verify_store(service)
    assert ("broken_link", version + 1) in {(p["kind"], p["version"]) for p in report["problems"]}


def test_removing_the_chain_rule_cannot_downgrade_an_event_to_the_old_hash(
    service: PumpkinApplication, store_url: str
) -> None:
    session_id = funded(service)
    service.spin(session_id, 20, "r")
    stream = player_aggregate_id("ivy").hex
    [(version, state)] = stored(store_url, stream, "domain.player:Player.StakePlaced")
    del state["chain_rule"]
    put(store_url, stream, version, state)
    report = verify_store(service)
    assert ("broken_link", version + 1) in {(p["kind"], p["version"]) for p in report["problems"]}


def test_a_row_naming_a_module_is_unknown_topic_and_nothing_is_imported(
    service: PumpkinApplication, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    funded(service)
    stream = player_aggregate_id("ivy").hex
    sys.modules.pop("this", None)
    run_sql(store_url, "UPDATE {TABLE} SET topic = %s WHERE originator_id = %s AND "
            "originator_version = 2", ("this:s", stream))
    report = verify_store(service)
    [unknown] = [p for p in report["problems"] if p["kind"] == "unknown_topic"]
    assert unknown["version"] == 2 and unknown["found"] == "this:s"
    assert "this" not in sys.modules
    assert "Beautiful is better" not in capsys.readouterr().out
