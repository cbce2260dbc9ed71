"""A token bucket per credential: `rate` requests a second, bursts up to `rate`."""

from __future__ import annotations

import time

_MAX_TRACKED = 100_000


class RateLimiter:
    def __init__(self, rate_per_second: int) -> None:
        self.rate = float(rate_per_second)
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, last refill)

    def allow(self, key: str) -> bool:
        """Take one token for `key`. Called from the event loop only, so no lock is needed."""
        if self.rate <= 0:
            return True
        now = time.monotonic()
        tokens, last = self._buckets.get(key, (self.rate, now))
        tokens = min(self.rate, tokens + (now - last) * self.rate)
        if len(self._buckets) >= _MAX_TRACKED:
            self._buckets.clear()  # forget idle credentials rather than grow without bound
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - 1.0, now)
        return True
