"""The background thread of `serve` that keeps the transparency log behind the store: it takes
in new events every FOLLOW_SECONDS (so the log's lag stays small at any load, and the spin path
never waits on it) and signs a checkpoint every PUMPKIN_CHECKPOINT_SECONDS if the tree grew."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from infrastructure.logging import get_logger
from infrastructure.transparency.log_builder import LogBuilder

FOLLOW_SECONDS = 0.5
log = get_logger("pumpkin.log")


class LogFollower:
    def __init__(self, builder: LogBuilder, sign: Callable[[], object],
                 checkpoint_seconds: float) -> None:
        self.builder = builder
        self.sign = sign
        self.checkpoint_seconds = checkpoint_seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pumpkin-log", daemon=True)

    def start(self) -> LogFollower:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _run(self) -> None:
        next_checkpoint = time.monotonic() + self.checkpoint_seconds
        while not self._stop.wait(FOLLOW_SECONDS):
            try:
                self.builder.follow()
                if self.checkpoint_seconds > 0 and time.monotonic() >= next_checkpoint:
                    self.sign()
                    next_checkpoint = time.monotonic() + self.checkpoint_seconds
            except Exception:  # noqa: BLE001 - the store may be down (or another worker
                log.warning("log_follow_failed", exc_info=True)  # took the turn): retry
