"""The regulator's replay catches a store edited behind the service's back, and names the stream,
version, round and field: edits are made straight in the database, as an attacker would."""

from __future__ import annotations

import json
from typing import Any

from store_support import run_sql

from domain.ledger.event_names import stored_name
from domain.ledger.hashchain import digest_of
from domain.ledger.player import player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.audit.verification import verify_player, verify_store

SPINS = 12


def played(app: PumpkinApplication) -> str:
    app.register_player("ivy")
    app.deposit("ivy", 100_000, "d1")
    session_id, _ = app.open_session("ivy")
    for n in range(SPINS):
        app.spin(session_id, 20, f"r{n}")
    app.withdraw("ivy", 10, "w1")
    return player_aggregate_id("ivy").hex


def rows(store_url: str, stream: str, event: str) -> list[tuple[int, bytes]]:
    """(version, stored state) of the stream's events of one kind, in order."""
    found = run_sql(
        store_url,
        "SELECT originator_version, state FROM {TABLE} WHERE originator_id = %s "
        "AND topic = %s ORDER BY originator_version",
        (stream, f"domain.player:Player.{event}"),
    )
    return [(int(v), bytes(s)) for v, s in found]


def put_state(store_url: str, stream: str, version: int, state: bytes) -> None:
    run_sql(
        store_url,
        "UPDATE {TABLE} SET state = %s WHERE originator_id = %s AND originator_version = %s",
        (state, stream, version),
    )


def edited(state: bytes, change: Any) -> bytes:
    value = json.loads(state)
    change(value)
    return json.dumps(value, separators=(",", ":")).encode()


def named(report: dict[str, Any]) -> set[tuple[str, int, str | None]]:
    return {(p["kind"], p["version"], p["field"]) for p in report["problems"]}


def test_a_clean_store_verifies(service: PumpkinApplication) -> None:
    played(service)
    report = verify_store(service)
    assert report["ok"], report["problems"]
    assert report["rounds_rederived"] == SPINS
    assert report["events_checked"] >= SPINS * 3 + 5
    assert verify_player(service, "ivy")["ok"]


