"""Provably fair seeds (the game rules, section 8): pure functions, no randomness drawn here.

A session's server seed (256 bits) is committed before its first bet by its SHA-256; round n of
the session plays with HMAC-SHA256(key = server seed, message = "<session_id>:<n>:<client_seed>")
(UTF-8). Once the seed is revealed, anyone can check both with any SHA-256 / HMAC tool.
"""

from __future__ import annotations

import hashlib
import hmac
import re

from domain.errors import InvalidClientSeed

SERVER_SEED_BYTES = 32
_CLIENT_SEED = re.compile(r"[\x20-\x7e]{0,64}")


def check_client_seed(client_seed: object) -> str:
    if not isinstance(client_seed, str) or not _CLIENT_SEED.fullmatch(client_seed):
        raise InvalidClientSeed("a client seed is 0 to 64 printable ASCII characters")
    return client_seed


def commitment_of(server_seed: bytes) -> str:
    """The commitment answered when the session opens: SHA-256 of the server seed, hex."""
    return hashlib.sha256(server_seed).hexdigest()


def derivation_message(session_id: str, nonce: int, client_seed: str) -> str:
    return f"{session_id}:{nonce}:{client_seed}"


def round_seed(server_seed: bytes, session_id: str, nonce: int, client_seed: str) -> bytes:
    """The seed of the session's round `nonce` (1, 2, 3...)."""
    message = derivation_message(session_id, nonce, client_seed).encode("utf-8")
    return hmac.new(server_seed, message, hashlib.sha256).digest()
