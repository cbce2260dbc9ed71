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
        caller, who may need few of them).

        Each look reads up to the log's newest notification id, known first, and the next look
        starts after it, whether or not these topics were among them: the store commits
        notifications in id order (its insert takes the table lock), so none below it can still
        appear. A position kept at the last matching event instead made every look filter the
        whole log written since (the topic has no index), a little slower each time."""
        found: list[Any] = []
        with self._lock:
            newest = int(self._app.recorder.max_notification_id() or 0)
            while self._position < newest:
                notifications = self._app.recorder.select_notifications(
                    start=self._position + 1, limit=_READ, stop=newest, topics=self._topics
                )
                found.extend(notifications)
                if len(notifications) < _READ:
                    self._position = newest
                else:
                    self._position = int(notifications[-1].id)
            return found
