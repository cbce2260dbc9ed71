"""Request limits, shared by every process of one `serve` (infrastructure/http/shared_buckets.py):

- per credential: `rate` requests a second for one key or token, bursts up to `rate`;
- failed authentication per client address: `failures_per_minute` wrong secrets, by any route
  (a bearer key or token that names nobody, a wrong key at the console's sign-in: one budget),
  then 429 for every attempt from that address, the right secret included, until the budget
  refills (so guessing costs the store nothing once it is spent, and a right guess made then
  is refused like the rest);
- requests without credentials per client address: `anonymous_per_second`.

The client address is the connection's peer: behind a reverse proxy every client shares the
proxy's address (set the limits for it, or turn them off with 0 there and limit at the proxy).
`X-Forwarded-For` is not trusted: any caller can write it.
"""

from __future__ import annotations

import math

from infrastructure.http.shared_buckets import SharedBuckets


class RateLimiter:
    def __init__(
        self,
        rate_per_second: int,
        failures_per_minute: int = 0,
        anonymous_per_second: int = 0,
        buckets: SharedBuckets | None = None,
    ) -> None:
        self.rate = float(rate_per_second)
        self.failures_per_minute = float(failures_per_minute)
        self.anonymous_per_second = float(anonymous_per_second)
        self.buckets = buckets if buckets is not None else SharedBuckets()

    def allow(self, key: str) -> bool:
        """Take one token for the credential `key` (a digest of the secret)."""
        return self.rate <= 0 or self.buckets.take("credential:" + key, self.rate, self.rate)

    def may_try_credentials(self, address: str) -> bool:
        """Whether `address` has failed authentication allowance left (takes none)."""
        per_minute = self.failures_per_minute
        return per_minute <= 0 or self.buckets.has_token(
            "failed:" + address, per_minute / 60.0, per_minute
        )

    def retry_after_seconds(self) -> int:
        """How long a locked-out address waits for one more attempt, at most."""
        return max(1, math.ceil(60.0 / self.failures_per_minute)) if self.failures_per_minute else 1

    def failed(self, address: str) -> None:
        """`address` presented a secret that names nobody."""
        per_minute = self.failures_per_minute
        if per_minute > 0:
            self.buckets.take("failed:" + address, per_minute / 60.0, per_minute)

    def allow_anonymous(self, address: str) -> bool:
        """Take one token for a request without credentials from `address`."""
        rate = self.anonymous_per_second
        return rate <= 0 or self.buckets.take("anonymous:" + address, rate, rate)
