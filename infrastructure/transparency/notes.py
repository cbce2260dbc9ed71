"""Checkpoints as C2SP signed notes (c2sp.org/signed-note, tlog-checkpoint, tlog-cosignature).

A checkpoint's text is three lines: the log's origin, the tree size in decimal, the root hash in
standard base64. A signed note is the text, a blank line, then one line per signature:
`— <name> <base64(4-byte key id || signature)>`. Two signature types are used:
- 0x01, Ed25519 over the text: the log's own signature (key id = SHA-256(name || 0x0A || 0x01
  || public key)[:4]);
- 0x04, a witness's timestamped cosignature v1: Ed25519 over "cosignature/v1\\ntime <t>\\n" +
  the text, the line holding key id || 8-byte big-endian t || signature (key id with 0x04).
A verifier key is `<name>+<hex key id>+<base64(type || public key)>`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ED25519 = 0x01
COSIGNATURE_V1 = 0x04
DASH = "\u2014"  # the em dash that opens a signature line
MAX_SIGNATURES = 32


class NoteError(ValueError):
    """A note or key that does not parse, or a signature that does not verify."""


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes

    def text(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"


@dataclass(frozen=True)
class Signature:
    name: str
    key_id: bytes
    data: bytes  # what follows the key id

    def line(self) -> str:
        return f"{DASH} {self.name} {base64.b64encode(self.key_id + self.data).decode()}\n"


@dataclass(frozen=True)
class Verifier:
    name: str
    kind: int  # ED25519 or COSIGNATURE_V1
    public: bytes

    @property
    def key_id(self) -> bytes:
        return key_id(self.name, self.kind, self.public)

    def vkey(self) -> str:
        encoded = base64.b64encode(bytes([self.kind]) + self.public).decode()
        return f"{self.name}+{self.key_id.hex()}+{encoded}"


def key_id(name: str, kind: int, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def raw_public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw,
                                         serialization.PublicFormat.Raw)


def _check_name(name: str) -> str:
    if not name or any(c.isspace() or c == "+" for c in name):
        raise NoteError(f"a key name is non-empty, with no spaces nor '+': {name[:40]!r}")
    return name


def parse_vkey(vkey: str) -> Verifier:
    try:
        name, hex_id, encoded = vkey.strip().split("+", 2)
        raw = base64.b64decode(encoded, validate=True)
        wanted = bytes.fromhex(hex_id)
    except (ValueError, binascii.Error):
        raise NoteError("a verifier key is <name>+<hex key id>+<base64 key>") from None
    if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
        raise NoteError("only Ed25519 verifier keys (type 0x01 or 0x04) are known here")
    verifier = Verifier(_check_name(name), raw[0], raw[1:])
    if verifier.key_id != wanted:
        raise NoteError("the verifier key's id does not match its name and key")
    return verifier


def sign(text: str, name: str, key: Ed25519PrivateKey) -> Signature:
    """The log's signature line (type 0x01) over a note's text."""
    return Signature(_check_name(name), key_id(name, ED25519, raw_public(key)),
                     key.sign(text.encode()))


def cosign(text: str, name: str, key: Ed25519PrivateKey, timestamp: int) -> Signature:
    """A witness's tlog-cosignature v1 line over a checkpoint's text."""
    stamp = timestamp.to_bytes(8, "big")
    signed = key.sign(cosigned_message(text, timestamp))
    return Signature(_check_name(name), key_id(name, COSIGNATURE_V1, raw_public(key)),
                     stamp + signed)


def cosigned_message(text: str, timestamp: int) -> bytes:
    return f"cosignature/v1\ntime {timestamp}\n{text}".encode()


def note(text: str, signatures: list[Signature]) -> str:
    return text + "\n" + "".join(s.line() for s in signatures)


def split_note(signed: str) -> tuple[str, list[Signature]]:
    """(text, signature lines) of a signed note; the text ends at the last blank line."""
    if any(ord(c) < 0x20 and c != "\n" for c in signed) or not signed.endswith("\n"):
        raise NoteError("a signed note is UTF-8 text with no control characters, ending in "
                        "a newline")
    cut = signed.rfind("\n\n")
    if cut < 0:
        raise NoteError("a signed note has a blank line before its signatures")
    text, lines = signed[: cut + 1], signed[cut + 2 :].splitlines()
    if not lines or len(lines) > MAX_SIGNATURES:
        raise NoteError(f"a signed note has 1 to {MAX_SIGNATURES} signatures")
    signatures = []
    for line in lines:
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != DASH:
            raise NoteError(f"not a signature line: {line[:60]!r}")
        try:
            raw = base64.b64decode(parts[2], validate=True)
        except binascii.Error:
            raise NoteError("a signature is standard base64") from None
        if len(raw) < 5:
            raise NoteError("a signature holds a key id and a signature")
        signatures.append(Signature(_check_name(parts[1]), raw[:4], raw[4:]))
    return text, signatures


def verifies(text: str, signature: Signature, verifier: Verifier) -> bool:
    """Whether the line is the verifier's (name and key id) and its signature holds."""
    if signature.name != verifier.name or signature.key_id != verifier.key_id:
        return False
    public = Ed25519PublicKey.from_public_bytes(verifier.public)
    try:
        if verifier.kind == ED25519:
            public.verify(signature.data, text.encode())
        else:
            if len(signature.data) != 72:
                return False
            stamp = int.from_bytes(signature.data[:8], "big")
            public.verify(signature.data[8:], cosigned_message(text, stamp))
    except InvalidSignature:
        return False
    return True


def open_note(signed: str, verifier: Verifier) -> tuple[str, list[Signature]]:
    """The text and lines of a note signed by `verifier`; NoteError if it is not."""
    text, signatures = split_note(signed)
    mine = [s for s in signatures if s.name == verifier.name and s.key_id == verifier.key_id]
    if not mine or not all(verifies(text, s, verifier) for s in mine):
        raise NoteError(f"the note is not signed by {verifier.name}")
    return text, signatures


def parse_checkpoint(text: str) -> Checkpoint:
    lines = text.split("\n")
    if len(lines) < 4 or lines[-1] != "":
        raise NoteError("a checkpoint is origin, tree size and root hash, one a line")
    origin, size, root = lines[0], lines[1], lines[2]
    if not origin or not size.isdigit() or (size != "0" and size.startswith("0")):
        raise NoteError("a checkpoint's tree size is a decimal with no leading zeros")
    try:
        digest = base64.b64decode(root, validate=True)
    except binascii.Error:
        raise NoteError("a checkpoint's root hash is standard base64") from None
    if len(digest) != 32:
        raise NoteError("a checkpoint's root hash is 32 bytes")
    return Checkpoint(origin, int(size), digest)
