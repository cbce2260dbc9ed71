"""One spin of a player at a time, from its debit to its recorded round (the seamless wallet).

A debit names the round it pays for (CONTRACT.md): the player's next round. Two spins of one
player in flight at once would both name it, and the second round played would be credited
under another name than its debit's. In one process the spins of a player take turns here;
across processes, a debit is not recorded while another spin's is open (seamless.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class PlayerTurns:
    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}  # player -> (lock, users)

    @asynccontextmanager
    async def turn(self, player_id: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(player_id) or (asyncio.Lock(), 0)
        self._locks[player_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[player_id]
            if users <= 1:
                del self._locks[player_id]  # nobody waits: forget it (players come and go)
            else:
                self._locks[player_id] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)
