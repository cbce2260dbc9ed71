"""The background readers of the notification log (NotificationTail: free rounds' expiry, the
wallet's outbox; OpenSessions: the idle sweeper) see each event of their topics once, and each
look moves on to the log's end, so the next one reads only what was recorded after it (not the
whole log since the last event of their topics)."""

from __future__ import annotations

from domain.ledger.player import Player
from infrastructure.application import PumpkinApplication
from infrastructure.sessions.session_sweeper import OpenSessions
from infrastructure.store.event_rows import EventRows
from infrastructure.store.notification_tail import NotificationTail


def test_a_tail_sees_its_topics_once_and_moves_to_the_logs_end(store_url: str) -> None:
    app = PumpkinApplication.from_url(store_url)
    try:
        rows = EventRows(app)
        tail = NotificationTail(app, (Player.Deposited.TOPIC,))
        assert tail.new_notifications() == []
        app.register_player("tail")
        app.deposit("tail", 10, "d1")
        first = tail.new_notifications()
        assert [n.topic for n in first] == [Player.Deposited.TOPIC]
        app.withdraw("tail", 1, "w1")
        app.withdraw("tail", 1, "w2")
        assert tail.new_notifications() == []
        assert tail._position == rows.max_notification_id()
        app.deposit("tail", 5, "d2")
        assert [e.amount for e in tail.new_events()] == [5]
        assert tail.new_events() == []
    finally:
        app.close()


def test_the_sweepers_open_sessions_move_to_the_logs_end(store_url: str) -> None:
    app = PumpkinApplication.from_url(store_url)
    try:
        rows = EventRows(app)
        sessions = OpenSessions(app)
        app.register_player("sweep")
        app.deposit("sweep", 1_000, "d1")
        session_id, _ = app.open_session("sweep")
        assert sessions.refresh() == {session_id}
        app.spin(session_id, 100, "s1")
        assert sessions.refresh() == {session_id}
        assert sessions.position == rows.max_notification_id()
        app.close_session(session_id)
        assert sessions.refresh() == set()
    finally:
        app.close()
