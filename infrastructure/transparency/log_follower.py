"""The background thread of `serve` that keeps the transparency log behind the store: it takes
in new events every PUMPKIN_LOG_FOLLOW_SECONDS (0.5 s, so the log's lag stays small at any load,
and the spin path never waits on it) and signs a checkpoint every PUMPKIN_CHECKPOINT_SECONDS if
the tree grew.

One builder per store (infrastructure.transparency.log_lease): in `serve --workers N` only the
worker holding the lease follows and signs; the others ask for it at every turn, and take over
when its holder is gone."""

from __future__ import annotations

import time
from collections.abc import Callable

from infrastructure.background import Background
from infrastructure.transparency.log_builder import LogBuilder
from infrastructure.transparency.log_lease import LogLease

FOLLOW_SECONDS = 0.5


class LogFollower:
    def __init__(self, builder: LogBuilder, sign: Callable[[], object],
                 checkpoint_seconds: float, lease: LogLease | None = None,
                 follow_seconds: float = FOLLOW_SECONDS) -> None:
        self.builder = builder
        self.sign = sign
        self.checkpoint_seconds = checkpoint_seconds
        self.lease = lease
        self._next_checkpoint = time.monotonic() + checkpoint_seconds
        self._loop = Background("pumpkin-log", follow_seconds, self.turn, "log_follow_failed",
                                on_stop=lease.release if lease is not None else None)

    def leads(self) -> bool:
        return self.lease is None or self.lease.held()

    def turn(self) -> int:
        """Follow the store (and sign when due) if this process builds the log; leaves added."""
        if not self.leads():
            return 0
        added = self.builder.follow()
        if self.checkpoint_seconds > 0 and time.monotonic() >= self._next_checkpoint:
            self.sign()
            self._next_checkpoint = time.monotonic() + self.checkpoint_seconds
        return added

    def start(self) -> LogFollower:
        self._loop.start()
        return self

    def stop(self) -> None:
        self._loop.stop()
