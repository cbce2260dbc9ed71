"""The application on a real store (SQLite and PostgreSQL): money, sessions and whole rounds."""

from __future__ import annotations

from typing import Any

import pytest

from domain.errors import (
    InsufficientFunds,
    InvalidAmount,
    InvalidPlayerId,
    InvalidRequestId,
    InvalidStake,
    PlayerExists,
    PlayerNotFound,
    RequestIdReused,
    RoundNotFound,
    SessionClosed,
    SessionNotFound,
)
from domain.game.progress import multiplier_of
from domain.ledger.player import Player, player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.store.event_store import SNAPSHOT_EVERY


def stream(app: PumpkinApplication, player_id: str) -> list[Any]:
    return list(app.events.get(player_aggregate_id(player_id)))


def version(app: PumpkinApplication, player_id: str) -> int:
    return stream(app, player_id)[-1].originator_version


def funded_player(app: PumpkinApplication, player_id: str, amount: int) -> str:
    app.register_player(player_id)
    app.deposit(player_id, amount, f"{player_id}-funding")
    session_id, _token = app.open_session(player_id)
    return session_id


def test_a_player_unlocks_every_level_on_schedule_and_money_adds_up(
    service: PumpkinApplication, store_url: str
) -> None:
    session_id = funded_player(service, "ana", 1_000_000)
    unlocked_at: list[int] = []
    for spin in range(1, 271):
        answer = service.spin(session_id, 20, f"spin-{spin}")
        if "LevelUnlocked" in answer["events"]:
            unlocked_at.append(spin)
        if spin % 50 == 0:
            service.deposit("ana", 1000, f"top-up-{spin}")
            service.withdraw("ana", 300, f"cash-out-{spin}")

    assert unlocked_at == [11, 36, 86, 161, 261]
    events = stream(service, "ana")
    deposits = sum(e.amount for e in events if isinstance(e, Player.Deposited))
    withdrawals = sum(e.amount for e in events if isinstance(e, Player.Withdrawn))
    stakes = sum(e.stake for e in events if isinstance(e, Player.StakePlaced))
    wins = sum(e.total_win for e in events if isinstance(e, Player.RoundSettled))
    with PumpkinApplication.from_url(store_url) as rebuilt:
        state = rebuilt.player_state("ana")
    assert state["balance"] == deposits - withdrawals - stakes + wins
    assert state["level"] == 5 and state["spins_to_next_level"] is None
    last = [e for e in events if isinstance(e, Player.RoundSettled)][-1]
    # The events record the multipliers in halves; the state shows them as numbers.
    assert state["hold_and_win_multiplier"] == multiplier_of(last.hold_and_win_halves)
    assert state["free_spins_multiplier"] == multiplier_of(last.free_spins_halves)
    assert 1.5 <= state["hold_and_win_multiplier"] <= 3.0  # level 5 starts both at x1.5


def test_the_meter_shows_10_for_a_new_player_and_20_after_15_spins(
    service: PumpkinApplication,
) -> None:
    session_id = funded_player(service, "ben", 10_000)
    assert service.player_state("ben")["spins_to_next_level"] == 10
    for spin in range(15):
        service.spin(session_id, 20, f"s{spin}")
    assert service.player_state("ben")["spins_to_next_level"] == 20
    assert service.player_state("ben")["level"] == 1


def test_a_round_reads_back_exactly_as_the_spin_answered(
    service: PumpkinApplication, store_url: str
) -> None:
    session_id = funded_player(service, "cid", 10_000)
    answers = [service.spin(session_id, 40, f"r{n}") for n in range(12)]
    with PumpkinApplication.from_url(store_url) as other:
        for answer in answers:
            assert other.round(answer["round_id"]) == answer
    assert answers[0]["round_id"] == "cid.1" and answers[-1]["round_id"] == "cid.12"
    assert service.round_ids("cid") == [f"cid.{n}" for n in range(12, 0, -1)]
    with pytest.raises(RoundNotFound):
        service.round("cid.13")
    with pytest.raises(RoundNotFound):
        service.round("nobody.1")


def test_the_same_request_id_answers_the_first_result_and_changes_nothing(
    service: PumpkinApplication,
) -> None:
    session_id = funded_player(service, "dee", 5_000)
    assert service.deposit("dee", 700, "dep-1") == 5_700
    assert service.withdraw("dee", 200, "wd-1") == 5_500
    first = service.spin(session_id, 100, "spin-1")
    before = version(service, "dee")

    assert service.deposit("dee", 700, "dep-1") == 5_700
    assert service.withdraw("dee", 200, "wd-1") == 5_500
    assert service.spin(session_id, 100, "spin-1") == first
    assert version(service, "dee") == before

    for reuse in (
        lambda: service.deposit("dee", 701, "dep-1"),
        lambda: service.withdraw("dee", 700, "dep-1"),
        lambda: service.spin(session_id, 200, "spin-1"),
        lambda: service.deposit("dee", 100, "spin-1"),
    ):
        with pytest.raises(RequestIdReused):
            reuse()
    assert version(service, "dee") == before


