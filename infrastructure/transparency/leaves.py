"""A stored row as a leaf of the transparency log: the same rule for the log that follows the
store (infrastructure.transparency.log_builder) and for verify recomputing it from the events
alone (infrastructure.audit.stream_check), so the two agree on an honest store and differ
wherever a row was changed, removed, reordered or inserted after the log took it in."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from domain.ledger.hashchain import digest_of
from domain.ledger.merkle import log_leaf
from domain.ledger.round_events import RoundSettled
from infrastructure.store.event_rows import StoredRow


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
    decode: Callable[[StoredEvent], Any], row: StoredRow
) -> tuple[bytes, str | None]:
    try:
        event = decode(StoredEvent(UUID(row.stream), row.version, row.topic, row.state))
    except Exception:  # noqa: BLE001 - a row that does not decode still takes its place
        event = None
    return leaf_of_event(row, event)