def test_a_changed_screen_cell_is_caught_by_the_chain_and_by_rederivation(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    version, state = rows(store_url, stream, "SymbolsLanded")[3]
    cell = json.loads(state)["payload"]["screen"][0][0]
    other = "GHOST" if cell == "WITCH" else "WITCH"
    put_state(store_url, stream, version,
              edited(state, lambda s: s["payload"]["screen"][0].__setitem__(0, other)))
    report = verify_player(service, "ivy")
    assert not report["ok"]
    assert ("broken_link", version + 1, "prev_hash") in named(report)
    mismatch = next(p for p in report["problems"] if p["kind"] == "fact_mismatch")
    assert mismatch["version"] == version
    assert mismatch["field"] == "SymbolsLanded.screen[0][0]"
    assert (mismatch["expected"], mismatch["found"]) == (cell, other)
    assert mismatch["round_id"] == json.loads(state)["round_id"]
    assert mismatch["player_id"] == "ivy"


def test_a_changed_seed_is_caught_and_its_round_named(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    version, state = rows(store_url, stream, "StakePlaced")[5]
    seed = json.loads(state)["seed"]
    forged = ("0" if seed[0] != "0" else "1") + seed[1:]
    put_state(store_url, stream, version, edited(state, lambda s: s.__setitem__("seed", forged)))
    report = verify_player(service, "ivy")
    assert ("broken_link", version + 1, "prev_hash") in named(report)
    rederived = [p for p in report["problems"] if p["kind"] != "broken_link"]
    assert rederived and {p["round_id"] for p in rederived} == {"ivy.6"}


def test_a_changed_win_is_caught_in_the_settlement(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    version, state = rows(store_url, stream, "RoundSettled")[2]
    settled = json.loads(state)
    put_state(store_url, stream, version,
              edited(state, lambda s: s.update(total_win=s["total_win"] + 500,
                                               balance_after=s["balance_after"] + 500)))
    report = verify_player(service, "ivy")
    problems = {p["field"]: p for p in report["problems"] if p["version"] == version}
    assert problems["RoundSettled.total_win"]["expected"] == settled["total_win"]
    assert problems["RoundSettled.total_win"]["found"] == settled["total_win"] + 500
    assert problems["RoundSettled.balance_after"]["kind"] == "settlement_mismatch"
    assert ("broken_link", version + 1, "prev_hash") in named(report)


def test_a_win_changed_and_the_chain_forged_after_it_is_still_caught_by_rederivation(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    version, state = rows(store_url, stream, "SpinCompleted")[1]
    put_state(store_url, stream, version,
              edited(state, lambda s: s["payload"].update(win=s["payload"]["win"] + 1000)))
    last = int(run_sql(store_url, "SELECT MAX(originator_version) FROM {TABLE} "
                       "WHERE originator_id = %s", (stream,))[0][0])
    for later in range(version + 1, last + 1):  # recompute every link after the edit
        before = next(iter(service.events.get(player_aggregate_id("ivy"), gt=later - 2,
                                               limit=1)))
        digest = digest_of(before, stored_name(type(before)))  # the forger knows the names
        (_, now), = run_sql(store_url, "SELECT originator_version, state FROM {TABLE} WHERE "
                            "originator_id = %s AND originator_version = %s", (stream, later))
        put_state(store_url, stream, later,
                  edited(bytes(now), lambda s, d=digest: s.__setitem__("prev_hash", d)))
    assert service.check_player_chain("ivy") == []  # the chain alone is fooled
    report = verify_player(service, "ivy")
    assert ("fact_mismatch", version, "SpinCompleted.win") in named(report)


def test_a_deleted_event_is_caught(service: PumpkinApplication, store_url: str) -> None:
    stream = played(service)
    version, state = rows(store_url, stream, "SymbolsLanded")[6]
    run_sql(store_url, "DELETE FROM {TABLE} WHERE originator_id = %s AND originator_version = %s",
            (stream, version))
    report = verify_player(service, "ivy")
    assert ("version_gap", version + 1, "originator_version") in named(report)
    assert any(p["kind"] == "events_mismatch" and p["round_id"] == json.loads(state)["round_id"]
               for p in report["problems"])


def test_two_swapped_events_are_caught(service: PumpkinApplication, store_url: str) -> None:
    stream = played(service)
    first = rows(store_url, stream, "StakePlaced")[2][0]
    second = first + 1  # the round's first fact
    run_sql(store_url, "UPDATE {TABLE} SET originator_version = -1 WHERE originator_id = %s "
            "AND originator_version = %s", (stream, first))
    run_sql(store_url, "UPDATE {TABLE} SET originator_version = %s WHERE originator_id = %s "
            "AND originator_version = %s", (first, stream, second))
    run_sql(store_url, "UPDATE {TABLE} SET originator_version = %s WHERE originator_id = %s "
            "AND originator_version = -1", (second, stream))
    report = verify_player(service, "ivy")
    assert ("broken_link", first, "prev_hash") in named(report)
    assert not report["ok"]


def test_a_forged_event_appended_without_the_right_previous_hash_is_caught(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    version, state = rows(store_url, stream, "Deposited")[0]
    last = int(run_sql(store_url, "SELECT MAX(originator_version) FROM {TABLE} "
                       "WHERE originator_id = %s", (stream,))[0][0])
    forged = edited(state, lambda s: s.update(balance_after=10**9, request_id="forged"))
    run_sql(store_url, "INSERT INTO {TABLE} (originator_id, originator_version, topic, state) "
            "VALUES (%s, %s, %s, %s)",
            (stream, last + 1, "domain.player:Player.Deposited", forged))
    report = verify_player(service, "ivy")
    assert ("broken_link", last + 1, "prev_hash") in named(report)


def test_the_report_names_stream_version_round_field_expected_found_and_kind(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    version, state = rows(store_url, stream, "RoundSettled")[0]
    put_state(store_url, stream, version, edited(state, lambda s: s.update(level=3)))
    problem = next(p for p in verify_player(service, "ivy")["problems"]
                   if p["field"] == "RoundSettled.level")
    assert problem["stream"].replace("-", "") == stream
    assert set(problem) >= {"stream", "player_id", "version", "round_id", "field", "expected",
                            "found", "kind"}
    assert (problem["round_id"], problem["expected"], problem["found"]) == ("ivy.1", 0, 3)


def test_a_stake_edited_into_nonsense_is_named_not_a_crash(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    version, state = rows(store_url, stream, "StakePlaced")[1]
    put_state(store_url, stream, version, edited(state, lambda s: s.update(stake=7)))
    report = verify_player(service, "ivy")
    assert ("rederivation_failed", version, "StakePlaced") in named(report)
    assert ("settlement_mismatch", version, "StakePlaced.balance_after") in named(report)
