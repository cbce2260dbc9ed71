"""Signed checkpoints: every stream's head anchored outside the stream, so a deletion at the end
of a stream (which its hash chain cannot show: nothing comes after to vouch for it) is caught.

A checkpoint lists, for every stream in the store, its last version and the SHA-256 of that
stored row (stream, version, topic and state bytes, exactly as stored); the heads are the leaves
of a Merkle tree (leaf = SHA-256(0x00 || "<stream>:<version>:<hash>"), node = SHA-256(0x01 ||
left || right), an odd node carried up), leaves ordered by stream id. The root, the count and
the time are signed with the operator's Ed25519 key (PUMPKIN_CHECKPOINT_KEY_FILE; by default
`<db>.checkpoint-key` next to a SQLite database, else ./pumpkin-checkpoint.key; created at first
use). The document carries its public key, so a regulator checks it with the public key alone
(and compares that key with the one the operator gave them).

Checking a store against a checkpoint: a stream missing or shorter than its recorded head is
`truncated`; a row at the recorded head that hashes differently is `head_mismatch`. A document
whose signature or root does not hold is `bad_signature` / `merkle_mismatch`; one signed by a
key other than the expected one is `unknown_signer`.

Checkpoints are stored in their own table (pumpkin_checkpoints) beside the events, not in an
event stream: they are about the streams, and one holds every stream's head.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from infrastructure.key_files import read_or_create
from infrastructure.store.event_rows import EventRows, StoredRow

FORMAT = "pumpkin-checkpoint/1"
TABLE = "pumpkin_checkpoints"


# -- the document ---------------------------------------------------------------------------------


def head_hash(row: StoredRow) -> str:
    digest = hashlib.sha256()
    for part in (row.stream.encode(), str(row.version).encode(), row.topic.encode()):
        digest.update(len(part).to_bytes(4, "big") + part)
    digest.update(row.state)
    return digest.hexdigest()


def merkle_root(heads: dict[str, tuple[int, str]]) -> str:
    level = [
        hashlib.sha256(b"\x00" + f"{stream}:{version}:{digest}".encode()).digest()
        for stream, (version, digest) in sorted(heads.items())
    ]
    if not level:
        return hashlib.sha256(b"").hexdigest()
    while len(level) > 1:
        paired = [
            hashlib.sha256(b"\x01" + level[i] + level[i + 1]).digest()
            for i in range(0, len(level) - 1, 2)
        ]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0].hex()


def _signed_part(document: dict[str, Any]) -> bytes:
    signed = {k: document[k] for k in ("format", "created_at", "streams", "merkle_root")}
    return json.dumps(signed, sort_keys=True, separators=(",", ":")).encode()


def public_key_hex(key: Ed25519PrivateKey) -> str:
    raw = key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    return raw.hex()


def make_checkpoint(rows: Iterable[StoredRow], key: Ed25519PrivateKey) -> dict[str, Any]:
    heads = {row.stream: (row.version, head_hash(row)) for row in rows}
    document: dict[str, Any] = {
        "format": FORMAT,
        "created_at": datetime.now(UTC).isoformat(),
        "streams": len(heads),
        "merkle_root": merkle_root(heads),
        "heads": {stream: [version, digest] for stream, (version, digest) in sorted(heads.items())},
        "public_key": public_key_hex(key),
    }
    document["signature"] = key.sign(_signed_part(document)).hex()
    return document


def _problem(kind: str, detail: str, stream: str | None = None, version: int = 0,
             expected: Any = None, found: Any = None, field: str | None = None) -> dict[str, Any]:
    return {"kind": kind, "stream": stream, "player_id": None, "version": version,
            "round_id": None, "field": field, "expected": expected, "found": found,
            "detail": detail}


def check_document(document: dict[str, Any], trusted_key: str | None) -> list[dict[str, Any]]:
    """The checkpoint itself: its signature (with its public key alone), its root, its signer."""
    problems: list[dict[str, Any]] = []
    try:
        heads = {s: (int(v), str(h)) for s, (v, h) in document["heads"].items()}
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(document["public_key"]))
        public.verify(bytes.fromhex(document["signature"]), _signed_part(document))
    except (InvalidSignature, KeyError, ValueError, TypeError) as exc:
        return [_problem("bad_signature", f"the checkpoint's signature does not hold ({exc!r})",
                         field="signature")]
    root = merkle_root(heads)
    if root != document["merkle_root"] or len(heads) != document["streams"]:
        problems.append(_problem("merkle_mismatch", "the heads listed are not the signed ones",
                                 expected=document["merkle_root"], found=root,
                                 field="merkle_root"))
    if trusted_key is not None and document["public_key"] != trusted_key:
        problems.append(_problem("unknown_signer", "signed by another key than the operator's",
                                 expected=trusted_key, found=document["public_key"],
                                 field="public_key"))
    return problems


def check_store(document: dict[str, Any], rows: EventRows) -> list[dict[str, Any]]:
    """The store against the checkpoint: every recorded head still there, byte for byte."""
    problems: list[dict[str, Any]] = []
    for stream, (version, digest) in sorted(document["heads"].items()):
        row = rows.row_at(stream, int(version))
        if row is None:
            problems.append(_problem(
                "truncated", "the stream no longer reaches the head the checkpoint recorded: "
                "events were deleted from its end", stream, int(version),
                expected=int(version), field="originator_version"))
        elif head_hash(row) != digest:
            problems.append(_problem(
                "head_mismatch", "the event at the recorded head differs from the one signed",
                stream, int(version), expected=digest, found=head_hash(row), field="state"))
    return problems


def verify_checkpoint(
    document: dict[str, Any], rows: EventRows, trusted_key: str | None
) -> list[dict[str, Any]]:
    problems = check_document(document, trusted_key)
    if not any(p["kind"] == "bad_signature" for p in problems):
        problems.extend(check_store(document, rows))
    return problems


# -- the operator's key ---------------------------------------------------------------------------


def default_key_file(database_url: str) -> Path:
    if database_url.startswith("sqlite:///") and not database_url.endswith(":memory:"):
        return Path(database_url.removeprefix("sqlite:///") + ".checkpoint-key")
    return Path("pumpkin-checkpoint.key")


def load_signing_key(path: Path, create: bool = True) -> Ed25519PrivateKey | None:
    """The operator's key from its PEM file (created with a new key the first time)."""
    if not create and not path.exists():
        return None
    pem = read_or_create(path, lambda: Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"{path}: not an Ed25519 private key")
    return key


