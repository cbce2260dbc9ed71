"""Free rounds (operator promotions): the rules of a grant and of a campaign being live.

A campaign is held on the Player as [rounds_left, stake, expires_at (ISO 8601 or None),
ended ("" live, "cancelled", "expired")]. Times are passed in (domain/ reads no clock).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from domain.errors import InvalidFreeRounds, InvalidStake, NoFreeRounds
from domain.game.engine import check_stake

MAX_ROUNDS = 1_000
_CAMPAIGN_ID_CHARS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.:"
)


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


def is_live(campaign: list[Any], now: datetime) -> bool:
    rounds_left, _stake, expires_at, ended = campaign
    if ended or rounds_left <= 0:
        return False
    expiry = parse_expiry(expires_at)
    return expiry is None or now < expiry


def is_past_expiry(campaign: list[Any], now: datetime) -> bool:
    """Live but for its expiry: the moment to record FreeRoundsExpired."""
    rounds_left, _stake, expires_at, ended = campaign
    expiry = parse_expiry(expires_at)
    return not ended and rounds_left > 0 and expiry is not None and now >= expiry


def free_round_stake(campaigns: dict[str, list[Any]], campaign_id: str, stake: int | None) -> int:
    """The stake a free round of this campaign plays (the body's must match it if given)."""
    campaign = campaigns.get(campaign_id)
    if campaign is None:
        raise NoFreeRounds(f"no free rounds under campaign {campaign_id!r}")
    if stake is not None and stake != campaign[1]:
        raise InvalidStake(f"a free round of {campaign_id!r} plays a stake of {campaign[1]}")
    return int(campaign[1])


def check_free_round(campaigns: dict[str, list[Any]], campaign_id: str, now: datetime) -> None:
    campaign = campaigns.get(campaign_id)
    if campaign is None or not is_live(campaign, now):
        raise NoFreeRounds(f"no free rounds left under campaign {campaign_id!r}")


def campaign_view(campaign_id: str, campaign: list[Any]) -> dict[str, Any]:
    rounds_left, stake, expires_at, _ended = campaign
    return {
        "campaign_id": campaign_id, "rounds_left": rounds_left, "stake": stake,
        "expires_at": expires_at,
    }
