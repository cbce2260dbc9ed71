"""One builder of the transparency log per store: `serve --workers N` starts a log follower in
every worker, and the one holding the lease builds and signs while the others only read (the
log is in the store: every worker answers proofs from it). If the holder dies its lease goes
with it, and the next follower to ask takes it over.

- PostgreSQL: a session-level advisory lock (pg_try_advisory_lock), held on a connection of the
  lease's own for as long as the process lives (a dead process's connection ends, and the lock
  with it);
- SQLite: an exclusive, non-blocking flock on `<database>.log-lock` (released by the kernel
  when the process ends);
- an in-memory store is one process's alone: its follower always leads.
A second writer that takes the lease anyway (a race, or `pumpkin checkpoint` beside `serve`)
is still refused by the log's tables themselves (log_store: the leaves' key).
"""

from __future__ import annotations

import fcntl
import os
import time
from typing import Any

import psycopg

from infrastructure.store.database_url import is_postgres, postgres_address, sqlite_path

LOG_LOCK = 0x70756D706B6C6F67  # advisory lock key of the log's builder ("pumpklog")
ASK_EVERY_SECONDS = 5.0  # a follower without the lease asks again this often, not every turn


class LogLease:
    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self._connection: Any = None
        self._file: int | None = None
        self._memory = database_url.endswith(":memory:")
        self._asked_at = -ASK_EVERY_SECONDS

    def held(self) -> bool:
        """Whether this process builds the log (taking the lease if it is free; a process
        without it asks at most every ASK_EVERY_SECONDS: on PostgreSQL asking opens a
        connection)."""
        if self._memory or self._connection is not None or self._file is not None:
            return True
        now = time.monotonic()
        if now - self._asked_at < ASK_EVERY_SECONDS:
            return False
        self._asked_at = now
        if is_postgres(self.database_url):
            return self._take_postgres()
        return self._take_file(sqlite_path(self.database_url) + ".log-lock")

    def _take_postgres(self) -> bool:
        connection = psycopg.connect(postgres_address(self.database_url).conninfo(),
                                     autocommit=True)
        row = connection.execute("SELECT pg_try_advisory_lock(%s)", (LOG_LOCK,)).fetchone()
        if row is not None and row[0]:
            self._connection = connection
            return True
        connection.close()
        return False

    def _take_file(self, path: str) -> bool:
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            return False
        self._file = handle
        return True

    def ask_now(self) -> None:
        """Ask again at the next turn (the holder is known to be gone)."""
        self._asked_at = -ASK_EVERY_SECONDS

    def release(self) -> None:
        if self._connection is not None:
            self._connection.close()  # the advisory lock ends with its session
            self._connection = None
        if self._file is not None:
            os.close(self._file)  # and the flock with its file
            self._file = None
