"""Free rounds (CONTRACT.md "Free rounds"): the application's commands, mixed into
PumpkinApplication. The rules live on the Player (domain/ledger/player.py,
domain/ledger/free_rounds.py);
here the clock is read (injectable: tests move it) and the commands go through the
application's one command loop, so a grant or a cancel races a spin like any command.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any, TypeVar

from domain.ledger.free_rounds import campaign_view, free_round_stake, is_live
from domain.ledger.identifiers import check_request_id
from domain.ledger.player import Player

T = TypeVar("T")


def utc_now() -> datetime:
    return datetime.now(UTC)


def spin_stake(player: Player, stake: int | None, free_round: str | None) -> int:
    """The stake a spin plays: the body's, or for a free round its campaign's (a different
    one in the body is invalid_stake)."""
    if free_round is None:
        if stake is None:
            raise TypeError("a paid spin has a stake")
        return stake
    return free_round_stake(player.free_rounds, free_round, stake)


class FreeRoundCommands:
    clock: Callable[[], datetime] = staticmethod(utc_now)

    def _command(self, player_id: str, decide: Callable[[Player], T]) -> T:
        raise NotImplementedError  # PumpkinApplication's

    def load_player(self, player_id: str, *, fresh: bool = True) -> Player:
        raise NotImplementedError  # PumpkinApplication's

    def grant_free_rounds(
        self, player_id: str, campaign_id: str, rounds: int, stake: int,
        expires_at: str | None, request_id: str,
    ) -> dict[str, Any]:
        check_request_id(request_id)
        now = self.clock()
        return self._command(
            player_id,
            lambda player: player.grant_free_rounds(
                campaign_id, rounds, stake, expires_at, request_id, now
            ),
        )

    def live_free_rounds(self, player_id: str) -> list[dict[str, Any]]:
        """The campaigns with rounds left, neither expired nor cancelled."""
        now = self.clock()
        campaigns = self.load_player(player_id).free_rounds
        return [
            campaign_view(campaign_id, campaign)
            for campaign_id, campaign in campaigns.items()
            if is_live(campaign, now)
        ]

    def cancel_free_rounds(self, player_id: str, campaign_id: str) -> dict[str, Any]:
        return self._command(player_id, lambda player: player.cancel_free_rounds(campaign_id))

    @property
    def background(self) -> tuple[Callable[[], Coroutine[Any, Any, None]], ...]:
        """What `serve` runs beside the API: recording campaigns' expiry."""
        from infrastructure.promotions.free_round_expiry import FreeRoundExpiry

        return (FreeRoundExpiry(self).run,)

    def expire_free_rounds(self, player_id: str) -> list[str]:
        """Record FreeRoundsExpired for the player's campaigns past their expiry."""
        now = self.clock()
        return self._command(player_id, lambda player: player.expire_free_rounds(now))
