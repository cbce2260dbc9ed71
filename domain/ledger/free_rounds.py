"""Free rounds (operator promotions): the campaigns a Player holds, and the rules of a grant and
of a campaign being live. Times are passed in (domain/ reads no clock).

Stored layout (a snapshot holds it through the store's transcoding; this module alone reads
it): [rounds_left, stake, expires_at (ISO 8601 or None), ended ("" live, "cancelled",
"expired")].
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from domain.errors import InvalidFreeRounds, InvalidStake, NoFreeRounds
from domain.game.engine import check_stake

MAX_ROUNDS = 1_000
_CAMPAIGN_ID_CHARS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.:"
)


@dataclass(frozen=True, slots=True)
class Campaign:
    rounds_left: int
    stake: int
    expires_at: str | None  # ISO 8601 with a zone; None: no expiry
    ended: str  # "" live, "cancelled" or "expired"

    def played_one(self) -> Campaign:
        return Campaign(self.rounds_left - 1, self.stake, self.expires_at, self.ended)

    def ended_by(self, how: str) -> Campaign:
        return Campaign(0, self.stake, self.expires_at, how)

    def stored(self) -> list[Any]:
        return [self.rounds_left, self.stake, self.expires_at, self.ended]

    @classmethod
    def from_stored(cls, stored: list[Any]) -> Campaign:
        rounds_left, stake, expires_at, ended = stored
        return cls(int(rounds_left), int(stake), expires_at, str(ended))


Campaigns = Mapping[str, Campaign]


def parse_expiry(expires_at: str | None) -> datetime | None:
    """An ISO 8601 time with a zone, or None (no expiry)."""
    if expires_at is None:
        return None
    try:
        moment = datetime.fromisoformat(expires_at)
    except (TypeError, ValueError):
        raise InvalidFreeRounds("expires_at is ISO 8601 with a zone") from None
    if moment.utcoffset() is None:
        raise InvalidFreeRounds("expires_at needs a zone, e.g. 2026-12-31T23:59:59Z")
    return moment


def check_grant(campaign_id: str, rounds: int, stake: int, expires_at: str | None,
                now: datetime) -> None:
    if (
        not isinstance(campaign_id, str)
        or not 1 <= len(campaign_id) <= 64
        or not set(campaign_id) <= _CAMPAIGN_ID_CHARS
    ):
        raise InvalidFreeRounds("a campaign id is 1 to 64 of A-Z a-z 0-9 _ - . :")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
        raise InvalidFreeRounds(f"rounds is 1 to {MAX_ROUNDS}")
    check_stake(stake)
    expiry = parse_expiry(expires_at)
    if expiry is not None and expiry <= now:
        raise InvalidFreeRounds("expires_at is in the past")


def is_live(campaign: Campaign, now: datetime) -> bool:
    if campaign.ended or campaign.rounds_left <= 0:
        return False
    expiry = parse_expiry(campaign.expires_at)
    return expiry is None or now < expiry


def is_past_expiry(campaign: Campaign, now: datetime) -> bool:
    """Live but for its expiry: the moment to record FreeRoundsExpired."""
    expiry = parse_expiry(campaign.expires_at)
    return (
        not campaign.ended and campaign.rounds_left > 0 and expiry is not None and now >= expiry
    )


def next_expiry(campaigns: Campaigns) -> datetime | None:
    """The earliest expiry of the campaigns still running (None: none will expire)."""
    expiries = [
        expiry
        for campaign in campaigns.values()
        if not campaign.ended and campaign.rounds_left > 0
        and (expiry := parse_expiry(campaign.expires_at)) is not None
    ]
    return min(expiries, default=None)


def free_round_stake(campaigns: Campaigns, campaign_id: str, stake: int | None) -> int:
    """The stake a free round of this campaign plays (the body's must match it if given)."""
    campaign = campaigns.get(campaign_id)
    if campaign is None:
        raise NoFreeRounds(f"no free rounds under campaign {campaign_id!r}")
    if stake is not None and stake != campaign.stake:
        raise InvalidStake(f"a free round of {campaign_id!r} plays a stake of {campaign.stake}")
    return campaign.stake


def check_free_round(campaigns: Campaigns, campaign_id: str, now: datetime) -> None:
    campaign = campaigns.get(campaign_id)
    if campaign is None or not is_live(campaign, now):
        raise NoFreeRounds(f"no free rounds left under campaign {campaign_id!r}")


def campaign_view(campaign_id: str, campaign: Campaign) -> dict[str, Any]:
    return {
        "campaign_id": campaign_id, "rounds_left": campaign.rounds_left,
        "stake": campaign.stake, "expires_at": campaign.expires_at,
    }
