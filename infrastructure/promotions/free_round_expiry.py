"""Recording the end of free-round campaigns whose expiry passed (FreeRoundsExpired), run in
the server's event loop by every `serve` process. A spin already refuses an expired campaign
(409 no_free_rounds) by the clock alone; this records the expiry as an event. It follows the
grants through the notification log, so a restart finds every campaign again."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from domain.ledger.free_rounds import parse_expiry
from domain.ledger.player import Player
from infrastructure.store.notification_tail import NotificationTail

POLL_SECONDS = 5.0
_log = logging.getLogger(__name__)


class FreeRoundExpiry:
    def __init__(self, application: Any) -> None:
        self.app = application
        self._tail = NotificationTail(application, (Player.FreeRoundsGranted.TOPIC,))
        self._expiring: dict[str, float] = {}  # player id -> the earliest expiry (epoch s)

    def pass_once(self) -> list[str]:
        """Record every expiry due now; the players whose campaigns expired."""
        for granted in self._tail.new_events():
            expiry = parse_expiry(granted.expires_at)
            if expiry is None:
                continue
            player_id = str(self.app.repository.get(granted.originator_id).player_id)
            known = self._expiring.get(player_id)
            moment = expiry.timestamp()
            self._expiring[player_id] = moment if known is None else min(known, moment)
        now = self.app.clock().timestamp()
        expired = []
        for player_id, moment in list(self._expiring.items()):
            if moment > now:
                continue
            if self.app.expire_free_rounds(player_id):
                expired.append(player_id)
            later = [
                e.timestamp() for c in self.app.load_player(player_id).free_rounds.values()
                if not c[3] and c[0] > 0 and (e := parse_expiry(c[2])) is not None
            ]
            if later:
                self._expiring[player_id] = min(later)
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
