"""Recording the end of free-round campaigns whose expiry passed (FreeRoundsExpired), run in
the server's event loop by every `serve` process. A spin already refuses an expired campaign
(409 no_free_rounds) by the clock alone; this records the expiry as an event. It follows the
grants through the notification log, so a restart finds every campaign again."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from domain.ledger.free_rounds import next_expiry, parse_expiry
from domain.ledger.player import Player
from infrastructure.store.notification_tail import NotificationTail

if TYPE_CHECKING:
    from infrastructure.promotions.free_round_commands import FreeRoundCommands

POLL_SECONDS = 5.0
_log = logging.getLogger(__name__)


class FreeRoundExpiry:
    def __init__(self, commands: FreeRoundCommands) -> None:
        self.commands = commands
        self.players = commands.runner.players
        self._tail = NotificationTail(self.players.store, (Player.FreeRoundsGranted.TOPIC,))
        self._expiring: dict[str, float] = {}  # player id -> the earliest expiry (epoch s)

    def pass_once(self) -> list[str]:
        """Record every expiry due now; the players whose campaigns expired."""
        for granted in self._tail.new_events():
            expiry = parse_expiry(granted.expires_at)
            if expiry is None:
                continue
            granted_to = self.players.cache.get(granted.originator_id)
            if granted_to is None:
                continue
            player_id = granted_to.player_id
            known = self._expiring.get(player_id)
            moment = expiry.timestamp()
            self._expiring[player_id] = moment if known is None else min(known, moment)
        now = self.commands.rules.now().timestamp()
        expired = []
        for player_id, moment in list(self._expiring.items()):
            if moment > now:
                continue
            if self.commands.expire(player_id):
                expired.append(player_id)
            later = next_expiry(self.players.load(player_id).free_rounds)
            if later is not None:
                self._expiring[player_id] = later.timestamp()
            else:
                del self._expiring[player_id]
        return expired

    async def run(self) -> None:
        while True:
            try:
                await asyncio.to_thread(self.pass_once)
            except Exception:  # noqa: BLE001 - e.g. the store is down: try again later
                _log.warning("free round expiry pass failed", exc_info=True)
            await asyncio.sleep(POLL_SECONDS)
