"""Bearer secrets recently found to name no session, remembered briefly (a negative cache), so
the same bogus token sent again is refused without a store lookup each time. Bounded (oldest
forgotten first); keyed by a digest, so no secret is kept. A token cannot name a session later
by mistake: tokens are made by the service when it opens a session, and handed out only then."""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable


class UnknownTokens:
    def __init__(
        self,
        ttl_seconds: float = 10.0,
        max_entries: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_seconds = ttl_seconds
        self.max_entries = max_entries
        self.clock = clock
        self._until: OrderedDict[bytes, float] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(token: str) -> bytes:
        return hashlib.blake2b(token.encode(), digest_size=16).digest()

    def known_unknown(self, token: str) -> bool:
        if self.ttl_seconds <= 0:
            return False
        key = self._key(token)
        with self._lock:
            until = self._until.get(key)
            if until is None:
                return False
            if until < self.clock():
                del self._until[key]
                return False
            return True

    def remember(self, token: str) -> None:
        if self.ttl_seconds <= 0:
            return
        key = self._key(token)
        with self._lock:
            self._until[key] = self.clock() + self.ttl_seconds
            self._until.move_to_end(key)
            while len(self._until) > self.max_entries:
                self._until.popitem(last=False)
