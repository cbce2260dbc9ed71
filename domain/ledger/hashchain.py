"""The tamper-evident chain of a stream: each event carries the SHA-256 of the event before it.

The digest covers the event as STORED: its stream (originator id), version, topic and every state
field (timestamp and prev_hash included), encoded canonically (sorted keys, compact JSON). It is
computed the same way on a freshly triggered event and on one decoded from the store, so a
checker reading the store back (the regulator's verify) sees what the writer saw.

The hash input is versioned (the chain rule, stored beside the event's fields as `chain_rule`):
- rule 1 (every event written before rule 2; read as such when the key is absent): the record
  {originator_id, originator_version, topic, state}; the event's `class_version` was outside it,
  so removing it changed an event's meaning (a free round read as a paid one) unseen.
- rule 2 (every event written now): {chain_rule: 2, originator_id, originator_version, topic,
  class_version, state}: everything that gives a stored event its meaning. Removing the rule's
  key reads the event under rule 1, whose digest is not the one its successor (or the
  transparency log) chained: the downgrade is a broken link too.

What a chain proves: a changed payload, a deleted event (version gap), swapped events and an
event forged with a wrong prev_hash all break a link. The stream's LAST event has no successor
to vouch for it; compare it with an anchor (e.g. the head a snapshot recorded) when one exists.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import orjson

GENESIS = "0" * 64  # the prev_hash of a stream's first event
CHAIN_RULE = 2  # the hash rule events are written with
CHAIN_RULE_KEY = "chain_rule"  # beside the state fields in a stored event (never an attribute)
# Set by the mapper on an event upcast from an older version: the digest of its state as stored
# (domain.ledger.event_names). Not a field of the event: event_state leaves it out.
STORED_DIGEST = "_stored_digest"
ENVELOPE = ("originator_id", "originator_version", STORED_DIGEST)


def _encode_value(value: object) -> object:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, UUID):
        return value.hex
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (tuple, frozenset)):
        return list(value)
    raise TypeError(f"cannot encode {type(value).__name__} in a chained event")


_CANONICAL = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


def canonical_json(value: object) -> bytes:
    """Sorted keys, compact, UTF-8: byte for byte what `json.dumps(value, sort_keys=True,
    separators=(",", ":"), ensure_ascii=False, default=_encode_value)` writes (a property test
    holds the two equal), faster: it runs for every event written and checked. The one
    difference is the spelling of a float under 1e-4 (0.00001, not 1e-05); no event carries one
    (money and multipliers are integers; the first release's multipliers were 1.0-3.0).
    """
    return orjson.dumps(value, default=_encode_value, option=_CANONICAL)


def event_digest(
    originator_id: UUID | str,
    originator_version: int,
    topic: str,
    state: Mapping[str, Any],
    class_version: int | None = None,
) -> str:
    """SHA-256 (hex) of one stored event: envelope and every state field, canonically encoded;
    with `class_version` under rule 2 (which covers it), without it under rule 1."""
    record: dict[str, Any] = {
        "originator_id": str(originator_id),
        "originator_version": originator_version,
        "topic": topic,
        "state": state if type(state) is dict else dict(state),
    }
    if class_version is not None:
        record[CHAIN_RULE_KEY] = CHAIN_RULE
        record["class_version"] = class_version
    return hashlib.sha256(canonical_json(record)).hexdigest()


def stored_digest(
    originator_id: UUID | str, originator_version: int, topic: str, state: Mapping[str, Any],
    rule: int, class_version: int,
) -> str:
    """The digest of an event as stored under `rule` (its state without the rule's key nor
    class_version)."""
    if rule == 1:
        return event_digest(originator_id, originator_version, topic, state)
    if rule == CHAIN_RULE:
        return event_digest(originator_id, originator_version, topic, state, class_version)
    raise ValueError(f"unknown chain rule {rule!r}")


def event_state(event: object) -> dict[str, Any]:
    """The stored state fields of a domain event (everything but its stream and version)."""
    state = dict(vars(event))  # a copy, then the envelope out: cheaper than filtering
    for name in ENVELOPE:
        state.pop(name, None)
    return state


def digest_of(event: object, topic: str) -> str:
    """The digest of a domain event object, freshly triggered or decoded from the store (of the
    state it was stored with, if it was upcast since)."""
    stored: str | None = vars(event).get(STORED_DIGEST)
    if stored is not None:
        return stored
    return event_digest(
        getattr(event, "originator_id"),  # noqa: B009 - any event-shaped object
        getattr(event, "originator_version"),  # noqa: B009
        topic,
        event_state(event),
        getattr(type(event), "class_version", 1),
    )


@dataclass(frozen=True)
class ChainedEvent:
    """One event as the checker needs it (what a store gives back, decoded)."""

    stream: str
    version: int
    topic: str
    state: Mapping[str, Any]
    stored_digest: str | None = None  # of the state as stored, when `state` was upcast since
    class_version: int | None = None  # None: rule 1 (the class version outside the hash)

    @property
    def prev_hash(self) -> str:
        return str(self.state.get("prev_hash", ""))

    @property
    def digest(self) -> str:
        if self.stored_digest is not None:
            return self.stored_digest
        return event_digest(self.stream, self.version, self.topic, self.state, self.class_version)


@dataclass(frozen=True)
class Problem:
    stream: str
    version: int
    kind: str  # version_gap | broken_link | bad_genesis | anchor_mismatch
    detail: str


def chained(event: object, topic: str) -> ChainedEvent:
    return ChainedEvent(
        stream=str(getattr(event, "originator_id")),  # noqa: B009
        version=int(getattr(event, "originator_version")),  # noqa: B009
        topic=topic,
        state=event_state(event),
        stored_digest=vars(event).get(STORED_DIGEST),
        class_version=getattr(type(event), "class_version", 1),
    )


def check_chain(
    events: Iterable[ChainedEvent], anchors: Mapping[str, tuple[int, str]] | None = None
) -> list[Problem]:
    """Problems found in streams given event by event in stored (version) order.

    `anchors` maps a stream to a (version, digest) known from elsewhere (a snapshot's head),
    which also vouches for the event at that version even if it is the stream's last.
    """
    problems: list[Problem] = []
    last: dict[str, ChainedEvent] = {}
    for event in events:
        before = last.get(event.stream)
        if before is None:
            if event.version == 1 and event.prev_hash not in (GENESIS, ""):
                problems.append(
                    Problem(event.stream, 1, "bad_genesis", "first event's prev_hash is not empty")
                )
            elif event.version != 1:
                problems.append(
                    Problem(event.stream, event.version, "version_gap",
                            f"stream starts at version {event.version}, not 1")
                )
        elif event.version != before.version + 1:
            problems.append(
                Problem(event.stream, event.version, "version_gap",
                        f"version {before.version} is followed by {event.version}")
            )
        elif event.prev_hash != before.digest:
            problems.append(
                Problem(event.stream, event.version, "broken_link",
                        f"prev_hash does not match version {before.version}: that event was "
                        "changed, swapped or this one forged")
            )
        anchor = (anchors or {}).get(event.stream)
        if anchor is not None and anchor[0] == event.version and anchor[1] != event.digest:
            problems.append(
                Problem(event.stream, event.version, "anchor_mismatch",
                        "event differs from the head anchored elsewhere")
            )
        last[event.stream] = event
    return problems
