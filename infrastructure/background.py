"""The loop every background thread of `serve` runs (the idle-session sweeper, the transparency
log's follower): a daemon thread calling `step` every `interval` seconds until stopped; a step
that fails is logged under the thread's own event name and tried again at the next turn (the
store may be down for a while)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from infrastructure.logging import get_logger

log = get_logger("pumpkin.background")


class Background:
    def __init__(self, name: str, interval: float, step: Callable[[], object],
                 failed: str, on_stop: Callable[[], object] | None = None) -> None:
        self.interval = interval
        self.step = step
        self.failed = failed
        self.on_stop = on_stop
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> Background:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                try:
                    self.step()
                except Exception:  # noqa: BLE001 - logged; the next turn tries again
                    log.warning(self.failed, exc_info=True)
        finally:
            if self.on_stop is not None:
                self.on_stop()
