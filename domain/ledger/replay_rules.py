"""The rules a player's stored events must obey, asked of the player as it stood before each
event, as verify replays the stream: what the events themselves break (an insider's write, or a
defect) is named, whatever the service's snapshots or answers said at the time.

Each rule is the one the commands enforce (domain.ledger.protection, domain.ledger.free_rounds),
judged at the event's own time, the time the command judged it at:
- excluded_play: a session opened or a round played while the player was excluded;
- free_round_overdrawn: a free round with no grant, beyond its grant, after its expiry or its
  cancellation;
- limit_broken: a stake above the player's maximum stake in force, or one whose loss would pass
  a loss limit in force.
"""

from __future__ import annotations

from typing import Any

from domain.ledger import player_events as events
from domain.ledger import round_events
from domain.ledger.free_rounds import is_live
from domain.ledger.protection import is_excluded, limit_breach


def rules_broken(player: Any, event: Any) -> list[tuple[str, str]]:
    """(kind, detail) of every rule `event` breaks, `player` the state before it."""
    if isinstance(event, events.SessionOpened):
        at = event.timestamp.timestamp()
        if is_excluded(player.guard, at):
            return [("excluded_play", f"session {event.session_id} opened while the player "
                                      "was excluded")]
    elif isinstance(event, round_events.StakePlaced):
        return _round_rules(player, event)
    return []


def _round_rules(player: Any, event: Any) -> list[tuple[str, str]]:
    at = event.timestamp.timestamp()
    broken: list[tuple[str, str]] = []
    if is_excluded(player.guard, at):
        broken.append(("excluded_play", "a round played while the player was excluded"))
    if event.free_round:
        campaign = player.free_rounds.get(event.free_round)
        if campaign is None:
            broken.append(("free_round_overdrawn",
                           f"a free round of campaign {event.free_round!r}, never granted"))
        elif not is_live(campaign, event.timestamp):
            why = campaign.ended or ("used up" if campaign.rounds_left <= 0 else "expired")
            broken.append(("free_round_overdrawn",
                           f"a free round of campaign {event.free_round!r}, {why}"))
    breach = limit_breach(player.guard, event.stake, at, surely=True)
    if breach is not None:
        broken.append(("limit_broken", f"a limit in force was broken: {breach}"))
    return broken
