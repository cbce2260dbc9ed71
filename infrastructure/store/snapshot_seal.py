"""Snapshots the running service can trust: each bound to its stream under a key the database
does not hold, so one written by anyone else is ignored.

A snapshot only speeds loading, and the service acts on what it loads: a snapshot row rewritten
by someone with write access to the database (an exclusion removed, a campaign of 1,000 free
rounds added, even with the right chain head) must never become the state a command decides on.
So every snapshot the service writes is a SealedSnapshot (stored topic `pumpkin:SealedSnapshot`)
carrying `seal` = hex HMAC-SHA256(key, canonical JSON of [stream id, version, aggregate topic,
state]) (the state as the store's transcoder writes it, keys sorted; it holds `chain_head`, the
digest of the event the snapshot stands at), the key derived from the service's seed key
(infrastructure/sessions/seed_vault.py: PUMPKIN_SEED_KEY or its key file, kept outside the
database). A snapshot is used only if its seal verifies AND its chain head is the digest of the
stored event at its version (so a sealed snapshot cannot stand for a rewritten history). Any
other is ignored: the aggregate is replayed from its events (the truth), an error is logged,
and a sealed snapshot of the replayed state is written at once.

Snapshots written before seals existed (topic `eventsourcing.domain:Snapshot`) are treated the
same way: never trusted, replaced by a sealed one the first time their aggregate is loaded.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass
from typing import Any

import orjson
from eventsourcing.domain import Aggregate, Snapshot
from eventsourcing.persistence import Transcoder
from eventsourcing.utils import register_topic

from domain.ledger.event_names import register_stored

_SEAL_KEY_LABEL = b"pumpkin snapshot seal v1"
_PROCESS_SEAL: SnapshotSeal | None = None
_PROCESS_LOCK = threading.Lock()


@dataclass(frozen=True)
class SealedSnapshot(Snapshot):
    TOPIC = "pumpkin:SealedSnapshot"
    seal: str


register_topic(SealedSnapshot.TOPIC, SealedSnapshot)
register_stored(SealedSnapshot)
# Snapshots written before seals existed: read, never trusted (replaced at the first load).
register_stored(Snapshot, "eventsourcing.domain:Snapshot")


class SnapshotSeal:
    def __init__(self, key: bytes) -> None:
        self._key = key

    @classmethod
    def from_seed_key(cls, seed_key: bytes) -> SnapshotSeal:
        """The seal of the service whose seed key this is (a key of its own, derived)."""
        return cls(hmac.new(seed_key, _SEAL_KEY_LABEL, hashlib.sha256).digest())

    @classmethod
    def for_this_process(cls) -> SnapshotSeal:
        """For stores opened without the service's key (tests, tools that only read): snapshots
        sealed under it are trusted by this process alone."""
        global _PROCESS_SEAL  # noqa: PLW0603 - one per process, by design
        with _PROCESS_LOCK:
            if _PROCESS_SEAL is None:
                _PROCESS_SEAL = cls(secrets.token_bytes(32))
            return _PROCESS_SEAL

    def sealed_snapshot(self, aggregate: Aggregate, transcoder: Transcoder) -> SealedSnapshot:
        taken = Snapshot.take(aggregate)
        return SealedSnapshot(
            originator_id=taken.originator_id,
            originator_version=taken.originator_version,
            timestamp=taken.timestamp,
            topic=taken.topic,
            state=taken.state,
            seal=self._seal_of(taken, transcoder),
        )

    def verifies(self, snapshot: object, transcoder: Transcoder, chain_head_at: str) -> bool:
        """Whether the snapshot is one of ours, unchanged, standing at an event whose digest is
        `chain_head_at` (the stored event at the snapshot's version)."""
        if not isinstance(snapshot, SealedSnapshot):
            return False
        if not hmac.compare_digest(snapshot.seal, self._seal_of(snapshot, transcoder)):
            return False
        return snapshot.state.get("chain_head") == chain_head_at

    def _seal_of(self, snapshot: Snapshot, transcoder: Transcoder) -> str:
        message = canonical_snapshot(snapshot, transcoder)
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()


def canonical_snapshot(snapshot: Snapshot, transcoder: Transcoder) -> bytes:
    """[stream id, version, aggregate topic, state] as canonical JSON (sorted keys, no spaces):
    what a seal covers. The state is written by the store's transcoder (value objects in their
    stored layouts), so a state decoded from the store reads the same as the one written."""
    state: Any = orjson.loads(transcoder.encode(snapshot.state))
    record = [str(snapshot.originator_id), snapshot.originator_version, snapshot.topic, state]
    return orjson.dumps(record, option=orjson.OPT_SORT_KEYS)