# -- the store's checkpoints ----------------------------------------------------------------------


def _execute(
    rows: EventRows, statement: str, params: tuple[Any, ...] = (), fetch: bool = False
) -> list[Any]:
    if not rows.postgres:
        statement = statement.replace("%s", "?")
    with rows.datastore.transaction(commit=not fetch) as cursor:
        cursor.execute(statement, params)
        return list(cursor.fetchall()) if fetch else []


def _ensure_table(rows: EventRows) -> None:
    key = "BIGSERIAL PRIMARY KEY" if rows.postgres else "INTEGER PRIMARY KEY AUTOINCREMENT"
    _execute(rows, f"CREATE TABLE IF NOT EXISTS {TABLE} (id {key}, created_at TEXT NOT NULL, "
                   "merkle_root TEXT NOT NULL, document TEXT NOT NULL)")


def record_checkpoint(application: Any, key: Ed25519PrivateKey) -> dict[str, Any]:
    """A checkpoint of the whole store, signed and stored."""
    rows = EventRows(application)
    document = make_checkpoint(rows.heads(), key)
    _ensure_table(rows)
    _execute(rows, f"INSERT INTO {TABLE} (created_at, merkle_root, document) VALUES (%s, %s, %s)",
             (document["created_at"], document["merkle_root"], json.dumps(document)))
    return document


def latest_checkpoint(application: Any) -> dict[str, Any] | None:
    rows = EventRows(application)
    _ensure_table(rows)
    found = _execute(rows, f"SELECT document FROM {TABLE} ORDER BY id DESC LIMIT 1", fetch=True)
    return json.loads(found[0]["document"]) if found else None
