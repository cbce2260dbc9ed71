"""Opening a session on a bare Player, as the service does, without protection's profile or a
committed seed (the rules a unit test of the aggregate is not about)."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.ledger.player import Player
from domain.ledger.protection import PROFILES


def open_plain_session(
    player: Player, session_id: str, token_hash: str, at: datetime | None = None
) -> None:
    """A session without a commitment (its rounds take the seed they are given)."""
    player.open_session(
        session_id, token_hash, "", "", at or datetime.now(UTC), PROFILES["none"]
    )
