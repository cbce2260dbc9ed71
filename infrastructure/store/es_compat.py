"""Every use of eventsourcing's non-public names, in one place, each behind a named function.

The project pins eventsourcing==9.5.6 and relies on a few of its internals; each is named here,
and tests/integration/store/test_es_compat.py holds one test per internal that fails loudly if
an upgrade changes it. Upgrading the library means running those tests and adapting this
module, nowhere else.

Internals used here:
- `Aggregate._create` (create an aggregate with a chosen creation event: the key aggregates);
- `Application._record`'s job, done with public names (the mapper, the recorder's
  `insert_events`, `Recording`, the repository's cache: the library's `EventStore.put` inlined,
  so that a save can also be awaited), and `Application._notify` (the hook after recording),
  for our `save`;
- `ListenNotifySubscription._has_been_stopped` / `_has_been_notified` (the polling feed);
- tracking recorders' `_insert_tracking(cursor, tracking)` and `_create_table(cursor)` (the
  read-model recorders write their tracking row in their own transaction and add their tables);
- the PostgreSQL recorder's connection pool settings (`datastore.pool.kwargs`).

Two aggregate internals are also used by domain/ledger/player.py, which imports nothing from here
(domain/ depends on no infrastructure): `Aggregate._create` (Player.register) and the
`_pending_events` list a copy of a player must not share (PENDING_EVENTS names it). Their tests
are in the same file.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.persistence import ListenNotifySubscription, Notification, Recording, Tracking

T = TypeVar("T")
PENDING_EVENTS = "_pending_events"  # Aggregate's list of triggered, unsaved events
TRACKING_CREATE_TABLE_HOOK = "_create_table"  # what a tracking recorder's create_table calls


def create(aggregate_class: type[T], event_class: type[Any], **kwargs: Any) -> T:
    """A new aggregate, created by `event_class` (the library's `Aggregate._create`)."""
    created: T = aggregate_class._create(event_class, **kwargs)  # type: ignore[attr-defined]  # noqa: SLF001
    return created


async def record(
    application: Application[Any],
    processing_event: ProcessingEvent[Any],
    insert: Callable[..., Awaitable[Sequence[int] | None]],
    *,
    answer: bool = True,
) -> list[Recording[Any]]:
    """What the library's `Application._record` does, with public names and the insert given
    (blocking or async: infrastructure/store/run_blocking.py): store the events in one transaction
    (`insert`, the recorder's `insert_events` as the library's `EventStore.put` calls it), answer
    the recordings as `put` does (unless not `answer`: none, then), and refresh the library's
    aggregate cache if it has one."""
    stored_events = [application.mapper.to_stored_event(e) for e in processing_event.events]
    notification_ids = await insert(
        stored_events, tracking=processing_event.tracking, **processing_event.saved_kwargs
    )
    recordings: list[Recording[Any]] = [
        Recording(
            event,
            Notification(
                originator_id=stored.originator_id,
                originator_version=stored.originator_version,
                topic=stored.topic,
                state=stored.state,
                id=notification_id,
            ),
        )
        for event, stored, notification_id in zip(
            processing_event.events, stored_events, notification_ids, strict=True
        )
    ] if notification_ids and answer else []
    repository = application.repository
    if repository.cache and not repository.fastforward:
        for aggregate_id, aggregate in processing_event.aggregates.items():
            repository.cache.put(aggregate_id, aggregate)
    return recordings


def hooked_after_recording(application: Application[Any]) -> bool:
    """Whether the application implements the library's hook after recording (`_notify`: the
    library's own does nothing), so that a save must answer the recordings to pass them on."""
    return type(application)._notify is not Application._notify  # noqa: SLF001


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
