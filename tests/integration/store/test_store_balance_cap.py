"""No balance passes 2^53 - 1 minor units (issue 17, finding 4): 9.0e18 was reached before.

A deposit that would pass the cap is 409 balance_cap; so is a spin whose largest possible win
(MAX_WIN_X_STAKE stakes) could, refused before its seed is drawn. Either changes nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from http_support import OPERATOR, bearer, client_for

from domain.errors import BalanceCap
from domain.game.board import MAX_WIN_X_STAKE
from domain.ledger.identifiers import MAX_AMOUNT
from domain.ledger.player import BALANCE_CAP, Player, player_aggregate_id
from infrastructure.application import PumpkinApplication


def fund_to(service: PumpkinApplication, player_id: str, balance: int) -> None:
    """Deposits of at most MAX_AMOUNT up to `balance`, recorded in one transaction."""
    player: Player = service.repository.get(player_aggregate_id(player_id))
    n = 0
    while player.balance < balance:
        player.deposit(min(MAX_AMOUNT, balance - player.balance), f"fund-{n}", datetime.now(UTC))
        n += 1
    service.store.save(player)


def test_a_deposit_may_reach_the_cap_but_never_pass_it(service: PumpkinApplication) -> None:
    service.register_player("jo")
    fund_to(service, "jo", BALANCE_CAP - 1)
    assert service.deposit("jo", 1, "to-the-cap") == BALANCE_CAP
    with pytest.raises(BalanceCap):
        service.deposit("jo", 1, "past-the-cap")
    assert service.player_state("jo")["balance"] == BALANCE_CAP
    assert service.deposit("jo", 1, "to-the-cap") == BALANCE_CAP  # a retry still answers


def test_a_deposit_past_the_cap_answers_409_balance_cap(service: PumpkinApplication) -> None:
    service.register_player("jo")
    fund_to(service, "jo", BALANCE_CAP - 10)
    answer = client_for(service).post(
        "/players/jo/deposits", json={"amount": 11, "request_id": "d"}, headers=bearer(OPERATOR)
    )
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "balance_cap"
    assert service.player_state("jo")["balance"] == BALANCE_CAP - 10


def test_a_spin_whose_max_win_could_pass_the_cap_is_refused_up_front(
    service: PumpkinApplication,
) -> None:
    service.register_player("jo")
    stake = 100
    highest_playable = BALANCE_CAP + stake - stake * MAX_WIN_X_STAKE
    fund_to(service, "jo", highest_playable + 1)
    session_id, _token = service.open_session("jo")
    with pytest.raises(BalanceCap):
        service.spin(session_id, stake, "too-rich")
    assert service.round_ids("jo") == []
    service.withdraw("jo", 1, "a-little-less")
    played = service.spin(session_id, stake, "just-right")
    assert played["balance_after"] <= BALANCE_CAP
