"""A request id answers its first result for as long as the store, not for a count of requests.

Issue 17, finding 3: the window was the last 10,000 request ids, so after ~11,000 newer requests
a retried deposit was credited again. Every scenario runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from eventsourcing.utils import resolve_topic

from domain.errors import RequestIdReused
from domain.ledger.event_names import stored_name
from domain.ledger.player import RECENT_REQUESTS, RECENT_SLACK, Player, player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.store.request_keys import RequestKey

NEWER_REQUESTS = 11_200  # more than 11,000
assert NEWER_REQUESTS > RECENT_REQUESTS + RECENT_SLACK  # the old window has surely forgotten


def push_newer_requests(service: PumpkinApplication, player_id: str) -> None:
    """NEWER_REQUESTS deposits of 1 recorded after everything else, in one transaction."""
    player: Player = service.repository.get(player_aggregate_id(player_id))
    for n in range(NEWER_REQUESTS):
        player.deposit(1, f"newer-{n}", datetime.now(UTC))
    service.store.save(player)


def test_a_retried_deposit_is_not_credited_again_after_11000_newer_requests(
    service: PumpkinApplication,
) -> None:
    service.register_player("jo")
    first = service.deposit("jo", 10**12, "big-deposit")
    push_newer_requests(service, "jo")
    balance = service.player_state("jo")["balance"]
    assert balance == 10**12 + NEWER_REQUESTS

    assert service.deposit("jo", 10**12, "big-deposit") == first  # the first answer, again
    assert service.player_state("jo")["balance"] == balance  # and not credited twice

    fresh = PumpkinApplication(env=service.store.env)  # another process: nothing in memory
    try:
        assert fresh.deposit("jo", 10**12, "big-deposit") == first
        assert fresh.player_state("jo")["balance"] == balance
    finally:
        fresh.close()


def test_an_old_request_id_with_another_body_is_request_id_reused(
    service: PumpkinApplication,
) -> None:
    service.register_player("jo")
    service.deposit("jo", 500, "old")
    push_newer_requests(service, "jo")
    balance = service.player_state("jo")["balance"]
    with pytest.raises(RequestIdReused):
        service.deposit("jo", 501, "old")
    with pytest.raises(RequestIdReused):
        service.withdraw("jo", 500, "old")
    assert service.player_state("jo")["balance"] == balance


def test_a_retried_withdrawal_answers_its_balance_even_when_it_could_no_longer_pay(
    service: PumpkinApplication,
) -> None:
    service.register_player("jo")
    service.deposit("jo", 1_000, "in")
    assert service.withdraw("jo", 1_000, "out") == 0
    push_newer_requests(service, "jo")
    service.withdraw("jo", NEWER_REQUESTS, "empty-it")
    assert service.withdraw("jo", 1_000, "out") == 0  # not 409 insufficient_funds
    assert service.player_state("jo")["balance"] == 0


def test_an_old_spin_retried_after_its_session_closed_answers_its_round(
    service: PumpkinApplication,
) -> None:
    service.register_player("jo")
    service.deposit("jo", 100_000, "in")
    session_id, _token = service.open_session("jo")
    played = service.spin(session_id, 100, "spin-1")
    push_newer_requests(service, "jo")
    service.close_session(session_id)
    balance = service.player_state("jo")["balance"]
    assert service.spin(session_id, 100, "spin-1") == played
    assert service.player_state("jo")["balance"] == balance
    assert service.round_ids("jo") == ["jo.1"]


def test_the_request_key_is_stored_under_permanent_new_names() -> None:
    assert stored_name(RequestKey) == "pumpkin:RequestKey"
    assert stored_name(RequestKey.Issued) == "pumpkin:RequestKey.Issued"
    for cls in (RequestKey, RequestKey.Created, RequestKey.Issued):
        assert cls.TOPIC.startswith("pumpkin:RequestKey") and resolve_topic(cls.TOPIC) is cls
