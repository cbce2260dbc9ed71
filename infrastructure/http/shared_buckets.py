"""Token buckets that every `serve` process of one server shares.

`serve --workers N` runs N processes; a limit kept in each process's memory is really N times
the setting (and an attacker's connections are spread over all N). So the buckets live in one
small table mapped into every worker's memory: a file the supervisor creates before starting the
workers (its path in the environment, SHARED_LIMITS_ENV), mapped with mmap and updated under an
exclusive flock. An update is two 8-byte reads and writes under a lock held for microseconds:
no store round trip, no extra process, and nothing to run or configure besides `serve` itself.
(A database-backed counter would cost a store transaction per request; a Redis-like service is
one more thing to run.) A single process uses the same table in anonymous memory.

The table has a fixed number of slots (a keyed fingerprint of the key picks one, its key random
per server, so no caller can aim at another's slot), so it never grows whatever an attacker
sends; two keys that share a slot share an allowance, which can only make a limit stricter,
never looser. Times are CLOCK_MONOTONIC, which every process on the host shares.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import mmap
import os
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Iterator

SHARED_LIMITS_ENV = "PUMPKIN_SHARED_LIMITS_FILE"  # set by the supervisor, not by an operator
SLOTS = 1 << 16
_SLOT = struct.Struct("dd")  # tokens left, last refill (monotonic seconds); 0, 0 = unused
_SALT_BYTES = 16  # the table starts with a random salt: slots cannot be aimed at from outside
TABLE_BYTES = _SALT_BYTES + SLOTS * _SLOT.size


@contextlib.contextmanager
def shared_table_file() -> Iterator[str]:
    """A zeroed table file for the workers about to start (its path exported to them), removed
    when the server stops."""
    in_memory = "/dev/shm" if os.path.isdir("/dev/shm") else None  # noqa: S108 - Linux tmpfs
    handle, path = tempfile.mkstemp(prefix="pumpkin-limits-", dir=in_memory)
    try:
        os.ftruncate(handle, TABLE_BYTES)
        os.pwrite(handle, os.urandom(_SALT_BYTES), 0)
        os.close(handle)
        os.environ[SHARED_LIMITS_ENV] = path
        yield path
    finally:
        os.environ.pop(SHARED_LIMITS_ENV, None)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


class SharedBuckets:
    def __init__(
        self, path: str | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """path: the supervisor's table file (shared with the other workers); None: this
        process only."""
        self.clock = clock
        self._thread_lock = threading.Lock()
        self._fd: int | None = None
        if path is None:
            self._table = mmap.mmap(-1, TABLE_BYTES)
            self._table[:_SALT_BYTES] = os.urandom(_SALT_BYTES)
        else:
            self._fd = os.open(path, os.O_RDWR)
            self._table = mmap.mmap(self._fd, TABLE_BYTES)
        self._salt = bytes(self._table[:_SALT_BYTES])

    def take(self, key: str, rate: float, burst: float) -> bool:
        """Take one token from `key`'s bucket (refilled at `rate` a second, holding at most
        `burst`); False if it has none."""
        return self._update(key, rate, burst, take=True)

    def has_token(self, key: str, rate: float, burst: float) -> bool:
        """Whether `key`'s bucket has a token, taking none."""
        return self._update(key, rate, burst, take=False)

    def close(self) -> None:
        self._table.close()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _update(self, key: str, rate: float, burst: float, take: bool) -> bool:
        # Written out, not with context managers: this runs on every request (bench/RESULTS.md).
        fingerprint = hashlib.blake2b(key.encode(), digest_size=8, key=self._salt).digest()
        offset = _SALT_BYTES + (int.from_bytes(fingerprint, "little") & (SLOTS - 1)) * _SLOT.size
        fd = self._fd
        with self._thread_lock:
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                now = self.clock()
                tokens, last = _SLOT.unpack_from(self._table, offset)
                if last == 0.0:
                    tokens, last = burst, now
                tokens = min(burst, tokens + max(0.0, now - last) * rate)
                allowed: bool = tokens >= 1.0
                if allowed and take:
                    tokens -= 1.0
                _SLOT.pack_into(self._table, offset, tokens, now)
            finally:
                if fd is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)
        return allowed
