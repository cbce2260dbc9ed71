"""Whether the read models keep up (CONTRACT.md "The operator's seamless wallet": a failing view
is never silent): the views failing now, each with its position and error, and how many batches
each failed in all, as the projections' runner records them, wherever it runs (this process, a
`pumpkin projections run`, or `serve --workers N`'s parent). The composition root hands in how
to read them (infrastructure imports no projections module).

GET /health says "degraded" with the failing views; GET /metrics has
pumpkin_read_model_errors_total{view}; the console shows a banner. The store is asked at most
once a second, whoever asks (/health is open to anyone), and never from the event loop.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, Metric

from infrastructure.logging import get_logger

log = get_logger("pumpkin.health")

# () -> (view -> {"position", "error"} for each failing now, view -> batches failed in all)
HealthRead = Callable[[], tuple[dict[str, dict[str, Any]], dict[str, int]]]
MAX_AGE_SECONDS = 1.0


class ReadModelsHealth:
    def __init__(
        self, read: HealthRead, max_age: float = MAX_AGE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._read = read
        self.max_age = max_age
        self.clock = clock
        self._lock = threading.Lock()
        self._known: tuple[dict[str, dict[str, Any]], dict[str, int]] = ({}, {})
        self._read_at: float | None = None

    def refresh(self) -> None:
        """Ask the store again, unless it was asked less than max_age ago (blocking)."""
        with self._lock:
            now = self.clock()
            if self._read_at is not None and now - self._read_at < self.max_age:
                return
            try:
                self._known = self._read()
            except Exception:  # noqa: BLE001 - what was known stands; the store may be away
                log.warning("read_models_health_unread", exc_info=True)
            self._read_at = now

    async def refreshed(self) -> None:
        """refresh() in a worker thread, when the last reading is too old."""
        at = self._read_at
        if at is None or self.clock() - at >= self.max_age:
            await asyncio.to_thread(self.refresh)

    def failing(self) -> dict[str, dict[str, Any]]:
        """The views failing now, as last read: view -> {"position", "error"}."""
        return dict(self._known[0])

    def errors(self) -> dict[str, int]:
        return dict(self._known[1])

    # -- /metrics ------------------------------------------------------------------------------

    def bind_metrics(self, registry: CollectorRegistry) -> None:
        registry.register(self)

    def describe(self) -> list[Metric]:
        return [self._family()]

    def collect(self) -> Iterator[Metric]:
        family = self._family()
        for view, count in sorted(self.errors().items()):
            family.add_metric([view], count)
        yield family

    @staticmethod
    def _family() -> CounterMetricFamily:
        return CounterMetricFamily(
            "pumpkin_read_model_errors",
            "Batches a read model failed to project (it is retried alone, the others go on)",
            labels=["view"],
        )
