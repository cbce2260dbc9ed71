"""Sessions closed before their close was recorded on their SessionKey (infrastructure/sessions/
keys.py): the session object read back from the player's own stream."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.ledger.player import Player
from domain.ledger.sessions import SessionEntry, closed_view


def legacy_closed_view(
    session_id: str, player_id: str, events: Iterable[object]
) -> dict[str, Any]:
    """The session from its SessionOpened, SessionClosed and SeedRevealed."""
    opened: Any = None
    view: dict[str, Any] | None = None
    for event in events:
        if getattr(event, "session_id", None) != session_id:
            continue
        if isinstance(event, Player.SessionOpened):
            opened = event
        elif isinstance(event, Player.SessionClosed):
            opened_at = opened.timestamp.isoformat() if opened is not None else ""
            entry = SessionEntry(
                event.spins, event.staked, event.won, 0,
                getattr(opened, "seed_commitment", ""), "", opened_at, "",
            )
            view = closed_view(
                session_id, player_id, entry, event.timestamp, None, event.reason
            )
        elif isinstance(event, Player.SeedRevealed) and view is not None:
            view["server_seed"] = event.server_seed
    if view is None:
        raise ValueError(f"session {session_id!r} is neither open nor closed in its stream")
    return view
