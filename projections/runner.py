"""Keep the read models following the event store.

`run(settings)` follows it until told to stop (SIGTERM / Ctrl-C); `rebuild(settings)` drops the
views and replays from zero; `start_in_process(settings)` runs them in a thread of the API
process (`pumpkin serve`) and returns a handle with `stop()` and `wait_for(position)`.

One feed reads and decodes each event once and hands every batch to each view in turn; each
view writes its rows with its own tracking position in one transaction.

A view that raises on a batch is set apart (CONTRACT.md "The operator's seamless wallet": one
failing view never holds the others back): the feed goes on with the others, and the view is
retried alone from its own position, its pauses doubling from 1 s to 60 s, until it has caught
up with the feed and rejoins it. A runner that starts again starts every view where it stands,
and sets a failing one apart again at its first failure. Each failure, and the recovery, is
written to `view_errors` (projections/view_health.py), which /health, /metrics and the console
read. A store that is away (every view failing at once, or a connection error) is no view's
failure: the feed waits RETRY_AFTER_SECONDS and starts again.
"""

from __future__ import annotations

import signal
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import psycopg
from eventsourcing.persistence import (
    InterfaceError,
    Notification,
    OperationalError,
    PersistenceError,
    Tracking,
)

from infrastructure.logging import get_logger
from infrastructure.store.database_url import is_postgres
from projections.database import HasDatabaseUrl, database_url_of, open_datastore
from projections.events import RecordedEvent, recorded_event
from projections.feed import EventFeed
from projections.projection import ReadModelProjection
from projections.tables import view_recorder
from projections.view_health import ViewErrors, error_text
from projections.views import all_views

if TYPE_CHECKING:
    from infrastructure.store.event_store import PumpkinStore

log = get_logger("pumpkin.projections")

RETRY_AFTER_SECONDS = 1.0  # the store away: the feed starts again after this
FIRST_RETRY_SECONDS = 1.0  # a failing view: its first retry, then twice as long each time
MAX_RETRY_SECONDS = 60.0
# Errors of the store's connection, not of a view's code.
_STORE_AWAY = (
    OSError, OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError,
    sqlite3.OperationalError,
)


def retry_pause(failures: int) -> float:
    """The pause before a failing view's next try, after `failures` failures in a row."""
    return float(min(FIRST_RETRY_SECONDS * 2 ** max(failures - 1, 0), MAX_RETRY_SECONDS))


@dataclass
class Apart:
    """A view taken off the feed: failing (`failures` in a row), or catching up after it."""

    failures: int = 0
    retry_at: float = 0.0  # time.monotonic()
    error: str = ""


class StoreAway(Exception):
    """Every view failed on one batch: the store, not a view."""


