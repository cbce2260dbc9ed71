"""The permanent names of stored classes, and how an event's schema changes.

A stored event (and an aggregate, whose name its Created event and its snapshots record) is
found again by its TOPIC, the name written beside it in the store. That name must outlive any
refactor: moving or renaming a module must not orphan a stream or break its hash chain, which
covers the name (domain.ledger.hashchain). So:

- Every stored class sets `TOPIC` in its OWN class body (eventsourcing 9.5 stores a class's
  `TOPIC` as its topic and registers it at import, so the name resolves wherever the class
  lives; a subclass inherits its parent's, so every concrete class sets its own).
- The classes of the first release keep the name the store already holds, their Python path
  at the time (e.g. `"domain.player:Player.StakePlaced"`); it is frozen now and never edited.
- A NEW stored class is named `TOPIC = "pumpkin:<Aggregate>.<Event>"` (an aggregate:
  `"pumpkin:<Aggregate>"`), e.g. `TOPIC = "pumpkin:Player.SeedRevealed"`.
- A name is never reused, never changed; tests/integration/audit/test_event_names.py holds them
  unique and set.
- Once an aggregate has a TOPIC, the library refuses (at import) any event class in its body
  without one, including the `Created` it derives by itself when the body does not define it:
  define `class Created(Aggregate.Created)` with a TOPIC too (see SessionKey). An event made by
  the `@event` decorator takes its name as `@event("Name", topic="pumpkin:<Aggregate>.<Name>")`.

Changing what an event holds goes through versions, the library's upcasting: raise the class's
`class_version` (absent means 1) and add a static `upcast_v1_v2(state: dict) -> None` (then
`upcast_v2_v3`, ...) that rewrites, in place, a stored state of the older version into the
newer one (e.g. a new field's value for events written before it existed). New events are
written with their `class_version`; older ones are upcast as they are read. The hash chain
covers an event as it was WRITTEN, not as upcast: the mapper (infrastructure.store.json_mapper)
records the digest of the stored state on an upcast event (domain.ledger.hashchain.STORED_DIGEST).

Reading, a stored name is looked up in the product's own registry (`stored_class`), never
imported: a row naming anything else (`this:s`, a module of the standard library) is
UnknownTopic, which verify reports as `unknown_topic`. Each module that defines stored classes
registers them where they are defined (`register_aggregate`, `register_stored`).
"""

from __future__ import annotations

from eventsourcing.utils import get_topic

NEW_NAME_PREFIX = "pumpkin:"
_REGISTRY: dict[str, type] = {}


class UnknownTopic(LookupError):
    """A stored row names a class that is not one of the product's own."""


def stored_name(cls: type) -> str:
    """The name a class is stored under (its TOPIC), as the hash chain covers it."""
    return get_topic(cls)


def register_stored(cls: type, name: str | None = None) -> None:
    """Make `cls` readable under its stored name (or `name`, for a library class)."""
    topic = name or stored_name(cls)
    known = _REGISTRY.get(topic)
    if known is not None and known is not cls:
        raise ValueError(f"stored name {topic!r} is already {known.__qualname__}'s")
    _REGISTRY[topic] = cls


def register_aggregate(aggregate: type) -> None:
    """An aggregate and every event class named on it (`Player.StakePlaced`)."""
    register_stored(aggregate)
    for attribute, value in vars(aggregate).items():
        if isinstance(value, type) and attribute != "Event" and hasattr(value, "mutate"):
            register_stored(value)


def stored_class(topic: str) -> type:
    """The product's class stored under `topic`; UnknownTopic for any other name."""
    try:
        return _REGISTRY[topic]
    except KeyError:
        raise UnknownTopic(f"{topic[:80]!r} is not the name of one of the product's stored "
                           "classes") from None

