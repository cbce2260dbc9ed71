"""The session object of CONTRACT.md, from an open session's entry (domain.ledger.player) or from
the
events that closed it. Times are ISO 8601 (UTC), from the events' timestamps; `elapsed_seconds`
is counted to now (the application's clock) while open, to the close once closed."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from domain.ledger.player import Player, seconds_since


def running_figures(entry: list[Any], now: datetime) -> dict[str, Any]:
    """What every spin answer carries: the session's figures so far."""
    _, spins, staked, won, *_ = entry
    return {
        "spins": spins,
        "staked": staked,
        "won": won,
        "net": won - staked,
        "elapsed_seconds": seconds_since(str(entry[7]), now),
    }


def idle_for(entry: list[Any], now: datetime) -> float:
    """Seconds since the session's last round (or its opening)."""
    last = str(entry[8] or entry[7])
    if not last:
        return float("inf")  # never recorded: an old session, due for closing
    return (now - datetime.fromisoformat(last)).total_seconds()


def open_view(session_id: str, player_id: str, entry: list[Any], now: datetime) -> dict[str, Any]:
    return {
        "session_id": session_id,
        "player_id": player_id,
        "open": True,
        "opened_at": entry[7] or None,
        "closed_at": None,
        **running_figures(entry, now),
        "seed_commitment": entry[5] or None,
        "server_seed": None,
    }


def closed_view(
    session_id: str,
    player_id: str,
    entry: list[Any],
    closed_at: datetime,
    server_seed: str | None,
    closed_by: str = "",
) -> dict[str, Any]:
    """The session as it closes now, from its entry before the close."""
    return {
        **open_view(session_id, player_id, entry, closed_at),
        "open": False,
        "closed_at": closed_at.isoformat(),
        "server_seed": server_seed,
        "closed_by": closed_by or None,
    }


def legacy_closed_view(
    session_id: str, player_id: str, events: Iterable[object]
) -> dict[str, Any]:
    """A session whose close is not on its SessionKey (closed before closes were recorded
    there, or by a command closing several at once): read from the player's stream, its
    SessionOpened, SessionClosed and SeedRevealed."""
    opened: Any = None
    view: dict[str, Any] | None = None
    for event in events:
        if getattr(event, "session_id", None) != session_id:
            continue
        if isinstance(event, Player.SessionOpened):
            opened = event
        elif isinstance(event, Player.SessionClosed):
            entry = [False, event.spins, event.staked, event.won, 0,
                     getattr(opened, "seed_commitment", ""), "",
                     opened.timestamp.isoformat() if opened is not None else "", ""]
            view = closed_view(session_id, player_id, entry, event.timestamp, None,
                               event.reason)
        elif isinstance(event, Player.SeedRevealed) and view is not None:
            view["server_seed"] = event.server_seed
    if view is None:
        raise ValueError(f"session {session_id!r} is neither open nor closed in its stream")
    return view