def test_every_named_error_changes_nothing(service: PumpkinApplication) -> None:
    session_id = funded_player(service, "eve", 100)
    before = version(service, "eve")
    attempts: list[tuple[type[Exception], Any]] = [
        (InvalidStake, lambda: service.spin(session_id, 21, "a")),
        (InvalidStake, lambda: service.spin(session_id, True, "a")),
        (InsufficientFunds, lambda: service.spin(session_id, 200, "a")),
        (InsufficientFunds, lambda: service.withdraw("eve", 101, "a")),
        (InvalidAmount, lambda: service.deposit("eve", 0, "a")),
        (InvalidAmount, lambda: service.deposit("eve", -5, "a")),
        (InvalidRequestId, lambda: service.deposit("eve", 5, "")),
        (SessionNotFound, lambda: service.spin("0" * 32, 20, "a")),
        (SessionNotFound, lambda: service.spin("not-a-session", 20, "a")),
        (SessionNotFound, lambda: service.close_session("f" * 32)),
        (InvalidPlayerId, lambda: service.register_player("no spaces")),
        (InvalidPlayerId, lambda: service.register_player("x" * 65)),
        (PlayerExists, lambda: service.register_player("eve")),
        (PlayerNotFound, lambda: service.deposit("ghost", 5, "a")),
        (PlayerNotFound, lambda: service.open_session("ghost")),
    ]
    for error, attempt in attempts:
        with pytest.raises(error):
            attempt()
    assert version(service, "eve") == before
    assert service.player_state("eve")["balance"] == 100

    service.close_session(session_id)
    closed = version(service, "eve")
    with pytest.raises(SessionClosed):
        service.spin(session_id, 20, "after-close")
    assert version(service, "eve") == closed


def test_a_session_token_finds_its_session_and_a_closed_session_stays_closed(
    service: PumpkinApplication, store_url: str
) -> None:
    service.register_player("fay")
    service.deposit("fay", 1_000, "d")
    session_id, token = service.open_session("fay")
    ref = service.session_for_token(token)
    assert ref is not None
    assert (ref.session_id, ref.player_id, ref.open) == (session_id, "fay", True)
    assert service.session_for_token("not-a-token") is None

    service.spin(session_id, 20, "a")
    service.spin(session_id, 40, "b")
    summary = service.close_session(session_id)
    assert summary["session_id"] == session_id
    assert (summary["spins"], summary["staked"]) == (2, 60)
    assert summary["net"] == summary["won"] - 60
    assert service.close_session(session_id) == summary
    with PumpkinApplication.from_url(store_url) as other:
        closed = other.session_for_token(token)
        assert closed is not None and closed.open is False
        assert other.close_session(session_id) == summary
    stored = [e for e in stream(service, "fay") if isinstance(e, Player.SessionOpened)]
    assert stored[0].token_hash != token and len(stored[0].token_hash) == 64


def test_a_player_loads_from_a_snapshot_into_the_same_state_as_a_full_replay(
    service: PumpkinApplication,
) -> None:
    session_id = funded_player(service, "gus", 1_000_000)
    n = 0
    while version(service, "gus") < SNAPSHOT_EVERY + 20:
        n += 1
        service.spin(session_id, 20, f"s{n}")
    aggregate_id = player_aggregate_id("gus")
    assert service.snapshots is not None
    assert list(service.snapshots.get(aggregate_id))
    from_snapshot: Player = service.repository.get(aggregate_id)
    replayed = None
    for event in service.events.get(aggregate_id):
        replayed = event.mutate(replayed)
    assert replayed is not None
    assert vars(replayed) == vars(from_snapshot) | {"_modified_on": replayed.modified_on}
    assert service.check_player_chain("gus") == []


def test_two_applications_on_one_store_never_decide_on_stale_state(
    service: PumpkinApplication, store_url: str
) -> None:
    session_id = funded_player(service, "hal", 100)
    with PumpkinApplication.from_url(store_url) as other:
        assert other.player_state("hal")["balance"] == 100  # `other` now caches hal
        service.deposit("hal", 900, "more")
        assert other.withdraw("hal", 1_000, "all") == 0  # judged on the newest state
        assert service.player_state("hal")["balance"] == 0
        with pytest.raises(InsufficientFunds):
            service.spin(session_id, 20, "broke")
        service.deposit("hal", 20, "again")
        answer = other.spin(session_id, 20, "one")
        assert service.spin(session_id, 20, "one") == answer  # the same request, seen once
        assert service.close_session(session_id) == other.close_session(session_id)
        with pytest.raises(SessionClosed):
            other.spin(session_id, 20, "two")
