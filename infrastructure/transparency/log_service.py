"""What the HTTP API answers from the transparency log: the newest checkpoint with its
cosignatures, the log's verifier key, consistency proofs between checkpointed sizes, a round's
inclusion proof up to a signed checkpoint, and witnesses' cosignatures taken in."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.errors import RuleViolation
from domain.ledger.merkle import consistency_proof, inclusion_proof, leaf_hash
from infrastructure.audit.checkpoints import load_signing_key
from infrastructure.transparency.log_builder import LogBuilder, log_verifier
from infrastructure.transparency.log_store import LogStore
from infrastructure.transparency.notes import NoteError, open_note

RETRY_SECONDS = 60  # a round not yet in a checkpoint: one is signed at least this often


class NotInCheckpoint(RuleViolation):
    code = "not_in_checkpoint"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class InvalidQuery(RuleViolation):
    code = "invalid_query"


class InvalidCosignature(RuleViolation):
    code = "invalid_cosignature"


class NoCheckpoint(RuleViolation):
    code = "no_checkpoint"


def inclusion_of(store: LogStore, round_id: str) -> dict[str, Any] | None:
    """The round's settling leaf and its RFC 9162 inclusion proof up to the newest signed
    checkpoint (with its cosignatures); None until a checkpoint covers the round."""
    found = store.leaf_for_round(round_id)
    newest = store.newest_checkpoint()
    if found is None or newest is None or newest[0] <= found[0]:
        return None
    index, leaf = found
    size, signed = newest
    return {
        "leaf": leaf,
        "leaf_index": index,
        "leaf_hash": leaf_hash(leaf.encode()).hex(),
        "tree_size": size,
        "root_hash": store.checkpoints_root(size),
        "inclusion": [node.hex() for node in inclusion_proof(index, size, store.node)],
        "checkpoint": signed + "".join(store.cosignatures(size)),
    }


@dataclass
class TransparencyLog:
    """Built by the composition root; the log and the operator's key are opened on first use."""

    application: Any
    key_file: Path
    retry_seconds: int = RETRY_SECONDS

    @cached_property
    def builder(self) -> LogBuilder:
        return LogBuilder(self.application)

    @cached_property
    def key(self) -> Ed25519PrivateKey:
        key = load_signing_key(self.key_file)
        assert key is not None  # created on first use
        return key

    def checkpoint(self) -> str:
        newest = self.builder.newest_checkpoint()
        if newest is None:
            raise NoCheckpoint("no checkpoint has been signed yet")
        return newest

    def vkey(self) -> str:
        return log_verifier(self.key).vkey()

    def consistency(self, first: int, second: int) -> list[str]:
        store = self.builder.store
        if not 0 < first < second or store.checkpoint_at(first) is None or (
            store.checkpoint_at(second) is None
        ):
            raise InvalidQuery("first < second, both tree sizes of signed checkpoints")
        return [node.hex() for node in consistency_proof(first, second, store.node)]

    def round_proof(self, round_id: str) -> dict[str, Any]:
        proof = inclusion_of(self.builder.store, round_id)
        if proof is None:
            raise NotInCheckpoint(f"no signed checkpoint covers round {round_id} yet",
                                  self.retry_seconds)
        return proof

    def add_cosignatures(self, cosigned: str) -> int:
        """Keep the cosignature lines of a checkpoint of this log; how many were new."""
        try:
            text, lines = open_note(cosigned, log_verifier(self.key))
        except NoteError as exc:
            raise InvalidCosignature(f"not a checkpoint signed by this log: {exc}") from None
        store = self.builder.store
        size = int(text.split("\n")[1])
        signed = store.checkpoint_at(size)
        if signed is None or not signed.startswith(text):
            raise InvalidCosignature("not one of this log's checkpoints")
        witnesses = [line for line in lines if len(line.data) == 72
                     and line.name != log_verifier(self.key).name]
        if not witnesses:
            raise InvalidCosignature("no timestamped cosignature (tlog-cosignature v1) in it")
        known = set(store.cosignatures(size))
        for line in witnesses:
            store.add_cosignature(size, line.line())
        return len({line.line() for line in witnesses} - known)
