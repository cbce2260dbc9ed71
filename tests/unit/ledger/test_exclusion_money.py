"""An excluded player cannot be funded or marketed to, in every profile (CONTRACT.md "Player
protection"): a deposit and a free-round grant are refused while the exclusion lasts and change
nothing but the refusal's record; a withdrawal still pays the player out. On the in-memory store."""

from __future__ import annotations

from datetime import timedelta

import pytest
from protection_support import event_names, funded_player, protected

from domain.errors import PlayerExcluded
from domain.ledger.protection import PROFILES
from infrastructure.application import PumpkinApplication

EVERY_PROFILE = sorted(PROFILES)


def _excluded_player(
    service: PumpkinApplication, profile: str, days: float | None
) -> tuple[str, object]:
    clock = protected(service, profile)
    player_id = funded_player(service, balance=5_000)
    until = None if days is None else clock.now + timedelta(days=days)
    service.exclude(player_id, until, "asked for it")
    return player_id, clock


@pytest.mark.parametrize("profile", EVERY_PROFILE)
@pytest.mark.parametrize("days", [None, 30], ids=["permanent", "timed"])
def test_an_excluded_player_cannot_be_funded(
    service: PumpkinApplication, profile: str, days: float | None
) -> None:
    player_id, _ = _excluded_player(service, profile, days)
    with pytest.raises(PlayerExcluded, match="a deposit of 700 is refused"):
        service.deposit(player_id, 700, "after")
    assert service.player_state(player_id)["balance"] == 5_000
    assert event_names(service, player_id)[-1] == "ProtectionRefused"


@pytest.mark.parametrize("profile", EVERY_PROFILE)
@pytest.mark.parametrize("days", [None, 30], ids=["permanent", "timed"])
def test_an_excluded_player_is_granted_no_free_rounds(
    service: PumpkinApplication, profile: str, days: float | None
) -> None:
    player_id, _ = _excluded_player(service, profile, days)
    with pytest.raises(PlayerExcluded, match="a grant of free rounds"):
        service.grant_free_rounds(player_id, "promo", 10, 20, None, "grant")
    assert service.live_free_rounds(player_id) == []
    assert service.load_player(player_id).free_rounds == {}
    assert event_names(service, player_id)[-1] == "ProtectionRefused"


@pytest.mark.parametrize("days", [None, 30], ids=["permanent", "timed"])
def test_a_withdrawal_still_pays_an_excluded_player_out(
    service: PumpkinApplication, days: float | None
) -> None:
    player_id, _ = _excluded_player(service, "uk", days)
    assert service.withdraw(player_id, 5_000, "pay-out") == 0
    assert service.player_state(player_id)["balance"] == 0


def test_a_timed_exclusion_over_the_player_can_be_funded_and_granted_again(
    service: PumpkinApplication,
) -> None:
    player_id, clock = _excluded_player(service, "uk", 1)
    clock.move(days=1)  # type: ignore[attr-defined]
    assert service.deposit(player_id, 700, "back") == 5_700
    granted = service.grant_free_rounds(player_id, "promo", 10, 20, None, "grant")
    assert granted["rounds_left"] == 10


def test_a_deposit_made_before_the_exclusion_still_answers_its_first_result(
    service: PumpkinApplication,
) -> None:
    protected(service, "none")
    player_id = funded_player(service, balance=5_000)
    first = service.deposit(player_id, 300, "before")
    service.exclude(player_id, None, "asked for it")
    assert service.deposit(player_id, 300, "before") == first  # the same request: no new money
    assert service.player_state(player_id)["balance"] == 5_300
