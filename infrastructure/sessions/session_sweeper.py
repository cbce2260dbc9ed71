"""The service's own closes: a session with no spin for PUMPKIN_SESSION_IDLE_SECONDS is closed
(its seed revealed), so every seed is revealed in the end.

Every `serve` process runs one (a daemon thread): whichever is alive does the work, and two
doing it at once is harmless (a close is judged on the newest state and closes once). Open
sessions are learnt from the event store itself, following its notification log for session
keys issued and closed (a range scan from where the last look ended), so a restart or another
process's sessions are seen too. Idleness is judged by the application, on its clock.
"""

from __future__ import annotations

from typing import Protocol
from uuid import UUID

from eventsourcing.utils import get_topic

from infrastructure.background import Background
from infrastructure.logging import get_logger
from infrastructure.sessions.keys import SessionKey
from infrastructure.store.event_rows import PAGE, EventRows
from infrastructure.store.event_store import PumpkinStore

log = get_logger("pumpkin.sessions")


class ClosesIdleSessions(Protocol):
    def close_if_idle(self, session_id: str, idle_seconds: float) -> bool: ...

    def session(self, session_id: str) -> dict[str, object]: ...


class OpenSessions:
    """The ids of sessions whose key has no close recorded, followed through the store."""

    def __init__(self, store: PumpkinStore) -> None:
        self.rows = EventRows(store)
        self.issued = get_topic(SessionKey.Issued)
        self.closed = get_topic(SessionKey.Closed)
        self.position = 0
        self.open: set[str] = set()

    def refresh(self) -> set[str]:
        """Up to the log's newest notification id, known first; the next refresh starts after
        it (as infrastructure.store.notification_tail does, for the same reason: ids commit in
        order, and a position left at the last session key made every refresh filter every
        event recorded since)."""
        newest = self.rows.max_notification_id()
        while True:
            page = self.rows.streams_with_topics(
                self.position, (self.issued, self.closed), upto=newest
            )
            for position, stream, topic in page:
                session_id = UUID(stream).hex
                if topic == self.issued:
                    self.open.add(session_id)
                else:
                    self.open.discard(session_id)
                self.position = position
            if len(page) < PAGE:
                self.position = max(self.position, newest)
                return set(self.open)


def close_idle_sessions(
    application: ClosesIdleSessions, sessions: OpenSessions, idle_seconds: float
) -> int:
    """One sweep: close every session idle for `idle_seconds`; how many this sweep closed."""
    closed = 0
    for session_id in sorted(sessions.refresh()):
        try:
            if application.close_if_idle(session_id, idle_seconds):
                closed += 1
                log.info("session_closed_idle", session_id=session_id)
            elif not application.session(session_id)["open"]:
                sessions.open.discard(session_id)  # closed before closes were recorded
        except Exception:  # noqa: BLE001 - logged; the next sweep tries again
            log.warning("idle_close_failed", session_id=session_id, exc_info=True)
    return closed


class Sweeper:
    """The background thread of `serve` that closes idle sessions (infrastructure.background)."""

    def __init__(
        self, application: ClosesIdleSessions, store: PumpkinStore, idle_seconds: float
    ) -> None:
        self.application = application
        self.store = store
        self.idle_seconds = idle_seconds
        self.interval = max(0.05, min(60.0, idle_seconds / 4))
        self._sessions: OpenSessions | None = None
        self._loop = Background("pumpkin-sweeper", self.interval, self.sweep, "sweep_failed")

    def sweep(self) -> int:
        if self._sessions is None:
            self._sessions = OpenSessions(self.store)
        return close_idle_sessions(self.application, self._sessions, self.idle_seconds)

    def start(self) -> Sweeper:
        self._loop.start()
        return self

    def stop(self) -> None:
        self._loop.stop()
