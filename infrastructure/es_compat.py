"""Every use of eventsourcing's non-public names, in one place, each behind a named function.

The project pins eventsourcing==9.5.6 and relies on a few of its internals; each is named here,
and tests/test_es_compat.py holds one test per internal that fails loudly if an upgrade changes
it. Upgrading the library means running those tests and adapting this module, nowhere else.

Internals used here:
- `Aggregate._create` (create an aggregate with a chosen creation event: the key aggregates);
- `Application._record`'s job, done with public names (the event store's `put`, the
  repository's cache), and `Application._notify` (the hook after recording), for our `save`;
- `ListenNotifySubscription._has_been_stopped` / `_has_been_notified` (the polling feed);
- tracking recorders' `_insert_tracking(cursor, tracking)` and `_create_table(cursor)` (the
  read-model recorders write their tracking row in their own transaction and add their tables);
- the PostgreSQL recorder's connection pool settings (`datastore.pool.kwargs`).

Two aggregate internals are also used by domain/player.py, which imports nothing from here
(domain/ depends on no infrastructure): `Aggregate._create` (Player.register) and the
`_pending_events` list a copy of a player must not share (PENDING_EVENTS names it). Their tests
are in the same file.
"""

from __future__ import annotations

from typing import Any, TypeVar

from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.persistence import ListenNotifySubscription, Recording, Tracking

T = TypeVar("T")
PENDING_EVENTS = "_pending_events"  # Aggregate's list of triggered, unsaved events
TRACKING_CREATE_TABLE_HOOK = "_create_table"  # what a tracking recorder's create_table calls


def create(aggregate_class: type[T], event_class: type[Any], **kwargs: Any) -> T:
    """A new aggregate, created by `event_class` (the library's `Aggregate._create`)."""
    created: T = aggregate_class._create(event_class, **kwargs)  # type: ignore[attr-defined]  # noqa: SLF001
    return created


def record(application: Application[Any], processing_event: ProcessingEvent[Any]) -> Any:
    """What the library's `Application._record` does: store the events (one transaction) and
    refresh the library's aggregate cache if it has one. Answers the recordings."""
    recordings = application.events.put(
        processing_event.events,
        tracking=processing_event.tracking,
        **processing_event.saved_kwargs,
    )
    repository = application.repository
    if repository.cache and not repository.fastforward:
        for aggregate_id, aggregate in processing_event.aggregates.items():
            repository.cache.put(aggregate_id, aggregate)
    return recordings


def notify_recorded(application: Application[Any], recordings: list[Recording[Any]]) -> None:
    """The library's hook after new events were recorded (`Application._notify`)."""
    application._notify(recordings)  # noqa: SLF001 - the compat module's job


def subscription_stopped(subscription: ListenNotifySubscription[Any]) -> bool:
    return bool(subscription._has_been_stopped)  # noqa: SLF001


def wake_subscription(subscription: ListenNotifySubscription[Any]) -> None:
    """Make a pulling subscription read the store now, as a notification would."""
    subscription._has_been_notified.set()  # noqa: SLF001


def insert_tracking(recorder: Any, cursor: Any, tracking: Tracking) -> None:
    """Write a tracking position with the tracking recorder's own statement, in `cursor`'s
    transaction."""
    recorder._insert_tracking(cursor, tracking)  # noqa: SLF001


def pool_connection_kwargs(datastore: Any) -> dict[str, Any]:
    """How the PostgreSQL datastore's pool opens a connection (to open one more alike)."""
    pooled = datastore.pool.kwargs
    assert isinstance(pooled, dict)  # the library passes a dict
    return dict(pooled)
