"""Free rounds (CONTRACT.md "Free rounds"): the operator's commands and the live campaigns. The
rules are the domain's (domain.ledger.free_rounds, .free_round_commands); a free round is played
by the spin (infrastructure/rounds/spins.py). Each command runs through the command runner on
the injected clock, so a grant or a cancel races a spin like any command.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from domain.ledger import free_round_commands as commands
from domain.ledger.free_rounds import campaign_view, is_live
from domain.ledger.identifiers import check_request_id
from infrastructure.rules_in_force import RulesInForce
from infrastructure.store.command_runner import CommandRunner


class FreeRoundCommands:
    def __init__(self, runner: CommandRunner, rules: RulesInForce) -> None:
        self.runner = runner
        self.rules = rules

    def grant(
        self, player_id: str, campaign_id: str, rounds: int, stake: int,
        expires_at: str | None, request_id: str,
    ) -> dict[str, Any]:
        check_request_id(request_id)
        now = self.rules.now()
        return self.runner.run(
            player_id,
            lambda work: commands.grant_free_rounds(
                work.player, campaign_id, rounds, stake, expires_at, request_id, now
            ),
        )

    def live(self, player_id: str) -> list[dict[str, Any]]:
        """The campaigns with rounds left, neither expired nor cancelled."""
        now = self.rules.now()
        campaigns = self.runner.players.load(player_id).free_rounds
        return [
            campaign_view(campaign_id, campaign)
            for campaign_id, campaign in campaigns.items()
            if is_live(campaign, now)
        ]

    def cancel(self, player_id: str, campaign_id: str) -> dict[str, Any]:
        return self.runner.run(
            player_id, lambda work: commands.cancel_free_rounds(work.player, campaign_id)
        )

    def expire(self, player_id: str) -> list[str]:
        """Record FreeRoundsExpired for the player's campaigns past their expiry."""
        now = self.rules.now()
        return self.runner.run(
            player_id, lambda work: commands.expire_free_rounds(work.player, now)
        )

    @property
    def background(self) -> tuple[Callable[[], Coroutine[Any, Any, None]], ...]:
        """What `serve` runs beside the API: recording campaigns' expiry."""
        from infrastructure.promotions.free_round_expiry import FreeRoundExpiry

        return (FreeRoundExpiry(self).run,)
