"""The store's events after a position, in batches, as they are committed.

PostgreSQL: the library's LISTEN/NOTIFY subscription. SQLite: the library has none, so the
same pulling subscription is woken by a timer instead of a notification. A reader thread
drains the subscription into a queue so the projections can take everything already there as
one batch (one transaction per view per batch, not per event).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import ApplicationRecorder, ListenNotifySubscription, Notification
from eventsourcing.postgres import PostgresApplicationRecorder

from infrastructure.store.es_compat import subscription_stopped, wake_subscription


class PollingSubscription(ListenNotifySubscription[ApplicationRecorder]):
    """The library's pulling subscription, woken every `interval` seconds (SQLite)."""

    def __init__(self, recorder: ApplicationRecorder, gt: int | None, interval: float) -> None:
        super().__init__(recorder=recorder, gt=gt)
        self._interval = interval
        self._timer = threading.Thread(target=self._wake_regularly, daemon=True)
        self._timer.start()

    def _wake_regularly(self) -> None:
        while not subscription_stopped(self):
            wake_subscription(self)
            time.sleep(self._interval)

    def __exit__(self, *args: object, **kwargs: Any) -> None:
        try:
            super().__exit__(*args, **kwargs)
        finally:
            self._timer.join()


def subscribe(recorder: Any, after: int | None, poll_interval: float = 0.05) -> Any:
    if isinstance(recorder, PostgresApplicationRecorder):
        return recorder.subscribe(gt=after)
    return PollingSubscription(recorder, gt=after, interval=poll_interval)


class FeedEnded(Exception):
    """The subscription stopped without being asked to (the runner starts a new one)."""


class EventFeed:
    """Batches of notifications after `after`, oldest first."""

    def __init__(self, recorder: Any, after: int | None, max_batch: int = 2000) -> None:
        self._subscription = subscribe(recorder, after)
        self._queue: queue.Queue[Notification] = queue.Queue(maxsize=4 * max_batch)
        self._max_batch = max_batch
        self._stopped = threading.Event()
        self.error: BaseException | None = None
        self._reader = threading.Thread(target=self._read, name="projection-feed", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            with self._subscription:
                for notification in self._subscription:
                    while not self._stopped.is_set():
                        try:
                            self._queue.put(notification, timeout=0.1)
                            break
                        except queue.Full:
                            continue
                    if self._stopped.is_set():
                        return
        except BaseException as error:  # noqa: BLE001 - handed to the runner, which raises it
            self.error = error
        finally:
            self._stopped.set()

    def next_batch(self, timeout: float) -> Sequence[Notification]:
        """Whatever is ready (waiting up to `timeout` for the first one)."""
        if self.error is not None:
            raise self.error
        try:
            batch = [self._queue.get(timeout=timeout)]
        except queue.Empty:
            if self._stopped.is_set():
                raise FeedEnded("the subscription ended") from None
            return []
        while len(batch) < self._max_batch:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def stop(self) -> None:
        self._stopped.set()
        self._subscription.stop()
        self._reader.join(timeout=5)
