"""Player protection's commands and events, in the player's own stream.

Each command validates and decides with domain.ledger.protection (taking `now` from the
application's
injected clock, which also stamps the event); each event only assigns the decided state.
Refusals are events too (ProtectionRefused): they change no money and no progress, so a refused
request still changes nothing a round or a balance depends on.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from eventsourcing.utils import register_topic

from domain.errors import ProtectionRefusal, SessionClosed
from domain.ledger.player import Player
from domain.ledger.protection import (
    Profile,
    changed_limits,
    check_limit_changes,
    check_not_excluded,
    check_reality_check_minutes,
    exclusion_until,
    with_exclusion,
    with_limits,
    with_reality_check,
    with_refusal,
    with_session,
)


class LimitsChanged(Player.Event):
    """The operator set limits on the player's behalf: `limits` in force, `pending` loosenings."""

    TOPIC = "pumpkin:Player.LimitsChanged"
    requested: dict[str, Any]
    limits: dict[str, Any]
    pending: dict[str, Any]

    def apply(self, player: Player) -> None:
        player.guard = with_limits(player.guard, self.limits, self.pending)


class Excluded(Player.Event):
    """An exclusion asked for (`requested_until`) and the one in force after it (`until`; None:
    permanent). Epoch seconds."""

    TOPIC = "pumpkin:Player.Excluded"
    requested_until: float | None
    until: float | None
    reason: str

    def apply(self, player: Player) -> None:
        player.guard = with_exclusion(player.guard, self.until)


class SessionProtected(Player.Event):
    """A session's protection from its opening: its start and reality-check interval."""

    TOPIC = "pumpkin:Player.SessionProtected"
    session_id: str
    reality_check_minutes: int | None

    def apply(self, player: Player) -> None:
        player.guard = with_session(
            player.guard, self.session_id, self.timestamp.timestamp(), self.reality_check_minutes
        )


class RealityCheckAnswered(Player.Event):
    TOPIC = "pumpkin:Player.RealityCheckAnswered"
    session_id: str
    proceed: bool
    was_due: bool

    def apply(self, player: Player) -> None:
        if self.was_due:
            player.guard = with_reality_check(
                player.guard, self.session_id, self.timestamp.timestamp()
            )


class ProtectionRefused(Player.Event):
    """A spin or session refused by a protection rule (its error code in `rule`)."""

    TOPIC = "pumpkin:Player.ProtectionRefused"
    rule: str
    session_id: str
    stake: int | None
    message: str

    def apply(self, player: Player) -> None:
        player.guard = with_refusal(player.guard, self.session_id, self.rule)


PROTECTION_EVENTS = (
    LimitsChanged, Excluded, SessionProtected, RealityCheckAnswered, ProtectionRefused
)
PROTECTION_EVENT_NAMES = frozenset(cls.__name__ for cls in PROTECTION_EVENTS)
for _cls in PROTECTION_EVENTS:  # so a process that never wrote one still reads them back
    register_topic(_cls.TOPIC, _cls)


def change_limits(player: Player, requested: Mapping[str, Any], now: datetime) -> None:
    checked = check_limit_changes(requested)
    limits, pending = changed_limits(player.guard, checked, now.timestamp())
    player.trigger_event(
        LimitsChanged, timestamp=now, requested=checked, limits=limits, pending=pending
    )


def exclude(player: Player, until: datetime | None, reason: str, now: datetime) -> list[str]:
    """Record the exclusion; the open sessions it closes at once (the caller closes them)."""
    requested = None if until is None else until.timestamp()
    effective = exclusion_until(player.guard, requested, now.timestamp())
    player.trigger_event(
        Excluded, timestamp=now, requested_until=requested, until=effective, reason=reason
    )
    return [sid for sid, entry in player.sessions.items() if entry[0]]


def check_may_open(player: Player, now: datetime) -> None:
    check_not_excluded(player.guard, now.timestamp())


def protect_session(
    player: Player, session_id: str, minutes: object, profile: Profile, now: datetime
) -> None:
    """Called right after opening: the session's start and reality-check interval."""
    interval = check_reality_check_minutes(minutes, profile)
    player.trigger_event(
        SessionProtected, timestamp=now, session_id=session_id, reality_check_minutes=interval
    )


def answer_reality_check(player: Player, session_id: str, proceed: bool, now: datetime) -> bool:
    """Record the player's answer; whether the session goes on (False: the caller closes it)."""
    if not player.session_is_open(session_id):
        raise SessionClosed(f"session {session_id!r} is closed")
    entry = player.guard["sessions"].get(session_id)
    due = entry is not None and entry[3] is not None and now.timestamp() >= entry[3]
    player.trigger_event(
        RealityCheckAnswered, timestamp=now, session_id=session_id, proceed=proceed, was_due=due
    )
    return proceed


def refuse(
    player: Player, refusal: ProtectionRefusal, session_id: str, stake: int | None, now: datetime
) -> None:
    player.trigger_event(
        ProtectionRefused,
        timestamp=now,
        rule=refusal.code,
        session_id=session_id,
        stake=stake,
        message=str(refusal),
    )
