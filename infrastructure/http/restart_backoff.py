"""When the supervisor starts a dead worker again: after a second, then later and later.

A worker that keeps failing at start (a bad database URL, a port taken, a broken deploy) was
started again once a second forever (issue 17, finding 12): a log line and a process spawn a
second, and the store hammered with connection attempts. Each consecutive failure here doubles
the wait (first, 2x, 4x, ... up to `cap`); a worker that served for `healthy_after` seconds
before dying starts the count again. The clock is injected, so tests move time.
"""

from __future__ import annotations

import time
from collections.abc import Callable

FIRST_SECONDS = 1.0
CAP_SECONDS = 60.0
HEALTHY_AFTER_SECONDS = 30.0


class RestartBackoff:
    def __init__(
        self,
        first: float = FIRST_SECONDS,
        cap: float = CAP_SECONDS,
        healthy_after: float = HEALTHY_AFTER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.first = first
        self.cap = cap
        self.healthy_after = healthy_after
        self.clock = clock
        self._started: dict[int, float] = {}
        self._failures: dict[int, int] = {}
        self._due: dict[int, float] = {}

    def started(self, worker: int) -> None:
        self._started[worker] = self.clock()
        self._due.pop(worker, None)

    def died(self, worker: int) -> float:
        """Note the worker's death; the seconds until it may be started again."""
        now = self.clock()
        if now - self._started.get(worker, now) >= self.healthy_after:
            self._failures[worker] = 0  # it had served: this is a new run of failures
        failures = self._failures.get(worker, 0) + 1
        self._failures[worker] = failures
        delay = min(self.cap, self.first * 2.0 ** (failures - 1))
        self._due[worker] = now + delay
        return delay

    def waiting(self, worker: int) -> bool:
        """Dead and not yet due to start again."""
        return worker in self._due and self.clock() < self._due[worker]

    def due(self, worker: int) -> bool:
        """Dead and due to start again now."""
        return worker in self._due and self.clock() >= self._due[worker]
