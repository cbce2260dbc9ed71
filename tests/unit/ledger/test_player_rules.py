"""The Player aggregate alone: commands decide, events assign, replay rebuilds the same player."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from ledger_support import open_plain_session

import domain.ledger.player as player_module
from domain.errors import (
    InsufficientFunds,
    InvalidAmount,
    InvalidPlayerId,
    InvalidStake,
    RequestIdReused,
    SessionClosed,
)
from domain.ledger.player import Player, parse_round_id
from domain.ledger.recall import round_view
from domain.ledger.round_events import round_event_payload

SEED = bytes(range(32))


def new_player(balance: int = 10_000) -> Player:
    player = Player.register("jo")
    player.deposit(balance, "funding", datetime.now(UTC))
    open_plain_session(player, "s1", "a" * 64)
    return player


def replay(events: list[Any]) -> Player:
    rebuilt = None
    for event in events:
        rebuilt = event.mutate(rebuilt)
    assert isinstance(rebuilt, Player)
    return rebuilt


def test_replaying_the_events_rebuilds_the_same_player() -> None:
    player = new_player()
    for n in range(40):
        player.spin("s1", 20, f"r{n}", SEED)
    player.withdraw(500, "w")
    player.close_session("s1")
    rebuilt = replay(player.collect_events())
    assert vars(rebuilt) | {"_pending_events": []} == vars(player) | {"_pending_events": []}


def test_a_round_is_stake_placed_then_the_engine_facts_then_round_settled() -> None:
    player = new_player()
    player.collect_events()
    outcome = player.spin("s1", 100, "r1", SEED)
    events = player.collect_events()
    names = [type(e).__name__ for e in events]
    assert names == ["StakePlaced", *(f.name for f in outcome.facts), "RoundSettled"]
    view = round_view(round_event_payload(e) for e in events)
    assert view["round_id"] == "jo.1" and view["seed"] == SEED.hex()
    assert view["balance_before"] == 10_000
    assert view["balance_after"] == 10_000 - 100 + outcome.total_win
    assert player.balance == view["balance_after"]


def test_the_same_seed_plays_the_same_round() -> None:
    first, second = new_player(), new_player()
    a = first.spin("s1", 20, "r", SEED)
    b = second.spin("s1", 20, "r", SEED)
    assert a.facts == b.facts and a.total_win == b.total_win


@pytest.mark.parametrize(
    ("error", "command"),
    [
        (InvalidStake, lambda p: p.spin("s1", 25, "x", SEED)),
        (InsufficientFunds, lambda p: p.spin("s1", 10_000, "x", SEED)),
        # The aggregate keeps open sessions only: one it does not hold is not open.
        (SessionClosed, lambda p: p.spin("nope", 20, "x", SEED)),
        (InsufficientFunds, lambda p: p.withdraw(100_000, "x")),
        (InvalidAmount, lambda p: p.deposit(1.5, "x", datetime.now(UTC))),
        (RequestIdReused, lambda p: p.deposit(1, "funding", datetime.now(UTC))),
    ],
)
def test_a_refused_command_triggers_no_event(error: type[Exception], command: Any) -> None:
    player = new_player(balance=5_000)
    version = player.version
    player.collect_events()
    with pytest.raises(error):
        command(player)
    assert player.version == version and player.collect_events() == []


def test_a_closed_session_refuses_spins() -> None:
    player = new_player()
    player.close_session("s1")
    with pytest.raises(SessionClosed):
        player.spin("s1", 20, "x", SEED)


def test_player_ids_are_1_to_64_safe_characters() -> None:
    Player.register("A-z_09")
    for bad in ("", "a" * 65, "a.b", "a b", "é"):
        with pytest.raises(InvalidPlayerId):
            Player.register(bad)


def test_round_ids_name_the_player_and_the_round_number() -> None:
    assert parse_round_id("jo.12") == ("jo", 12)
    assert parse_round_id("jo.0") is None and parse_round_id("jo") is None


def test_the_request_window_keeps_only_the_most_recent_ids(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(player_module, "RECENT_REQUESTS", 3)
    monkeypatch.setattr(player_module, "RECENT_SLACK", 0)
    player = new_player()
    for n in range(5):
        player.deposit(1, f"d{n}", datetime.now(UTC))
    assert list(player.recent) == ["d2", "d3", "d4"]
    before = player.balance
    assert player.deposit(1, "d0", datetime.now(UTC)) == before + 1  # forgotten, so applied again


def test_the_request_window_is_trimmed_in_one_go_past_its_slack(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(player_module, "RECENT_REQUESTS", 3)
    monkeypatch.setattr(player_module, "RECENT_SLACK", 2)
    player = new_player()
    for n in range(4):
        player.deposit(1, f"d{n}", datetime.now(UTC))
    assert list(player.recent) == ["funding", "d0", "d1", "d2", "d3"]  # at least the last 3
    player.deposit(1, "d4", datetime.now(UTC))
    assert list(player.recent) == ["d2", "d3", "d4"]
    # still known: answered, not applied
    assert player.deposit(1, "d4", datetime.now(UTC)) == player.balance


def test_a_round_id_has_one_spelling() -> None:
    from domain.ledger.player import parse_round_id

    assert parse_round_id("ann.12") == ("ann", 12)
    for alias in ("ann.012", "ann.0", "ann.\uff11", "ann.1 ", "ann.+1", "ann."):
        assert parse_round_id(alias) is None