class ViewFailing(Exception):
    """A read model failed (catch_up, rebuild: the others went on)."""


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
        self.errors = ViewErrors(self.datastore)
        self.recorded_failing = self.errors.failing_names()  # as view_errors says at start
        self.apart: dict[str, Apart] = {}  # views off the feed, by name
        self.fed = 0  # the notification id the feed has handed out
        self.clock = time.monotonic
        self._progress = threading.Condition()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    @property
    def position(self) -> int:
        """The notification id every view has reached."""
        return min(p.position for p in self.projections)

    @property
    def following(self) -> list[ReadModelProjection]:
        """The views on the feed (not set apart)."""
        return [p for p in self.projections if p.name not in self.apart]

    @property
    def failing(self) -> dict[str, str]:
        """The views failing now: name -> the last error."""
        return {name: apart.error for name, apart in self.apart.items() if apart.failures}

    def feed_start(self) -> int:
        """Where the feed starts: the slowest view on it (every view, when all are apart)."""
        return min(p.position for p in (self.following or self.projections))

    def process(self, notifications: Sequence[Notification]) -> None:
        if notifications:
            tracking = Tracking(self.app.name, notifications[-1].id)
            self.project(self.decode(notifications), tracking)
            self.fed = max(self.fed, notifications[-1].id)

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
        """Each view on the feed takes the batch in its own transaction with its own tracking
        position; one that fails is set apart, the others go on. Every one failing at once:
        StoreAway (the store's trouble, not theirs: none is set apart)."""
        failed: list[tuple[ReadModelProjection, BaseException]] = []
        following = self.following
        for projection in following:
            try:
                projection.process_batch(events, tracking)
            except Exception as raised:  # noqa: BLE001 - this view's alone (unless all fail)
                failed.append((projection, raised))
            else:
                if projection.name in self.recorded_failing:
                    self._recovered(projection)
        with self._progress:
            self._progress.notify_all()
        if failed and len(failed) == len(following) and isinstance(failed[0][1], _STORE_AWAY):
            for projection, _error in failed:
                projection.reload_position()
            raise StoreAway(error_text(failed[0][1])) from failed[0][1]
        for projection, cause in failed:
            self._set_apart(projection, cause)

    def _set_apart(self, projection: ReadModelProjection, error: BaseException) -> None:
        projection.reload_position()  # its transaction rolled back
        apart = self.apart.setdefault(projection.name, Apart())
        apart.failures += 1
        apart.error = error_text(error)
        pause = retry_pause(apart.failures)
        apart.retry_at = self.clock() + pause
        log.error("read_model_failed", view=projection.name, position=projection.position,
                  failures=apart.failures, retry_in_seconds=pause, exc_info=error)
        try:
            self.errors.failed(projection.name, projection.position, error)
        except Exception:  # noqa: BLE001 - said in the log; the store may be away
            log.warning("read_model_failure_not_recorded", view=projection.name)

    def _recovered(self, projection: ReadModelProjection) -> None:
        """A view that was failing (here, or as `view_errors` said at start) took a batch."""
        self.recorded_failing.discard(projection.name)
        self.errors.recovered(projection.name)
        log.info("read_model_recovered", view=projection.name, position=projection.position)

    def retry_apart(self, force: bool = False, failing: bool = True) -> None:
        """Each view set apart whose pause is over (every one, with `force`; only those
        catching up, without `failing`) takes the next batch from its own position up to the
        feed's; caught up, it rejoins the feed."""
        for projection in self.projections:
            apart = self.apart.get(projection.name)
            if apart is None or (apart.failures and not failing):
                continue
            if not force and self.clock() < apart.retry_at:
                continue
            chunk = self.app.recorder.select_notifications(
                start=projection.position, limit=self.max_batch, stop=self.fed,
                inclusive_of_start=False,
            ) if projection.position < self.fed else []
            if chunk:
                tracking = Tracking(self.app.name, chunk[-1].id)
                try:
                    projection.process_batch(self.decode(chunk), tracking)
                except Exception as error:  # noqa: BLE001 - still failing: later, alone
                    self._set_apart(projection, error)
                    continue
                with self._progress:
                    self._progress.notify_all()
            if apart.failures:
                apart.failures, apart.error = 0, ""
                self._recovered(projection)
            if projection.position >= self.fed:
                del self.apart[projection.name]  # caught up: back on the feed

    def catch_up(self) -> int:
        """Project everything recorded until now; the position reached. A view that fails is
        left behind (the others go on) and its error raised at the end; views set apart
        before are tried again first."""
        until = self.app.recorder.max_notification_id() or 0
        self.fed = max(self.fed, self.feed_start())
        self.retry_apart(force=True)
        while True:
            behind = bool(self.following) and self.feed_start() < until
            if behind:
                chunk = self.app.recorder.select_notifications(
                    start=self.feed_start(), limit=self.max_batch, stop=until,
                    inclusive_of_start=False,
                )
                if not chunk:
                    break
                self.process(chunk)
            elif not any(not apart.failures for apart in self.apart.values()):
                break
            self.retry_apart(force=True, failing=False)
        failing = self.failing
        if failing:
            name, error = next(iter(failing.items()))
            raise ViewFailing(f"read model {name} failed: {error}")
        return self.position

    def follow(self) -> None:
        """Project events as they are committed, until stop(); survive a store outage, and a
        view that fails (set apart, retried alone)."""
        while not self._stopping.is_set():
            start = self.feed_start()
            self.fed = max(self.fed, start)
            feed = EventFeed(self.app.recorder, after=start, max_batch=self.max_batch)
            try:
                while not self._stopping.is_set():
                    self.process(feed.next_batch(timeout=0.1))
                    self.retry_apart()
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
