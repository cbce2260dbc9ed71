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
"""

from __future__ import annotations

from eventsourcing.utils import get_topic

NEW_NAME_PREFIX = "pumpkin:"


def stored_name(cls: type) -> str:
    """The name a class is stored under (its TOPIC), as the hash chain covers it."""
    return get_topic(cls)
