"""The dispute report's player-protection part: what protection recorded before the round (the
player's limits and exclusions, and its session's reality checks and refusals)."""

from __future__ import annotations

from typing import Any

from domain.ledger.player import player_aggregate_id
from domain.ledger.player_events import PROTECTION_EVENT_NAMES

_PLAYER_WIDE = frozenset(("LimitsChanged", "Excluded"))
_ENVELOPE = frozenset(("originator_id", "originator_version", "timestamp"))


def protection_before(
    application: Any, player_id: str, session_id: str, version: int
) -> list[dict[str, Any]]:
    """Protection events of the player up to `version` (the round's first event): every
    player-wide one, and those of the round's session."""
    found = []
    for event in application.events.get(player_aggregate_id(player_id), lte=version - 1):
        name = type(event).__name__
        if name not in PROTECTION_EVENT_NAMES:
            continue
        if name not in _PLAYER_WIDE and getattr(event, "session_id", None) != session_id:
            continue
        found.append({
            "version": event.originator_version,
            "event": name,
            "timestamp": event.timestamp.isoformat(),
            "payload": {k: v for k, v in vars(event).items() if k not in _ENVELOPE},
        })
    return found
