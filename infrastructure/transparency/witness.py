"""`pumpkin witness`: what a regulator runs beside the service, with its own key and its own
state. It fetches the newest checkpoint, checks the log's signature with the verifier key it
pinned (never one read from the operator's store), checks that the checkpoint extends the last
one it cosigned (kept in its state directory) by an RFC 9162 consistency proof, then adds its
own tlog-cosignature v1 line and hands the cosigned note back (POST /log/cosignatures).

A checkpoint signed by another key is refused as `bad_signature`, one that does not extend
what it cosigned before (smaller, another root at the same size, or no valid proof) as
`inconsistent`: the witness never cosigns a fork, so a rewritten history cannot be made to look
witnessed.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.ledger.merkle import ProofError, check_consistency
from infrastructure.transparency.notes import (
    COSIGNATURE_V1,
    Checkpoint,
    NoteError,
    Verifier,
    cosign,
    note,
    open_note,
    parse_checkpoint,
    parse_vkey,
    raw_public,
)

STATE_FILE = "checkpoint"  # the text of the last checkpoint cosigned
_HEADER = "pumpkin-witness "


class WitnessRefusal(Exception):
    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


@dataclass(frozen=True)
class WitnessKey:
    name: str
    key: Ed25519PrivateKey

    def verifier(self) -> Verifier:
        return Verifier(self.name, COSIGNATURE_V1, raw_public(self.key))


def new_key(path: Path, name: str) -> WitnessKey:
    """A new witness key, written to `path` (mode 0600) with its name."""
    witness = WitnessKey(name, Ed25519PrivateKey.generate())
    witness.verifier()  # the name is checked here
    pem = witness.key.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()).decode()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(f"{_HEADER}{name}\n{pem}")
    return witness


def load_key(path: Path) -> WitnessKey:
    header, _, pem = path.read_text(encoding="utf-8").partition("\n")
    if not header.startswith(_HEADER):
        raise NoteError(f"{path}: not a witness key file (pumpkin witness --new-key)")
    key = serialization.load_pem_private_key(pem.encode(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise NoteError(f"{path}: not an Ed25519 key")
    return WitnessKey(header.removeprefix(_HEADER).strip(), key)


def witness_once(client: Any, log_vkey: str, witness: WitnessKey, state: Path,
                 auditor_key: str, now: int | None = None) -> Checkpoint:
    """Cosign the log's newest checkpoint if it is signed by the pinned key and consistent
    with the last one cosigned; WitnessRefusal otherwise. `client`: an HTTP client whose base
    URL is the service's."""
    signed = client.get("/log/checkpoint").text
    try:
        text, lines = open_note(signed, parse_vkey(log_vkey))
        checkpoint = parse_checkpoint(text)
    except NoteError as exc:
        raise WitnessRefusal("bad_signature", str(exc)) from None
    state.mkdir(parents=True, exist_ok=True)
    kept = state / STATE_FILE
    if kept.exists():
        _check_extends(client, parse_checkpoint(kept.read_text(encoding="utf-8")), checkpoint)
    line = cosign(text, witness.name, witness.key, int(time.time()) if now is None else now)
    answer = client.post("/log/cosignatures", content=note(text, [*lines, line]),
                         headers={"Authorization": f"Bearer {auditor_key}"})
    if answer.status_code != 201:
        raise WitnessRefusal("not_accepted", f"the log answered {answer.status_code}: "
                                             f"{answer.text[:200]}")
    temporary = state / f"{STATE_FILE}.new"
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(kept)
    return checkpoint


def _check_extends(client: Any, last: Checkpoint, new: Checkpoint) -> None:
    if last.origin != new.origin:
        raise WitnessRefusal("inconsistent", f"another log: {new.origin!r}, not {last.origin!r}")
    if new.size < last.size or (new.size == last.size and new.root != last.root):
        raise WitnessRefusal("inconsistent", f"the tree of {new.size} does not extend the "
                                             f"tree of {last.size} this witness cosigned")
    if new.size == last.size:
        return
    answer = client.get(f"/log/consistency?first={last.size}&second={new.size}")
    try:
        proof = [bytes.fromhex(node) for node in answer.json()["proof"]]
        check_consistency(last.size, new.size, last.root, new.root, proof)
    except (ProofError, ValueError, KeyError, TypeError) as exc:
        raise WitnessRefusal("inconsistent", f"no valid consistency proof from {last.size} "
                                             f"to {new.size}: {exc}") from None
