"""Player protection's commands and queries on the application (mixed into PumpkinApplication).

The rules are the domain's (domain.ledger.protection, domain.ledger.protection_events); this module
loads the
player, passes the injected clock and the jurisdiction's profile, and closes sessions through
the application's one close path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from domain.errors import ProtectionRefusal, RealityCheckDue, SessionTimeLimit
from domain.ledger.protection import (
    LIMIT_NAMES,
    MINUTE,
    Profile,
    check_access,
    is_excluded,
    limits_in_force,
    pending_limits,
    reality_check_due,
)
from domain.ledger.protection_events import answer_reality_check, change_limits, exclude, refuse

if TYPE_CHECKING:
    from domain.ledger.player import Player

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
        def load_player(self, player_id: str, *, fresh: bool = True) -> Player: ...
        def _player_of_session(self, session_id: str) -> str: ...
        def close_session(self, session_id: str, reason: str = "") -> dict[str, Any]: ...
        def session(self, session_id: str) -> dict[str, Any]: ...

    def limits(self, player_id: str) -> dict[str, Any]:
        """GET /players/{id}/limits."""
        return limits_view(self.load_player(player_id), self.clock().timestamp())

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

        def decide(player: Player) -> tuple[dict[str, Any], list[str]]:
            open_sessions = exclude(player, until, reason, now)
            return exclusion_view(player, now.timestamp()), open_sessions

        answer, open_sessions = self._command(player_id, decide)
        # Recorded first, so the player's spins are refused from here on; then each session
        # goes through THE close path (its server seed revealed).
        for session_id in open_sessions:
            self.close_session(session_id, "exclusion")
        return answer

    def reality_check(self, session_id: str, proceed: bool) -> dict[str, Any]:
        """POST /sessions/{sid}/reality-check: `proceed` False closes the session."""
        player_id = self._player_of_session(session_id)
        now = self.clock()

        def decide(player: Player) -> bool:
            check_access(player.guard, session_id, now.timestamp())
            return answer_reality_check(player, session_id, proceed, now)

        if not self._guarded(player_id, session_id, None, decide):
            self.close_session(session_id, "reality_check")
        return self._session_view(player_id, session_id)

    def _guarded(
        self,
        player_id: str,
        session_id: str,
        stake: int | None,
        decide: Callable[[Player], T],
        request_id: str | None = None,
    ) -> T:
        """`_command`, with a protection refusal recorded in the player's stream (and raised)."""
        with self.refusals_recorded(player_id, session_id, stake):
            return self._command(player_id, decide, request_id)

    @contextmanager
    def refusals_recorded(
        self, player_id: str, session_id: str, stake: int | None
    ) -> Iterator[None]:
        """Around a decision on the player: a protection refusal it raises is recorded in the
        player's stream (ProtectionRefused), then raised on. Every path that judges protection
        (a spin on either wallet, opening a session) goes through here."""
        try:
            yield
        except ProtectionRefusal as refusal:
            self._refused(player_id, refusal, session_id, stake)
            raise

    def _refused(
        self, player_id: str, refusal: ProtectionRefusal, session_id: str, stake: int | None
    ) -> None:
        """Record a refusal in the player's stream (a session past its time limit is closed)."""
        now = self.clock()

        def decide(player: Player) -> bool:
            refuse(player, refusal, session_id, stake, now)
            return player.session_is_open(session_id)

        still_open = self._command(player_id, decide)
        if isinstance(refusal, SessionTimeLimit) and still_open:
            self.close_session(session_id, "session_time_limit")
        if isinstance(refusal, RealityCheckDue):
            refusal.details = {"session": self._session_view(player_id, session_id)}

    def _session_view(self, player_id: str, session_id: str) -> dict[str, Any]:
        """The session (CONTRACT.md) with what protection adds: the reality check."""
        player = self.load_player(player_id)
        return {**self.session(session_id), **session_view(player, session_id, self.clock())}


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


def session_view(player: Player, session_id: str, when: datetime) -> dict[str, Any]:
    """What protection adds to the session: its reality check."""
    entry = player.guard["sessions"].get(session_id)
    check = None if entry is None or entry[2] is None else entry[2] // MINUTE
    due = player.session_is_open(session_id) and reality_check_due(
        player.guard, session_id, when.timestamp()
    )
    return {"reality_check_minutes": check, "reality_check_due": due}
