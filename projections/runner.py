"""Keep the read models following the event store.

`run(settings)` follows it until told to stop (SIGTERM / Ctrl-C); `rebuild(settings)` drops the
views and replays from zero; `start_in_process(settings)` runs them in a thread of the API
process (`pumpkin serve`) and returns a handle with `stop()` and `wait_for(position)`.

One feed reads and decodes each event once and hands every batch to each view in turn; each
view writes its rows with its own tracking position in one transaction.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import psycopg
from eventsourcing.persistence import Notification, PersistenceError, Tracking

from infrastructure.logging import get_logger
from infrastructure.store.database_url import is_postgres
from projections.database import HasDatabaseUrl, database_url_of, open_datastore
from projections.events import RecordedEvent, recorded_event
from projections.feed import EventFeed
from projections.projection import ReadModelProjection
from projections.tables import view_recorder
from projections.views import all_views

if TYPE_CHECKING:
    from infrastructure.store.event_store import PumpkinStore

log = get_logger("pumpkin.projections")

RETRY_AFTER_SECONDS = 1.0


def open_event_store(url: str) -> PumpkinStore:
    """The event store, for its recorder (the feed), mapper (decoding) and name (tracking)."""
    # The sessions' keys register their stored names when imported: a reader that never built
    # the write side must still decode their events.
    import infrastructure.sessions.keys  # noqa: F401
    from infrastructure.store.event_store import PumpkinStore
    from infrastructure.store.persistence import ensure_database, event_store_env

    ensure_database(url)
    env = event_store_env(url)
    if is_postgres(url):
        # A follower needs two connections (LISTEN, and reading), not a writer's pool.
        env.update(POSTGRES_POOL_SIZE="1", POSTGRES_MAX_OVERFLOW="3")
    return PumpkinStore(env=env)


class ProjectionsRunner:
    def __init__(
        self, settings: HasDatabaseUrl | str, *, fresh: bool = False, max_batch: int = 2000
    ) -> None:
        url = database_url_of(settings)
        self.max_batch = max_batch
        self.app = open_event_store(url)
        self.datastore = open_datastore(url, pool_size=1)
        views = all_views()
        if fresh:
            for view in views:
                view_recorder(self.datastore, view, create=False).drop_tables()
        self.projections = [
            ReadModelProjection(view_recorder(self.datastore, view), self.app.name)
            for view in views
        ]
        self._progress = threading.Condition()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    @property
    def position(self) -> int:
        """The notification id every view has reached."""
        return min(p.position for p in self.projections)

    def process(self, notifications: Sequence[Notification]) -> None:
        if notifications:
            tracking = Tracking(self.app.name, notifications[-1].id)
            self.project(self.decode(notifications), tracking)

    def decode(self, notifications: Sequence[Notification]) -> list[RecordedEvent]:
        mapper = self.app.mapper
        # Plain JSON states go to the audit trail as stored (not compressed or encrypted).
        plain = not (mapper.compressor or mapper.cipher)
        return [
            recorded_event(
                mapper.to_domain_event(n), n.id, n.topic, n.state.decode() if plain else ""
            )
            for n in notifications
        ]

    def project(self, events: Sequence[RecordedEvent], tracking: Tracking) -> None:
        """Each view takes the batch in its own transaction with its own tracking position; a
        view that fails does not hold the others back (the feed restarts from where it is)."""
        failed: list[BaseException] = []
        for projection in self.projections:
            try:
                projection.process_batch(events, tracking)
            except Exception as error:  # noqa: BLE001 - raised below, after the other views
                failed.append(error)
        with self._progress:
            self._progress.notify_all()
        if failed:
            raise failed[0]

    def catch_up(self) -> int:
        """Project everything recorded until now; the position reached."""
        until = self.app.recorder.max_notification_id() or 0
        while self.position < until:
            chunk = self.app.recorder.select_notifications(
                start=self.position, limit=self.max_batch, stop=until, inclusive_of_start=False
            )
            if not chunk:
                break
            self.process(chunk)
        return self.position

    def follow(self) -> None:
        """Project events as they are committed, until stop(); survive a store outage."""
        while not self._stopping.is_set():
            feed = EventFeed(self.app.recorder, after=self.position, max_batch=self.max_batch)
            try:
                while not self._stopping.is_set():
                    self.process(feed.next_batch(timeout=0.1))
            except Exception as error:  # noqa: BLE001 - a read model retries; it never dies
                self.error = error
                log.exception("projections_batch_failed", retry_in_seconds=RETRY_AFTER_SECONDS)
                self._stopping.wait(RETRY_AFTER_SECONDS)
                for projection in self.projections:
                    try:
                        projection.reload_position()
                    except Exception:  # noqa: BLE001 - the store is still away: try again
                        log.warning("projections_store_unreachable")
            finally:
                feed.stop()

    def start(self) -> ProjectionsRunner:
        self._thread = threading.Thread(target=self.follow, name="projections", daemon=True)
        self._thread.start()
        return self

    def wait_for(self, position: int | None, timeout: float = 1.0) -> bool:
        """Whether every view reached `position` (a notification id) within `timeout`."""
        if position is None:
            return True
        deadline = time.monotonic() + timeout
        with self._progress:
            while self.position < position:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._progress.wait(remaining)
        return True

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.app.close()
        self.datastore.close()


def start_in_process(settings: HasDatabaseUrl | str) -> ProjectionsRunner:
    """The read models in a thread of this process; stop() the handle on shutdown."""
    runner = ProjectionsRunner(settings)
    return runner.start()


def rebuild(settings: HasDatabaseUrl | str) -> int:
    """Drop the views, replay the whole store into them; the position reached."""
    runner = ProjectionsRunner(settings, fresh=True)
    try:
        return runner.catch_up()
    finally:
        runner.stop()


_STORE_UNAVAILABLE = (OSError, psycopg.Error, PersistenceError)


def _start_when_the_store_answers(
    settings: HasDatabaseUrl | str, stop: threading.Event
) -> ProjectionsRunner | None:
    """Start following; while the store refuses (restarting, out of connections), try again
    with a growing pause rather than exit: a runner left down would leave every view behind."""
    pause = 0.5
    while not stop.is_set():
        try:
            return ProjectionsRunner(settings).start()
        except _STORE_UNAVAILABLE as error:
            log.warning(
                "projections_store_unavailable", error=type(error).__name__, retry_in_seconds=pause
            )
            stop.wait(pause)
            pause = min(pause * 2, 10.0)
    return None


def run(settings: HasDatabaseUrl | str, stop: threading.Event | None = None) -> None:
    """Follow the store until `stop` is set, SIGTERM or Ctrl-C."""
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
    runner = _start_when_the_store_answers(settings, stop)
    if runner is None:
        return
    log.info("projections_following", position=runner.position)
    try:
        stop.wait()
    finally:
        runner.stop()
