"""The pages' secret key: PUMPKIN_PAGES_KEY, or else one generated on first use and kept in
PUMPKIN_PAGES_KEY_FILE (default `pumpkin-pages.key` in the working directory, mode 0600), so replay
links and console sign-ins survive a restart and every `serve` worker shares them.

Each use gets its own key derived from it (HMAC-SHA256 of the use's name), so a replay signature
can never stand in for a console cookie or the other way round."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
from pathlib import Path

_KEY_BYTES = 32


class PageKeys:
    def __init__(self, configured: str = "", key_file: str | Path = "pumpkin-pages.key") -> None:
        self._configured = configured
        self._key_file = Path(key_file)
        self._master: bytes | None = None
        self._lock = threading.Lock()

    def for_use(self, use: str) -> bytes:
        """The key of one use ("replay", "console"), derived from the master key."""
        return hmac.new(self._master_key(), use.encode(), hashlib.sha256).digest()

    def _master_key(self) -> bytes:
        with self._lock:
            if self._master is None:
                configured = self._configured.encode()
                self._master = configured or _key_from_file(self._key_file)
            return self._master


def _key_from_file(path: Path) -> bytes:
    """The key kept in `path`, made (once, atomically: O_EXCL) if it does not exist yet."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        text = path.read_text(encoding="ascii").strip()
        if len(text) < 2 * _KEY_BYTES:
            raise ValueError(f"{path} holds no pages key (64 hex digits expected)") from None
        return bytes.fromhex(text)
    key = secrets.token_bytes(_KEY_BYTES)
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write(key.hex() + "\n")
    return key
