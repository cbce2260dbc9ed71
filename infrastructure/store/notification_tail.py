"""Following the store's notification log for a few topics, from the start, in order: how a
background task (the wallet's outbox, the free rounds' expiry) learns which streams concern it
in whichever process it runs, restarts included."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

_READ = 1_000


class NotificationTail:
    def __init__(self, application: Any, topics: Sequence[str]) -> None:
        self._app = application
        self._topics = tuple(topics)
        self._position = 0
        self._lock = threading.Lock()

    def new_events(self) -> list[Any]:
        """The domain events of these topics recorded since the last call (all, the first time)."""
        return [self._app.mapper.to_domain_event(n) for n in self.new_notifications()]

    def new_notifications(self) -> list[Any]:
        """The same, as stored (topic, originator id and version; decoding is left to the
        caller, who may need few of them)."""
        found: list[Any] = []
        with self._lock:
            while True:
                notifications = self._app.recorder.select_notifications(
                    start=self._position + 1, limit=_READ, topics=self._topics
                )
                found.extend(notifications)
                if notifications:
                    self._position = max(self._position, int(notifications[-1].id))
                if len(notifications) < _READ:
                    return found
