"""Provably fair rounds (the game rules, section 8): every seed committed before the bet,
derived with HMAC-SHA256 from the server seed, nonce and client seed, revealed at the close, and
checked here with the standard library alone."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fair_support import commitment, derived_seed, funded_session, played_on_a_clock, stream_events
from store_support import run_sql

from domain.errors import InvalidClientSeed, SessionClosed
from domain.ledger.player import Player, player_aggregate_id
from domain.ledger.protection import PROFILES
from infrastructure.application import PumpkinApplication
from infrastructure.audit.verification import verify_store
from infrastructure.sessions.seed_vault import SeedVault


def test_every_round_of_a_closed_session_rederives_with_the_standard_librarys_hmac(
    service: PumpkinApplication,
) -> None:
    session_id = funded_session(service, "ada")
    opened = service.session(session_id)
    assert opened["open"] is True and opened["server_seed"] is None
    client_seeds = ["", "lucky", "~ !x", "z" * 64]
    rounds = [service.spin(session_id, 20, f"r{n}", seed) for n, seed in enumerate(client_seeds)]
    closed = service.close_session(session_id)
    reveal = closed["server_seed"]
    assert commitment(reveal) == opened["seed_commitment"] == closed["seed_commitment"]
    for nonce, (played, client_seed) in enumerate(zip(rounds, client_seeds, strict=True), 1):
        assert played["nonce"] == nonce and played["client_seed"] == client_seed
        assert played["seed_commitment"] == opened["seed_commitment"]
        assert played["seed"] == derived_seed(reveal, session_id, nonce, client_seed)
    report = verify_store(service)
    assert report["ok"], report["problems"]
    assert report["fair_sessions"]["sessions_verified"] == 1


def test_the_seed_stays_hidden_until_the_close_reveals_it_in_every_place(
    service: PumpkinApplication,
) -> None:
    session_id = funded_session(service, "bea")
    service.spin(session_id, 20, "r1")
    assert service.session(session_id)["server_seed"] is None
    assert not stream_events(service, "bea", "SeedRevealed")
    closed = service.close_session(session_id)
    assert service.session(session_id) == closed  # GET /sessions/{sid} after the close
    assert service.close_session(session_id) == closed  # closing twice answers the same
    [revealed] = stream_events(service, "bea", "SeedRevealed")
    assert revealed.server_seed == closed["server_seed"]
    assert closed["open"] is False and closed["closed_at"] is not None
    assert (closed["spins"], closed["staked"]) == (1, 20)
    assert closed["net"] == closed["won"] - 20


def test_every_spin_answer_carries_the_sessions_running_figures(
    service: PumpkinApplication,
) -> None:
    session_id = funded_session(service, "cal")
    won = 0
    for n in range(1, 4):
        played = service.spin(session_id, 40, f"r{n}")
        won += played["total_win"]
        figures = played["session"]
        assert (figures["spins"], figures["staked"], figures["won"]) == (n, 40 * n, won)
        assert figures["net"] == won - 40 * n and figures["elapsed_seconds"] >= 0


def test_a_client_seed_is_up_to_64_printable_ascii_characters(
    service: PumpkinApplication,
) -> None:
    session_id = funded_session(service, "dan")
    for bad in ("x" * 65, "tab\t", "é", "new\nline"):
        with pytest.raises(InvalidClientSeed):
            service.spin(session_id, 20, "bad", bad)
    assert service.player_state("dan")["balance"] == 100_000


def test_a_restart_with_the_same_key_keeps_open_sessions_playable(store_url: str) -> None:
    key = bytes(range(32))
    with PumpkinApplication.from_url(store_url, seed_vault=SeedVault(key)) as first:
        session_id = funded_session(first, "eve")
        first.spin(session_id, 20, "r1")
    with PumpkinApplication.from_url(store_url, seed_vault=SeedVault(key)) as second:
        second.spin(session_id, 20, "r2")
        closed = second.close_session(session_id)
        assert verify_store(second)["fair_sessions"]["sessions_verified"] == 1
    assert closed["spins"] == 2


def test_a_session_idle_for_the_timeout_is_closed_by_the_service_and_revealed(
    store_url: str,
) -> None:
    with played_on_a_clock(store_url, "fay") as (app, clock, idle):
        busy, _ = app.open_session("fay")
        clock.offset = timedelta(seconds=50)
        app.spin(busy, 20, "r2")
        assert not app.close_if_idle(idle, idle_seconds=60)
        clock.offset = timedelta(seconds=61)
        assert app.close_if_idle(idle, idle_seconds=60)
        assert not app.close_if_idle(busy, idle_seconds=60)  # it spun 11 seconds ago
        closed = app.session(idle)
        assert closed["closed_by"] == "idle" and closed["server_seed"] is not None
        with pytest.raises(SessionClosed):
            app.spin(idle, 20, "r3")
        assert verify_store(app)["fair_sessions"] == {
            "sessions_verified": 1, "sessions_open": 1, "sessions_before_commitments": 0,
            "rounds_checked": 1, "burned_nonces": 0,
        }


def test_a_round_lost_to_a_conflict_is_retried_with_the_next_nonce_and_recorded(
    service: PumpkinApplication, store_url: str
) -> None:
    session_id = funded_session(service, "gus")
    with PumpkinApplication.from_url(store_url) as other:
        other.player_state("gus")  # `other` caches gus as it is now
        service.deposit("gus", 1, "meanwhile")  # so other's first attempt loses the race
        played = other.spin(session_id, 20, "r1")
    assert played["nonce"] == 2
    [burned] = stream_events(service, "gus", "NonceBurned")
    assert (burned.session_id, burned.nonce) == (session_id, 1)
    assert service.spin(session_id, 20, "r2")["nonce"] == 3
    reveal = service.close_session(session_id)["server_seed"]
    assert burned.seed == derived_seed(reveal, session_id, 1, "")  # what the lost attempt used
    report = verify_store(service)
    assert report["ok"], report["problems"]
    assert report["fair_sessions"]["sessions_verified"] == 1
    assert report["burned_nonces"] == 1  # re-derived from the revealed seed, and counted


def test_a_burned_nonce_whose_seed_does_not_derive_is_a_seed_mismatch(
    service: PumpkinApplication, store_url: str
) -> None:
    session_id = funded_session(service, "gus")
    with PumpkinApplication.from_url(store_url) as other:
        other.player_state("gus")
        service.deposit("gus", 1, "meanwhile")
        other.spin(session_id, 20, "r1")
    service.close_session(session_id)
    stream = player_aggregate_id("gus").hex
    [(version, state)] = run_sql(
        store_url, "SELECT originator_version, state FROM {TABLE} WHERE originator_id = %s "
        "AND topic = %s", (stream, "pumpkin:Player.NonceBurned"))
    forged = json.loads(bytes(state))
    forged["seed"] = "ab" * 32  # a re-roll passed off as the burned attempt
    run_sql(store_url, "UPDATE {TABLE} SET state = %s WHERE originator_id = %s "
            "AND originator_version = %s", (json.dumps(forged).encode(), stream, version))
    report = verify_store(service)
    assert ("seed_mismatch", "NonceBurned.seed") in {
        (p["kind"], p["field"]) for p in report["problems"]}


def test_a_player_with_a_thousand_closed_sessions_keeps_a_small_aggregate(
    service: PumpkinApplication,
) -> None:
    sessions = [funded_session(service, "hal")]
    sessions += [service.open_session("hal")[0] for _ in range(999)]
    for session_id in sessions:
        service.close_session(session_id)
    player = service.load_player("hal")
    assert player.sessions == {}
    assert len(repr(vars(player))) < 5_000
    assert service.session(sessions[0])["open"] is False  # still answered, from its events


def test_an_old_snapshot_with_closed_sessions_in_its_map_still_loads_and_plays() -> None:
    from eventsourcing.domain import Snapshot

    player = Player.register("ivy")
    player.deposit(1_000, "d", datetime.now(UTC))
    state_before = dict(vars(player))
    snapshot = Snapshot.take(player)
    # As the release before stored them (version 1 of the state): four fields per session,
    # closed ones kept.
    del snapshot.state["class_version"], snapshot.state["guard"], snapshot.state["free_rounds"]
    snapshot.state["sessions"] = {"old-open": [True, 0, 0, 0], "old-closed": [False, 0, 0, 0]}
    loaded: Player = snapshot.mutate(None)
    assert loaded.balance == state_before["balance"]
    assert loaded.session_is_open("old-open") and not loaded.session_is_open("old-closed")
    assert set(loaded.sessions) == {"old-open"}  # the closed entry left as it was read
    loaded.spin("old-open", 20, "r", bytes(32))  # a session from before commitments
    entry = loaded.session("old-open")
    assert entry is not None and entry.spins == 1 and not entry.committed
    loaded.open_session("new", "h3", "c" * 64, "sealed", datetime.now(UTC), PROFILES["none"])
    assert set(loaded.sessions) == {"old-open", "new"}


def test_the_dispute_report_shows_the_commitment_the_reveal_and_the_derivation(
    service: PumpkinApplication,
) -> None:
    from infrastructure.audit.dispute import dispute_report

    session_id = funded_session(service, "joe")
    played = service.spin(session_id, 20, "r1", "abc")
    assert dispute_report(service, played["round_id"])["fairness"]["server_seed"] is None
    reveal = service.close_session(session_id)["server_seed"]
    fair = dispute_report(service, played["round_id"])["fairness"]
    assert fair["message"] == f"{session_id}:1:abc" and fair["server_seed"] == reveal
    assert fair["seed"] == derived_seed(reveal, session_id, 1, "abc")
    assert fair["commitment_agrees"] is True and fair["seed_agrees"] is True


def test_the_embedded_default_keeps_its_seed_key_in_a_file_next_to_the_database(
    tmp_path: Path,
) -> None:
    from pydantic import SecretStr

    from infrastructure.bootstrap import build_application
    from infrastructure.settings import Settings

    settings = Settings(database_url=f"sqlite:///{tmp_path / 'pumpkin.db'}",
                        seed_key=SecretStr(""))  # unset: the key file
    first = build_application(settings)
    session_id = funded_session(first, "kit")
    first.spin(session_id, 20, "r1")
    first.close()
    key_file = tmp_path / "pumpkin.db.seed-key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    second = build_application(settings)  # a restart: the same key, read from the file
    try:
        assert second.spin(session_id, 20, "r2")["nonce"] == 2
    finally:
        second.close()


def test_a_command_closing_every_open_session_at_once_reveals_each_seed(
    service: PumpkinApplication,
) -> None:
    first = funded_session(service, "pat")
    second, _ = service.open_session("pat")
    service.spin(first, 20, "r1")
    service.exclude("pat", None, "self-exclusion")  # closes both in the one command
    for session_id in (first, second):
        closed = service.session(session_id)
        assert closed["open"] is False and closed["closed_by"] == "exclusion"
        assert commitment(closed["server_seed"]) == closed["seed_commitment"]
    assert verify_store(service)["fair_sessions"]["sessions_verified"] == 2
