"""How the Player records what player protection refuses, in the command that was refused.

A rule that refuses raises a ProtectionRefusal; the command records it first (ProtectionRefused,
and the close of a session past its time limit, its seed revealed) and raises it on, so the
command's one save records the refusal with nothing else: a refused request changes no money and
no progress.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from domain.errors import ProtectionRefusal, SessionTimeLimit
from domain.ledger.protection import check_not_excluded

if TYPE_CHECKING:
    from domain.ledger.player import Player


def record_refusals(
    player: Player,
    judge: Callable[[], None],
    session_id: str,
    stake: int | None,
    now: datetime,
    server_seed: bytes | None = None,
) -> None:
    """Run `judge` (protection's rules); a refusal is recorded on `player`, then raised.
    server_seed: the session's, to reveal if the refusal closes it."""
    try:
        judge()
    except ProtectionRefusal as refusal:
        player.trigger_event(
            player.ProtectionRefused, timestamp=now, rule=refusal.code,
            session_id=session_id, stake=stake, message=str(refusal),
        )
        if isinstance(refusal, SessionTimeLimit) and player.session_is_open(session_id):
            revealed = None if server_seed is None else server_seed.hex()
            player.close_session(session_id, revealed, SessionTimeLimit.code, now)
        raise


def refuse_if_excluded(player: Player, at: datetime, what: str) -> None:
    """Refuse `what` (the refusal recorded) while an exclusion lasts: no money in and no
    promotion for an excluded player, in every profile (CONTRACT.md "Player protection")."""
    record_refusals(
        player, lambda: check_not_excluded(player.guard, at.timestamp(), what), "", None, at
    )
