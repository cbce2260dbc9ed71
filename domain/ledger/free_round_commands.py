"""Free rounds' commands on the Player (CONTRACT.md "Free rounds"): grant, cancel, expire. The
rules are domain.ledger.free_rounds'; a free round itself is played by Player.spin. Times are
passed in (domain/ reads no clock)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from domain.errors import CampaignExists, NoFreeRounds
from domain.ledger.free_rounds import Campaign, campaign_view, check_grant, is_past_expiry
from domain.ledger.player import Player
from domain.ledger.refusals import refuse_if_excluded


def grant_free_rounds(
    player: Player, campaign_id: str, rounds: int, stake: int, expires_at: str | None,
    request_id: str, now: datetime,
) -> dict[str, Any]:
    fingerprint = f"free-rounds:{campaign_id}:{rounds}:{stake}:{expires_at}"
    granted = Campaign(rounds, stake, expires_at, "")
    if player.replayed(request_id, fingerprint) is not None:
        return campaign_view(campaign_id, granted)
    check_grant(campaign_id, rounds, stake, expires_at, now)
    if campaign_id in player.free_rounds:
        raise CampaignExists(f"campaign {campaign_id!r} was already granted to this player")
    refuse_if_excluded(player, now, f"a grant of free rounds ({campaign_id!r})")
    player.trigger_event(
        Player.FreeRoundsGranted, campaign_id=campaign_id, rounds=rounds, stake=stake,
        expires_at=expires_at, request_id=request_id, fingerprint=fingerprint,
    )
    return campaign_view(campaign_id, granted)


def cancel_free_rounds(player: Player, campaign_id: str) -> dict[str, Any]:
    campaign = player.free_rounds.get(campaign_id)
    if campaign is None:
        raise NoFreeRounds(f"no campaign {campaign_id!r} for this player")
    if not campaign.ended and campaign.rounds_left > 0:
        player.trigger_event(
            Player.FreeRoundsCancelled, campaign_id=campaign_id,
            rounds_left=campaign.rounds_left,
        )
    return {"campaign_id": campaign_id, "rounds_left": 0, "cancelled": True}


def expire_free_rounds(player: Player, now: datetime) -> list[str]:
    """Record the end of every campaign whose expiry has passed with rounds left."""
    expired = [cid for cid, c in player.free_rounds.items() if is_past_expiry(c, now)]
    for campaign_id in expired:
        player.trigger_event(
            Player.FreeRoundsExpired, campaign_id=campaign_id,
            rounds_left=player.free_rounds[campaign_id].rounds_left,
        )
    return expired

