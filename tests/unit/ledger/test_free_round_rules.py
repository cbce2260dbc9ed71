"""Free rounds' rules (CONTRACT.md "Free rounds"), on the in-memory store, with a clock the test
moves: a grant is checked and applied once; a free round plays its campaign's stake, takes
nothing from the balance and counts for the meter; none left, expired, cancelled or unknown is
no_free_rounds."""

from __future__ import annotations

from datetime import timedelta

import pytest
from protection_support import FakeClock, funded_player

from domain.errors import InvalidFreeRounds, InvalidStake, NoFreeRounds
from infrastructure.application import PumpkinApplication


@pytest.fixture
def clock(service: PumpkinApplication) -> FakeClock:
    clock = FakeClock()
    service.clock = clock
    return clock


def test_a_free_round_plays_the_campaigns_stake_without_paying_it(
    service: PumpkinApplication, clock: FakeClock
) -> None:
    player_id = funded_player(service, balance=1_000)
    service.grant_free_rounds(player_id, "promo", 2, 20, None, "g1")
    session_id, _ = service.open_session(player_id)
    played = service.spin(session_id, None, "f1", free_round="promo")
    assert played["stake"] == 20 and played["balance_before"] == 1_000
    assert played["balance_after"] == 1_000 + played["total_win"]
    assert service.live_free_rounds(player_id)[0]["rounds_left"] == 1
    assert service.player_state(player_id)["spins_to_next_level"] == 9  # counts for the meter


def test_a_free_round_with_another_stake_is_invalid_stake(
    service: PumpkinApplication, clock: FakeClock
) -> None:
    player_id = funded_player(service)
    service.grant_free_rounds(player_id, "promo", 2, 20, None, "g1")
    session_id, _ = service.open_session(player_id)
    with pytest.raises(InvalidStake):
        service.spin(session_id, 40, "f1", free_round="promo")
    assert service.spin(session_id, 20, "f1", free_round="promo")["stake"] == 20


def test_used_up_expired_cancelled_and_unknown_campaigns_have_no_free_rounds(
    service: PumpkinApplication, clock: FakeClock
) -> None:
    player_id = funded_player(service)
    soon = (clock.now + timedelta(hours=1)).isoformat()
    service.grant_free_rounds(player_id, "once", 1, 20, None, "g1")
    service.grant_free_rounds(player_id, "soon", 5, 20, soon, "g2")
    service.grant_free_rounds(player_id, "cancelled", 5, 20, None, "g3")
    session_id, _ = service.open_session(player_id)
    service.spin(session_id, None, "f1", free_round="once")
    service.cancel_free_rounds(player_id, "cancelled")
    clock.move(hours=1)
    for n, campaign in enumerate(("once", "soon", "cancelled", "unknown")):
        with pytest.raises(NoFreeRounds):
            service.spin(session_id, None, f"x{n}", free_round=campaign)
    assert service.live_free_rounds(player_id) == []
    assert service.free_rounds.expire(player_id) == ["soon"]  # recorded once
    assert service.free_rounds.expire(player_id) == []


def test_a_grant_is_checked_and_applied_once(
    service: PumpkinApplication, clock: FakeClock
) -> None:
    player_id = funded_player(service)
    past = (clock.now - timedelta(seconds=1)).isoformat()
    for rounds, stake, expires_at in ((0, 20, None), (1_001, 20, None), (5, 7, None),
                                      (5, 20, past), (5, 20, "2030-01-01T00:00:00")):
        with pytest.raises((InvalidFreeRounds, InvalidStake)):
            service.grant_free_rounds(player_id, "c", rounds, stake, expires_at, "bad")
    granted = service.grant_free_rounds(player_id, "promo", 3, 20, None, "g1")
    assert service.grant_free_rounds(player_id, "promo", 3, 20, None, "g1") == granted
    assert service.live_free_rounds(player_id) == [granted]
