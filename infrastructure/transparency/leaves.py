"""A stored row as a leaf of the transparency log: the same rule for the log that follows the
store (infrastructure.transparency.log_builder) and for verify recomputing it from the events
alone (infrastructure.audit.stream_check), so the two agree on an honest store and differ
wherever a row was changed, removed, reordered or inserted after the log took it in."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from domain.ledger.chain_link import ChainLink
from domain.ledger.event_names import UnknownTopic, stored_class
from domain.ledger.hashchain import (
    CHAIN_RULE,
    CHAIN_RULE_KEY,
    STORED_DIGEST,
    digest_of,
    event_digest,
)
from domain.ledger.merkle import log_leaf
from domain.ledger.round_events import RoundSettled
from infrastructure.store.event_rows import StoredRow
from infrastructure.store.json_mapper import plain_state_raw


def raw_digest(state: bytes) -> str:
    """The hash a row that does not decode stands under (it is named by verify as well)."""
    return "raw:" + hashlib.sha256(state).hexdigest()


def leaf_of_event(
    row: StoredRow, event: Any | None, digest: str | None = None
) -> tuple[bytes, str | None]:
    """The leaf of a row decoded as `event` (None: it does not decode; `digest`: its chained
    hash, when the caller has it), and the round it settles, if it does."""
    if event is None:
        return log_leaf(row.stream, row.version, row.topic, raw_digest(row.state), None), None
    round_id = str(event.round_id) if isinstance(event, RoundSettled) else None
    digest = digest if digest is not None else digest_of(event, row.topic)
    return log_leaf(row.stream, row.version, row.topic, digest, round_id), round_id


def leaf_of_row(
    decode: Callable[[StoredEvent], Any], row: StoredRow, transcoder: Any = None
) -> tuple[bytes, str | None]:
    """The row's leaf, from its stored bytes alone when they are a plain state stored at its
    class's version and chain rule (fast_leaf), else from the event the mapper decodes."""
    if transcoder is not None:
        fast = fast_leaf(row, transcoder)
        if fast is not None:
            return fast
    try:
        event = decode(StoredEvent(UUID(row.stream), row.version, row.topic, row.state))
    except Exception:  # noqa: BLE001 - a row that does not decode still takes its place
        event = None
    return leaf_of_event(row, event)


def fast_leaf(row: StoredRow, transcoder: Any) -> tuple[bytes, str | None] | None:
    """The leaf leaf_of_row gives, without building the event: the state read by orjson (the
    mapper's own fast read, infrastructure.store.json_mapper), its timestamp kept as the ISO
    text it is stored as (what the digest encodes the datetime to, when it reads back to the
    same text), for a row of a product class stored at its current class version and (a
    chained one) under the current chain rule; None for any other row (read the slow way)."""
    try:
        cls = stored_class(row.topic)
    except UnknownTopic:
        return None
    state = plain_state_raw(row.state)
    if state is None or STORED_DIGEST in state or not ENVELOPE_FREE.isdisjoint(state):
        return None
    current = getattr(cls, "class_version", 1)
    if state.pop("class_version", 1) != current:
        return None
    rule = state.pop(CHAIN_RULE_KEY, 1)
    if issubclass(cls, ChainLink) and rule != CHAIN_RULE:
        return None
    stamp = state.get("timestamp")
    if stamp is not None:
        if type(stamp) is not dict or stamp.get("_type_") != "datetime_iso" or len(stamp) != 2:
            return None
        text = stamp.get("_data_")
        if type(text) is not str or _iso_again(text) != text:
            return None
        state["timestamp"] = text
    round_id = None
    if cls is RoundSettled:
        round_id = state.get("round_id")
        if type(round_id) is not str:
            return None
    digest = event_digest(row.stream, row.version, row.topic, state, current)
    return log_leaf(row.stream, row.version, row.topic, digest, round_id), round_id


ENVELOPE_FREE = frozenset({"originator_id", "originator_version"})


def _iso_again(text: str) -> str | None:
    try:
        return datetime.fromisoformat(text).isoformat()
    except ValueError:
        return None
