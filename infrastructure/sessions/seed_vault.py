"""Unrevealed server seeds, kept secret at rest: AES-256-GCM under the service's seed key.

The seed of an open session is stored only sealed (in its SessionOpened event, hex of
nonce || ciphertext, the session id as associated data so a sealed seed cannot be moved to
another session). Whoever can read the store but not the key learns nothing; the service opens
it for each round and reveals it in clear when the session closes.

The key: PUMPKIN_SEED_KEY (64 hex), else the key file (PUMPKIN_SEED_KEY_FILE; by default next
to the SQLite database, `<db>.seed-key`, or `./pumpkin-seed.key` for PostgreSQL), created with
a fresh random key at first start (mode 0600) and read on every start after, so a restart keeps
open sessions playable. Losing the key makes open sessions unplayable and unrevealable: back it
up with the database.
"""

from __future__ import annotations

import secrets
import threading
from pathlib import Path

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from infrastructure.key_files import read_or_create

KEY_BYTES = 32
_NONCE_BYTES = 12
_CACHED = 100_000
_PROCESS_VAULT: SeedVault | None = None
_PROCESS_LOCK = threading.Lock()


class SeedVault:
    def __init__(self, key: bytes) -> None:
        if len(key) != KEY_BYTES:
            raise ValueError("the seed key is 32 bytes (64 hex digits)")
        self._aead = AESGCM(key)
        self._opened: dict[str, bytes] = {}  # session id -> seed, for the rounds that follow
        self._lock = threading.Lock()

    @classmethod
    def for_this_process(cls) -> SeedVault:
        """One vault per process whose key dies with it: for applications built without the
        configured key (tests, tools that only read). Never the service's: bootstrap passes
        the configured one."""
        global _PROCESS_VAULT  # noqa: PLW0603 - one per process, by design
        with _PROCESS_LOCK:
            if _PROCESS_VAULT is None:
                _PROCESS_VAULT = cls(secrets.token_bytes(KEY_BYTES))
            return _PROCESS_VAULT

    def seal(self, session_id: str, seed: bytes) -> str:
        nonce = secrets.token_bytes(_NONCE_BYTES)
        return (nonce + self._aead.encrypt(nonce, seed, session_id.encode("utf-8"))).hex()

    def open(self, session_id: str, sealed: str) -> bytes:
        seed = self._opened.get(session_id)
        if seed is None:
            raw = bytes.fromhex(sealed)
            nonce, ciphertext = raw[:_NONCE_BYTES], raw[_NONCE_BYTES:]
            seed = self._aead.decrypt(nonce, ciphertext, session_id.encode("utf-8"))
            with self._lock:
                if len(self._opened) >= _CACHED:
                    self._opened.clear()
                self._opened[session_id] = seed
        return seed

    def forget(self, session_id: str) -> None:
        with self._lock:
            self._opened.pop(session_id, None)


def default_key_file(database_url: str) -> Path:
    """Next to the SQLite database; in the working directory for a server database."""
    if database_url.startswith("sqlite:///"):
        return Path(database_url.removeprefix("sqlite:///") + ".seed-key")
    return Path("pumpkin-seed.key")


def load_seed_key(configured_hex: str, key_file: Path) -> bytes:
    """The configured key, else the key file's (created with a random key the first time)."""
    if configured_hex:
        return _parse(configured_hex, "PUMPKIN_SEED_KEY")
    text = read_or_create(key_file, lambda: (secrets.token_bytes(KEY_BYTES).hex() + "\n").encode())
    return _parse(text.decode("ascii", "replace").strip(), str(key_file))


def _parse(text: str, where: str) -> bytes:
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise ValueError(f"{where}: the seed key is 64 hex digits")
    return key
