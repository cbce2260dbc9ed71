"""An event as the read models see it: where it sits in the store, its name and its data.

The views never import the aggregate's classes: they read an event's attributes by name, so the
write side can add attributes freely and old events keep projecting.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from eventsourcing.utils import get_topic

from domain.game.facts import JSON
from domain.ledger.hashchain import STORED_DIGEST, digest_of
from domain.ledger.round_events import ROUND_EVENT_NAMES, ROUND_EVENT_TOPICS

_ENVELOPE = ("originator_id", "originator_version", "timestamp", STORED_DIGEST)


@dataclass(frozen=True)
class RecordedEvent:
    position: int  # the notification id: the event's place in the whole store
    stream_id: str
    version: int
    name: str
    timestamp: datetime
    data: Mapping[str, JSON]
    digest: str = ""  # the event's own link in its stream's hash chain
    stored: str = ""  # the event's state exactly as the store holds it (JSON), when plain
    topic: str = ""  # its stored name ("": not known, as for a round's parked events)

    @functools.cached_property
    def in_round(self) -> bool:
        """Whether the event is part of a round (its stake, a fact of its play, its settlement),
        by what it is: its topic (a parked event, whose topic was not kept, by its name; only
        a round's events are parked)."""
        if self.topic:
            return self.topic in ROUND_EVENT_TOPICS
        return self.name in ROUND_EVENT_NAMES

    @functools.cached_property
    def round_id(self) -> str | None:
        """The round this event is part of (None: it is not a round's event, whatever it
        names: a wallet's debit names the round it pays for, and is no part of it)."""
        return self.named_round if self.in_round else None

    @functools.cached_property
    def named_round(self) -> str | None:
        """The round the event names, whatever it is (the audit trail shows it)."""
        value = self.data.get("round_id", self.payload.get("round_id"))
        return None if value is None else str(value)

    @functools.cached_property
    def payload(self) -> Mapping[str, JSON]:
        """The fact's payload as domain.ledger.recall reads it (unwrapped if the event nests it)."""
        nested = self.data.get("payload")
        return nested if isinstance(nested, Mapping) else self.data


def recorded_event(
    domain_event: Any, position: int, topic: str = "", stored: str = ""
) -> RecordedEvent:
    """A library domain event, read by attribute names only."""
    attributes = dict(vars(domain_event))
    timestamp = attributes.get("timestamp")
    if not isinstance(timestamp, datetime):
        timestamp = datetime.now(UTC)
    elif timestamp.tzinfo is None:
        timestamp = timestamp.replace(tzinfo=UTC)
    return RecordedEvent(
        position=position,
        stream_id=str(attributes.get("originator_id")),
        version=int(attributes.get("originator_version", 0)),
        name=type(domain_event).__name__,
        timestamp=timestamp,
        data={k: _plain(v) for k, v in attributes.items() if k not in _ENVELOPE},
        digest=digest_of(domain_event, topic) if topic else "",
        stored=stored,
        topic=topic or get_topic(type(domain_event)),
    )


def _plain(value: Any) -> JSON:
    """JSON-ready values. What the store decodes from JSON already is; only an attribute the
    transcoder revives (a UUID, a datetime, bytes, a tuple) needs converting."""
    if value is None or isinstance(value, str | int | float | bool | list | dict):
        return value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return str(value)
