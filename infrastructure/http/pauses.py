"""What holds up the event loop, for /metrics: how late the loop wakes, and the collector's pauses.

Every spin of a server process waits on one event loop, so anything that holds the loop delays
every spin in flight. A full collection over the start-up heap once held it every few seconds
(bootstrap.settle_heap; bench/RESULTS.md); these two histograms let an operator see such a
stall without a profiler: `pumpkin_event_loop_lag_seconds` (how much later than asked a short
sleep woke) and `pumpkin_gc_pause_seconds` by generation.
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from infrastructure.http.metrics import Metrics

PROBE_SECONDS = 0.1


class PauseWatch:
    def __init__(self, metrics: Metrics, probe_seconds: float = PROBE_SECONDS) -> None:
        self._metrics = metrics
        self._probe_seconds = probe_seconds
        self._collecting_since = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """From inside the running loop (the app's lifespan)."""
        gc.callbacks.append(self._on_collection)
        self._task = asyncio.get_running_loop().create_task(self._probe())

    def stop(self) -> None:
        if self._on_collection in gc.callbacks:
            gc.callbacks.remove(self._on_collection)
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _probe(self) -> None:
        lag = self._metrics.event_loop_lag
        while True:
            asked = time.perf_counter() + self._probe_seconds
            await asyncio.sleep(self._probe_seconds)
            lag.observe(max(0.0, time.perf_counter() - asked))

    def _on_collection(self, phase: str, info: dict[str, Any]) -> None:
        # A collection can start at any depth, even at the recursion limit (a hostile body nested
        # thousands deep being parsed): there a pause's sample is dropped, never an error raised.
        try:
            if phase == "start":
                self._collecting_since = time.perf_counter()
                return
            pause = time.perf_counter() - self._collecting_since
            self._metrics.gc_pause.labels(str(info["generation"])).observe(pause)
        except RecursionError:
            return
