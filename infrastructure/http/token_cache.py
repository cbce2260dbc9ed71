"""Open sessions' tokens, remembered for a few seconds so a busy player's every request does not
read two aggregates just to learn who is asking.

Only spins read it (auth.identify): the cache holds only OPEN sessions and a spin's rules stay with
the write side, so a spin on a session closed meanwhile, through any instance, is still refused
by the application (409 session_closed). Every other request reads the session's state from the
store, so a closed session's token reads nothing anywhere once the close has answered.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict

from infrastructure.ports import SessionRef


class OpenSessionCache:
    def __init__(self, ttl_seconds: float = 2.0, max_entries: int = 100_000) -> None:
        self.ttl_seconds = ttl_seconds
        self.max_entries = max_entries
        self._entries: OrderedDict[str, tuple[float, SessionRef]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(token: str) -> str:
        return hashlib.blake2b(token.encode(), digest_size=20).hexdigest()

    def get(self, token: str) -> SessionRef | None:
        if self.ttl_seconds <= 0:
            return None
        key = self._key(token)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] < time.monotonic():
                del self._entries[key]
                return None
            return entry[1]

    def remember(self, token: str, session: SessionRef) -> None:
        if self.ttl_seconds <= 0 or not session.open:
            return
        with self._lock:
            self._entries[self._key(token)] = (time.monotonic() + self.ttl_seconds, session)
            self._entries.move_to_end(self._key(token))
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def forget_session(self, session_id: str) -> None:
        with self._lock:
            for key in [k for k, (_, s) in self._entries.items() if s.session_id == session_id]:
                del self._entries[key]
