"""The transparency log follows the store like a read model: every stored event, in the store's
order (notification id), becomes the next leaf (infrastructure.transparency.leaves), its leaf
and the subtree hashes it completes written with the log's position in one transaction
(infrastructure.transparency.log_store). It runs behind the write, where the read models run
(`serve` with its projections: its own thread, or the parent process of `--workers N`;
`pumpkin projections run`; `pumpkin checkpoint`), never in a process answering spins.

A checkpoint is signed with the operator's log key when the tree has grown since the last one
(so a checkpoint keeps the cosignatures its tree was given): a C2SP signed note
(infrastructure.transparency.notes) whose origin and key name are the log's name.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.ledger.merkle import leaf_hash, root_hash
from infrastructure.store.event_rows import EventRows
from infrastructure.transparency.leaves import leaf_of_row
from infrastructure.transparency.log_store import LogStore
from infrastructure.transparency.notes import ED25519, Checkpoint, Verifier, note, raw_public, sign

PAGE = 2_000  # events per transaction of the log


def log_name(key: Ed25519PrivateKey) -> str:
    """The log's origin and key name: one per operator key, stable across restarts."""
    return f"pumpkin-rgs.log/{hashlib.sha256(raw_public(key)).hexdigest()[:16]}"


def log_verifier(key: Ed25519PrivateKey) -> Verifier:
    return Verifier(log_name(key), ED25519, raw_public(key))


@dataclass
class LogBuilder:
    application: Any

    def __post_init__(self) -> None:
        self.rows = EventRows(self.application)
        self.store = LogStore(self.rows)
        self.decode = self.application.mapper.to_domain_event
        self.transcoder = self.application.mapper.transcoder

    def follow(self, pages: int | None = None) -> int:
        """Take in the events stored since the log's position; how many leaves were added."""
        added = 0
        after = self.store.position()
        frontier = self.store.frontier(after[1])
        while pages is None or pages > 0:
            batch = self.rows.rows_after(after[0], PAGE)
            if not batch:
                break
            leaves: list[tuple[int, int, str | None, str]] = []
            nodes: list[tuple[int, int, bytes]] = []
            for row in batch:
                leaf, round_id = leaf_of_row(self.decode, row, self.transcoder)
                nodes.extend(frontier.append(leaf_hash(leaf)))
                leaves.append((frontier.size - 1, row.notification_id, round_id, leaf.decode()))
            self.store.append(after, batch[-1].notification_id, leaves, nodes)
            after = (batch[-1].notification_id, frontier.size)
            added += len(batch)
            if pages is not None:
                pages -= 1
        return added

    def sign_checkpoint(self, key: Ed25519PrivateKey) -> str | None:
        """Follow the store, then sign a checkpoint of the tree if it grew since the last
        one; the signed note (None: nothing new)."""
        self.follow()
        size = self.store.position()[1]
        newest = self.store.newest_checkpoint()
        if size == 0 or (newest is not None and newest[0] >= size):
            return None
        root = root_hash(size, self.store.node)
        name = log_name(key)
        text = Checkpoint(name, size, root).text()
        signed = note(text, [sign(text, name, key)])
        self.store.record_checkpoint(size, root.hex(), signed, datetime.now(UTC).isoformat())
        return signed

    def newest_checkpoint(self) -> str | None:
        """The newest signed checkpoint, with every witness cosignature it was given."""
        newest = self.store.newest_checkpoint()
        if newest is None:
            return None
        size, signed = newest
        return signed + "".join(self.store.cosignatures(size))
