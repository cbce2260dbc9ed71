"""Player protection's commands and queries on the application (mixed into PumpkinApplication).

The rules are the domain's (domain.protection, domain.protection_events); this module loads the
player, passes the injected clock and the jurisdiction's profile, and closes sessions through
the application's one close path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from domain.errors import ProtectionRefusal, RealityCheckDue, SessionTimeLimit
from domain.protection import (
    LIMIT_NAMES,
    MINUTE,
    Profile,
    check_access,
    is_excluded,
    limits_in_force,
    pending_limits,
    reality_check_due,
)
from domain.protection_events import answer_reality_check, change_limits, exclude, refuse

if TYPE_CHECKING:
    from domain.player import Player

T = TypeVar("T")


def iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC).isoformat()


class ProtectionCommands:
    if TYPE_CHECKING:  # provided by PumpkinApplication
        profile: Profile
        clock: Callable[[], datetime]

        def _command(
            self, player_id: str, decide: Callable[[Player], T], request_id: str | None = None
        ) -> T: ...
        def _player(self, player_id: str, *, fresh: bool = True) -> Player: ...
        def _player_of_session(self, session_id: str) -> str: ...
        def _close(self, player: Player, session_id: str) -> dict[str, Any]: ...

    def limits(self, player_id: str) -> dict[str, Any]:
        """GET /players/{id}/limits."""
        return limits_view(self._player(player_id), self.clock().timestamp())

    def set_limits(self, player_id: str, requested: Mapping[str, Any]) -> dict[str, Any]:
        """PUT /players/{id}/limits: tightening at once, loosening or removal in 24 hours."""
        now = self.clock()

        def decide(player: Player) -> dict[str, Any]:
            change_limits(player, requested, now)
            return limits_view(player, now.timestamp())

        return self._command(player_id, decide)

    def exclude(self, player_id: str, until: datetime | None, reason: str) -> dict[str, Any]:
        """POST /players/{id}/exclusions: closes the player's open sessions at once."""
        now = self.clock()

        def decide(player: Player) -> dict[str, Any]:
            for session_id in exclude(player, until, reason, now):
                self._close(player, session_id)
            return exclusion_view(player, now.timestamp())

        return self._command(player_id, decide)

    def reality_check(self, session_id: str, proceed: bool) -> dict[str, Any]:
        """POST /sessions/{sid}/reality-check: `proceed` False closes the session."""
        player_id = self._player_of_session(session_id)
        now = self.clock()

        def decide(player: Player) -> dict[str, Any]:
            check_access(player.guard, session_id, now.timestamp())
            if not answer_reality_check(player, session_id, proceed, now):
                self._close(player, session_id)
            return session_view(player, session_id, now.timestamp())

        return self._guarded(player_id, session_id, None, decide)

    def _guarded(
        self,
        player_id: str,
        session_id: str,
        stake: int | None,
        decide: Callable[[Player], T],
        request_id: str | None = None,
    ) -> T:
        """`_command`, with a protection refusal recorded in the player's stream (and raised)."""
        try:
            return self._command(player_id, decide, request_id)
        except ProtectionRefusal as refusal:
            self._refused(player_id, refusal, session_id, stake)
            raise

    def _refused(
        self, player_id: str, refusal: ProtectionRefusal, session_id: str, stake: int | None
    ) -> None:
        """Record a refusal in the player's stream (a session past its time limit is closed)."""
        now = self.clock()

        def decide(player: Player) -> dict[str, Any]:
            if isinstance(refusal, SessionTimeLimit) and player.session_is_open(session_id):
                self._close(player, session_id)
            refuse(player, refusal, session_id, stake, now)
            return session_view(player, session_id, now.timestamp()) if session_id else {}

        session = self._command(player_id, decide)
        if isinstance(refusal, RealityCheckDue):
            refusal.details = {"session": session}


def exclusion_view(player: Player, now: float) -> dict[str, Any]:
    excluded = is_excluded(player.guard, now)
    return {
        "excluded": excluded,
        "excluded_until": iso(player.guard["excluded"][0]) if excluded else None,
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


def session_view(player: Player, session_id: str, now: float) -> dict[str, Any]:
    """The session with what protection adds: open, time played, the reality check."""
    entry = player.guard["sessions"].get(session_id)
    opened_at = None if entry is None else entry[0]
    check = None if entry is None or entry[2] is None else entry[2] // MINUTE
    return {
        **player.session_summary(session_id),
        "player_id": player.player_id,
        "open": player.session_is_open(session_id),
        "opened_at": iso(opened_at),
        "elapsed_seconds": None if opened_at is None else max(0, int(now - opened_at)),
        "reality_check_minutes": check,
        "reality_check_due": reality_check_due(player.guard, session_id, now),
    }
