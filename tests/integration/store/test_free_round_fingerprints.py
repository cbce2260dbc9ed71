"""A spin's request id stands for its campaign too (issue 27 item 8): a free round never replays
a paid spin's request, nor a paid spin a free round's (409 request_id_reused), and the requests
recorded before the campaign was in the fingerprint are still recognised."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from domain.errors import RequestIdReused
from domain.ledger import player as player_module
from domain.ledger import player_events
from domain.ledger.player import Player, player_aggregate_id
from infrastructure.application import PumpkinApplication

NEWER_REQUESTS = 400  # past the player's window of request ids: the durable key answers


def funded_with_campaign(service: PumpkinApplication) -> str:
    service.register_player("fay")
    service.deposit("fay", 100_000, "d")
    service.grant_free_rounds("fay", "promo", 10, 20, None, "grant")
    session_id, _ = service.open_session("fay")
    return session_id


def test_a_free_round_reusing_a_paid_spins_request_id_is_request_id_reused(
    service: PumpkinApplication,
) -> None:
    session_id = funded_with_campaign(service)
    paid = service.spin(session_id, 20, "same")
    with pytest.raises(RequestIdReused):
        service.spin(session_id, None, "same", free_round="promo")
    assert service.live_free_rounds("fay")[0]["rounds_left"] == 10  # nothing was played
    assert service.spin(session_id, 20, "same") == paid  # the paid one still replays


def test_a_paid_spin_reusing_a_free_rounds_request_id_is_request_id_reused(
    service: PumpkinApplication,
) -> None:
    session_id = funded_with_campaign(service)
    free = service.spin(session_id, None, "gift", free_round="promo")
    with pytest.raises(RequestIdReused):
        service.spin(session_id, 20, "gift")
    assert service.spin(session_id, 20, "gift", free_round="promo") == free


def test_a_free_round_recorded_before_its_campaign_was_in_the_fingerprint_still_replays(
    service: PumpkinApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = funded_with_campaign(service)

    def before(session_id: str, stake: int, client_seed: str, free_round: object = None) -> str:
        return f"spin:{session_id}:{stake}:{client_seed}" if client_seed else (
            f"spin:{session_id}:{stake}")

    with monkeypatch.context() as old_release:  # the spelling the earlier release recorded
        old_release.setattr(player_events, "spin_fingerprint", before)
        old_release.setattr(player_module, "spin_fingerprint", before)
        free = service.spin(session_id, None, "old-gift", free_round="promo")
    player: Player = service.repository.get(player_aggregate_id("fay"))
    for n in range(NEWER_REQUESTS):  # the window forgets it; its durable key does not
        player.deposit(1, f"newer-{n}", datetime.now(UTC))
    service.store.save(player)
    fresh = PumpkinApplication(env=service.store.env)  # another process: nothing in memory
    try:
        assert fresh.spin(session_id, None, "old-gift", free_round="promo")["round_id"] == (
            free["round_id"]
        )
        with pytest.raises(RequestIdReused):
            fresh.spin(session_id, 20, "old-gift")  # a paid spin never replays it
    finally:
        fresh.close()
