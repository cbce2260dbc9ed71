"""Player protection's commands on the Player: limits, exclusions and reality checks, and the
rules judged before a spin (check_protection) or on any request of a session, even a closed
one (check_session_access); a refusal is recorded on the Player before it is raised
(domain.ledger.refusals).

Each validates and decides with domain.ledger.protection (taking `now` from the application's
injected clock, which also stamps the event) and records the Player's events
(domain.ledger.player_events); a command that closes sessions closes them in the same command,
each with its server seed revealed (given by the application, which alone can open them).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from domain.errors import SessionClosed
from domain.ledger.player import Player
from domain.ledger.protection import (
    Profile,
    changed_limits,
    check_access,
    check_limit_changes,
    check_round,
    exclusion_until,
    reality_check_due,
)
from domain.ledger.refusals import record_refusals


def check_protection(
    player: Player, session_id: str, stake: int, profile: Profile, now: datetime,
    server_seed: bytes | None = None,
) -> None:
    """Player protection's rules for a spin, before Player.check_spin's. A refusal is recorded
    first (server_seed: the session's, to reveal if the refusal closes it)."""
    at = now.timestamp()

    def judge() -> None:
        check_access(player.guard, session_id, at)
        if player.session_is_open(session_id):
            check_round(
                player.guard, session_id, stake, profile, at,
                lambda: player.session_view(session_id, now), player.age_band,
            )

    record_refusals(player, judge, session_id, stake, now, server_seed)


def check_session_access(
    player: Player, session_id: str, now: datetime, server_seed: bytes | None = None
) -> None:
    """The protection rules that hold even for a closed session (exclusion, the session time
    limit); a refusal is recorded first."""
    at = now.timestamp()
    record_refusals(
        player, lambda: check_access(player.guard, session_id, at), session_id, None, now,
        server_seed,
    )


def change_limits(player: Player, requested: Mapping[str, Any], now: datetime) -> None:
    checked = check_limit_changes(requested)
    limits, pending = changed_limits(player.guard, checked, now.timestamp())
    player.trigger_event(
        Player.LimitsChanged, timestamp=now, requested=checked, limits=limits,
        pending={name: [p.value, p.effective_at] for name, p in pending.items()},
    )


def exclude(
    player: Player, until: datetime | None, reason: str, now: datetime,
    reveals: Mapping[str, str | None],
) -> None:
    """Record the exclusion, then close every open session at once (reveals: each open
    session's server seed, hex; None for a session from before commitments)."""
    requested = None if until is None else until.timestamp()
    effective = exclusion_until(player.guard, requested, now.timestamp())
    player.trigger_event(
        Player.Excluded, timestamp=now, requested_until=requested, until=effective,
        reason=reason,
    )
    for session_id in player.open_session_ids():
        player.close_session(session_id, reveals.get(session_id), "exclusion", now)


def answer_reality_check(
    player: Player, session_id: str, proceed: bool, now: datetime, server_seed: bytes | None
) -> None:
    """Record the player's answer; `proceed` False closes the session (its seed revealed). The
    rules that hold even for a closed session are judged first (and a refusal recorded)."""
    check_session_access(player, session_id, now, server_seed)
    if not player.session_is_open(session_id):
        raise SessionClosed(f"session {session_id!r} is closed")
    due = reality_check_due(player.guard, session_id, now.timestamp())
    player.trigger_event(
        Player.RealityCheckAnswered, timestamp=now, session_id=session_id, proceed=proceed,
        was_due=due,
    )
    if not proceed:
        revealed = None if server_seed is None else server_seed.hex()
        player.close_session(session_id, revealed, "reality_check", now)
