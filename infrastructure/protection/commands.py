"""Player protection's commands and queries (CONTRACT.md "Player protection"): limits,
exclusions, reality checks.

The rules and commands are the domain's (domain.ledger.protection, .protection_commands); here
each runs through the command runner on the injected clock and the jurisdiction's profile. A
command that closes sessions (an exclusion closes every open one; a reality check answered
"stop" closes its own) closes them in its own decision, their server seeds revealed, and their
keys record the close in the same transaction (SessionCommands.keys_closed).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from domain.ledger.player import Player
from domain.ledger.protection import LIMIT_NAMES, is_excluded, limits_in_force, pending_limits
from domain.ledger.protection_commands import answer_reality_check, change_limits, exclude
from infrastructure.rules_in_force import RulesInForce
from infrastructure.sessions.session_commands import SessionCommands
from infrastructure.store.command_runner import CommandRunner, Work


def iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC).isoformat()


class ProtectionCommands:
    def __init__(
        self, runner: CommandRunner, sessions: SessionCommands, rules: RulesInForce
    ) -> None:
        self.runner = runner
        self.sessions = sessions
        self.rules = rules

    def limits(self, player_id: str) -> dict[str, Any]:
        """GET /players/{id}/limits."""
        player = self.runner.players.load(player_id)
        return limits_view(player, self.rules.now().timestamp())

    def set_limits(self, player_id: str, requested: Mapping[str, Any]) -> dict[str, Any]:
        """PUT /players/{id}/limits: tightening at once, loosening or removal in 24 hours."""
        now = self.rules.now()

        def decide(work: Work) -> dict[str, Any]:
            change_limits(work.player, requested, now)
            return limits_view(work.player, now.timestamp())

        return self.runner.run(player_id, decide)

    def exclude(self, player_id: str, until: datetime | None, reason: str) -> dict[str, Any]:
        """POST /players/{id}/exclusions: the exclusion, and every open session closed (its
        server seed revealed), in one command."""
        now = self.rules.now()

        def decide(work: Work) -> dict[str, Any]:
            player = work.player
            reveals = {}
            for session_id in player.open_session_ids():
                seed = self.sessions.server_seed(player, session_id)
                reveals[session_id] = None if seed is None else seed.hex()
            exclude(player, until, reason, now, reveals)
            return exclusion_view(player, now.timestamp())

        answer = self.runner.run(player_id, decide)
        return answer

    def reality_check(self, session_id: str, proceed: bool) -> dict[str, Any]:
        """POST /sessions/{sid}/reality-check: `proceed` False closes the session."""
        player_id = self.sessions.directory.player_of(session_id)
        now = self.rules.now()

        def decide(work: Work) -> None:
            seed = self.sessions.server_seed(work.player, session_id)
            answer_reality_check(work.player, session_id, proceed, now, seed)

        self.runner.run(player_id, decide)
        return self.sessions.session_view(session_id)

    def exclusion(self, player: Player) -> dict[str, Any]:
        return exclusion_view(player, self.rules.now().timestamp())


def exclusion_view(player: Player, now: float) -> dict[str, Any]:
    excluded = is_excluded(player.guard, now)
    return {
        "excluded": excluded,
        "excluded_until": iso(player.guard.excluded_until) if excluded else None,
    }


def limits_view(player: Player, now: float) -> dict[str, Any]:
    limits = limits_in_force(player.guard, now)
    return {
        "limits": {name: limits.get(name) for name in LIMIT_NAMES},
        "pending": [
            {**entry, "effective_at": iso(entry["effective_at"])}
            for entry in pending_limits(player.guard, now)
        ],
        **exclusion_view(player, now),
    }
