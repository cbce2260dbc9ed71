"""One test per eventsourcing internal the project relies on (infrastructure/store/es_compat.py):
each fails loudly, naming the internal, if a library upgrade changes it."""

from __future__ import annotations

import inspect
from pathlib import Path
from uuid import uuid4

from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import EventStore, Tracking
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteTrackingRecorder

from domain.ledger.player import Player
from infrastructure.application import PumpkinApplication
from infrastructure.sessions.keys import SessionKey
from infrastructure.store import es_compat
from infrastructure.store.persistence import GroupCommitRecorder
from infrastructure.store.run_blocking import at_once, run_blocking
from projections.feed import PollingSubscription


def test_aggregate_create_makes_an_aggregate_with_its_creation_event_pending() -> None:
    key = es_compat.create(SessionKey, SessionKey.Issued, id=uuid4(), player_id="p", prev_hash="")
    assert isinstance(key, SessionKey) and key.version == 1
    assert [type(e) for e in key.collect_events()] == [SessionKey.Issued]
    assert callable(getattr(Aggregate, "_create", None))  # Player.register uses it too


def test_an_aggregate_keeps_its_unsaved_events_in_the_list_player_copies_replace() -> None:
    player = Player.register("ann")
    assert isinstance(vars(player)[es_compat.PENDING_EVENTS], list)
    assert vars(player)[es_compat.PENDING_EVENTS] == player.pending_events


def test_record_does_what_the_librarys_record_does(tmp_path: Path) -> None:
    source = inspect.getsource(Application._record)  # noqa: SLF001
    assert "self.events.put(" in source and "self.repository.cache" in source, (
        "Application._record changed: review es_compat.record"
    )
    put = inspect.getsource(EventStore.put)
    assert "self.recorder.insert_events(stored_events, **kwargs)" in put, (
        "EventStore.put changed: review es_compat.record"
    )
    assert "Recording(" in put and "Notification(" in put
    with PumpkinApplication.from_url(f"sqlite:///{tmp_path / 'e.db'}") as app:
        processing_event: ProcessingEvent[object] = ProcessingEvent()
        processing_event.collect_events(Player.register("bo"))
        insert = at_once(app.recorder.insert_events)
        recordings = run_blocking(es_compat.record(app, processing_event, insert))
        assert [r.domain_event.originator_version for r in recordings] == [1]
        assert [r.notification.originator_version for r in recordings] == [1]
        assert app.player_state("bo")["balance"] == 0


def test_record_hands_the_insert_the_tracking_and_the_saved_keywords(tmp_path: Path) -> None:
    seen: dict[str, object] = {}

    async def insert(stored_events: list[object], **kwargs: object) -> list[int]:
        seen.update(kwargs)
        return [7]

    with PumpkinApplication.from_url(f"sqlite:///{tmp_path / 'e.db'}") as app:
        processing_event: ProcessingEvent[object] = ProcessingEvent(Tracking("upstream", 3))
        processing_event.collect_events(Player.register("cy"))
        processing_event.saved_kwargs["note"] = "kept"
        recordings = run_blocking(es_compat.record(app, processing_event, insert))
    assert seen == {"tracking": Tracking("upstream", 3), "note": "kept"}
    assert [r.notification.id for r in recordings] == [7]


def test_the_hook_after_recording_takes_the_recordings() -> None:
    parameters = list(inspect.signature(Application._notify).parameters)  # noqa: SLF001
    assert parameters == ["self", "recordings"]
    assert "self._notify(recordings)" in inspect.getsource(Application.save)


def test_a_pulling_subscription_says_when_it_was_stopped_and_can_be_woken(tmp_path: Path) -> None:
    with PumpkinApplication.from_url(f"sqlite:///{tmp_path / 'e.db'}") as app:
        subscription = PollingSubscription(app.recorder, gt=None, interval=0.01)
        with subscription:
            assert not es_compat.subscription_stopped(subscription)
            es_compat.wake_subscription(subscription)
            subscription.stop()
            assert es_compat.subscription_stopped(subscription)


def test_tracking_recorders_insert_a_position_in_a_given_transaction() -> None:
    for recorder in (SQLiteTrackingRecorder, PostgresTrackingRecorder):
        assert list(inspect.signature(recorder._insert_tracking).parameters)[1:] == [  # noqa: SLF001
            "c" if recorder is SQLiteTrackingRecorder else "curs", "tracking"
        ], f"{recorder.__name__}._insert_tracking changed"
    assert Tracking("app", 1).notification_id == 1


def test_postgres_recorders_run_their_create_statements_in_order_in_one_transaction() -> None:
    source = inspect.getsource(PostgresApplicationRecorder._create_table)  # noqa: SLF001
    assert "for statement in self.sql_create_statements" in source
    assert es_compat.TRACKING_CREATE_TABLE_HOOK == "_create_table"


def test_the_postgres_pool_tells_how_it_connects(
    group_commit_recorder: GroupCommitRecorder,
) -> None:
    kwargs = es_compat.pool_connection_kwargs(group_commit_recorder.datastore)
    assert {"dbname", "host", "port", "user"} <= set(kwargs)
    recorder = group_commit_recorder
    for name in ("events_table_name", "channel_name", "sql_create_statements"):
        assert hasattr(recorder, name), f"PostgresApplicationRecorder.{name} is gone"
    for name in ("schema", "lock_timeout", "originator_id_type", "get_connection"):
        assert hasattr(recorder.datastore, name), f"PostgresDatastore.{name} is gone"


def test_snapshots_are_stored_under_the_librarys_snapshot_name_holding_the_players_name() -> None:
    from eventsourcing.domain import Snapshot
    from eventsourcing.utils import get_topic

    assert get_topic(Snapshot) == "eventsourcing.domain:Snapshot"  # what the stores hold
    assert Snapshot.take(Player.register("cy")).topic == "domain.player:Player"
